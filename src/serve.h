/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * serve - the parts of `tpctl serve` that touch neither tracefs nor the
 * network: the exposition format (serve_expo.c), the words of a metric's
 * line and the exporter-toolkit web config (serve_conf.c).
 */
#ifndef TPCTL_SERVE_H
#define TPCTL_SERVE_H

#include <stdbool.h>
#include <stdio.h>

struct agg_table;

enum expo_kind {
	EXPO_COUNTER,		/* count */
	EXPO_HISTOGRAM,		/* hist, latency */
};

struct expo_metric {
	const char *name;	/* the family: NAME_total, NAME_bucket, ... */
	const char *help;
	enum expo_kind kind;
	bool seconds;		/* latency: values are ns, written as seconds */
};

/* A label value, escaped, as valid UTF-8 (other bytes as the text \xNN). */
void expo_label_value(FILE *f, const char *s, size_t len);
/* The family m with the rows of t; om: OpenMetrics 1.0, else text 0.0.4. */
void expo_metric(FILE *f, const struct expo_metric *m, const struct agg_table *t, bool om);

/*
 * line split into words as a shell would, without expansions: blanks part
 * words, '...' quotes everything, "..." everything but \" \\ and \$, a
 * backslash elsewhere the next character, # at the start of a word a
 * comment.  0 with *words (NULL-terminated, one allocation: free(*words))
 * and *n; else -1 with *col (1-based) where the line goes wrong and *why.
 */
int serve_split(const char *line, char ***words, int *n, int *col, const char **why);

/*
 * A web config of Prometheus's exporter-toolkit (YAML): tls_server_config's
 * cert_file and key_file, basic_auth_users' user: bcrypt hash.  Only that
 * subset: block mappings, plain or quoted scalars, comments.  0, or -1 with
 * the error printed (naming the line).
 */
struct web_config {
	char *cert_file, *key_file;
	char **user, **hash;
	int nusers;
};
int web_config_load(const char *path, struct web_config *wc);
void web_config_free(struct web_config *wc);
/* A file tpctl serve reads secrets or metrics from: readable, not world-writable. */
int serve_file_ok(const char *path, const char *what);
/* The bcrypt (or any crypt(3)) hash matches pass. */
bool serve_pass_ok(const char *hash, const char *pass);

#endif
