/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * func_agg - count --function and latency --function: calls per kernel
 * function and how long they take, from the function tracers' records.
 * What agg_main() runs in place of agg_run() (struct agg_opts .run).
 */
#ifndef TPCTL_FUNC_AGG_H
#define TPCTL_FUNC_AGG_H

struct agg_opts;

/* o->ftrace says what is traced; returns the exit status */
int func_count_run(const struct agg_opts *o);
int func_latency_run(const struct agg_opts *o);

#endif
