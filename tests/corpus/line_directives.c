/*
 * line_directives.c: #line in the input, as a compiler test suite uses it.
 *
 * After `#line N`, the next line is line N: for the code (__LINE__ in an
 * expression) and for the preprocessor's own conditions (#if __LINE__), also
 * through a macro, after an #include, and after the GNU form `# N "name"`.
 * The group a condition rejects is not C, so a preprocessor that counted
 * lines differently would take it and fail.
 */
#include <stdio.h>
#include <string.h>

#define HERE __LINE__

static int checks, failures;

static void expect(int got, int want, const char *what) {
  checks++;
  if (got != want) {
    failures++;
    printf("%s: got %d, want %d\n", what, got, want);
  }
}

static void expect_name(const char *got, const char *want) {
  checks++;
  if (strcmp(got, want) != 0) {
    failures++;
    printf("__FILE__: got %s, want %s\n", got, want);
  }
}

int main(void) {
#line 500
  expect(__LINE__, 500, "line after #line 500");
#if __LINE__ == 501
  expect(1, 1, "#if __LINE__");
#else
  this group is not C: taken @ only if lines are miscounted
#endif
#if HERE != 506
  neither is this one
#endif
#line 800 "renamed.c"
  expect_name(__FILE__, "renamed.c");
  expect(HERE, 801, "a macro expanding to __LINE__");
#include <stddef.h>
#if __LINE__ != 803
  nor this, after an #include
#endif
  expect(__LINE__, 806, "after an #include");
# 20 "gnu_form.c"
#if __LINE__ == 20
  expect(__LINE__, 21, "the GNU form # N \"name\"");
  expect_name(__FILE__, "gnu_form.c");
#elif 1
  and not this
#endif
  printf("%d checks, %d failures\n", checks, failures);
  return failures != 0;
}
