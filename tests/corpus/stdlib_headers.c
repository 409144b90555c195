#define _GNU_SOURCE     /* must stay first: asprintf and M_PI depend on it */
/* stdlib_headers.c: the standard and POSIX headers, and the type names they declare.
 *
 * stdio, stdlib, string, stdint, stdbool, stddef, stdarg, limits, math, errno, assert,
 * setjmp, signal, time, ctype, inttypes, sys/types.h, sys/socket.h, netinet/in.h,
 * arpa/inet.h, poll.h, unistd.h and fcntl.h, each used for something that is printed.
 * Header typedef names appear where only a type name parses: `T *p = q;`, casts,
 * sizeof(T), compound literals, parameter lists, and next to a variable of a similar name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdarg.h>
#include <limits.h>
#include <math.h>
#include <errno.h>
#include <assert.h>
#include <setjmp.h>
#include <signal.h>
#include <time.h>
#include <ctype.h>
#include <inttypes.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <unistd.h>
#include <fcntl.h>

static jmp_buf env;
static volatile sig_atomic_t got_signal;

static void on_signal(int sig) { got_signal = sig == SIGUSR1 ? 1 : -1; }

static int depth_reached;
static void deeper(int level);
static void deep(int level)
{
    depth_reached++;
    if (level > 0)
        deeper(level - 1);
    else
        longjmp(env, 42);
}
static void deeper(int level) { deep(level); }

static int vsum(size_t n, va_list ap)
{
    int s = 0;
    while (n--) s += va_arg(ap, int);
    return s;
}

static int sum(size_t n, ...)
{
    va_list ap;
    va_start(ap, n);
    int s = vsum(n, ap);
    va_end(ap);
    return s;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

struct record { char name[8]; uint16_t id; double score; };

int main(void)
{
    /* stdio */
    char buf[128];
    int n = snprintf(buf, sizeof buf, "%5.2f|%-4s|%04d|%x|%c", 3.14159, "ab", 42, 255, 'q');
    printf("stdio %d [%s]\n", n, buf);
    FILE *mem = fmemopen(buf, sizeof buf, "w+");
    fprintf(mem, "%d %s", 7, "seven");
    rewind(mem);
    int seven = 0;
    char word[16];
    if (fscanf(mem, "%d %15s", &seven, word) == 2) printf("fmemopen %d %s\n", seven, word);
    fclose(mem);
    char *heap_str = NULL;
    if (asprintf(&heap_str, "%s-%d", "gnu", 11) > 0) printf("asprintf %s\n", heap_str);
    free(heap_str);
    fputs("fputs line\n", stdout);
    putchar('!');
    putchar('\n');

    /* stdlib */
    div_t d = div(17, 5);
    ldiv_t ld = ldiv(-17L, 5L);
    char *end;
    long parsed = strtol("  -123abc", &end, 10);
    unsigned long hexval = strtoul("ff", NULL, 16);
    double dbl = strtod("2.5e2", NULL);
    printf("stdlib %d %d %ld %ld %ld [%s] %lu %.1f %d %d\n", d.quot, d.rem, ld.quot, ld.rem, parsed, end, hexval,
           dbl, abs(-9), atoi("77"));
    uint32_t arr[] = {30, 10, 20};
    qsort(arr, 3, sizeof(uint32_t), cmp_u32);
    printf("qsort %" PRIu32 " %" PRIu32 " %" PRIu32 "\n", arr[0], arr[1], arr[2]);
    int *dyn = calloc(4, sizeof *dyn);
    dyn = realloc(dyn, 8 * sizeof *dyn);
    dyn[7] = 7;
    printf("alloc %d\n", dyn[0] + dyn[7]);
    free(dyn);
    printf("env %s\n", getenv("COROC_SURELY_UNSET_VARIABLE") ? "set" : "unset");

    /* string */
    char s1[32] = "hello";
    strcat(s1, ", world");
    char s2[32];
    strcpy(s2, s1);
    memset(s2, '*', 5);
    printf("string %zu %s %s %d %s %s\n", strlen(s1), s1, s2, strcmp("a", "b") < 0, strchr(s1, 'w'),
           strstr(s1, "lo,"));
    char tok_src[] = "a,b,,c";
    int tokens = 0;
    for (char *save, *t = strtok_r(tok_src, ",", &save); t; t = strtok_r(NULL, ",", &save)) tokens++;
    printf("tokens %d %s\n", tokens, strerror(EBADF) ? "strerror ok" : "");
    struct record rec, copy;
    memset(&rec, 0, sizeof rec);
    memcpy(rec.name, "rec", 4);
    rec.id = 9;
    rec.score = 0.5;
    memmove(&copy, &rec, sizeof rec);
    printf("memory %s %u %.1f %d\n", copy.name, copy.id, copy.score, memcmp(&rec, &copy, sizeof rec));

    /* stdint, inttypes, limits, stddef, stdbool */
    int8_t i8 = INT8_MAX;
    uint64_t u64 = UINT64_MAX;
    intptr_t ip = (intptr_t)&n;
    uintptr_t up = (uintptr_t)ip;
    intmax_t im = INTMAX_MAX;
    int_least16_t l16 = 1;
    uint_fast32_t f32 = 2;
    printf("stdint %" PRId8 " %" PRIu64 " %d %" PRIdMAX " %d %" PRIuFAST32 "\n", i8, u64, up == (uintptr_t)&n, im,
           (int)l16, f32);
    imaxdiv_t qr = imaxdiv(100, 7);
    int32_t scanned = 0;
    sscanf("123", "%" SCNd32, &scanned);
    printf("inttypes %jd %jd %" PRIx32 " %jd\n", qr.quot, qr.rem, (uint32_t)scanned, strtoimax("-5", NULL, 10));
    printf("limits %d %d %d %ld %zu %d\n", CHAR_BIT, SCHAR_MIN, SHRT_MAX, LONG_MAX, SIZE_MAX > 0 ? sizeof(size_t) : 0,
           INT_MAX == 2147483647);
    ptrdiff_t diff = &arr[2] - &arr[0];
    size_t sz = offsetof(struct record, score);
    max_align_t *no_alloc = NULL;
    wchar_t wc = L'w';
    bool flag = true;
    printf("stddef %td %zu %d %d %d %d\n", diff, sz, no_alloc == NULL, (int)wc, flag, (int)sizeof(bool));

    /* stdarg */
    printf("stdarg %d\n", sum(4, 1, 2, 3, 4));

    /* math */
    printf("math %.3f %.1f %.1f %.1f %.1f %.3f %d %d\n", sqrt(2.0), pow(2, 10), floor(-1.5), ceil(1.2), fabs(-3.0),
           M_PI, isnan(NAN) != 0, isinf(HUGE_VAL) != 0);
    printf("math2 %.1f %.1f %.4f %.1f\n", fmod(7.5, 2), hypot(3, 4), exp(1.0), round(2.5));

    /* errno */
    errno = 0;
    long big = strtol("99999999999999999999999", NULL, 10);
    printf("errno %d %d", errno == ERANGE, big == LONG_MAX);
    errno = 0;
    int rc = close(-1);
    printf(" %d %d\n", rc, errno == EBADF);

    /* assert */
    assert(n == 20);
    assert(sizeof(int32_t) == 4 && "int32_t is four bytes");

    /* setjmp */
    volatile int jumped = 0;
    int val = setjmp(env);
    if (val == 0) {
        jumped = 1;
        deep(5);
    }
    printf("setjmp %d %d %d\n", val, jumped, depth_reached);

    /* signal */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    raise(SIGUSR1);
    void (*prev)(int) = signal(SIGUSR2, SIG_IGN);
    raise(SIGUSR2);
    printf("signal %d %d\n", (int)got_signal, prev == SIG_DFL);

    /* time */
    time_t t = 86400 * 365 + 3600 * 5 + 61;
    struct tm tmv;
    gmtime_r(&t, &tmv);
    char when[64];
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S %a", &tmv);
    printf("time %s yday %d\n", when, tmv.tm_yday);
    struct timespec ts = {.tv_sec = 0, .tv_nsec = 1000};
    clock_t c0 = clock();
    nanosleep(&ts, NULL);
    printf("clock %d\n", clock() >= c0);

    /* ctype */
    const char *mixed = "Ab1 _z!";
    int alpha = 0, digit = 0, space = 0, punct = 0;
    char upper[16] = {0};
    for (size_t i = 0; mixed[i]; i++) {
        unsigned char ch = (unsigned char)mixed[i];
        alpha += isalpha(ch) != 0;
        digit += isdigit(ch) != 0;
        space += isspace(ch) != 0;
        punct += ispunct(ch) != 0;
        upper[i] = (char)toupper(ch);
    }
    printf("ctype %d %d %d %d %s %c\n", alpha, digit, space, punct, upper, tolower('Q'));

    /* unistd, sys/types, fcntl: a pipe */
    int fds[2];
    if (pipe(fds) != 0) return 1;
    ssize_t wrote = write(fds[1], "through a pipe", 14);
    char pbuf[32] = {0};
    ssize_t got = read(fds[0], pbuf, sizeof pbuf - 1);
    int fl = fcntl(fds[0], F_GETFL);
    fcntl(fds[0], F_SETFL, fl | O_NONBLOCK);
    ssize_t again = read(fds[0], pbuf, 1);
    int again_errno = errno;
    printf("pipe %zd %zd [%s] %zd %d\n", wrote, got, pbuf, again, again_errno == EAGAIN);
    close(fds[0]);
    close(fds[1]);
    pid_t pid = getpid();
    off_t off = 0;
    uid_t uid = getuid();
    printf("sys/types %d %d %d\n", pid > 0, (int)off, uid == getuid());

    /* sys/socket, poll: a socket pair */
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 1;
    struct pollfd pfd[2] = {{.fd = sv[0], .events = POLLIN}, {.fd = sv[1], .events = POLLOUT}};
    nfds_t nfds = 2;
    int ready = poll(pfd, nfds, 0);
    printf("poll before %d %d %d\n", ready, (pfd[0].revents & POLLIN) != 0, (pfd[1].revents & POLLOUT) != 0);
    send(sv[1], "ping", 4, 0);
    ready = poll(pfd, 1, 1000);
    char sbuf[8] = {0};
    ssize_t rcv = recv(sv[0], sbuf, sizeof sbuf - 1, 0);
    printf("poll after %d %d %zd %s\n", ready, (pfd[0].revents & POLLIN) != 0, rcv, sbuf);
    int sndbuf = 0;
    socklen_t optlen = sizeof sndbuf;
    socklen_t *optlenp = &optlen;
    getsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, optlenp);
    printf("sockopt %d %d\n", sndbuf > 0, optlen == sizeof(int));
    close(sv[0]);
    close(sv[1]);

    /* netinet/in, arpa/inet: addresses */
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons(8080);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct sockaddr *generic = (struct sockaddr *)&addr;
    char text[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &addr.sin_addr, text, sizeof text);
    struct in_addr parsed_addr;
    inet_pton(AF_INET, "10.0.0.1", &parsed_addr);
    struct sockaddr_storage storage;
    printf("netinet %u %s %#x %d %d\n", ntohs(addr.sin_port), text, ntohl(parsed_addr.s_addr),
           generic->sa_family == AF_INET, sizeof storage >= sizeof(struct sockaddr_in6));
    in_port_t port = htons(80);
    printf("port %u\n", (unsigned)ntohs(port));
    return EXIT_SUCCESS;
}
