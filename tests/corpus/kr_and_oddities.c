/* kr_and_oddities.c: old, rare and lexically odd but valid C.
 *
 * K&R (identifier-list) function definitions with parameter declarations in any
 * order, unprototyped declarations, type specifiers in unusual orders (int unsigned
 * long long, char signed, long double), typedef and static not first in a declaration,
 * register and auto, empty declarations at file scope, digraphs, line splices inside
 * identifiers, keywords, operators and strings, $ and UTF-8 / universal-character-name
 * identifiers, identifiers that are keywords in C++ or that start with a C keyword,
 * comments in every odd place (between any two tokens, inside directives, spanning
 * lines inside a #define, a line comment glued to a block comment, which C89 read as
 * a division), division by a dereference written a / *p, - -x written with a comment
 * between, return(x), a very long line, and one name used in every name space at once.
 */
#include <stdio.h>      /* a comment after an include */
#include <string.h>     // and a line comment after one

;                       /* an empty declaration at file scope */

/* K&R definitions */
int kr_add(a, b) int a, b; { return a + b; }
int kr_mixed(a, b, c)
    char *c;            /* declared in a different order than listed */
    int a;
    register int b;
{
    return a * 100 + b * 10 + (*c - '0');
}
long kr_unlisted(n) long n; { return n; }
int unprototyped();
int unprototyped(x) int x; { return x + 1; }
static int empty_params() { return 5; }

/* specifier order */
int unsigned long long big_one = 1;
char signed sc = -1;
long int long also_ll = 2;
double long ld = 0.5;
short unsigned int su = 65535;
volatile const int vc = 3;
#ifndef __clang__
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-declaration"
#endif
int typedef int_t;
unsigned long typedef ulong_t;
int const static late_static = 4;
#ifndef __clang__
#pragma GCC diagnostic pop
#endif

/* digraphs */
%:define DIGRAPH_PASTE(a, b) a %:%: b
%:define DIGRAPH_STR(a) %:a
static int digraph_array<:3:> = <%1, 2, 3%>;

/* line splices */
#define SPLICED_MACRO(x) \
    ((x) \
     + 1)
st\
atic int spl\
iced_name = 7;

/* identifiers */
int $dollar = 10, mid$dle = 20;
int café = 30;                 /* UTF-8 in an identifier */
int naïve_count = 40;
int class = 1, new = 2, this = 3, template = 4, namespace = 5, delete = 6, operator = 7;
int int_ = 8, iffy = 9, returned = 10, do_ = 11, sizeof_x = 12, typedef_name = 13, _Bool_like = 14;

/* a multi-line comment inside a directive: the directive goes on after it */
#define MACRO_WITH_COMMENT 1 /* this comment
   spans two lines */ + 1

/* one name in every name space: tag, member, variable, label, macro-free */
struct same { int same; } same = {99};

/* comments between tokens */
static int big_one_int = 6;
static int /* between specifier and declarator */ *
/* between star and name */ commented_ptr /* before = */ = /* before & */ &big_one_int;

static const short long_line[] = {0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65,66,67,68,69,70,71,72,73,74,75,76,77,78,79,80,81,82,83,84,85,86,87,88,89,90,91,92,93,94,95,96,97,98,99,100,101,102,103,104,105,106,107,108,109,110,111,112,113,114,115,116,117,118,119,120,121,122,123,124,125,126,127,128,129,130,131,132,133,134,135,136,137,138,139,140,141,142,143,144,145,146,147,148,149,150,151,152,153,154,155,156,157,158,159,160,161,162,163,164,165,166,167,168,169,170,171,172,173,174,175,176,177,178,179,180,181,182,183,184,185,186,187,188,189,190,191,192,193,194,195,196,197,198,199,200,201,202,203,204,205,206,207,208,209,210,211,212,213,214,215,216,217,218,219,220,221,222,223,224,225,226,227,228,229,230,231,232,233,234,235,236,237,238,239,240,241,242,243,244,245,246,247,248,249,250,251,252,253,254,255,256,257,258,259,260,261,262,263,264,265,266,267,268,269,270,271,272,273,274,275,276,277,278,279,280,281,282,283,284,285,286,287,288,289,290,291,292,293,294,295,296,297,298,299,300,301,302,303,304,305,306,307,308,309,310,311,312,313,314,315,316,317,318,319,320,321,322,323,324,325,326,327,328,329,330,331,332,333,334,335,336,337,338,339,340,341,342,343,344,345,346,347,348,349,350,351,352,353,354,355,356,357,358,359,360,361,362,363,364,365,366,367,368,369,370,371,372,373,374,375,376,377,378,379,380,381,382,383,384,385,386,387,388,389,390,391,392,393,394,395,396,397,398,399,400,401,402,403,404,405,406,407,408,409,410,411,412,413,414,415,416,417,418,419,420,421,422,423,424,425,426,427,428,429,430,431,432,433,434,435,436,437,438,439,440,441,442,443,444,445,446,447,448,449,450,451,452,453,454,455,456,457,458,459,460,461,462,463,464,465,466,467,468,469,470,471,472,473,474,475,476,477,478,479,480,481,482,483,484,485,486,487,488,489,490,491,492,493,494,495,496,497,498,499,500,501,502,503,504,505,506,507,508,509,510,511,512,513,514,515,516,517,518,519,520,521,522,523,524,525,526,527,528,529,530,531,532,533,534,535,536,537,538,539,540,541,542,543,544,545,546,547,548,549,550,551,552,553,554,555,556,557,558,559,560,561,562,563,564,565,566,567,568,569,570,571,572,573,574,575,576,577,578,579,580,581,582,583,584,585,586,587,588,589,590,591,592,593,594,595,596,597,598,599,600,601,602,603,604,605,606,607,608,609,610,611,612,613,614,615,616,617,618,619,620,621,622,623,624,625,626,627,628,629,630,631,632,633,634,635,636,637,638,639,640,641,642,643,644,645,646,647,648,649,650,651,652,653,654,655,656,657,658,659,660,661,662,663,664,665,666,667,668,669,670,671,672,673,674,675,676,677,678,679,680,681,682,683,684,685,686,687,688,689,690,691,692,693,694,695,696,697,698,699,700,701,702,703,704,705,706,707,708,709,710,711,712,713,714,715,716,717,718,719,720,721,722,723,724,725,726,727,728,729,730,731,732,733,734,735,736,737,738,739,740,741,742,743,744,745,746,747,748,749,750,751,752,753,754,755,756,757,758,759,760,761,762,763,764,765,766,767,768,769,770,771,772,773,774,775,776,777,778,779,780,781,782,783,784,785,786,787,788,789,790,791,792,793,794,795,796,797,798,799,800,801,802,803,804,805,806,807,808,809,810,811,812,813,814,815,816,817,818,819,820,821,822,823,824,825,826,827,828,829,830,831,832,833,834,835,836,837,838,839,840,841,842,843,844,845,846,847,848,849,850,851,852,853,854,855,856,857,858,859,860,861,862,863,864,865,866,867,868,869,870,871,872,873,874,875,876,877,878,879,880,881,882,883,884,885,886,887,888,889,890,891,892,893,894,895,896,897,898,899,900,901,902,903,904,905,906,907,908,909,910,911,912,913,914,915,916,917,918,919,920,921,922,923,924,925,926,927,928,929,930,931,932,933,934,935,936,937,938,939,940,941,942,943,944,945,946,947,948,949,950,951,952,953,954,955,956,957,958,959,960,961,962,963,964,965,966,967,968,969,970,971,972,973,974,975,976,977,978,979,980,981,982,983,984,985,986,987,988,989,990,991,992,993,994,995,996,997,998,999,1000,1001,1002,1003,1004,1005,1006,1007,1008,1009,1010,1011,1012,1013,1014,1015,1016,1017,1018,1019,1020,1021,1022,1023,1024,1025,1026,1027,1028,1029,1030,1031,1032,1033,1034,1035,1036,1037,1038,1039,1040,1041,1042,1043,1044,1045,1046,1047,1048,1049,1050,1051,1052,1053,1054,1055,1056,1057,1058,1059,1060,1061,1062,1063,1064,1065,1066,1067,1068,1069,1070,1071,1072,1073,1074,1075,1076,1077,1078,1079,1080,1081,1082,1083,1084,1085,1086,1087,1088,1089,1090,1091,1092,1093,1094,1095,1096,1097,1098,1099,1100,1101,1102,1103,1104,1105,1106,1107,1108,1109,1110,1111,1112,1113,1114,1115,1116,1117,1118,1119,1120,1121,1122,1123,1124,1125,1126,1127,1128,1129,1130,1131,1132,1133,1134,1135,1136,1137,1138,1139,1140,1141,1142,1143,1144,1145,1146,1147,1148,1149,1150,1151,1152,1153,1154,1155,1156,1157,1158,1159,1160,1161,1162,1163,1164,1165,1166,1167,1168,1169,1170,1171,1172,1173,1174,1175,1176,1177,1178,1179,1180,1181,1182,1183,1184,1185,1186,1187,1188,1189,1190,1191,1192,1193,1194,1195,1196,1197,1198,1199};

int main(/* no parameters */ void) /* before the body */
{
    int x = 5, *p = &x, y;
    int r89 = 10 //**/ 2
        ;                       /* C99 reads a line comment here; C89 read 10 / 2 */
    y = x / *p;                 /* division by *p, not a comment */
    printf("comments %d %d\n", r89, y);
    y = -/**/-x;                /* - -x, not --x */
    printf("minus minus %d %d\n", y, x +/**/+ x);
    printf("kr %d %d %ld %d %d\n", kr_add(2, 3), kr_mixed(1, 2, "7"), kr_unlisted(8), unprototyped(9),
           empty_params());
    printf("specifiers %llu %d %lld %.1Lf %u %d %d\n", big_one, sc, also_ll, ld, su, vc, late_static);
    int_t it = 3;
    ulong_t ut = 4;
    printf("typedefs %d %lu\n", it, ut);
    printf("digraphs %d %d %s\n", digraph_array<:2:>, DIGRAPH_PASTE(x, ) + DIGRAPH_PASTE(1, 2),
           DIGRAPH_STR(hello));
    in\
t splice_local = SPLICED_MACRO(spliced_name);
    splice_local +\
= 1;
    goto return_value;
    re\
turn_value: ;
    printf("splices %d %s\n", splice_local, "str\
ing");
    printf("identifiers %d %d %d %d %d\n", $dollar, mid$dle, café, caf\u00e9 + 1, naïve_count);
    printf("c++ words %d\n", class + new + this + template + namespace + delete + operator);
    printf("prefixed %d\n", int_ + iffy + returned + do_ + sizeof_x + typedef_name + _Bool_like);
    printf("comment in macro %d\n", MACRO_WITH_COMMENT);
    printf("commented ptr %d\n", *commented_ptr);
    register int reg = 3;
    auto int automatic = 4;
    printf("storage %d\n", reg * automatic);
    goto same;
same:
    printf("same %d\n", same.same);
    long total = 0;
    for (size_t i = 0; i < sizeof long_line / sizeof long_line[0]; i++) total += long_line[i];
    printf("long line %zu %ld\n", sizeof long_line / sizeof long_line[0], total);
    if (strlen("\
") == 0) return(0);
    return(1);
}
