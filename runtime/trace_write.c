/* trace_write.c: the trace's file, from every thread's records (trace.c;
 * docs/debugging.md, "Tracing a run"), as Chrome trace-event JSON: the
 * "JSON Object Format", which Perfetto and chrome://tracing open.
 *
 * Each OS thread is a process group of its own (pid: its kernel thread id):
 * a track for the thread itself ("scheduler and sources": what woke a task
 * from outside every task) and one track per instance (a synthetic tid,
 * named "coroutine@0xADDRESS NAME"), with "X" slices for each run and each
 * wait, instants for its creation, cancellation, end and freeing, and
 * flows from each wake-up to the run it caused. An address that is freed
 * and made again is a new track: one track is one instance's life.
 *
 * The names come from the program's own symbol tables, read here as the
 * gdb extension reads them (runtime/gdb/coroc-gdb.py): an instance's code
 * is coro_resume_NAME (stackless) or coro_entry_NAME (stackful), an
 * awaitable's kind the name of its ops (read_awaiter...), and beside each
 * stackless coroutine coroc keeps coro_lines_NAME, the .coc line of each
 * resume point. A stripped program gets addresses instead.
 *
 * Here too what decides when the file is written: CORO_TRACE,
 * coro_trace_start and coro_trace_stop, exit (atexit) and a fatal error
 * (fatal.c's hook). Separate from trace.c, which records and calls nothing
 * of this: it runs once, at the end, and may take its time; nothing of it
 * is on the path of a recorded event.
 */
#define _GNU_SOURCE
#include "coro_trace.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* {==================================================================
 * Symbols: the names of the addresses the records hold
 * =================================================================== */

struct sym {
  uintptr_t addr;
  char *name;                  /* NULL: none found */
  long group;                  /* the symbol table's file (STT_FILE) it follows */
  const unsigned short *lines; /* coro_resume_NAME: coro_lines_NAME, in this process */
  size_t nlines;
};

struct lines_table {
  const char *name; /* NAME of coro_lines_NAME (in the mapped file) */
  long group;
  uintptr_t addr;
  size_t size;
};

static struct sym *syms;
static size_t nsyms, capsyms;
static long group_count;

static void want(uintptr_t a) {
  if (a < 4096)
    return;
  if (nsyms == capsyms) {
    size_t cap = capsyms ? 2 * capsyms : 256;
    struct sym *v = realloc(syms, cap * sizeof *v);
    if (!v)
      return;
    syms = v;
    capsyms = cap;
  }
  syms[nsyms++] = (struct sym){.addr = a};
}

static int by_addr(const void *x, const void *y) {
  uintptr_t a = ((const struct sym *)x)->addr, b = ((const struct sym *)y)->addr;
  return a < b ? -1 : a > b;
}

static struct sym *sym_at(uintptr_t a) {
  struct sym key = {.addr = a};
  return nsyms ? bsearch(&key, syms, nsyms, sizeof *syms, by_addr) : NULL;
}

/* One loaded object's symbol table: name what the records hold. */
static void read_object(const char *file, uintptr_t bias) {
  int fd = open(file, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  struct stat st;
  void *map = MAP_FAILED;
  if (fstat(fd, &st) == 0 && st.st_size >= (off_t)sizeof(Elf64_Ehdr))
    map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED)
    return;
  size_t size = (size_t)st.st_size;
  const char *base = map;
  const Elf64_Ehdr *eh = map;
  struct lines_table *tables = NULL;
  size_t ntables = 0, captables = 0;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
      eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > size)
    goto out;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(base + eh->e_shoff);
  const Elf64_Shdr *symtab = NULL;
  for (unsigned i = 0; i < eh->e_shnum; i++)
    if (sh[i].sh_type == SHT_SYMTAB || (sh[i].sh_type == SHT_DYNSYM && !symtab))
      symtab = &sh[i];
  if (!symtab || symtab->sh_link >= eh->e_shnum || symtab->sh_offset + symtab->sh_size > size)
    goto out;
  const Elf64_Shdr *strtab = &sh[symtab->sh_link];
  if (strtab->sh_offset + strtab->sh_size > size)
    goto out;
  const Elf64_Sym *sy = (const Elf64_Sym *)(base + symtab->sh_offset);
  const char *str = base + strtab->sh_offset;
  size_t n = symtab->sh_size / sizeof *sy;
  long first_group = ++group_count;
  for (size_t i = 0; i < n; i++) {
    unsigned type = ELF64_ST_TYPE(sy[i].st_info);
    if (type == STT_FILE) {
      group_count++;
      continue;
    }
    if (sy[i].st_shndx == SHN_UNDEF || sy[i].st_value == 0 || sy[i].st_name >= strtab->sh_size ||
        (type != STT_FUNC && type != STT_OBJECT))
      continue;
    const char *name = str + sy[i].st_name;
    uintptr_t at = bias + (uintptr_t)sy[i].st_value;
    if (type == STT_OBJECT && strncmp(name, "coro_lines_", 11) == 0) {
      if (ntables == captables) {
        captables = captables ? 2 * captables : 64;
        struct lines_table *v = realloc(tables, captables * sizeof *v);
        if (!v)
          goto out;
        tables = v;
      }
      tables[ntables++] = (struct lines_table){name + 11, group_count, at, sy[i].st_size};
    }
    struct sym *s = sym_at(at);
    if (s && !s->name) {
      s->name = strdup(name);
      s->group = group_count;
    }
  }
  /* each coroutine's lines, from the table of its name beside it */
  for (size_t i = 0; i < nsyms; i++) {
    struct sym *s = &syms[i];
    if (!s->name || s->group < first_group || strncmp(s->name, "coro_resume_", 12) != 0)
      continue;
    for (size_t k = 0; k < ntables; k++)
      if (tables[k].group == s->group && strcmp(tables[k].name, s->name + 12) == 0) {
        s->lines = (const unsigned short *)tables[k].addr;
        s->nlines = tables[k].size / sizeof(unsigned short);
      }
  }
out:
  free(tables);
  munmap(map, size);
}

static int each_object(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  (void)arg;
  const char *name = info->dlpi_name;
  if (!name || !*name)
    name = "/proc/self/exe"; /* the program itself */
  else if (name[0] != '/')
    return 0; /* the vDSO */
  read_object(name, (uintptr_t)info->dlpi_addr);
  return 0;
}

static void name_symbols(void) {
  qsort(syms, nsyms, sizeof *syms, by_addr);
  size_t k = 0;
  for (size_t i = 0; i < nsyms; i++)
    if (k == 0 || syms[i].addr != syms[k - 1].addr)
      syms[k++] = syms[i];
  nsyms = k;
  dl_iterate_phdr(each_object, NULL);
}

static const char *sym_name(uintptr_t a) {
  struct sym *s = sym_at(a);
  return s ? s->name : NULL;
}

/* The coroutine whose code is at a: NAME of coro_resume_NAME or coro_entry_NAME. */
static const char *coroutine_name(uintptr_t a) {
  const char *n = sym_name(a);
  if (!n)
    return NULL;
  if (strncmp(n, "coro_resume_", 12) == 0)
    return n + 12;
  if (strncmp(n, "coro_entry_", 11) == 0)
    return n + 11;
  return n;
}

static void symbols_free(void) {
  for (size_t i = 0; i < nsyms; i++)
    free(syms[i].name);
  free(syms);
  syms = NULL;
  nsyms = capsyms = 0;
}

/* }================================================================== */

/* {==================================================================
 * The lives of one thread's instances
 * =================================================================== */

struct life {
  uintptr_t addr, code;
  unsigned long tid; /* its track */
  uint8_t kind;
  bool open;            /* a run began and has not ended */
  uint64_t begin;       /* when (ns) */
  uint16_t begin_point; /* from which resume point */
  bool begin_start;     /* from its start */
  bool created;         /* made while the trace was recorded */
  bool had_run;         /* a run ended: last_begin, last_end */
  uint64_t last_begin, last_end;
  bool has_wait; /* a wait was recorded in this run: wait */
  struct coro_trace_event wait;
  bool waiting; /* its wait runs from wait_from */
  uint64_t wait_from;
  bool woken_early;   /* woken before its run ended (settled as it suspended) */
  unsigned long flow; /* a wake-up's flow, to end at its next run; from flow_tid at flow_ts */
  unsigned long flow_tid;
  uint64_t flow_ts;
  bool done; /* it ended: its address, run again, is another life */
};

struct writer {
  FILE *f;
  uint64_t start_ns, end_ns;
  unsigned long pid;  /* this thread's group */
  struct life *lives; /* this thread's, in order of first sight */
  size_t nlives, caplives;
  size_t *map; /* addr -> 1 + index in lives, open addressing; 0: empty */
  size_t mapcap;
  unsigned long next_tid; /* synthetic tids, above every kernel one */
  unsigned long flows;
};

static size_t hash(uintptr_t a, size_t cap) {
  return (size_t)((a >> 4) * 0x9E3779B97F4A7C15ull) & (cap - 1);
}

static struct life *find(struct writer *w, uintptr_t addr) {
  if (!w->mapcap)
    return NULL;
  for (size_t i = hash(addr, w->mapcap);; i = (i + 1) & (w->mapcap - 1)) {
    if (!w->map[i])
      return NULL;
    struct life *l = &w->lives[w->map[i] - 1];
    if (l->addr == addr)
      return l;
  }
}

/* addr's life from now on is lives[index] (a new one replaces the one before). */
static bool map_set(struct writer *w, uintptr_t addr, size_t index) {
  if (2 * (w->nlives + 1) > w->mapcap) {
    size_t cap = w->mapcap ? 2 * w->mapcap : 1024;
    size_t *m = calloc(cap, sizeof *m);
    if (!m)
      return false;
    size_t *old = w->map, oldcap = w->mapcap;
    w->map = m;
    w->mapcap = cap;
    for (size_t i = 0; i < oldcap; i++)
      if (old[i]) {
        size_t j = hash(w->lives[old[i] - 1].addr, cap);
        while (m[j])
          j = (j + 1) & (cap - 1);
        m[j] = old[i];
      }
    free(old);
  }
  size_t i = hash(addr, w->mapcap);
  while (w->map[i] && w->lives[w->map[i] - 1].addr != addr)
    i = (i + 1) & (w->mapcap - 1);
  w->map[i] = index + 1;
  return true;
}

static struct life *new_life(struct writer *w, uintptr_t addr, uintptr_t code, uint8_t kind) {
  if (w->nlives == w->caplives) {
    size_t cap = w->caplives ? 2 * w->caplives : 256;
    struct life *v = realloc(w->lives, cap * sizeof *v);
    if (!v)
      return NULL;
    w->lives = v;
    w->caplives = cap;
  }
  if (!map_set(w, addr, w->nlives))
    return NULL;
  struct life *l = &w->lives[w->nlives++];
  *l = (struct life){.addr = addr, .code = code, .kind = kind, .tid = w->next_tid++};
  return l;
}

/* The life of r's instance: a new one after the last ended (made again in
   its parent's frame for another await, with no creation to record). */
static struct life *life_of(struct writer *w, const struct coro_trace_event *r) {
  struct life *l = find(w, (uintptr_t)r->inst);
  if (!l || l->done)
    l = new_life(w, (uintptr_t)r->inst, 0, r->kind);
  return l;
}

/* }================================================================== */

/* {==================================================================
 * Events
 * =================================================================== */

static bool first_event;

/* Start an event: its phase, category, track and time. */
static void ev(struct writer *w, const char *ph, const char *cat, unsigned long tid, uint64_t ns) {
  uint64_t rel = ns > w->start_ns ? ns - w->start_ns : 0;
  fprintf(w->f, "%s{\"ph\":\"%s\",\"cat\":\"%s\",\"pid\":%lu,\"tid\":%lu,\"ts\":%" PRIu64 ".%03u",
          first_event ? "" : ",\n", ph, cat, w->pid, tid, rel / 1000, (unsigned)(rel % 1000));
  first_event = false;
}

static void dur(struct writer *w, uint64_t from, uint64_t to) {
  uint64_t d = to > from ? to - from : 0;
  fprintf(w->f, ",\"dur\":%" PRIu64 ".%03u", d / 1000, (unsigned)(d % 1000));
}

static void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\')
      fprintf(f, "\\%c", ch);
    else if (ch < 0x20)
      fprintf(f, "\\u%04x", ch);
    else
      fputc(ch, f);
  }
  fputc('"', f);
}

static void name(struct writer *w, const char *text) {
  fputs(",\"name\":", w->f);
  json_string(w->f, text);
}

/* The .coc line of resume point `point` of l's coroutine, or 0. */
static unsigned line_of(const struct life *l, unsigned point) {
  struct sym *s = (l->kind & CORO_STACKFUL) ? NULL : sym_at(l->code);
  return s && s->lines && point < s->nlines ? s->lines[point] : 0;
}

/* Where a run began or stopped, as an args member: "start (line 40)", "line 42". */
static void where(struct writer *w, const struct life *l, const char *key, unsigned point,
                  bool start) {
  unsigned line = line_of(l, point);
  fprintf(w->f, "\"%s\":", key);
  if (l->kind & CORO_STACKFUL) /* (its resume point is a mark, not a number) */
    fputs(start ? "\"start\"" : "\"a suspension\"", w->f);
  else if (line)
    fprintf(w->f, point == 0 ? "\"start, line %u\"" : "\"line %u\"", line);
  else
    fprintf(w->f, point == 0 ? "\"start\"" : "\"resume point %u\"", point);
}

static void run_slice(struct writer *w, struct life *l, uint64_t to, const char *stop,
                      unsigned stop_point, bool stopped) {
  const char *n = coroutine_name(l->code);
  ev(w, "X", "run", l->tid, l->begin);
  dur(w, l->begin, to);
  name(w, n ? n : "run");
  fputs(",\"args\":{", w->f);
  where(w, l, "from", l->begin_point, l->begin_start);
  fputc(',', w->f);
  if (stopped)
    where(w, l, "to", stop_point, false);
  else
    fprintf(w->f, "\"to\":\"%s\"", stop);
  fputs("}}", w->f);
  l->open = false;
  l->had_run = true;
  l->last_begin = l->begin;
  l->last_end = to;
}

static const char *awaitable_kind(const char *ops) {
  static const char *const kinds[][2] = {
      {"read_awaiter", "read"},         {"read_buf_awaiter", "read"},
      {"write_awaiter", "write"},       {"accept_awaiter", "accept"},
      {"connect_awaiter", "connect"},   {"sleep_awaiter", "timer"},
      {"group_awaiter", "wait_all"},    {"timeout_awaiter", "timeout"},
      {"offload_awaiter", "offload"},   {"chan_send_ops", "send"},
      {"chan_recv_ops", "receive"},     {"chan_select_ops", "select"},
      {"event_wait_ops", "event"},      {"sem_acquire_ops", "semaphore"},
      {"mutex_lock_ops", "mutex"},      {"group_wait_ops", "group"},
      {"next_awaiter", "next value"},   {"signal_awaiter", "signal"},
      {"settled_awaiter", "called off"}};
  for (size_t i = 0; ops && i < sizeof kinds / sizeof *kinds; i++)
    if (strcmp(ops, kinds[i][0]) == 0)
      return kinds[i][1];
  return NULL;
}

/* A wait, from its record: a slice on the waiter's track. */
static void wait_slice(struct writer *w, struct life *l, uint64_t from, uint64_t to,
                       const char *how) {
  const struct coro_trace_event *r = &l->wait;
  char text[160];
  FILE *f = w->f;
  const char *ops = r->sub == CORO_TW_AWAITABLE ? sym_name(r->a) : NULL;
  const char *kind = r->sub == CORO_TW_YIELD   ? "yield"
                     : r->sub == CORO_TW_CHILD ? "child"
                                               : awaitable_kind(ops);
  if (kind && strcmp(kind, "wait_all") == 0 && r->status)
    kind = "wait_any";
  int fd = (int)r->b;
  if (!kind)
    snprintf(text, sizeof text, "wait: awaitable %s", ops ? ops : "(unnamed)");
  else if (!strcmp(kind, "read") || !strcmp(kind, "write") || !strcmp(kind, "accept") ||
           !strcmp(kind, "connect"))
    snprintf(text, sizeof text, "wait: %s on fd %d", kind, fd);
  else if (!strcmp(kind, "timer"))
    snprintf(text, sizeof text, "wait: timer of %u ms", (unsigned)r->b);
  else if (!strcmp(kind, "wait_all") || !strcmp(kind, "wait_any"))
    snprintf(text, sizeof text, "wait: %s of %lu tasks", kind, (unsigned long)r->c);
  else if (!strcmp(kind, "timeout"))
    snprintf(text, sizeof text, "wait: timeout of %u ms", (unsigned)r->c);
  else if (!strcmp(kind, "select"))
    snprintf(text, sizeof text, "wait: select of %lu channel operations", (unsigned long)r->c);
  else if (!strcmp(kind, "offload")) {
    const char *fn = sym_name(r->b);
    snprintf(text, sizeof text, "wait: offload %s", fn ? fn : "(a call)");
  } else if (!strcmp(kind, "yield"))
    snprintf(text, sizeof text, "wait: yield (its turn comes again)");
  else if (!strcmp(kind, "child")) {
    struct life *c = find(w, r->b);
    const char *n = c ? coroutine_name(c->code) : NULL;
    snprintf(text, sizeof text, "wait: await task 0x%lx%s%s", (unsigned long)r->b, n ? " " : "",
             n ? n : "");
  } else if (!strcmp(kind, "send") || !strcmp(kind, "receive"))
    snprintf(text, sizeof text, "wait: %s on channel 0x%lx", kind, (unsigned long)r->b);
  else
    snprintf(text, sizeof text, "wait: %s 0x%lx", kind, (unsigned long)r->b);
  ev(w, "X", "wait", l->tid, from);
  dur(w, from, to);
  name(w, text);
  fputs(",\"args\":{\"kind\":", f);
  json_string(f, kind ? kind : "awaitable");
  if (kind && (!strcmp(kind, "read") || !strcmp(kind, "accept")))
    fprintf(f, ",\"fd\":%d,\"direction\":\"in\"", fd);
  else if (kind && (!strcmp(kind, "write") || !strcmp(kind, "connect")))
    fprintf(f, ",\"fd\":%d,\"direction\":\"out\"", fd);
  else if (kind && !strcmp(kind, "timer"))
    fprintf(f, ",\"ms\":%u", (unsigned)r->b);
  else if (kind && !strcmp(kind, "timeout"))
    fprintf(f, ",\"ms\":%u", (unsigned)r->c);
  else if (kind &&
           (!strcmp(kind, "wait_all") || !strcmp(kind, "wait_any") || !strcmp(kind, "select")))
    fprintf(f, ",\"n\":%lu", (unsigned long)r->c);
  else if (kind && strcmp(kind, "yield") != 0)
    fprintf(f, ",\"object\":\"0x%lx\"", (unsigned long)r->b);
  if (ops)
    fprintf(f, ",\"ops\":\"%s\"", ops);
  fprintf(f, ",\"end\":\"%s\"}}", how);
  l->waiting = false;
}

static void instant(struct writer *w, unsigned long tid, uint64_t ns, const char *what) {
  ev(w, "i", "life", tid, ns);
  name(w, what);
  fputs(",\"s\":\"t\"", w->f);
}

/* A task or a source woke l: the flow's start, kept until l runs. */
static void wake(struct writer *w, struct life *l, const struct coro_trace_event *r, uint64_t ns) {
  unsigned long tid = w->pid;
  uint64_t at = ns;
  struct life *by = r->a ? find(w, r->a) : NULL;
  if (by && by->open) {
    tid = by->tid;
  } else if (by && by->had_run) { /* (a child that ended: its parent goes on) */
    tid = by->tid;
    at = by->last_end > by->last_begin ? by->last_end - 1 : by->last_begin;
  } else {
    const char *src = r->a ? "a task" : r->b ? (const char *)r->b : "the thread, outside tasks";
    char text[96];
    snprintf(text, sizeof text, "%s wakes a task", src);
    ev(w, "X", "source", w->pid, ns);
    dur(w, ns, ns + 1);
    name(w, text);
    fputs("}", w->f);
  }
  if (l->open)
    l->woken_early = true;
  else if (l->waiting)
    wait_slice(w, l, l->wait_from, ns, "woken");
  l->flow = ++w->flows;
  l->flow_tid = tid;
  l->flow_ts = at;
}

static void one(struct writer *w, const struct coro_trace_event *r) {
  uint64_t ns = coro_trace_ns(r->ts);
  struct life *l;
  switch (r->type) {
  case CORO_TR_CREATE:
    if ((l = new_life(w, (uintptr_t)r->inst, r->a, r->kind))) {
      l->created = true;
      instant(w, l->tid, ns, "created");
      fputs("}", w->f);
    }
    break;
  case CORO_TR_BEGIN:
    if (!(l = life_of(w, r)))
      break;
    if (!l->code)
      l->code = r->a;
    l->kind = r->kind;
    if (l->open)
      run_slice(w, l, ns, "unfinished (resumed again)", 0, false);
    if (l->waiting)
      wait_slice(w, l, l->wait_from, ns, "resumed");
    l->open = true;
    l->begin = ns;
    l->begin_point = r->point;
    l->begin_start = (l->kind & CORO_STACKFUL) ? l->created && !l->had_run : r->point == 0;
    if (l->flow) {
      ev(w, "s", "wake", l->flow_tid, l->flow_ts);
      fprintf(w->f, ",\"name\":\"wake-up\",\"id\":%lu}", l->flow);
      ev(w, "f", "wake", l->tid, ns);
      fprintf(w->f, ",\"name\":\"wake-up\",\"id\":%lu,\"bp\":\"e\"}", l->flow);
      l->flow = 0;
    }
    break;
  case CORO_TR_END:
    if (!(l = life_of(w, r)))
      break;
    if (!l->open) {
      l->begin = ns;
      l->begin_point = r->point;
    }
    run_slice(w, l, ns, "end", r->point, r->status != CORO_DONE);
    if (r->status == CORO_DONE) {
      instant(w, l->tid, ns, "done");
      fprintf(w->f, ",\"args\":{\"cancelled\":%s}}", r->kind & CORO_CANCELLED ? "true" : "false");
      l->done = true;
    } else if (l->has_wait) {
      l->has_wait = false;
      if (l->woken_early) {
        wait_slice(w, l, ns, ns, "settled as it suspended");
      } else {
        l->waiting = true;
        l->wait_from = ns;
      }
    }
    l->woken_early = false;
    break;
  case CORO_TR_WAIT:
    if ((l = life_of(w, r))) {
      l->wait = *r;
      l->has_wait = true;
    }
    break;
  case CORO_TR_WAKE:
    if ((l = life_of(w, r)))
      wake(w, l, r, ns);
    break;
  case CORO_TR_CANCEL:
    if ((l = life_of(w, r))) {
      struct life *by = r->a ? find(w, r->a) : NULL;
      instant(w, l->tid, ns, "cancel");
      if (by)
        fprintf(w->f, ",\"args\":{\"by\":\"coroutine@0x%lx\"}}", (unsigned long)by->addr);
      else
        fputs(",\"args\":{\"by\":\"the thread, outside tasks\"}}", w->f);
    }
    break;
  case CORO_TR_FREE:
    if ((l = find(w, (uintptr_t)r->inst))) {
      if (l->waiting)
        wait_slice(w, l, l->wait_from, ns, "freed while waiting");
      instant(w, l->tid, ns, "freed");
      fputs("}", w->f);
      l->done = true;
    }
    break;
  case CORO_TR_THREAD_END:
    instant(w, w->pid, ns, "thread ends");
    fputs("}", w->f);
    break;
  }
}

static void metadata(struct writer *w, const char *what, unsigned long tid, const char *key,
                     const char *value, long index) {
  fprintf(w->f, "%s{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%lu,\"tid\":%lu,\"args\":{\"%s\":",
          first_event ? "" : ",\n", what, w->pid, tid, key);
  first_event = false;
  if (value)
    json_string(w->f, value);
  else
    fprintf(w->f, "%ld", index);
  fputs("}}", w->f);
}

static void one_thread(struct writer *w, const struct coro_trace_thread *t) {
  w->pid = (unsigned long)t->tid;
  w->nlives = 0;
  if (w->map)
    memset(w->map, 0, w->mapcap * sizeof *w->map);
  char text[96];
  snprintf(text, sizeof text, "%s %d (tid %ld)",
           t->tid == (long)getpid() ? "main thread" : "thread", t->number, t->tid);
  metadata(w, "process_name", w->pid, "name", text, 0);
  metadata(w, "process_sort_index", w->pid, "sort_index", NULL, t->number);
  metadata(w, "thread_name", w->pid, "name", "scheduler and sources", 0);
  metadata(w, "thread_sort_index", w->pid, "sort_index", NULL, -1);
  for (const struct coro_trace_chunk *c = __atomic_load_n(&t->head, __ATOMIC_ACQUIRE); c;
       c = __atomic_load_n(&c->next, __ATOMIC_ACQUIRE)) {
    unsigned n = __atomic_load_n(&c->n, __ATOMIC_ACQUIRE);
    struct coro_trace_event ev;
    for (unsigned i = 0, k; i < n; i += k) {
      k = coro_trace_unpack(c, i, &ev); /* (a wait takes two records) */
      one(w, &ev);
    }
  }
  uint64_t end = w->end_ns;
  for (size_t i = 0; i < w->nlives; i++) {
    struct life *l = &w->lives[i];
    if (l->open)
      run_slice(w, l, end, "unfinished: running when the trace was written", 0, false);
    if (l->waiting)
      wait_slice(w, l, l->wait_from, end, "unfinished: waiting when the trace was written");
    const char *n = coroutine_name(l->code);
    snprintf(text, sizeof text, "coroutine@0x%lx%s%s", (unsigned long)l->addr, n ? " " : "",
             n ? n : "");
    metadata(w, "thread_name", l->tid, "name", text, 0);
    metadata(w, "thread_sort_index", l->tid, "sort_index", NULL, (long)i);
  }
  if (t->dropped) {
    instant(w, w->pid, coro_trace_ns(t->drop_ts), "events dropped");
    fprintf(w->f, ",\"args\":{\"dropped\":%" PRIu64 ",\"kept\":%" PRIu64 ",\"cap\":%" PRIu64 "}}",
            t->dropped, t->kept, coro_trace_cap());
  }
}

/* }================================================================== */

static int write_file(const char *path, uint64_t start_ns, uint64_t end_ns) {
  struct coro_trace_thread *list = coro_trace_threads_lock();
  unsigned long session = coro_trace_session();
  uint64_t dropped = 0;
  for (struct coro_trace_thread *t = list; t; t = t->next) {
    if (__atomic_load_n(&t->session, __ATOMIC_ACQUIRE) != session)
      continue;
    dropped += t->dropped;
    for (const struct coro_trace_chunk *c = __atomic_load_n(&t->head, __ATOMIC_ACQUIRE); c;
         c = __atomic_load_n(&c->next, __ATOMIC_ACQUIRE)) {
      unsigned n = __atomic_load_n(&c->n, __ATOMIC_ACQUIRE);
      struct coro_trace_event ev;
      for (unsigned i = 0, k; i < n; i += k) {
        k = coro_trace_unpack(c, i, &ev);
        const struct coro_trace_event *r = &ev;
        if (r->type == CORO_TR_CREATE || r->type == CORO_TR_BEGIN)
          want(r->a);
        else if (r->type == CORO_TR_WAIT && r->sub == CORO_TW_AWAITABLE) {
          want(r->a);
          want(r->b); /* (an offloaded call's function) */
        }
      }
    }
  }
  name_symbols();
  int err = 0;
  FILE *f = fopen(path, "w");
  if (!f) {
    err = -errno;
    goto out;
  }
  struct writer w = {.f = f, .start_ns = start_ns, .end_ns = end_ns, .next_tid = 1000000000};
  first_event = true;
  fprintf(f,
          "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"libcoro\",\"dropped\":%" PRIu64
          ",\"cap_per_thread\":%" PRIu64 "},\n\"traceEvents\":[\n",
          dropped, coro_trace_cap());
  /* (oldest thread first: the list is newest first) */
  size_t n = 0;
  for (struct coro_trace_thread *t = list; t; t = t->next)
    n++;
  for (size_t i = n; i > 0; i--) {
    struct coro_trace_thread *t = list;
    for (size_t k = 1; k < i; k++)
      t = t->next;
    if (__atomic_load_n(&t->session, __ATOMIC_ACQUIRE) == session)
      one_thread(&w, t);
  }
  fputs("\n]}\n", f);
  free(w.lives);
  free(w.map);
  if (fclose(f) != 0)
    err = -errno;
out:
  symbols_free();
  coro_trace_threads_unlock();
  return err;
}

/* {==================================================================
 * Starting and stopping: CORO_TRACE, coro_trace_start, coro_trace_stop
 * =================================================================== */

static pthread_mutex_t file_lock = PTHREAD_MUTEX_INITIALIZER;
static char *file; /* while a trace is recorded */

/* Stop and write, once: coro_trace_stop, exit, or a fatal error. */
static int finish(void) {
  pthread_mutex_lock(&file_lock);
  char *p = file;
  file = NULL;
  int r = -EINVAL;
  if (p) {
    uint64_t from, to;
    coro_trace_close(&from, &to);
    r = write_file(p, from, to);
    free(p);
  }
  pthread_mutex_unlock(&file_lock);
  return r;
}

static void at_exit(void) {
  (void)finish();
}

static void at_fatal(void) {
  (void)finish();
}

static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

static void exit_hook(void) {
  atexit(at_exit);
}

static int start(const char *path) {
  char *p = strdup(path);
  if (!p)
    return -ENOMEM;
  pthread_once(&exit_once, exit_hook);
  pthread_mutex_lock(&file_lock);
  if (file) {
    pthread_mutex_unlock(&file_lock);
    free(p);
    return -EBUSY;
  }
  uint64_t cap = CORO_TRACE_DEFAULT_CAP;
  const char *max = getenv("CORO_TRACE_MAX");
  if (max && *max) {
    char *end;
    unsigned long long n = strtoull(max, &end, 10);
    if (*end == '\0')
      cap = n;
  }
  file = p;
  coro_fatal_hook = at_fatal;
  coro_trace_open(cap);
  pthread_mutex_unlock(&file_lock);
  return 0;
}

static void env_none(void) {}

int coro_trace_start(const char *path) {
  /* (a call before the runtime's first use: the environment's CORO_TRACE is not read) */
  pthread_once(&env_once, env_none);
  return start(path);
}

int coro_trace_stop(void) {
  return finish();
}

static void env_read(void) {
  const char *path = getenv("CORO_TRACE");
  if (path && *path && start(path) < 0)
    fprintf(stderr, "coro: CORO_TRACE=%s: cannot record a trace\n", path);
}

void coro_trace_env(void) {
  pthread_once(&env_once, env_read);
}

/* }================================================================== */
