/* prelude.h: what the fuzz harness's inputs get before them in place of a
 * preprocessor's work: coro.h, which coroc includes for every input, and
 * the types of the standard headers that the tests include.
 *
 * The harness runs no preprocessor per input, and the real headers would
 * be tens of kilobytes to parse again for every input (ten times the work
 * of a typical input). So the build preprocesses this file once, against
 * empty stand-ins for the system headers coro.h includes (CMakeLists.txt
 * makes them), into coro_prelude.i; fuzz_coroc.c reads that. Only the
 * types matter to coroc (is this word a type name?), so the declarations
 * below are only as exact as that.
 */
#define NULL ((void *)0)
#define offsetof(type, member) __builtin_offsetof(type, member)
#define true 1
#define false 0

typedef _Bool bool;
typedef unsigned long size_t;
typedef long ssize_t;
typedef long ptrdiff_t;
typedef long max_align_t;
typedef int wchar_t;
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
typedef long intptr_t;
typedef unsigned long uintptr_t;
typedef long intmax_t;
typedef unsigned long uintmax_t;
typedef unsigned int socklen_t;
typedef unsigned short sa_family_t;
struct sockaddr {
  sa_family_t sa_family;
  char sa_data[14];
};
typedef struct {
  unsigned long __val[16];
} sigset_t;
struct signalfd_siginfo {
  uint32_t ssi_signo;
  uint8_t pad[124];
};
typedef struct _IO_FILE FILE;
extern FILE *stdin, *stdout, *stderr;
int printf(const char *restrict format, ...);
int fprintf(FILE *restrict stream, const char *restrict format, ...);
void *malloc(size_t size);
void *calloc(size_t n, size_t size);
void free(void *p);
void *memcpy(void *restrict to, const void *restrict from, size_t n);
void *memset(void *p, int c, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);

#include <coro.h>
