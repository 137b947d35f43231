/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * serve_http - tpctl serve's HTTP server: libmicrohttpd's thread pool with
 * TLS and basic auth, answering /metrics, / and /healthz with the pages the
 * caller makes, and a deadline for each connection.
 */
#ifndef TPCTL_SERVE_HTTP_H
#define TPCTL_SERVE_HTTP_H

#include <stdbool.h>
#include <stddef.h>

struct sockaddr_storage;
struct web_config;
struct MHD_Daemon;

/* The pages, called on the server's threads: allocated texts (NULL: a 500), their length. */
struct serve_pages {
	char *(*metrics)(bool om, size_t *len);	/* om: OpenMetrics, else text 0.0.4 */
	char *(*index)(size_t *len);		/* the HTML index */
};

/* "ADDR:PORT" or "[ADDR6]:PORT" into ss; -1 when it is neither. */
int serve_http_listen_parse(const char *s, struct sockaddr_storage *ss);
/*
 * The server on ss (listen: its text, for the error), HTTPS when cert and
 * key name PEM files; wc's users (if any) must log in.  NULL after printing
 * the error.  wc and pages stay the caller's, read until serve_http_stop().
 */
struct MHD_Daemon *serve_http_start(const char *listen, const struct sockaddr_storage *ss,
				    const char *cert, const char *key,
				    const struct web_config *wc, const struct serve_pages *pages);
/* From the main loop, a few times a second: connections past their deadline are shut. */
void serve_http_reap(void);
/* The requests end (d may be NULL: refusals stop being logged all the same). */
void serve_http_stop(struct MHD_Daemon *d);

#endif
