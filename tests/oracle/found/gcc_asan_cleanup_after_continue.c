/* Seed 226049 of the oracle's long run, reduced (creduce, then by hand to a
 * program with one meaning): gcc 12.2's AddressSanitizer, with UBSan beside it
 * at -O1, reports a stack-use-after-scope here, in a program that has no
 * undefined behaviour. `h` is never declared at run time: for f = 0 the
 * outer `if` is skipped, and for f = 1, 2 the `continue` leaves first, so
 * its cleanup never runs. gcc -O0 and -O2, -O1 with either sanitizer alone,
 * and clang with both at every level run it clean and print 0.
 *
 *   gcc -O1 -g -fsanitize=undefined,address gcc_asan_cleanup_after_continue.c && ./a.out
 *
 * No coroc in it: the oracle's reference (plain C) was flagged, every coroc
 * build of the program printed the reference's checksum. tests/oracle/README.md.
 */
#include <stdio.h>
static unsigned sum;
static void done(unsigned *p) { sum += *p; }
int main(void) {
  for (unsigned f = 0; f < 3; f++) {
    if (f) {
      if (f + f)
        continue;
      unsigned h __attribute__((cleanup(done))) = f;
      (void)h;
    }
  }
  printf("%u\n", sum);
  return 0;
}
