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
#include <arpa/inet.h>
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "agg_run.h"
#include "opt.h"
#include "serve.h"
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
/*
 * A connection gets this many seconds, from its start or from the end of
 * its last request, to send a whole request, and as many again to read the
 * answer; then it is closed.  What the server is slow at does not count:
 * making the answer, a request it has not read yet, an answer it has not
 * written yet.  libmicrohttpd's own timeout is an idle one: a client
 * sending one byte a second would hold its slot for ever.
 */
#define REQUEST_S	5

enum conn_phase {
	CONN_REQUEST,		/* the client sends its request */
	CONN_BUSY,		/* the server makes the answer: no deadline */
	CONN_ANSWER,		/* the client reads the answer */
};

/* A connection the deadline watches (from libmicrohttpd's start to its close). */
struct conn {
	struct conn *prev, *next;
	int fd;
	double since;		/* its start, the end of its last request, or its answer queued */
	enum conn_phase phase;
	bool cut;		/* shut down already */
};

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
	struct web_config wc;
	struct {
		char *text;		/* the last /metrics of the format, or NULL */
		size_t len;
		double at;		/* when it was made */
	} cache[2];			/* text 0.0.4, OpenMetrics */
	atomic_ullong refused_auth, refused_log_at;
	/* the main thread is ending: refusals are not logged (read by MHD's threads) */
	atomic_bool stopping;
	pthread_mutex_t conn_lock;	/* guards conns */
	struct conn conns;		/* the open connections, a ring */
	double reap_at;			/* the main loop's next look at them */
} srv = { .lock = PTHREAD_MUTEX_INITIALIZER, .cache_lock = PTHREAD_MUTEX_INITIALIZER,
	  .conn_lock = PTHREAD_MUTEX_INITIALIZER, .conns = { &srv.conns, &srv.conns } };

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

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

/*
 * One metric's line: its words to the command's own parse (count_parse,
 * ...).  where: "FILE:LINE" or "argument N", for the errors, which name the
 * column too.
 */
static int metric_parse(struct metric *m, const char *line, const char *where)
{
	int (*parse)(struct agg_opts *, struct target *, int, char **) = NULL;
	char label[512], **w;
	const char *why, *saved = tp.cmd;
	int n, col = 1, i, k, ret;
	FILE *caught, *saved_err = NULL;
	char *msgs = NULL;
	size_t msgs_len = 0;

	m->line = strdup(line);
	if (!m->line) {
		tp_error("out of memory");
		return TP_FAIL;
	}
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
	/* --name is serve's own: taken out before the command sees the words */
	for (i = 1, k = 1; i < n; i++) {
		const char *v = NULL;

		if (!strcmp(w[i], "--"))
			break;
		if (!strcmp(w[i], "--name") && i + 1 < n)
			v = w[++i];
		else if (!strncmp(w[i], "--name=", 7))
			v = w[i] + 7;
		if (!v) {
			w[k++] = w[i];
			continue;
		}
		if (!name_ok(v)) {
			tp_error("%s:%d: invalid metric name '%s'", where, col, v);
			return TP_USAGE;
		}
		free(m->name);
		m->name = strdup(v);
		if (!m->name) {
			tp_error("out of memory");
			return TP_FAIL;
		}
	}
	for (; i < n; i++)
		w[k++] = w[i];
	w[k] = NULL;
	snprintf(label, sizeof(label), "serve: %s:%d: %s", where, col, m->cmd);
	/*
	 * The command's own messages are caught and told again with the place
	 * of the word they name; its "try 'tpctl hist --help'" stays as it is.
	 */
	tp.cmd = m->cmd;
	caught = open_memstream(&msgs, &msgs_len);
	if (caught) {
		saved_err = stderr;
		stderr = caught;
	}
	/* getopt_long() starts again from the first word */
	optind = 0;
	ret = parse(&m->o, &m->t, k, w);
	if (caught) {
		stderr = saved_err;
		fclose(caught);
		retell(msgs, line, where, col, m->cmd);
		free(msgs);
	}
	tp.cmd = label;
	if (!ret) {
		m->parsed = true;
		ret = TP_USAGE;
		/* one session for every metric: no target of its own, the live kernel */
		if (m->t.argv || m->t.npids || m->t.cgroup || m->t.all)
			tp_error("a target (-p, --cgroup, -- COMMAND) cannot be given to a metric");
		else if (m->o.input)
			tp_error("'--input' cannot be given to a metric: serve traces the live kernel");
		else if (m->o.interval > 0 || m->o.duration > 0 || m->o.over)
			tp_error("'--interval', '--duration' and '--over' cannot be given to a metric");
		else
			ret = TP_OK;
	} else if (ret == OPT_SHOWN) {
		tp_error("'--help' is not a metric");
		ret = TP_USAGE;
	}
	tp.cmd = saved;
	if (ret)
		return ret;
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
		if (!m->name) {
			tp_error("out of memory");
			return TP_FAIL;
		}
	}
	/* tpctl_events_total is a count's family: the name given without the suffix */
	n = strlen(m->name);
	if (!strcmp(m->cmd, "count") && n > 6 && !strcmp(m->name + n - 6, "_total"))
		m->name[n - 6] = '\0';
	return TP_OK;
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
	if (!c) {
		tp_error("out of memory");
		return TP_FAIL;
	}
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

/* ---- HTTP ---- */

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
		"tpctl_scrape_duration_seconds %.6f\n", now_s() - t0);
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
		srv.cache[i].at = now_s();
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
	t0 = now_s();
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
	t0 = now_s();
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

static int reply(struct MHD_Connection *c, unsigned status, const char *type, char *text,
		 size_t len)
{
	struct MHD_Response *r;
	int ret;

	if (!text)
		return MHD_queue_response(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
					  MHD_create_response_from_buffer(0, (void *)"",
									  MHD_RESPMEM_PERSISTENT));
	r = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(text);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/*
 * A refusal (a wrong password, a failed TLS handshake, a connection the
 * server dropped) in the log: the first, then at most one a minute with how
 * many there were, so that a client cannot flood the log.
 */
static void refused(const char *why)
{
	/* not state_stop: a signal handler of the main thread writes it */
	if (atomic_load(&srv.stopping))
		return;
	unsigned long long n = atomic_fetch_add(&srv.refused_auth, 1) + 1;
	unsigned long long now = (unsigned long long)now_s(), last = srv.refused_log_at;

	if ((n == 1 || now >= last + 60) &&
	    atomic_compare_exchange_strong(&srv.refused_log_at, &last, now + (n == 1)))
		tp_warn("%s (%llu refused or dropped so far)", why, n);
}

static bool authorized(struct MHD_Connection *c)
{
	char *pass = NULL, *user;
	bool ok = false;
	int i;

	if (!srv.wc.nusers)
		return true;
	user = MHD_basic_auth_get_username_password(c, &pass);
	for (i = 0; user && pass && i < srv.wc.nusers && !ok; i++)
		if (!strcmp(user, srv.wc.user[i]))
			ok = serve_pass_ok(srv.wc.hash[i], pass);
	if (pass) {
		explicit_bzero(pass, strlen(pass));
		MHD_free(pass);
	}
	if (user)
		MHD_free(user);
	return ok;
}

/* The answer to a whole request, queued. */
static enum MHD_Result answer(struct MHD_Connection *c, const char *url, const char *method)
{
	static const char *const om_type =
		"application/openmetrics-text; version=1.0.0; charset=utf-8";
	const char *accept;
	size_t len = 0;
	char *text;
	bool om;

	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		text = strdup("only GET\n");
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", text,
			     text ? strlen(text) : 0);
	}
	if (!authorized(c)) {
		struct MHD_Response *r;
		enum MHD_Result ret;

		refused("refused: wrong user or password");
		r = MHD_create_response_from_buffer(13, (void *)"unauthorized\n",
						    MHD_RESPMEM_PERSISTENT);
		if (!r)
			return MHD_NO;
		ret = MHD_queue_basic_auth_fail_response(c, "tpctl", r);
		MHD_destroy_response(r);
		return ret;
	}
	if (!strcmp(url, "/metrics")) {
		accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						     MHD_HTTP_HEADER_ACCEPT);
		om = accept && strstr(accept, "application/openmetrics-text");
		text = metrics_text(om, &len);
		return reply(c, MHD_HTTP_OK, om ? om_type : "text/plain; version=0.0.4; charset=utf-8",
			     text, len);
	}
	if (!strcmp(url, "/")) {
		text = index_text(&len);
		return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", text, len);
	}
	if (!strcmp(url, "/healthz")) {
		text = strdup("ok\n");
		return reply(c, MHD_HTTP_OK, "text/plain", text, text ? 3 : 0);
	}
	text = strdup("not found\n");
	return reply(c, MHD_HTTP_NOT_FOUND, "text/plain", text, text ? strlen(text) : 0);
}

/* libmicrohttpd's own messages (a TLS handshake that failed, ...), rate-limited. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[256];
	size_t n;

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == '.'))
		msg[--n] = '\0';
	if (n && msg[0] >= 'A' && msg[0] <= 'Z' && !(msg[1] >= 'A' && msg[1] <= 'Z'))
		msg[0] += 'a' - 'A';
	refused(msg);
}

/*
 * libmicrohttpd tells a connection's start and its close; the close comes
 * before it closes the socket (and it takes conn_lock here), so an fd in
 * srv.conns is still that connection's whenever conns_reap() looks at it:
 * never one closed or used again by another.
 */
static void conn_notify(void *cls, struct MHD_Connection *c, void **ctx,
			enum MHD_ConnectionNotificationCode code)
{
	const union MHD_ConnectionInfo *ci;
	struct conn *k = *ctx;

	(void)cls;
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		k = ci ? calloc(1, sizeof(*k)) : NULL;
		if (!k)
			return;
		k->fd = ci->connect_fd;
		k->since = now_s();
		pthread_mutex_lock(&srv.conn_lock);
		k->next = &srv.conns;
		k->prev = srv.conns.prev;
		k->prev->next = k;
		srv.conns.prev = k;
		pthread_mutex_unlock(&srv.conn_lock);
		*ctx = k;
	} else if (k) {
		pthread_mutex_lock(&srv.conn_lock);
		k->prev->next = k->next;
		k->next->prev = k->prev;
		pthread_mutex_unlock(&srv.conn_lock);
		free(k);
		*ctx = NULL;
	}
}

/* The connection's clock starts again, for the phase it enters. */
static void conn_clock(struct MHD_Connection *c, enum conn_phase phase)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn *k = ci ? ci->socket_context : NULL;

	if (!k)
		return;
	pthread_mutex_lock(&srv.conn_lock);
	k->since = now_s();
	k->phase = phase;
	pthread_mutex_unlock(&srv.conn_lock);
}

/* A request answered: the clock of the next one starts. */
static void request_done(void *cls, struct MHD_Connection *c, void **state,
			 enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)state;
	(void)toe;
	conn_clock(c, CONN_REQUEST);
}

/*
 * The main loop, a few times a second: connections past the deadline are
 * shut down; libmicrohttpd sees the end of the stream and closes them.
 */
static void conns_reap(void)
{
	double now = now_s();
	struct conn *k;
	int n = 0;

	if (now < srv.reap_at)
		return;
	srv.reap_at = now + 0.2;
	pthread_mutex_lock(&srv.conn_lock);
	for (k = srv.conns.next; k != &srv.conns; k = k->next) {
		int unread = 0, unsent = 0;

		if (k->cut || k->phase == CONN_BUSY || now - k->since < REQUEST_S)
			continue;
		/*
		 * A request the server has not read, or an answer it has not
		 * written while the client takes what it is sent: the server's
		 * delay (its threads busy with other answers), not the client's.
		 */
		if (ioctl(k->fd, FIONREAD, &unread) == 0 && unread > 0)
			continue;
		if (k->phase == CONN_ANSWER && ioctl(k->fd, SIOCOUTQ, &unsent) == 0 && !unsent)
			continue;
		shutdown(k->fd, SHUT_RDWR);
		k->cut = true;
		n++;
	}
	pthread_mutex_unlock(&srv.conn_lock);
	if (n) {
		char why[96];

		snprintf(why, sizeof(why), "closed a connection slower than %d s to send its "
			 "request or read the answer", REQUEST_S);
		refused(why);
	}
}

/* The request is whole: its answer is made (no deadline) and queued (the deadline again). */
static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *data,
			      size_t *data_len, void **state)
{
	enum MHD_Result ret;

	(void)cls;
	(void)version;
	(void)data;
	(void)data_len;
	/* the first call sees the headers only */
	if (!*state) {
		*state = (void *)1;
		return MHD_YES;
	}
	conn_clock(c, CONN_BUSY);
	ret = answer(c, url, method);
	conn_clock(c, CONN_ANSWER);
	return ret;
}

static int parse_listen(const char *s, struct sockaddr_storage *ss)
{
	char host[256];
	const char *colon = strrchr(s, ':');
	char *end;
	unsigned long port;
	size_t n;

	memset(ss, 0, sizeof(*ss));
	if (!colon || colon == s || !colon[1])
		return -1;
	port = strtoul(colon + 1, &end, 10);
	n = colon - s;
	if (*end || port > 65535 || n >= sizeof(host))
		return -1;
	memcpy(host, s, n);
	host[n] = '\0';
	if (host[0] == '[' && n > 2 && host[n - 1] == ']') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		host[n - 1] = '\0';
		a->sin6_family = AF_INET6;
		a->sin6_port = htons(port);
		return inet_pton(AF_INET6, host + 1, &a->sin6_addr) == 1 ? 0 : -1;
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons(port);
		return inet_pton(AF_INET, host, &a->sin_addr) == 1 ? 0 : -1;
	}
}

static char *read_all(const char *path, const char *what)
{
	char *buf = NULL;
	size_t len = 0, n;
	char chunk[4096];
	FILE *f, *m;

	if (serve_file_ok(path, what))
		return NULL;
	f = fopen(path, "r");
	m = open_memstream(&buf, &len);
	if (!f || !m) {
		tp_error("cannot read the %s '%s': %s", what, path, strerror(errno));
		if (f)
			fclose(f);
		if (m)
			fclose(m);
		free(buf);
		return NULL;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, m);
	fclose(f);
	fclose(m);
	return buf;
}

static struct MHD_Daemon *http_start(const struct sockaddr_storage *ss, const char *cert,
				     const char *key, char **certp, char **keyp)
{
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
	struct MHD_OptionItem tls[3] = { { MHD_OPTION_END, 0, NULL } };
	sigset_t all, old;
	struct MHD_Daemon *d;

	if (cert) {
		*certp = read_all(cert, "certificate");
		*keyp = *certp ? read_all(key, "key") : NULL;
		if (!*keyp)
			return NULL;
		flags |= MHD_USE_TLS;
		tls[0] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, *certp };
		tls[1] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, *keyp };
	}
	/* the server's threads leave the signals to the main thread */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	/* the logger first: libmicrohttpd says so */
	d = MHD_start_daemon(flags, 0, NULL, NULL, handle, NULL,
			     MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
			     MHD_OPTION_SOCK_ADDR, ss,
			     MHD_OPTION_THREAD_POOL_SIZE, 4,
			     MHD_OPTION_CONNECTION_LIMIT, 512,
			     MHD_OPTION_PER_IP_CONNECTION_LIMIT, 0,
			     MHD_OPTION_CONNECTION_TIMEOUT, 10,
			     MHD_OPTION_NOTIFY_CONNECTION, conn_notify, NULL,
			     MHD_OPTION_NOTIFY_COMPLETED, request_done, NULL,
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)64 * 1024,
			     MHD_OPTION_ARRAY, tls,
			     MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return d;
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

int cmd_serve(int argc, char **argv)
{
	const char *listen = DEFAULT_LISTEN, *config = NULL, *web = NULL;

	const char *cert = NULL, *key = NULL;
	unsigned long long max_series = 10000;
	const struct tp_opt opts[] = {
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
		"tpctl serve [--listen ADDR:PORT] [--config FILE] [--max-series N]\n"
		"                   [--web-config FILE] [--tls-cert FILE --tls-key FILE] [METRIC...]",
		opts, 0, NULL,
	};
	char *certbuf = NULL, *keybuf = NULL;
	struct sockaddr_storage ss;
	struct MHD_Daemon *d = NULL;
	struct tp_args args;
	bool done = false;
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
	if (tp.instance) {
		tp_error("serve traces in a private instance; '-i %s' cannot be used", tp.instance);
		return TP_USAGE;
	}
	if (parse_listen(listen, &ss)) {
		tp_error("invalid listen address '%s': ADDR:PORT or [ADDR6]:PORT", listen);
		return TP_USAGE;
	}
	if (!cert != !key) {
		tp_error("'--tls-cert' and '--tls-key' go together");
		return TP_USAGE;
	}
	srv.max_series = max_series;
	if (web && web_config_load(web, &srv.wc))
		return TP_USAGE;
	if (srv.wc.cert_file && cert) {
		tp_error("the certificate is given twice: '--tls-cert' and '%s'", web);
		web_config_free(&srv.wc);
		return TP_USAGE;
	}
	if (srv.wc.cert_file) {
		cert = srv.wc.cert_file;
		key = srv.wc.key_file;
	}
	ret = config_load(&srv.cfg, config, args.argc, args.argv);
	if (ret)
		goto out;
	ret = set_open(srv.cfg);
	if (ret)
		goto out;
	d = http_start(&ss, cert, key, &certbuf, &keybuf);
	if (!d) {
		if (!cert || keybuf)
			tp_error("cannot listen on '%s'", listen);
		ret = TP_FAIL;
		goto out;
	}
	tp_debug("listening on %s%s", listen, cert ? " (TLS)" : "");
	while (!state_stop || state_stop == SIGHUP) {
		if (state_stop == SIGHUP) {
			state_stop = 0;
			reload(config, args.argc, args.argv);
			continue;
		}
		conns_reap();
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
out:
	atomic_store(&srv.stopping, true);
	/* the requests end before the session they read */
	if (d)
		MHD_stop_daemon(d);
	if (srv.set)
		ret = agg_set_close(srv.set, ret);
	srv.set = NULL;
	config_put(srv.cfg);
	srv.cfg = NULL;
	web_config_free(&srv.wc);
	cache_drop();
	free(certbuf);
	free(keybuf);
	return ret;
}
