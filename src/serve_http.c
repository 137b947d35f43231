// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * serve_http - tpctl serve's HTTP server (libmicrohttpd): TLS, basic auth,
 * the routes (/metrics, /, /healthz) answered with the pages serve gives,
 * each connection's deadline, refusals logged at a bounded rate.  See
 * serve_http.h.
 */
#include <arpa/inet.h>
#include <errno.h>
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
#include <unistd.h>

#include <microhttpd.h>

#include "serve.h"
#include "serve_http.h"
#include "util.h"

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

static struct {
	const struct serve_pages *pages;
	const struct web_config *wc;	/* its users, when it has any */
	char *cert, *key;		/* the PEM texts libmicrohttpd was given */
	atomic_ullong refused_auth, refused_log_at;
	/* the main thread is ending: refusals are not logged (read by MHD's threads) */
	atomic_bool stopping;
	pthread_mutex_t conn_lock;	/* guards conns */
	struct conn conns;		/* the open connections, a ring */
	double reap_at;			/* the main loop's next look at them */
	/* why the listening socket could not be bound (MHD says "port 0" for an address) */
	char bind_why[128];
} http = { .conn_lock = PTHREAD_MUTEX_INITIALIZER, .conns = { &http.conns, &http.conns } };

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
	if (atomic_load(&http.stopping))
		return;
	unsigned long long n = atomic_fetch_add(&http.refused_auth, 1) + 1;
	unsigned long long now = (unsigned long long)tp_now_s(), last = http.refused_log_at;

	if ((n == 1 || now >= last + 60) &&
	    atomic_compare_exchange_strong(&http.refused_log_at, &last, now + (n == 1)))
		tp_warn("%s (%llu refused or dropped so far)", why, n);
}

static bool authorized(struct MHD_Connection *c)
{
	char *pass = NULL, *user;
	bool ok = false;
	int i;

	if (!http.wc->nusers)
		return true;
	user = MHD_basic_auth_get_username_password(c, &pass);
	for (i = 0; user && pass && i < http.wc->nusers && !ok; i++)
		if (!strcmp(user, http.wc->user[i]))
			ok = serve_pass_ok(http.wc->hash[i], pass);
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
		text = http.pages->metrics(om, &len);
		return reply(c, MHD_HTTP_OK, om ? om_type : "text/plain; version=0.0.4; charset=utf-8",
			     text, len);
	}
	if (!strcmp(url, "/")) {
		text = http.pages->index(&len);
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
	/* the start's own failure: said with the address asked (serve_http_start) */
	if (!strncmp(msg, "failed to bind", 14)) {
		const char *why = strstr(msg, ": ");

		snprintf(http.bind_why, sizeof(http.bind_why), "%.*s", (int)sizeof(http.bind_why) - 1,
			 why ? why + 2 : msg);
		if (http.bind_why[0] >= 'A' && http.bind_why[0] <= 'Z')
			http.bind_why[0] += 'a' - 'A';
		return;
	}
	refused(msg);
}

/*
 * libmicrohttpd tells a connection's start and its close; the close comes
 * before it closes the socket (and it takes conn_lock here), so an fd in
 * http.conns is still that connection's whenever serve_http_reap() looks at it:
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
		k->since = tp_now_s();
		pthread_mutex_lock(&http.conn_lock);
		k->next = &http.conns;
		k->prev = http.conns.prev;
		k->prev->next = k;
		http.conns.prev = k;
		pthread_mutex_unlock(&http.conn_lock);
		*ctx = k;
	} else if (k) {
		pthread_mutex_lock(&http.conn_lock);
		k->prev->next = k->next;
		k->next->prev = k->prev;
		pthread_mutex_unlock(&http.conn_lock);
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
	pthread_mutex_lock(&http.conn_lock);
	k->since = tp_now_s();
	k->phase = phase;
	pthread_mutex_unlock(&http.conn_lock);
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
void serve_http_reap(void)
{
	double now = tp_now_s();
	struct conn *k;
	int n = 0;

	if (now < http.reap_at)
		return;
	http.reap_at = now + 0.2;
	pthread_mutex_lock(&http.conn_lock);
	for (k = http.conns.next; k != &http.conns; k = k->next) {
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
	pthread_mutex_unlock(&http.conn_lock);
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

int serve_http_listen_parse(const char *s, struct sockaddr_storage *ss)
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

/* The daemon on ss, TLS with cert and key when given; NULL when it cannot start. */
static struct MHD_Daemon *daemon_start(const struct sockaddr_storage *ss, const char *cert,
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

struct MHD_Daemon *serve_http_start(const char *listen, const struct sockaddr_storage *ss,
				    const char *cert, const char *key,
				    const struct web_config *wc, const struct serve_pages *pages)
{
	struct MHD_Daemon *d;

	http.pages = pages;
	http.wc = wc;
	d = daemon_start(ss, cert, key, &http.cert, &http.key);
	/* a certificate or key that could not be read has said so */
	if (!d && http.bind_why[0])
		tp_error("cannot listen on '%s': %s", listen, http.bind_why);
	else if (!d && (!cert || http.key))
		tp_error("cannot listen on '%s'", listen);
	return d;
}

void serve_http_stop(struct MHD_Daemon *d)
{
	atomic_store(&http.stopping, true);
	if (d)
		MHD_stop_daemon(d);
	free(http.cert);
	free(http.key);
	http.cert = http.key = NULL;
}
