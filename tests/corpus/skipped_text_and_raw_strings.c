/* skipped_text_and_raw_strings.c: text that is not C where the preprocessor does not
 * look, raw strings, #line, and standard attributes as tokens.
 *
 * Conditional groups that #if 0, #ifdef, #elif and #else skip, holding what is no C
 * token sequence: stray `@`, backquote and backslash, unbalanced brackets, `##`, two
 * brackets that open no attribute, lines that start with `#` but are no directive, a
 * linemarker-like line, and a nested skipped group (an unterminated ' or " there is no
 * error either, but gcc -Werror refuses that, so test_passthrough.py tries it); gcc's
 * raw strings R"(...)" with and without a delimiter, holding quotes, backslashes, a
 * `)"` that is not their end, a line break and a backslash at the end of a line, with
 * the u8/u/U/L prefixes, concatenated with ordinary strings; #line with and without a
 * file name, followed by __LINE__ and __FILE__ in code and in #if; gcc's [[...]]
 * attributes with brackets, strings and parentheses inside.
 */
#include <stdio.h>
#include <string.h>

#if 0
` @ \ $ ( { [ 1abc .. ## ))) ]]] }}} x[[ unclosed
#not a directive at all
  # 12 "looks like a linemarker"
#if 1
  nested @@ and skipped
#endif
#elif defined(NEVER_DEFINED_FOR_THE_CORPUS)
  @@@ also skipped ``` \ \\ x
#else
static int live_after_skipped = 1;
#endif

#ifdef NEVER_DEFINED_FOR_THE_CORPUS
  this is { not C ] either
#endif

#ifndef __clang__
static const char *raw_plain = R"(a "quoted" \n word)";
static const char *raw_delim = R"xy(a )" inside)xy";
static const char *raw_lines = R"(line one
line two \
line three)";
static const char *raw_concat = "ordinary " R"(raw\)" " again";
static const char *raw_u8 = u8R"(u8 raw)";
static const int raw_wide_len = sizeof(LR"(wide)") / sizeof(LR"(wide)"[0]);
static const int raw_u16_len = sizeof(uR"(ab)") / sizeof(uR"(ab)"[0]);
static const int raw_u32_len = sizeof(UR"(abc)") / sizeof(UR"(abc)"[0]);
#define RAW_IN_MACRO R"(in a macro)"
static const char *raw_macro = RAW_IN_MACRO;
[[gnu::unused]] static int std_attr_plain;
[[gnu::aligned(sizeof(int[4])), gnu::unused, deprecated("a ] in a string")]] static int std_attr_args;
static int std_attr_after [[gnu::unused]] = 3;
#endif

static int line_before = __LINE__;
#line 1000
static int line_after = __LINE__;
#if __LINE__ >= 1000
static const char *line_branch = "after #line";
#else
static const char *line_branch = "before #line";
#endif
#line 2000 "renamed_by_line.c"
static int line_renamed = __LINE__;
static const char *file_renamed = __FILE__;
# 3000 "gnu_linemarker.c"
static int line_marker = __LINE__;

int main(void)
{
    printf("skipped %d\n", live_after_skipped);
#ifndef __clang__
    printf("raw [%s] [%s] [%s]\n", raw_plain, raw_delim, raw_lines);
    printf("raw [%s] [%s] %d %d %d [%s]\n", raw_concat, raw_u8, raw_wide_len, raw_u16_len, raw_u32_len, raw_macro);
    printf("std attrs %d\n", std_attr_after);
#else
    printf("raw [%s] [%s] [%s]\n", "a \"quoted\" \\n word", "a )\" inside", "line one\nline two \\\nline three");
    printf("raw [%s] [%s] %d %d %d [%s]\n", "ordinary raw\\ again", "u8 raw", 5, 3, 4, "in a macro");
    printf("std attrs %d\n", 3);
#endif
    printf("line %d %d %s %d %s %d\n", line_before > 0, line_after, line_branch, line_renamed, file_renamed,
           line_marker);
    printf("line here %d\n", __LINE__);
    return 0;
}
