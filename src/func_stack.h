/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * func_stack - latency --function PATTERN --by stack: the time spent in each
 * call path of function_graph's records.  Each task's frames are rebuilt
 * from its funcgraph_entry and funcgraph_exit records (their depth places a
 * call under its callers); at a return, the call's own time (its duration
 * less its children's) is added to its path, the functions from the graph's
 * root down to it.  The paths come out as stacks for flame.h, weighted in
 * microseconds.
 */
#ifndef TPCTL_FUNC_STACK_H
#define TPCTL_FUNC_STACK_H

#include <stdbool.h>

struct tep_handle;
struct tep_record;
struct flame;

struct fstack;

/*
 * For the records of tep; root: only the trees whose outermost function
 * matches this glob (a recording's other graphs), NULL: every tree.  NULL
 * with an error printed when the kernel's formats lack a field or memory
 * ran out (*oom set).
 */
struct fstack *fstack_new(struct tep_handle *tep, const char *root, bool *oom);
void fstack_free(struct fstack *s);

/* One record (others than function_graph's are ignored); -1: out of memory. */
int fstack_record(struct fstack *s, struct tep_record *rec);

/* The paths into fl, their own time in microseconds, rounded; -1 (errno) on failure. */
int fstack_flame(struct fstack *s, struct flame *fl);

/*
 * The own time of all the paths, in nanoseconds; the returns whose call was
 * not seen; the time of the calls outside the task's open calls, left out;
 * the function_graph records read.
 */
unsigned long long fstack_total_ns(const struct fstack *s);
unsigned long long fstack_unpaired(const struct fstack *s);
unsigned long long fstack_outside_ns(const struct fstack *s);
unsigned long long fstack_seen(const struct fstack *s);

#endif
