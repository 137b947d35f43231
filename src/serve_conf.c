// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * serve_conf - the words of a metric's line and the web config of
 * `tpctl serve` (see serve.h).
 */
#include <crypt.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "serve.h"
#include "util.h"

int serve_split(const char *line, char ***words, int *n, int *col, const char **why)
{
	size_t len = strlen(line);
	/* at most len / 2 + 1 words, each at most the line's bytes and its NUL */
	size_t nmax = len / 2 + 2;
	char **w = malloc(nmax * sizeof(*w) + 2 * len + 2);
	char *out = (char *)(w + nmax);
	const char *p = line;
	int k = 0;

	*words = NULL;
	*n = 0;
	if (!w) {
		*why = "out of memory";
		*col = 1;
		return -1;
	}
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		if (!*p || *p == '#')
			break;
		w[k++] = out;
		while (*p && !strchr(" \t\r\n", *p)) {
			if (*p == '\'') {
				const char *q = strchr(p + 1, '\'');

				if (!q) {
					*col = (int)(p - line) + 1;
					*why = "no closing quote";
					free(w);
					return -1;
				}
				memcpy(out, p + 1, q - p - 1);
				out += q - p - 1;
				p = q + 1;
			} else if (*p == '"') {
				const char *start = p;

				for (p++; *p && *p != '"'; p++) {
					if (*p == '\\' && p[1] && strchr("\"\\$`", p[1]))
						p++;
					*out++ = *p;
				}
				if (!*p) {
					*col = (int)(start - line) + 1;
					*why = "no closing quote";
					free(w);
					return -1;
				}
				p++;
			} else if (*p == '\\') {
				if (!p[1]) {
					*col = (int)(p - line) + 1;
					*why = "a backslash ends the line";
					free(w);
					return -1;
				}
				*out++ = p[1];
				p += 2;
			} else {
				*out++ = *p++;
			}
		}
		*out++ = '\0';
	}
	w[k] = NULL;
	*words = w;
	*n = k;
	return 0;
}

int serve_file_ok(const char *path, const char *what)
{
	struct stat st;
	FILE *f = fopen(path, "r");

	if (!f) {
		tp_error("cannot read the %s '%s': %s", what, path, strerror(errno));
		return -1;
	}
	if (fstat(fileno(f), &st) < 0 || (st.st_mode & S_IWOTH)) {
		fclose(f);
		tp_error("the %s '%s' is writable by everyone: refused", what, path);
		return -1;
	}
	fclose(f);
	return 0;
}

bool serve_pass_ok(const char *hash, const char *pass)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	const char *h;
	size_t i, n = strlen(hash);
	unsigned char diff = 0;
	bool ok;

	if (!cd)
		return false;
	h = crypt_r(pass, hash, cd);
	/* libxcrypt returns "*0"-style failure tokens, never the hash, on a bad setting */
	ok = h && strlen(h) == n && h[0] != '*';
	for (i = 0; ok && i < n; i++)
		diff |= (unsigned char)h[i] ^ (unsigned char)hash[i];
	ok = ok && !diff;
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return ok;
}

/* A YAML scalar: plain (up to a comment), '...' or "..." (simple escapes). */
static char *yaml_scalar(const char *p)
{
	char *s, *o;
	size_t n;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\'' || *p == '"') {
		char q = *p++;

		s = o = malloc(strlen(p) + 1);
		if (!s)
			return NULL;
		for (; *p && *p != q; p++) {
			if (q == '"' && *p == '\\' && p[1])
				p++;
			else if (q == '\'' && *p == '\'' && p[1] == '\'')
				p++;
			*o++ = *p;
		}
		*o = '\0';
		if (*p != q) {
			free(s);
			return NULL;
		}
		return s;
	}
	for (n = 0; p[n] && p[n] != '\n' && !(p[n] == '#' && n && (p[n - 1] == ' ' ||
								     p[n - 1] == '\t')); n++)
		;
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
		n--;
	return strndup(p, n);
}

int web_config_load(const char *path, struct web_config *wc)
{
	enum { TOP, TLS, USERS, OTHER } sect = TOP;
	char *line = NULL;
	size_t alloc = 0;
	int lineno = 0, ret = 0;
	FILE *f;

	memset(wc, 0, sizeof(*wc));
	if (serve_file_ok(path, "web config"))
		return -1;
	f = fopen(path, "r");
	if (!f) {
		tp_error("cannot read the web config '%s': %s", path, strerror(errno));
		return -1;
	}
	while (!ret && getline(&line, &alloc, f) > 0) {
		char *p = line, *colon, *key, *val;
		int indent = 0;

		lineno++;
		while (*p == ' ') {
			p++;
			indent++;
		}
		if (!*p || *p == '\n' || *p == '#' || !strcmp(p, "\r\n") || !strncmp(p, "---", 3))
			continue;
		colon = strstr(p, ":");
		if (*p == '\t' || *p == '-' || !colon || (colon[1] && !strchr(" \t\r\n", colon[1]))) {
			tp_error("%s:%d: not understood (a block mapping of 'key: value' lines "
				 "is)", path, lineno);
			ret = -1;
			break;
		}
		key = strndup(p, colon - p);
		val = yaml_scalar(colon + 1);
		if (!key || !val) {
			tp_error("%s:%d: a quoted value is not closed", path, lineno);
			ret = -1;
		} else if (!indent) {
			sect = !strcmp(key, "tls_server_config") ? TLS :
			       !strcmp(key, "basic_auth_users") ? USERS : OTHER;
			if (sect == OTHER && strcmp(key, "http_server_config")) {
				tp_error("%s:%d: unknown key '%s'", path, lineno, key);
				ret = -1;
			}
		} else if (sect == TLS && !strcmp(key, "cert_file")) {
			free(wc->cert_file);
			wc->cert_file = val;
			val = NULL;
		} else if (sect == TLS && !strcmp(key, "key_file")) {
			free(wc->key_file);
			wc->key_file = val;
			val = NULL;
		} else if (sect == USERS && *val) {
			char **u = realloc(wc->user, (wc->nusers + 1) * sizeof(*u));
			char **h = u ? realloc(wc->hash, (wc->nusers + 1) * sizeof(*h)) : NULL;

			if (u)
				wc->user = u;
			if (h)
				wc->hash = h;
			if (!u || !h) {
				tp_oom();
				ret = -1;
			} else {
				wc->user[wc->nusers] = key;
				wc->hash[wc->nusers++] = val;
				key = val = NULL;
			}
		} else if (sect == TLS || sect == USERS) {
			tp_error("%s:%d: '%s' is not supported here", path, lineno, key);
			ret = -1;
		}
		free(key);
		free(val);
	}
	free(line);
	fclose(f);
	if (!ret && !wc->cert_file != !wc->key_file) {
		tp_error("%s: tls_server_config needs both cert_file and key_file", path);
		ret = -1;
	}
	if (ret)
		web_config_free(wc);
	return ret;
}

void web_config_free(struct web_config *wc)
{
	int i;

	for (i = 0; i < wc->nusers; i++) {
		free(wc->user[i]);
		free(wc->hash[i]);
	}
	free(wc->user);
	free(wc->hash);
	free(wc->cert_file);
	free(wc->key_file);
	memset(wc, 0, sizeof(*wc));
}
