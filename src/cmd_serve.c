// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tpctl serve [--listen ADDR:PORT] [--config FILE] [--max-series N]
 *             [--web-config FILE] [--tls-cert FILE --tls-key FILE] [METRIC...]
 *
 * The metrics of count, hist and latency command lines for Prometheus.  All
 * of them run over one session (agg_set_* of agg_run.c): the kernel engine
 * where it can be (a scrape reads the hist files), the user engine from one
 * reader otherwise.  The main thread reads the ring buffers; libmicrohttpd's
 * thread pool answers the requests.  One mutex guards the rows: a scrape
 * takes it between two portions of records (the reader yields while a
 * scrape waits, and waits for records without it), collects, copies the
 * totals and lets go; the text is written after.
 *
 * Signals: INT and TERM end the loop (live.c puts tracefs back as it closes
 * the session); HUP reads the config again, and a new config that does not
 * parse or cannot be traced leaves the old one running.
 */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agg_run.h"
#include "opt.h"
#include "percpu.h"
#include "serve.h"
#include "serve_http.h"
#include "state.h"
#include "target.h"
#include "cmd.h"
#include "util.h"

#define DEFAULT_LISTEN	"127.0.0.1:9464"
#define WAIT_MS		50
#define MAX_METRICS	64
/*
 * A scrape that comes within this many seconds of the last one of its format
 * gets that one's text: many scrapers at once cost one collection, not one
 * each behind the lock.
 */
#define REUSE_S		0.25
struct metric {
	char *line;		/* as written, for the index page */
	char **words;		/* serve_split()'s */
	char *name;
	const char *cmd;	/* count, hist, latency */
	struct agg_opts o;
	struct target t;
	bool parsed;
};

struct config {
	struct metric m[MAX_METRICS];
	int n;
	/*
	 * Holders: srv.cfg, and each scrape writing its text after the lock
	 * (its tables name their keys with the config's strings), so that a
	 * SIGHUP's new config does not free them under a scrape.
	 */
	atomic_int refs;
};

static struct {
	pthread_mutex_t lock;
	pthread_mutex_t cache_lock;	/* guards cache[] alone: not held while reading */
	atomic_int waiting;		/* scrapes waiting for the lock */
	struct config *cfg;
	struct agg_set *set;
	size_t max_series;
	unsigned long long buffer_kb;	/* --buffer-kb: the session's per-CPU buffer (0: default) */
	struct web_config wc;
	struct {
		char *text;		/* the last /metrics of the format, or NULL */
		size_t len;
		double at;		/* when it was made */
	} cache[2];			/* text 0.0.4, OpenMetrics */
} srv = { .lock = PTHREAD_MUTEX_INITIALIZER, .cache_lock = PTHREAD_MUTEX_INITIALIZER };

static void config_free(struct config *c)
{
	int i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++) {
		if (c->m[i].parsed) {
			agg_spec_release(&c->m[i].o.spec);
			target_free(&c->m[i].t);
		}
		free(c->m[i].words);
		free(c->m[i].line);
		free(c->m[i].name);
	}
	free(c);
}

/* A holder lets go of c; the last one frees it. */
static void config_put(struct config *c)
{
	if (c && atomic_fetch_sub(&c->refs, 1) == 1)
		config_free(c);
}

static bool name_ok(const char *s)
{
	const char *p;

	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == ':'))
			return false;
	return true;
}

/*
 * The messages a metric's parse wrote ("tpctl: hist: unknown option
 * '--bogus'"), to stderr as serve's: "tpctl: serve: FILE:LINE:COL: hist:
 * ...", COL the column of the first quoted word found in the line (the
 * metric's first word where none is).  Other lines pass as they are.
 */
static void retell(const char *msgs, const char *line, const char *where, int col,
		   const char *cmd)
{
	char prefix[64];
	size_t plen;
	const char *p, *nl;

	snprintf(prefix, sizeof(prefix), "tpctl: %s: ", cmd);
	plen = strlen(prefix);
	for (p = msgs; p && *p; p = nl ? nl + 1 : NULL) {
		const char *q, *qe, *at = NULL;
		int c = col;

		const char *e;

		nl = strchr(p, '\n');
		e = nl ? nl : p + strlen(p);
		if (strncmp(p, prefix, plen)) {
			fprintf(stderr, "%.*s\n", (int)(e - p), p);
			continue;
		}
		q = memchr(p + plen, '\'', e - (p + plen));
		qe = q ? memchr(q + 1, '\'', e - (q + 1)) : NULL;
		if (qe && qe > q + 1) {
			char *word = strndup(q + 1, qe - q - 1);

			/* past the metric's own word: "hist" must not be found in "--histx" first */
			at = word ? strstr(line + col - 1 + strlen(cmd), word) : NULL;
			free(word);
		}
		if (at)
			c = at - line + 1;
		fprintf(stderr, "tpctl: serve: %s:%d: %s: %.*s\n", where, c, cmd,
			(int)(e - p - plen), p + plen);
	}
}

typedef int (*metric_parse_fn)(struct agg_opts *, struct target *, int, char **);

/*
 * --name is serve's own: taken out of the n words before the command sees
 * them.  *k: the words left (the metric's own first).
 */
static int metric_name_take(struct metric *m, int n, const char *where, int col, int *k)
{
	char **w = m->words;
	int i;

	for (i = 1, *k = 1; i < n; i++) {
		const char *v = NULL;

		if (!strcmp(w[i], "--"))
			break;
		if (!strcmp(w[i], "--name") && i + 1 < n)
			v = w[++i];
		else if (!strncmp(w[i], "--name=", 7))
			v = w[i] + 7;
		if (!v) {
			w[(*k)++] = w[i];
			continue;
		}
		if (!name_ok(v)) {
			tp_error("%s:%d: invalid metric name '%s'", where, col, v);
			return TP_USAGE;
		}
		free(m->name);
		m->name = strdup(v);
		if (!m->name)
			return tp_oom();
	}
	for (; i < n; i++)
		w[(*k)++] = w[i];
	w[*k] = NULL;
	return TP_OK;
}

/*
 * What a metric cannot have: its own target, input or intervals (one session
 * for all), or an output of its own (serve's is the exposition).
 */
static int metric_check(const struct metric *m)
{
	if (m->t.argv || m->t.npids || m->t.cgroup || m->t.all)
		tp_error("a target (-p, --cgroup, -- COMMAND) cannot be given to a metric");
	else if (m->o.input)
		tp_error("'--input' cannot be given to a metric: serve traces the live kernel");
	else if (m->o.interval > 0 || m->o.duration > 0 || m->o.over)
		tp_error("'--interval', '--duration' and '--over' cannot be given to a metric");
	else if (m->o.folded || m->o.flamegraph)
		tp_error("'%s' cannot be given to a metric: serve's output is Prometheus's text",
			 m->o.folded ? "--folded" : "--flamegraph");
	else
		return TP_OK;
	return TP_USAGE;
}

/*
 * The metric's k words to its command's parse.  The command's own messages
 * are caught and told again with the place of the word they name; its
 * "try 'tpctl hist --help'" stays as it is.
 */
static int metric_cmd_parse(struct metric *m, metric_parse_fn parse, int k, const char *line,
			    const char *where, int col)
{
	const char *saved = tp.cmd;
	FILE *caught, *saved_err = NULL;
	char label[512], *msgs = NULL;
	size_t msgs_len = 0;
	int ret;

	snprintf(label, sizeof(label), "serve: %s:%d: %s", where, col, m->cmd);
	tp.cmd = m->cmd;
	caught = open_memstream(&msgs, &msgs_len);
	if (caught) {
		saved_err = stderr;
		stderr = caught;
	}
	/* getopt_long() starts again from the first word */
	optind = 0;
	ret = parse(&m->o, &m->t, k, m->words);
	if (caught) {
		stderr = saved_err;
		fclose(caught);
		retell(msgs, line, where, col, m->cmd);
		free(msgs);
	}
	tp.cmd = label;
	if (!ret) {
		m->parsed = true;
		ret = metric_check(m);
	} else if (ret == OPT_SHOWN) {
		tp_error("'--help' is not a metric");
		ret = TP_USAGE;
	}
	tp.cmd = saved;
	return ret;
}

/* The family of a metric without --name; a count's given without its "_total". */
static int metric_name_default(struct metric *m)
{
	size_t n;

	if (!m->name) {
		char buf[128];

		if (!strcmp(m->cmd, "count"))
			snprintf(buf, sizeof(buf), "tpctl_events");
		else if (!strcmp(m->cmd, "latency"))
			snprintf(buf, sizeof(buf), "tpctl_latency_seconds");
		else if (name_ok(m->o.spec.value))
			snprintf(buf, sizeof(buf), "tpctl_%s", m->o.spec.value);
		else
			snprintf(buf, sizeof(buf), "tpctl_hist");
		m->name = strdup(buf);
		if (!m->name)
			return tp_oom();
	}
	/* tpctl_events_total is a count's family: the name given without the suffix */
	n = strlen(m->name);
	if (!strcmp(m->cmd, "count") && n > 6 && !strcmp(m->name + n - 6, "_total"))
		m->name[n - 6] = '\0';
	return TP_OK;
}

/*
 * One metric's line: its words to the command's own parse (count_parse,
 * ...).  where: "FILE:LINE" or "argument N", for the errors, which name the
 * column too.
 */
static int metric_parse(struct metric *m, const char *line, const char *where)
{
	metric_parse_fn parse = NULL;
	const char *why;
	int n, k, col = 1, i, ret;
	char **w;

	m->line = strdup(line);
	if (!m->line)
		return tp_oom();
	if (serve_split(line, &m->words, &n, &col, &why)) {
		tp_error("%s:%d: %s", where, col, why);
		return TP_USAGE;
	}
	w = m->words;
	for (i = 0; (size_t)(line + i - line) < strlen(line) && strchr(" \t", line[i]); i++)
		;
	col = i + 1;
	if (!n)
		return TP_OK;
	if (!strcmp(w[0], "count"))
		parse = count_parse;
	else if (!strcmp(w[0], "hist"))
		parse = hist_parse;
	else if (!strcmp(w[0], "latency"))
		parse = latency_parse;
	if (!parse) {
		tp_error("%s:%d: '%s' is not a metric: count, hist or latency", where, col, w[0]);
		return TP_USAGE;
	}
	m->cmd = w[0];
	ret = metric_name_take(m, n, where, col, &k);
	if (!ret)
		ret = metric_cmd_parse(m, parse, k, line, where, col);
	if (!ret)
		ret = metric_name_default(m);
	return ret;
}

/* The metrics of the config file (when given) and of the METRIC arguments. */
static int config_load(struct config **cp, const char *path, int argc, char **argv)
{
	struct config *c = calloc(1, sizeof(*c));

	if (c)
		atomic_init(&c->refs, 1);
	char where[4096], *line = NULL;
	size_t alloc = 0;
	int ret = TP_OK, lineno = 0, i, k;
	FILE *f = NULL;

	*cp = NULL;
	if (!c)
		return tp_oom();
	if (path) {
		if (serve_file_ok(path, "config")) {
			config_free(c);
			return TP_FAIL;
		}
		f = fopen(path, "r");
		if (!f) {
			tp_error("cannot read the config '%s': %s", path, strerror(errno));
			config_free(c);
			return TP_FAIL;
		}
	}
	while (!ret && f && getline(&line, &alloc, f) > 0) {
		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (c->n == MAX_METRICS) {
			tp_error("%s:%d: more than %d metrics", path, lineno, MAX_METRICS);
			ret = TP_USAGE;
			break;
		}
		snprintf(where, sizeof(where), "%s:%d", path, lineno);
		ret = metric_parse(&c->m[c->n], line, where);
		/* an empty or comment line is no metric */
		if (c->m[c->n].cmd || ret)
			c->n++;
		else
			free(c->m[c->n].line), free(c->m[c->n].words), c->m[c->n].line = NULL,
				c->m[c->n].words = NULL;
	}
	free(line);
	if (f)
		fclose(f);
	for (i = 0; !ret && i < argc; i++) {
		if (c->n == MAX_METRICS) {
			tp_error("more than %d metrics", MAX_METRICS);
			ret = TP_USAGE;
			break;
		}
		snprintf(where, sizeof(where), "argument %d", i + 1);
		ret = metric_parse(&c->m[c->n++], argv[i], where);
		if (!ret && !c->m[c->n - 1].cmd) {
			tp_error("argument %d: an empty metric", i + 1);
			ret = TP_USAGE;
		}
	}
	if (!ret && !c->n) {
		tp_error("no metric given: a METRIC argument or '--config FILE'");
		ret = TP_USAGE;
	}
	for (i = 0; !ret && i < c->n; i++)
		for (k = 0; k < i; k++)
			if (!strcmp(c->m[i].name, c->m[k].name)) {
				tp_error("two metrics are called '%s'; give one '--name NAME'",
					 c->m[i].name);
				ret = TP_USAGE;
				break;
			}
	if (ret) {
		config_free(c);
		return ret;
	}
	*cp = c;
	return TP_OK;
}

static int set_open(struct config *c)
{
	const struct agg_opts *o[MAX_METRICS];
	int i, ret;

	/* the kernel's tables are made as large as the rows kept */
	for (i = 0; i < c->n; i++) {
		c->m[i].o.max_rows = srv.max_series;
		/* --buffer-kb: the session's buffer, unless a metric asks for more */
		if (srv.buffer_kb > c->m[i].o.buffer_kb)
			c->m[i].o.buffer_kb = srv.buffer_kb;
		o[i] = &c->m[i].o;
	}
	ret = agg_set_open(&srv.set, o, c->n);
	if (ret)
		return ret;
	ret = agg_set_start(srv.set);
	if (ret) {
		agg_set_close(srv.set, ret);
		srv.set = NULL;
	}
	return ret;
}

/* ---- the pages ---- */

/*
 * What a scrape takes from the rows under the lock: each metric's table and
 * self-metrics, and copies of its names (a SIGHUP may replace the config
 * while the text is written, outside the lock, so that the reader is held
 * up only for the copy and not while thousands of series are formatted).
 */
struct scrape {
	int n;
	struct {
		char name[128];
		char help[1024];
		struct expo_metric em;
		struct agg_table *t;
		unsigned long long lost, dropped;
		size_t tasks, open;		/* tasks tracked, STARTs waiting */
		bool kernel;
	} m[MAX_METRICS];
};

/* The help text is the metric's line, with what the formats escape escaped. */
static void help_text(char *help, size_t size, const char *line, bool om)
{
	char *h = help;
	const char *p;

	for (p = line; *p && h < help + size - 3; p++) {
		if (*p == '\\' || *p == '\n' || (om && *p == '"'))
			*h++ = '\\';
		*h++ = *p == '\n' ? 'n' : *p;
	}
	*h = '\0';
}

/* Under the lock: the rows collected and copied. */
static void scrape_take(struct scrape *sc, bool om)
{
	int i;

	agg_set_collect(srv.set);
	sc->n = srv.cfg->n;
	for (i = 0; i < sc->n; i++) {
		struct metric *m = &srv.cfg->m[i];
		struct agg *a = agg_set_agg(srv.set, i);

		snprintf(sc->m[i].name, sizeof(sc->m[i].name), "%s", m->name);
		help_text(sc->m[i].help, sizeof(sc->m[i].help), m->line, om);
		sc->m[i].em = (struct expo_metric){
			.name = sc->m[i].name,
			.kind = strcmp(m->cmd, "count") ? EXPO_HISTOGRAM : EXPO_COUNTER,
			.seconds = !strcmp(m->cmd, "latency"),
			.help = sc->m[i].help,
		};
		agg_interval_end(a);
		sc->m[i].t = agg_snapshot(a, true, 0);
		sc->m[i].lost = sc->m[i].t ? sc->m[i].t->lost : 0;
		sc->m[i].dropped = agg_refused(a);
		sc->m[i].tasks = agg_tasks_tracked(a);
		sc->m[i].open = agg_open_starts(a);
		sc->m[i].kernel = agg_set_kernel(srv.set, i);
	}
}

static void self_metrics(FILE *f, const struct scrape *sc, bool om, double t0)
{
	int i;

	fprintf(f, "# HELP tpctl_lost_events%s events lost before they were counted "
		"(ring buffer overruns, a full kernel table)\n"
		"# TYPE tpctl_lost_events%s counter\n", om ? "" : "_total", om ? "" : "_total");
	for (i = 0; i < sc->n; i++)
		fprintf(f, "tpctl_lost_events_total{metric=\"%s\"} %llu\n", sc->m[i].name,
			sc->m[i].lost);
	fprintf(f, "# HELP tpctl_dropped_series_events%s events not counted because their "
		"series would pass --max-series\n"
		"# TYPE tpctl_dropped_series_events%s counter\n", om ? "" : "_total",
		om ? "" : "_total");
	for (i = 0; i < sc->n; i++)
		fprintf(f, "tpctl_dropped_series_events_total{metric=\"%s\"} %llu\n",
			sc->m[i].name, sc->m[i].dropped);
	fprintf(f, "# HELP tpctl_metric_info the engine of each metric\n"
		"# TYPE tpctl_metric_info gauge\n");
	for (i = 0; i < sc->n; i++)
		fprintf(f, "tpctl_metric_info{metric=\"%s\",engine=\"%s\"} 1\n", sc->m[i].name,
			sc->m[i].kernel ? "kernel" : "user");
	/* what is kept per task: it follows the tasks alive, not all that ever ran */
	fprintf(f, "# HELP tpctl_tasks_tracked tasks (pids) a metric keeps anything for: "
		"a name, a START waiting for its END\n"
		"# TYPE tpctl_tasks_tracked gauge\n");
	for (i = 0; i < sc->n; i++)
		fprintf(f, "tpctl_tasks_tracked{metric=\"%s\"} %zu\n", sc->m[i].name,
			sc->m[i].tasks);
	fprintf(f, "# HELP tpctl_latency_open_starts STARTs of a latency metric waiting for "
		"their END\n"
		"# TYPE tpctl_latency_open_starts gauge\n");
	for (i = 0; i < sc->n; i++)
		if (sc->m[i].em.seconds)
			fprintf(f, "tpctl_latency_open_starts{metric=\"%s\"} %zu\n",
				sc->m[i].name, sc->m[i].open);
	fprintf(f, "# HELP tpctl_scrape_duration_seconds how long this scrape took up to here\n"
		"# TYPE tpctl_scrape_duration_seconds gauge\n"
		"tpctl_scrape_duration_seconds %.6f\n", tp_now_s() - t0);
	if (om)
		fputs("# EOF\n", f);
}

static void cache_drop(void)
{
	int i;

	pthread_mutex_lock(&srv.cache_lock);
	for (i = 0; i < 2; i++) {
		free(srv.cache[i].text);
		srv.cache[i].text = NULL;
		/* a scrape of the old config still being written does not come back */
		srv.cache[i].at = tp_now_s();
	}
	pthread_mutex_unlock(&srv.cache_lock);
}

/*
 * The text of /metrics: the rows taken under the lock, written after it (or
 * the last text, when it is recent).
 */
static char *metrics_text(bool om, size_t *len)
{
	struct scrape *sc = calloc(1, sizeof(*sc));
	struct config *cfg;
	double t0;
	char *buf = NULL;
	FILE *f;
	int i;

	if (!sc)
		return NULL;
	pthread_mutex_lock(&srv.cache_lock);
	t0 = tp_now_s();
	if (srv.cache[om].text && t0 - srv.cache[om].at < REUSE_S) {
		buf = malloc(srv.cache[om].len);
		if (buf)
			memcpy(buf, srv.cache[om].text, srv.cache[om].len);
		*len = srv.cache[om].len;
		pthread_mutex_unlock(&srv.cache_lock);
		free(sc);
		return buf;
	}
	pthread_mutex_unlock(&srv.cache_lock);
	atomic_fetch_add(&srv.waiting, 1);
	pthread_mutex_lock(&srv.lock);
	atomic_fetch_sub(&srv.waiting, 1);
	t0 = tp_now_s();
	scrape_take(sc, om);
	cfg = srv.cfg;
	atomic_fetch_add(&cfg->refs, 1);
	pthread_mutex_unlock(&srv.lock);

	f = open_memstream(&buf, len);
	for (i = 0; i < sc->n; i++) {
		if (f && sc->m[i].t)
			expo_metric(f, &sc->m[i].em, sc->m[i].t, om);
		agg_table_free(sc->m[i].t);
	}
	if (f)
		self_metrics(f, sc, om, t0);
	config_put(cfg);
	free(sc);
	if (!f || fclose(f)) {
		free(buf);
		return NULL;
	}
	pthread_mutex_lock(&srv.cache_lock);
	if (t0 >= srv.cache[om].at) {
		free(srv.cache[om].text);
		srv.cache[om].text = malloc(*len);
		if (srv.cache[om].text)
			memcpy(srv.cache[om].text, buf, *len);
		srv.cache[om].len = *len;
		srv.cache[om].at = t0;
	}
	pthread_mutex_unlock(&srv.cache_lock);
	return buf;
}

static void html_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else
			fputc(*s, f);
	}
}

static char *index_text(size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int i;

	if (!f)
		return NULL;
	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>tpctl serve</title>"
	      "</head><body>\n<h1>tpctl serve</h1>\n<p><a href=\"/metrics\">/metrics</a></p>\n"
	      "<ul>\n", f);
	pthread_mutex_lock(&srv.lock);
	for (i = 0; i < srv.cfg->n; i++) {
		fputs("<li><code>", f);
		html_text(f, srv.cfg->m[i].name);
		fputs("</code>: <code>", f);
		html_text(f, srv.cfg->m[i].line);
		fprintf(f, "</code> (%s engine)</li>\n",
			agg_set_kernel(srv.set, i) ? "kernel" : "user");
	}
	pthread_mutex_unlock(&srv.lock);
	fputs("</ul>\n</body></html>\n", f);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* SIGHUP: the config again; a bad one leaves the old running. */
static void reload(const char *path, int argc, char **argv)
{
	struct config *c;
	int ret;

	tp_warn("SIGHUP: reading the config again");
	ret = config_load(&c, path, argc, argv);
	if (ret) {
		tp_warn("the new config is not used; the old one goes on");
		return;
	}
	pthread_mutex_lock(&srv.lock);
	agg_set_close(srv.set, TP_OK);
	srv.set = NULL;
	ret = set_open(c);
	if (ret) {
		tp_warn("the new config cannot be traced; the old one goes on");
		config_free(c);
		if (set_open(srv.cfg)) {
			pthread_mutex_unlock(&srv.lock);
			tp_error("the old config cannot be traced again");
			state_stop = SIGTERM;
			return;
		}
	} else {
		config_put(srv.cfg);
		srv.cfg = c;
	}
	cache_drop();
	pthread_mutex_unlock(&srv.lock);
}

/*
 * The options checked and the web config read (its certificate for
 * --tls-cert's): TP_OK, or the status serve ends with.
 */
static int serve_check(const char *listen, struct sockaddr_storage *ss, const char *web,
		       const char **cert, const char **key)
{
	if (tp.instance) {
		tp_error("serve traces in a private instance; '-i %s' cannot be used", tp.instance);
		return TP_USAGE;
	}
	if (serve_http_listen_parse(listen, ss)) {
		tp_error("invalid listen address '%s': ADDR:PORT or [ADDR6]:PORT", listen);
		return TP_USAGE;
	}
	if (!*cert != !*key) {
		tp_error("'--tls-cert' and '--tls-key' go together");
		return TP_USAGE;
	}
	if (web && web_config_load(web, &srv.wc))
		return TP_USAGE;
	if (srv.wc.cert_file && *cert) {
		tp_error("the certificate is given twice: '--tls-cert' and '%s'", web);
		web_config_free(&srv.wc);
		return TP_USAGE;
	}
	if (srv.wc.cert_file) {
		*cert = srv.wc.cert_file;
		*key = srv.wc.key_file;
	}
	return TP_OK;
}

/*
 * Until INT or TERM: the records read under the lock, waited for without
 * it; HUP reads the config again.
 */
static int serve_loop(const char *config, const struct tp_args *args)
{
	bool done = false;
	int ret = TP_OK;

	while (!state_stop || state_stop == SIGHUP) {
		if (state_stop == SIGHUP) {
			state_stop = 0;
			reload(config, args->argc, args->argv);
			continue;
		}
		serve_http_reap();
		pthread_mutex_lock(&srv.lock);
		ret = agg_set_read(srv.set, 0, &done);
		pthread_mutex_unlock(&srv.lock);
		if (ret || done)
			break;
		/*
		 * the wait for more records (or the kernel engine's pause) without
		 * the lock: a scrape does not wait for it (only this thread changes
		 * srv.set, on SIGHUP)
		 */
		agg_set_wait(srv.set, WAIT_MS);
		/* a scrape waits: it goes first */
		while (atomic_load(&srv.waiting) && !state_stop)
			usleep(1000);
	}
	return ret;
}

static const struct serve_pages pages = { metrics_text, index_text };

int cmd_serve(int argc, char **argv)
{
	const char *listen = DEFAULT_LISTEN, *config = NULL, *web = NULL;
	const char *cert = NULL, *key = NULL;
	unsigned long long max_series = 10000;
	const struct tp_opt opts[] = {
		BUFFER_KB_OPT(&srv.buffer_kb),
		OPT_ARG("METRIC", "a metric: a count, hist or latency command line with its\n"
			"options and a name of its own, one argument each (tpctl-serve(1))"),
		OPT_STRING('l', "listen", &listen, "ADDR:PORT",
			   "listen there (default " DEFAULT_LISTEN "; [ADDR] for IPv6)"),
		OPT_STRING('c', "config", &config, "FILE",
			   "the metrics of FILE, one per line ('#' comments);\n"
			   "SIGHUP reads it again"),
		OPT_UINT(0, "max-series", &max_series, "N", 1, 100000000,
			 "at most N rows per metric (a key, or a key and a bucket);\n"
			 "the events of new keys beyond them are counted as dropped\n"
			 "(default 10000)"),
		OPT_STRING(0, "web-config", &web, "FILE",
			   "TLS and basic auth as Prometheus's exporter-toolkit\n"
			   "web config (tls_server_config, basic_auth_users)"),
		OPT_STRING(0, "tls-cert", &cert, "FILE", "serve HTTPS with this certificate (PEM)"),
		OPT_STRING(0, "tls-key", &key, "FILE", "the private key of --tls-cert (PEM)"),
		OPT_END(),
	};
	const struct tp_cmd_spec spec = {
		"tpctl serve [--listen ADDR:PORT] [--config FILE] [--max-series N] [--buffer-kb N]\n"
		"                   [--web-config FILE] [--tls-cert FILE --tls-key FILE] [METRIC...]",
		opts, 0, NULL,
	};
	struct sockaddr_storage ss;
	struct MHD_Daemon *d = NULL;
	struct tp_args args;
	int ret;

#ifdef __GLIBC__
	/*
	 * A scrape's text and tables (MBs with thousands of series) come and go
	 * every second, in the threads' arenas: from their own mappings, so that
	 * they go back to the system when freed (glibc's threshold would follow
	 * the largest freed one up to 32 MB and keep them on the heaps instead).
	 */
	mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
	ret = opt_parse(argc, argv, &spec, &args);
	if (ret)
		return opt_status(ret);
	srv.max_series = max_series;
	ret = serve_check(listen, &ss, web, &cert, &key);
	if (ret)
		return ret;
	ret = config_load(&srv.cfg, config, args.argc, args.argv);
	if (ret)
		goto out;
	ret = set_open(srv.cfg);
	if (ret)
		goto out;
	d = serve_http_start(listen, &ss, cert, key, &srv.wc, &pages);
	if (!d) {
		ret = TP_FAIL;
		goto out;
	}
	tp_debug("listening on %s%s", listen, cert ? " (TLS)" : "");
	ret = serve_loop(config, &args);
out:
	/* the requests end before the session they read */
	serve_http_stop(d);
	if (srv.set)
		ret = agg_set_close(srv.set, ret);
	srv.set = NULL;
	config_put(srv.cfg);
	srv.cfg = NULL;
	web_config_free(&srv.wc);
	cache_drop();
	return ret;
}
