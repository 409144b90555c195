/* output/depfile.h: the dependency file of -MD/-MMD (depfile.c), what the
 * driver (run.c, main.c) asks of it.
 */
#ifndef COROC_DEPFILE_H
#define COROC_DEPFILE_H

#include "coroc.h"

typedef struct {
  bool wanted;          /* -MD or -MMD was given */
  bool system_headers;  /* -MD: system headers too; -MMD: user headers only */
  bool phony;           /* -MP: a rule with no prerequisites for each header */
  const char *path;     /* where the rule goes (-MF, or OUT.c with the suffix .d) */
  const char **targets; /* -MT, verbatim; or the -o output, quoted by depfile_quote */
  int ntargets;
} DepOptions;

/* The rule `TARGETS: INPUT FILES...`, where FILES are the files the
   preprocessor read for src, first one first; `input` is the input's path
   (NULL for standard input). */
char *depfile_rule(const DepOptions *dep, const Source *src, const char *input, size_t *len);
/* A file name quoted for make as gcc quotes it. */
char *depfile_quote(const char *name);

#endif
