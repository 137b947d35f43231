/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd - the commands: what tpctl.c's command table calls, and the option
 * parsers one command lends another (serve reads its metrics with count's,
 * hist's and latency's).  Only tpctl.c and the cmd_*.c files include it.
 */
#ifndef TPCTL_CMD_H
#define TPCTL_CMD_H

#include <stdbool.h>

/* Every command: argv[0] is the command name; returns an exit status. */
int cmd_list(int argc, char **argv);
int cmd_format(int argc, char **argv);
int cmd_enable(int argc, char **argv);
int cmd_disable(int argc, char **argv);
int cmd_filter(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_stream(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_count(int argc, char **argv);
int cmd_hist(int argc, char **argv);
int cmd_latency(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_strace(int argc, char **argv);
/* report decodes in a child process unless this is false (fuzzing) */
extern bool report_isolate;


/*
 * The command lines of count, hist and latency (argv[0] the command's name)
 * into o and t (agg_run.h), without running anything: returns as
 * target_parse() does (0, TP_USAGE after one error line, OPT_SHOWN after
 * --help); on 0 the caller releases o->spec and t.  So `tpctl serve` reads
 * its metrics in the same words as the commands.
 */
struct agg_opts;
struct target;
int count_parse(struct agg_opts *o, struct target *t, int argc, char **argv);
int hist_parse(struct agg_opts *o, struct target *t, int argc, char **argv);
int latency_parse(struct agg_opts *o, struct target *t, int argc, char **argv);

#endif
