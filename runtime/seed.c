/* seed.c: schedules a seed decides, and faults on demand.
 *
 * Some orders the runtime leaves open: which of the descriptors ready in
 * one wait wakes its task first, whether the timers due in a turn fire
 * before or after its I/O, in which order the offloaded calls finished
 * meanwhile wake their tasks. And the kernel may legally answer a call in
 * ways one machine rarely shows: "would block" before data that is there a
 * moment later, fewer bytes than asked, EINTR, a timer late, a connection
 * reset. A program that depends on one of them by mistake works here and
 * fails elsewhere. With a seed (CORO_SCHED_SEED, coro_sched_seed) each
 * thread's scheduler takes those choices from a generator of its own
 * (splitmix64: small, and the same on every machine), and with faults on
 * (CORO_SCHED_FAULTS, coro_sched_faults) the event sources show their tasks
 * the kernel's rarer answers, each kind at its rate, drawn from the same
 * generator: the same seed and the same inputs give the same run.
 *
 * A leaf: it calls nothing of the runtime's, and the scheduler and the
 * sources call it (coro_seed.h).
 */
#define _GNU_SOURCE
#include "coro_seed.h"

#include "coro.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* {==================================================================
 * The generator
 * =================================================================== */

/* One step of splitmix64 from *state. */
static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/* This thread's schedule. */
static _Thread_local struct {
  int state;     /* 0: not asked yet; 1: orders as they come; 2: orders from `seed` */
  uint64_t seed; /* the seed (coro_sched_seed, CORO_SCHED_SEED) */
  uint64_t rng;  /* the generator's state */
} self;

/* The process's: CORO_SCHED_SEED, read once at load. The workers of
   coro_offload draw from it (they have no schedule of their own). */
static bool env_seeded;
static uint64_t env_seed;
static _Atomic uint64_t process_seed;
static _Atomic uint64_t slow_draws;

void coro_sched_seed(uint64_t seed) {
  self.state = 2;
  self.seed = seed;
  self.rng = seed;
  atomic_store_explicit(&process_seed, seed, memory_order_relaxed);
}

bool coro_seeded(void) {
  if (__builtin_expect(self.state == 0, 0)) {
    if (env_seeded)
      coro_sched_seed(env_seed);
    else if (coro_faults_on)
      coro_sched_seed(0); /* faults without a seed: seed 0, so that the run replays */
    else
      self.state = 1;
  }
  return self.state == 2;
}

uint64_t coro_seed_random(void) {
  return splitmix64(&self.rng);
}

/* }================================================================== */

/* {==================================================================
 * Faults
 * =================================================================== */

static const char *const fault_names[CORO_FAULT_KINDS] = {
    [CORO_FAULT_EAGAIN] = "eagain", [CORO_FAULT_SHORT] = "short", [CORO_FAULT_EINTR] = "eintr",
    [CORO_FAULT_LATE] = "late",     [CORO_FAULT_SLOW] = "slow",   [CORO_FAULT_RESET] = "reset",
};

/* A kind named without a rate: percent. */
static const unsigned char fault_default[CORO_FAULT_KINDS] = {
    [CORO_FAULT_EAGAIN] = 25, [CORO_FAULT_SHORT] = 50, [CORO_FAULT_EINTR] = 10,
    [CORO_FAULT_LATE] = 20,   [CORO_FAULT_SLOW] = 20,  [CORO_FAULT_RESET] = 5,
};

/* The most a kind may have: a kind that makes the task try again must
   let it through some time. */
static const unsigned char fault_most[CORO_FAULT_KINDS] = {
    [CORO_FAULT_EAGAIN] = 90, [CORO_FAULT_SHORT] = 100, [CORO_FAULT_EINTR] = 90,
    [CORO_FAULT_LATE] = 90,   [CORO_FAULT_SLOW] = 100,  [CORO_FAULT_RESET] = 100,
};

unsigned coro_faults_on;
static unsigned char fault_rate[CORO_FAULT_KINDS]; /* percent */
static char fault_spec[160];                       /* as given, for the replay line */

static int fault_kind(const char *name, size_t len) {
  for (int k = 0; k < CORO_FAULT_KINDS; k++)
    if (strlen(fault_names[k]) == len && memcmp(fault_names[k], name, len) == 0)
      return k;
  return -1;
}

/* One item of a spec: "all", "none", KIND or KIND=PERCENT. 0, or -EINVAL
   with what is wrong in why. */
static int parse_item(const char *item, size_t len, unsigned char rate[], const char **why) {
  const char *eq = memchr(item, '=', len);
  size_t name_len = eq ? (size_t)(eq - item) : len;
  if (!eq && len == 3 && memcmp(item, "all", 3) == 0) {
    for (int k = 0; k < CORO_FAULT_KINDS; k++)
      if (k != CORO_FAULT_RESET) /* a reset ends a connection: asked for by name only */
        rate[k] = fault_default[k];
    return 0;
  }
  if (!eq && len == 4 && memcmp(item, "none", 4) == 0) {
    memset(rate, 0, CORO_FAULT_KINDS);
    return 0;
  }
  int k = fault_kind(item, name_len);
  if (k < 0) {
    *why = "unknown kind (eagain, short, eintr, late, slow, reset, all, none)";
    return -EINVAL;
  }
  unsigned long v = fault_default[k];
  if (eq) {
    char digits[8] = {0};
    size_t n = len - name_len - 1;
    char *end;
    if (n == 0 || n >= sizeof digits) {
      *why = "a rate is a percentage, 0 to 100";
      return -EINVAL;
    }
    memcpy(digits, eq + 1, n);
    v = strtoul(digits, &end, 10);
    if (*end || v > 100) {
      *why = "a rate is a percentage, 0 to 100";
      return -EINVAL;
    }
  }
  rate[k] = (unsigned char)(v > fault_most[k] ? fault_most[k] : v);
  return 0;
}

static int set_faults(const char *spec, const char **why) {
  unsigned char rate[CORO_FAULT_KINDS] = {0};
  *why = "";
  if (!spec)
    spec = "none";
  if (strlen(spec) >= sizeof fault_spec) {
    *why = "too long";
    return -EINVAL;
  }
  for (const char *p = spec; *p;) {
    size_t len = strcspn(p, ",");
    if (len && parse_item(p, len, rate, why) < 0)
      return -EINVAL;
    p += len + (p[len] == ',');
  }
  unsigned on = 0;
  for (int k = 0; k < CORO_FAULT_KINDS; k++)
    if (rate[k])
      on |= 1u << k;
  memcpy(fault_rate, rate, sizeof rate);
  strcpy(fault_spec, spec);
  coro_faults_on = on;
  return 0;
}

int coro_sched_faults(const char *spec) {
  const char *why;
  return set_faults(spec, &why);
}

bool coro_fault_draw(enum coro_fault k) {
  if (!coro_seeded())
    return false;
  return coro_seed_random() % 100 < fault_rate[k];
}

/* Often one byte, the case a loop that forgets the rest fails at first;
   otherwise any length up to all of it. */
size_t coro_fault_length(size_t len) {
  uint64_t r = coro_seed_random();
  if (len <= 1 || (r & 3) == 0)
    return 1;
  return 1 + (size_t)((r >> 2) % len);
}

uint64_t coro_fault_late_ns(void) {
  return 1 + coro_seed_random() % 2000000;
}

uint64_t coro_fault_slow_ns(void) {
  if (!(coro_faults_on & (1u << CORO_FAULT_SLOW)))
    return 0;
  uint64_t state = atomic_load_explicit(&process_seed, memory_order_relaxed) ^
                   (atomic_fetch_add_explicit(&slow_draws, 1, memory_order_relaxed) << 32);
  uint64_t r = splitmix64(&state);
  if (r % 100 >= fault_rate[CORO_FAULT_SLOW])
    return 0;
  return 1 + (r >> 8) % 5000000;
}

/* }================================================================== */

/* The environment, read once as the program loads (before any thread or
   task can ask): a bad value is a mistake to say at once, not to ignore. */
__attribute__((constructor)) static void seed_from_environment(void) {
  const char *seed = getenv("CORO_SCHED_SEED");
  if (seed && *seed) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(seed, &end, 0);
    if (*end || errno) {
      fprintf(stderr, "coro: CORO_SCHED_SEED=%s: not a number (decimal, or 0x hexadecimal)\n",
              seed);
      exit(2);
    }
    env_seeded = true;
    env_seed = v;
    atomic_store_explicit(&process_seed, v, memory_order_relaxed);
  }
  const char *faults = getenv("CORO_SCHED_FAULTS");
  const char *why;
  if (faults && *faults && set_faults(faults, &why) < 0) {
    fprintf(stderr, "coro: CORO_SCHED_FAULTS=%s: %s\n", faults, why);
    exit(2);
  }
}

const char *coro_sched_seed_note(void) {
  static _Thread_local char note[64 + sizeof fault_spec];
  if (!coro_seeded()) /* (asked here too: a fatal error may come before the first poll) */
    return "";
  int n = snprintf(note, sizeof note, " (schedule: CORO_SCHED_SEED=%llu",
                   (unsigned long long)self.seed);
  if (coro_faults_on && n > 0 && (size_t)n < sizeof note)
    n += snprintf(note + n, sizeof note - (size_t)n, " CORO_SCHED_FAULTS=%s", fault_spec);
  if (n > 0 && (size_t)n < sizeof note)
    snprintf(note + n, sizeof note - (size_t)n, ")");
  return note;
}
