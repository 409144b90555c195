/* stack_guard.c: the report of a stack overflow.
 *
 * Below each stack lies a guard page (stack_slabs.c): a body that uses up
 * its stack faults there. A SIGSEGV handler, on an alternate signal stack
 * (the faulting one has no room left), finds the instance whose guard page
 * it was and names it, its entry function and its stack size, instead of
 * letting the program die silently; any other fault goes on to the handler
 * that was there before. Installed lazily, at a thread's first stackful
 * start (guard_install in coro_stack.h).
 */
#define _GNU_SOURCE /* dladdr */

#include "coro_stack.h"
#include "coro_thread.h"

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<dlfcn.h>)
#include <dlfcn.h>
#define STACKFUL_HAVE_DLADDR 1
#endif
#endif

#define STACKFUL_ALTSTACK (64 * 1024) /* the signal stack the overflow report runs on */

/* This thread has a signal stack (ours or its own): coro_stack.h. */
_Thread_local char coro_stack_guard_checked CORO_STACK_TLS;

static struct sigaction guard_prev; /* SIGSEGV's action before ours: other faults go there */
/* the page size, read before any fault (sysconf is not signal-safe) */
static size_t guard_page;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;

/* Async-signal-safe formatting for the report: no stdio in a handler. */
static char *fmt_str(char *p, char *end, const char *s) {
  while (*s && p < end)
    *p++ = *s++;
  return p;
}

static char *fmt_num(char *p, char *end, uintmax_t v, unsigned base) {
  char digits[32];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[v % base];
    v /= base;
  } while (v);
  if (base == 16)
    p = fmt_str(p, end, "0x");
  while (n > 0 && p < end)
    *p++ = digits[--n];
  return p;
}

/* "entry function NAME at MODULE+0xOFF": the name only when dladdr finds a
   symbol that starts exactly at the entry (generated entries are static, so
   usually not), else its address; the module offset is for addr2line. */
static char *fmt_entry(char *p, char *end, void (*entry)(coro_t *)) {
  uintptr_t addr = (uintptr_t)entry;
  p = fmt_str(p, end, "entry function ");
#ifdef STACKFUL_HAVE_DLADDR
  Dl_info di;
  if (dladdr((void *)addr, &di) && di.dli_fname) {
    if (di.dli_sname && (uintptr_t)di.dli_saddr == addr)
      p = fmt_str(p, end, di.dli_sname);
    else
      p = fmt_num(p, end, addr, 16);
    p = fmt_str(p, end, " at ");
    p = fmt_str(p, end, di.dli_fname);
    p = fmt_str(p, end, "+");
    return fmt_num(p, end, addr - (uintptr_t)di.dli_fbase, 16);
  }
#endif
  return fmt_num(p, end, addr, 16);
}

/* One write(2) of the whole message, so that it arrives in one piece. */
static void guard_report(const struct stackful *s, const void *fault) {
  char buf[1024], *p = buf, *end = buf + sizeof buf - 1;
  p = fmt_str(p, end, "coro: stack overflow in coroutine instance ");
  p = fmt_num(p, end, (uintptr_t)s, 16);
  p = fmt_str(p, end, " (");
  p = fmt_entry(p, end, s->entry);
  p = fmt_str(p, end, "): its stack of ");
  p = fmt_num(p, end, s->stack_size, 10);
  p = fmt_str(p, end, " bytes is used up (fault at ");
  p = fmt_num(p, end, (uintptr_t)fault, 16);
  p = fmt_str(p, end,
              ", in the guard page below it). "
              "Give it more with coro_set_stack_size() or coro_default_stack_size().\n");
  ssize_t unused = write(STDERR_FILENO, buf, (size_t)(p - buf));
  (void)unused; /* nothing left to do if even stderr fails */
}

/* Hand a fault that is not ours (or after our report) to whoever had SIGSEGV
   before. The default action: reset it and return, so that the faulting
   instruction runs again and the kernel ends the program as usual (a signal
   sent by kill has no instruction to run again: raise it). */
static void guard_chain(int sig, siginfo_t *info, void *uctx) {
  if (guard_prev.sa_flags & SA_SIGINFO) {
    guard_prev.sa_sigaction(sig, info, uctx);
    return;
  }
  if (guard_prev.sa_handler != SIG_DFL && guard_prev.sa_handler != SIG_IGN) {
    guard_prev.sa_handler(sig);
    return;
  }
  /* an ignored SIGSEGV from a fault would loop forever: the kernel forces the default too */
  signal(sig, SIG_DFL);
  if (info->si_code <= 0)
    raise(sig);
}

/* The handler runs on the alternate signal stack: the faulting stack has no
   room left. A fault in the guard page of an instance of this thread is an
   overflow; only those can be running out of stack here. */
static void guard_handler(int sig, siginfo_t *info, void *uctx) {
  const char *addr = info->si_addr;
  for (const struct stackful *s = coro_stack_mapped; s; s = s->next_mapped) {
    if (s->map && addr >= s->map && addr < s->map + guard_page) {
      guard_report(s, addr);
      break;
    }
  }
  const struct stackful *owner = coro_stack_shared_owner;
  if (owner && owner->map && addr >= owner->map && addr < owner->map + guard_page)
    guard_report(owner, addr); /* the instance on the shared stack now overflowed it */
  guard_chain(sig, info, uctx);
}

static void guard_altstack_free(void *stack) {
  stack_t now;
  if (sigaltstack(NULL, &now) == 0 && now.ss_sp == stack) {
    stack_t off = {.ss_flags = SS_DISABLE};
    sigaltstack(&off, NULL);
  }
  munmap(stack, STACKFUL_ALTSTACK);
}

/* Once per process: the handler (sigaction is process-wide). SA_ONSTACK: run
   on the thread's alternate stack; SA_NODEFER is not set, so a fault in the
   handler itself kills the program instead of recursing. */
static void guard_install_handler(void) {
  guard_page = page_size();
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = guard_handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSEGV, &sa, &guard_prev) != 0)
    coro_fatal("coro_next", "cannot install the stack overflow handler");
}

/* Once per thread (sigaltstack is per-thread), lazily at its first stackful
   start: a signal stack, unless the thread already has one (ASan's, say).
   guard_install (coro_stack.h) calls it while coro_stack_guard_checked is
   not set, which it is only after the pthread_once below. */
void coro_stack_guard_thread(void) {
  pthread_once(&guard_once, guard_install_handler);
  coro_stack_guard_checked = 1;
  stack_t now;
  if (sigaltstack(NULL, &now) == 0 && !(now.ss_flags & SS_DISABLE))
    return;
  void *mem =
      mmap(NULL, STACKFUL_ALTSTACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED)
    return; /* no report on overflow, but everything else works */
  stack_t ss = {.ss_sp = mem, .ss_size = STACKFUL_ALTSTACK, .ss_flags = 0};
  if (sigaltstack(&ss, NULL) != 0) {
    munmap(mem, STACKFUL_ALTSTACK);
    return;
  }
  /* freed when the thread exits */
  coro_thread_holds(CORO_THREAD_ALTSTACK, guard_altstack_free, mem);
}
