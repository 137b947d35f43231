// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * printfmt - rewrites of a print fmt's argument expressions; see printfmt.h.
 *
 * The arguments are C expressions as the kernel's TP_printk wrote them after
 * the preprocessor: fields (REC->x), numbers, casts, calls of the __print_*
 * and __get_* helpers with { value, "name" } lists, and names the
 * preprocessor could not replace: enum constants (HRTIMER_MODE_ABS,
 * I_DIRTY_SYNC) and kernel variables (jiffies).  The parser below reads them
 * with C's precedences and records edits (insertions and replacements at
 * byte offsets); the edits are applied in one pass at the end.
 *
 * Why the operand casts (PF_OPERANDS): libtraceevent 1.7.1 builds wrong
 * trees for some C expressions.  A parenthesized operator expression on the
 * right of a binary operator of higher precedence is "rotated" as if the
 * parentheses were not there (timer_start's flags & (A | B | C) becomes
 * (flags & A) | B | C, which prints "D|P|I" for a timer without flags; the
 * rotation is still in 1.8.4), operators of equal precedence group to the
 * right (a - b - c as a - (b - c)), and the second and third operands of ?:
 * fare no better when they are operator expressions (c ? x : y - z is read
 * as (c ? x : y) - z).  Its parser treats a cast as an atom, and "u64" is
 * the one cast it evaluates as no change at all, so every such operand is
 * written as (u64)(operand): the tree libtraceevent builds is then the one C
 * means.  (It has no '^' at all; no kernel format uses it.)
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "printfmt.h"

enum tok_kind { TK_IDENT, TK_NUM, TK_STR, TK_CHAR, TK_PUNCT };

struct token {
	enum tok_kind kind;
	int pos, len;		/* offset in the text */
};

struct edit {
	int pos, del;		/* replace del bytes at pos ... */
	const char *text;	/* ... by text (static or owned) */
	char *owned;
	int seq;
};

struct parser {
	const char *s;
	struct token *t;
	int nt, i;
	struct edit *e;
	int ne, ae;
	const struct decode_names *names;
	unsigned flags;
	int in_get;		/* inside __get_str(...) and friends: field names */
	int call;		/* name token of the innermost call being read, or -1 */
	int resolved;		/* token of the last name resolve_name() replaced */
	int depth;
	bool failed;
};

/* A parsed expression: its tokens, and what the operand rule needs to know. */
enum expr_kind { EX_ATOM, EX_UNARY, EX_BINARY, EX_COND };

struct expr {
	int first, last;
	enum expr_kind kind;	/* the operator at the top, EX_ATOM for none */
	bool paren;		/* first and last are a matching ( ) */
};

/* Kernel variables met so far; __tpctl_kvar(N) names kvars[N]. */
#define MAX_KVARS 8
static char *kvars[MAX_KVARS];

const char *printfmt_kvar_name(unsigned long long n)
{
	return n < MAX_KVARS ? kvars[n] : NULL;
}

static int kvar_index(const char *name, int len)
{
	int i;

	for (i = 0; i < MAX_KVARS && kvars[i]; i++)
		if ((int)strlen(kvars[i]) == len && !memcmp(kvars[i], name, len))
			return i;
	if (i == MAX_KVARS)
		return -1;
	kvars[i] = strndup(name, len);
	return kvars[i] ? i : -1;
}

static void edit_add(struct parser *p, int pos, int del, const char *text, char *owned)
{
	if (p->ne == p->ae) {
		int na = p->ae ? p->ae * 2 : 32;
		struct edit *ne = realloc(p->e, na * sizeof(*ne));

		if (!ne) {
			free(owned);
			p->failed = true;
			return;
		}
		p->e = ne;
		p->ae = na;
	}
	p->e[p->ne] = (struct edit){ pos, del, text, owned, p->ne };
	p->ne++;
}

/* ----------------------------------------------------------------- tokens */

static const char *const puncts2[] = {
	"->", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "++", "--",
};

/*
 * Tokens of s[i..n), their offsets counted from s; false on something no
 * print fmt holds (an unclosed literal: the last token, running to n).
 */
static bool tokenize(struct parser *p, const char *s, int i, int n)
{
	bool open = false;
	int at = 0;

	while (i < n && !open) {
		struct token tk = { .pos = i };
		char c = s[i];
		size_t k;

		if (isspace((unsigned char)c)) {
			i++;
			continue;
		}
		if (isalpha((unsigned char)c) || c == '_') {
			tk.kind = TK_IDENT;
			while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_'))
				i++;
		} else if (isdigit((unsigned char)c)) {
			tk.kind = TK_NUM;
			while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_' ||
					 s[i] == '.'))
				i++;
		} else if (c == '"' || c == '\'') {
			tk.kind = c == '"' ? TK_STR : TK_CHAR;
			for (i++; i < n && s[i] != c; i++) {
				if (s[i] == '\\')
					i++;
				else if (s[i] == '\t' && (p->flags & PF_ESCAPE))
					edit_add(p, i, 1, "\\t", NULL);
			}
			open = i >= n;
			i += !open;
		} else {
			tk.kind = TK_PUNCT;
			i++;
			for (k = 0; k < sizeof(puncts2) / sizeof(*puncts2); k++) {
				if (i < n && c == puncts2[k][0] && s[i] == puncts2[k][1]) {
					i++;
					break;
				}
			}
		}
		tk.len = i - tk.pos;
		if (p->nt == at) {
			struct token *nt;

			at = at ? at * 2 : 64;
			nt = realloc(p->t, at * sizeof(*nt));
			if (!nt)
				return false;
			p->t = nt;
		}
		p->t[p->nt++] = tk;
	}
	return !open;
}

/* Token i is of this kind and spells s. */
static bool is_token(const struct parser *p, int i, enum tok_kind kind, const char *s)
{
	const struct token *t;

	if (i >= p->nt)
		return false;
	t = &p->t[i];
	return t->kind == kind && t->len == (int)strlen(s) && !memcmp(p->s + t->pos, s, t->len);
}

static bool is_punct(const struct parser *p, int i, const char *s)
{
	return is_token(p, i, TK_PUNCT, s);
}

static bool is_ident(const struct parser *p, int i, const char *s)
{
	return is_token(p, i, TK_IDENT, s);
}

static bool expect(struct parser *p, const char *s)
{
	if (!is_punct(p, p->i, s)) {
		p->failed = true;
		return false;
	}
	p->i++;
	return true;
}

/* ----------------------------------------------------------------- parser */

static struct expr parse_cond(struct parser *p);

/* C's binary operators, by precedence (higher binds tighter); 0: not one. */
static int binary_prec(const struct parser *p, int i)
{
	static const struct { const char *op; int prec; } ops[] = {
		{ "*", 10 }, { "/", 10 }, { "%", 10 }, { "+", 9 }, { "-", 9 },
		{ "<<", 8 }, { ">>", 8 }, { "<", 7 }, { ">", 7 }, { "<=", 7 }, { ">=", 7 },
		{ "==", 6 }, { "!=", 6 }, { "&", 5 }, { "^", 4 }, { "|", 3 },
		{ "&&", 2 }, { "||", 1 },
	};
	size_t k;

	if (i >= p->nt || p->t[i].kind != TK_PUNCT)
		return 0;
	for (k = 0; k < sizeof(ops) / sizeof(*ops); k++)
		if (is_punct(p, i, ops[k].op))
			return ops[k].prec;
	return 0;
}

/* An operand of a binary operator that is an operator expression: (u64)(operand). */
static void wrap_operand(struct parser *p, const struct expr *x)
{
	const struct token *a = &p->t[x->first], *b = &p->t[x->last];

	if (x->kind == EX_ATOM || !(p->flags & PF_OPERANDS))
		return;
	if (x->paren) {
		edit_add(p, a->pos, 0, "(u64)", NULL);
	} else {
		edit_add(p, a->pos, 0, "(u64)(", NULL);
		edit_add(p, b->pos + b->len, 0, ")", NULL);
	}
}

/*
 * The second or third operand of ?:.  It may be a string ("x" : "y"), which
 * a cast would turn into a number: a ?: there only gets its parentheses
 * (c ? "x" : d ? "y" : "z" is read as (c ? "x" : d) ? "y" : "z" without).
 */
static void wrap_branch(struct parser *p, const struct expr *x)
{
	const struct token *a = &p->t[x->first], *b = &p->t[x->last];

	if (x->kind != EX_COND) {
		wrap_operand(p, x);
	} else if (!x->paren && (p->flags & PF_OPERANDS)) {
		edit_add(p, a->pos, 0, "(", NULL);
		edit_add(p, b->pos + b->len, 0, ")", NULL);
	}
}

/* A name in an expression: an enum constant or a kernel variable, if the caller knows it. */
static void resolve_name(struct parser *p, int i)
{
	const struct token *t = &p->t[i];
	const char *name = p->s + t->pos;
	unsigned long long v;
	char *txt;
	int k;

	if (p->in_get || !p->names || is_ident(p, i, "REC"))
		return;
	if ((p->flags & PF_CONSTANTS) && p->names->constant &&
	    p->names->constant(name, t->len, &v, p->names->ctx)) {
		/* a negative value (enum constants are signed) keeps its sign */
		p->resolved = i;
		if ((long long)v < 0 && asprintf(&txt, "(%lld)", (long long)v) < 0)
			txt = NULL;
		else if ((long long)v >= 0 && asprintf(&txt, "%llu", v) < 0)
			txt = NULL;
		if (!txt)
			p->failed = true;
		else
			edit_add(p, t->pos, t->len, txt, txt);
		return;
	}
	if ((p->flags & PF_VARIABLES) && p->names->variable &&
	    p->names->variable(name, t->len, &v, p->names->ctx) &&
	    (k = kvar_index(name, t->len)) >= 0) {
		p->resolved = i;
		if (asprintf(&txt, "__tpctl_kvar(%d)", k) < 0)
			p->failed = true;
		else
			edit_add(p, t->pos, t->len, txt, txt);
	}
}

/*
 * { NAME, "text" } of __print_flags() where NAME has no known value: for a
 * value of 0 the kernel prints nothing, libtraceevent 1.7.1 the first such
 * text (it takes an unknown name for a flag that matches 0).  As 0, the name
 * matches no bit: 0 prints nothing, any other value the same hex as before.
 */
static void flag_name_unknown(struct parser *p, const struct expr *x)
{
	if (!(p->flags & PF_FLAGS_ZERO) || x->first != x->last || p->call < 0 ||
	    p->t[x->first].kind != TK_IDENT || p->resolved == x->first ||
	    !is_ident(p, p->call, "__print_flags"))
		return;
	edit_add(p, p->t[x->first].pos, p->t[x->first].len, "0", NULL);
}

/*
 * "(type) operand": the parenthesized tokens are names and '*' only, and an
 * operand follows that cannot continue an expression as a binary operator
 * would.  "(FOO) + 1" stays a parenthesized FOO.
 */
static bool is_cast(const struct parser *p, int open, int *close)
{
	int j = open + 1;
	const struct token *n;

	while (j < p->nt && (p->t[j].kind == TK_IDENT || is_punct(p, j, "*")))
		j++;
	if (j == open + 1 || !is_punct(p, j, ")") || j + 1 >= p->nt)
		return false;
	n = &p->t[j + 1];
	if (n->kind != TK_PUNCT || is_punct(p, j + 1, "(") || is_punct(p, j + 1, "~") ||
	    is_punct(p, j + 1, "!")) {
		*close = j;
		return true;
	}
	return false;
}

/* Comma-separated expressions up to the closing token (none for "()"). */
static void parse_list(struct parser *p, const char *close)
{
	while (!p->failed && !is_punct(p, p->i, close)) {
		parse_cond(p);
		if (is_punct(p, p->i, ","))
			p->i++;
		else if (!is_punct(p, p->i, close))
			p->failed = true;
	}
	expect(p, close);
}

static struct expr parse_unary(struct parser *p);

static struct expr parse_primary(struct parser *p)
{
	struct expr x = { p->i, p->i, EX_ATOM, false };
	const struct token *t;
	int close;

	if (p->i >= p->nt || p->failed || ++p->depth > 200) {
		p->failed = true;
		return x;
	}
	t = &p->t[p->i];
	if (is_punct(p, p->i, "(")) {
		if (is_cast(p, p->i, &close)) {
			struct expr o;

			p->i = close + 1;
			o = parse_unary(p);
			x.last = o.last;
		} else {
			struct expr in;

			p->i++;
			in = parse_cond(p);
			x.last = p->i;
			expect(p, ")");
			x.kind = in.kind;
			x.paren = true;
		}
	} else if (is_punct(p, p->i, "{")) {
		p->i++;
		if (!is_punct(p, p->i, "}")) {
			struct expr v = parse_cond(p);

			flag_name_unknown(p, &v);
			if (is_punct(p, p->i, ","))
				p->i++;
			else if (!is_punct(p, p->i, "}"))
				p->failed = true;
		}
		parse_list(p, "}");
		x.last = p->i - 1;
	} else if (t->kind == TK_IDENT && is_punct(p, p->i + 1, "(")) {
		/* a call: __print_flags(), __get_str(field), a helper */
		bool get = t->len > 6 && !memcmp(p->s + t->pos, "__get_", 6);
		int outer = p->call;

		p->call = p->i;
		p->i += 2;
		p->in_get += get;
		parse_list(p, ")");
		p->in_get -= get;
		p->call = outer;
		x.last = p->i - 1;
	} else if (t->kind == TK_IDENT) {
		resolve_name(p, p->i);
		p->i++;
	} else if (t->kind == TK_STR) {
		/* adjacent literals are one string */
		while (p->i + 1 < p->nt && p->t[p->i + 1].kind == TK_STR)
			p->i++;
		x.last = p->i++;
	} else if (t->kind == TK_NUM || t->kind == TK_CHAR) {
		p->i++;
	} else {
		p->failed = true;
	}
	/* postfix: a[i], a->b, a.b, a++ */
	while (!p->failed && p->i < p->nt) {
		if (is_punct(p, p->i, "[")) {
			p->i++;
			parse_cond(p);
			x.last = p->i;
			expect(p, "]");
		} else if (is_punct(p, p->i, "->") || is_punct(p, p->i, ".")) {
			if (p->i + 1 >= p->nt || p->t[p->i + 1].kind != TK_IDENT) {
				p->failed = true;
				break;
			}
			p->i += 2;
			x.last = p->i - 1;
		} else if (is_punct(p, p->i, "++") || is_punct(p, p->i, "--")) {
			x.last = p->i++;
		} else {
			break;
		}
		x.paren = false;
	}
	p->depth--;
	return x;
}

static struct expr parse_unary(struct parser *p)
{
	static const char *const prefix[] = { "-", "+", "!", "~", "*", "&", "++", "--" };
	struct expr x = { p->i, p->i, EX_UNARY, false }, o;
	size_t k;

	for (k = 0; k < sizeof(prefix) / sizeof(*prefix); k++) {
		if (is_punct(p, p->i, prefix[k])) {
			p->i++;
			if (++p->depth > 200) {
				p->failed = true;
				return x;
			}
			o = parse_unary(p);
			p->depth--;
			x.last = o.last;
			return x;
		}
	}
	return parse_primary(p);
}

/* Precedence climbing; both operands of each operator go through wrap_operand(). */
static struct expr parse_binary(struct parser *p, int min)
{
	struct expr l = parse_unary(p), r;
	int prec;

	while (!p->failed && (prec = binary_prec(p, p->i)) >= min) {
		p->i++;
		r = parse_binary(p, prec + 1);
		if (p->failed)
			break;
		wrap_operand(p, &l);
		wrap_operand(p, &r);
		l.last = r.last;
		l.kind = EX_BINARY;
		l.paren = false;
	}
	return l;
}

static struct expr parse_cond(struct parser *p)
{
	struct expr c = parse_binary(p, 1), a, b;

	if (p->failed || !is_punct(p, p->i, "?"))
		return c;
	p->i++;
	a = parse_cond(p);
	expect(p, ":");
	b = parse_cond(p);
	if (p->failed)
		return c;
	wrap_branch(p, &a);
	wrap_branch(p, &b);
	c.last = b.last;
	c.kind = EX_COND;
	c.paren = false;
	return c;
}

/* ----------------------------------------------------------------- rewrite */

static int edit_cmp(const void *a, const void *b)
{
	const struct edit *x = a, *y = b;

	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	/* insertions before a replacement at the same place */
	if (!x->del != !y->del)
		return x->del ? 1 : -1;
	/* of two insertions, the one recorded later encloses the other */
	return y->seq - x->seq;
}

static char *apply_edits(const char *buf, size_t len, struct edit *e, int ne)
{
	size_t out = len, at = 0, o = 0;
	char *res;
	int k;

	qsort(e, ne, sizeof(*e), edit_cmp);
	for (k = 0; k < ne; k++)
		out += strlen(e[k].text) - e[k].del;
	res = malloc(out + 1);
	if (!res)
		return NULL;
	for (k = 0; k < ne; k++) {
		size_t n = strlen(e[k].text);

		if ((size_t)e[k].pos < at)
			continue;	/* overlaps an earlier replacement: cannot happen */
		memcpy(res + o, buf + at, e[k].pos - at);
		o += e[k].pos - at;
		memcpy(res + o, e[k].text, n);
		o += n;
		at = e[k].pos + e[k].del;
	}
	memcpy(res + o, buf + at, len - at);
	o += len - at;
	res[o] = '\0';
	return res;
}

char *printfmt_rewrite(const char *buf, size_t len, const struct decode_names *names,
		       unsigned flags)
{
	struct parser p = { .s = buf, .names = names, .flags = flags, .call = -1, .resolved = -1 };
	const char *line = buf, *end = buf + len, *eol;
	char *res = NULL;
	int k, nescape;

	while (line < end && (end - line < 12 || memcmp(line, "print fmt: \"", 12))) {
		line = memchr(line, '\n', end - line);
		if (!line)
			return NULL;
		line++;
	}
	if (line >= end)
		return NULL;
	eol = memchr(line, '\n', end - line);
	if (!eol)
		eol = end;
	/* from the format string on; offsets in the whole text, where the edits apply */
	if (!tokenize(&p, buf, line + 11 - buf, eol - buf))
		goto out;
	nescape = p.ne;
	if (!p.nt || p.t[0].kind != TK_STR)
		goto out;
	while (p.i < p.nt && p.t[p.i].kind == TK_STR)
		p.i++;
	while (!p.failed && p.i < p.nt) {
		if (!expect(&p, ","))
			break;
		parse_cond(&p);
	}
	/* a print fmt we cannot read keeps all but its escaped tabs */
	if (p.failed) {
		for (k = nescape; k < p.ne; k++)
			free(p.e[k].owned);
		p.ne = nescape;
	}
	if (p.ne)
		res = apply_edits(buf, len, p.e, p.ne);
out:
	for (k = 0; k < p.ne; k++)
		free(p.e[k].owned);
	free(p.e);
	free(p.t);
	return res;
}

/* ----------------------------------------------------------------- conversions */

/*
 * What a conversion of the format needs before libtraceevent reads it:
 * %pS and friends print a symbol through tpctl's helpers (decode.c), a bare
 * %p the kernel's 16 hex digits, "%#x" the kernel's prefix.
 */
enum conv_fix { FIX_NONE, FIX_SYMOFF, FIX_SYM, FIX_SYMOFF_B, FIX_PTR, FIX_ALT_HEX };

struct conv {
	const char *pct, *c;	/* its '%' and its conversion character; NULL: a '*' argument */
	enum conv_fix fix;
};

/* The print fmt line read: its format's conversions, the arguments they take. */
struct fmt_scan {
	const char *fmt, *fend;		/* the quoted format, quotes and all */
	struct conv conv[PRINTFMT_MAX_CONV];
	int nconv, nfix;
	/* the top-level arguments, as many as there are conversions at most */
	const char *arg[PRINTFMT_MAX_CONV], *arg_end[PRINTFMT_MAX_CONV];
	int nargs;
};

/*
 * "%#x" of 0: C's printf prints "0", the kernel's vsprintf "0x0" (it always
 * writes the prefix, and counts it in the field width).  Written as
 * "0x%x" / "0x%0{N-2}x" the two agree for every value; a space-padded
 * width ("%#8x") is left alone: the prefix would land before the spaces.
 */
static bool alt_hex(const char *conv, const char *x)
{
	const char *p = conv + 1;
	bool alt = false, zero = false, left = false;
	int width = 0;

	for (; p < x && strchr("-+ #0", *p); p++) {
		alt |= *p == '#';
		zero |= *p == '0';
		left |= *p == '-';
	}
	if (!alt || *p == '*')
		return false;
	while (p < x && isdigit((unsigned char)*p))
		width = width * 10 + (*p++ - '0');
	if (p < x && *p == '.')
		return false;
	return !width || ((zero || left) && width >= 2);
}

/* The "%#x" at conv..x as the kernel prints it (see alt_hex()); caller frees. */
static char *alt_hex_text(const char *conv, const char *x)
{
	const char *p = conv + 1;
	char flags[8], buf[64];
	int width = 0, nf = 0;

	for (; p < x && strchr("-+ #0", *p); p++)
		if (*p != '#' && nf < (int)sizeof(flags) - 1)
			flags[nf++] = *p;
	flags[nf] = '\0';
	while (p < x && isdigit((unsigned char)*p))
		width = width * 10 + (*p++ - '0');
	/* p..x: the length modifier and the conversion character */
	if (width)
		snprintf(buf, sizeof(buf), "%s%%%s%d%.*s", *x == 'X' ? "0X" : "0x", flags,
			 width - 2, (int)(x - p + 1), p);
	else
		snprintf(buf, sizeof(buf), "%s%%%s%.*s", *x == 'X' ? "0X" : "0x", flags,
			 (int)(x - p + 1), p);
	return strdup(buf);
}

/* One more conversion (or '*' argument) of the format; false past PRINTFMT_MAX_CONV. */
static bool conv_add(struct fmt_scan *fs, const char *pct, const char *c, enum conv_fix fix)
{
	if (fs->nconv >= PRINTFMT_MAX_CONV)
		return false;
	fs->conv[fs->nconv++] = (struct conv){ pct, c, fix };
	if (fix != FIX_NONE)
		fs->nfix++;
	return true;
}

/* What the conversion at pct, whose conversion character is at p, needs. */
static enum conv_fix conv_fix(const char *pct, const char *p)
{
	if (*p == 'p' && p[-1] == '%') {
		switch (p[1]) {
		case 'S': case 'F':
			return FIX_SYMOFF;
		case 's': case 'f':
			return FIX_SYM;
		case 'B':
			return FIX_SYMOFF_B;
		default:
			if (!isalnum((unsigned char)p[1]))
				return FIX_PTR;
		}
	}
	if ((*p == 'x' || *p == 'X') && alt_hex(pct, p))
		return FIX_ALT_HEX;
	return FIX_NONE;
}

/* A width or precision at p, its end: "*" takes an argument (a conversion of its own). */
static const char *conv_width(struct fmt_scan *fs, const char *p, bool *ok)
{
	if (*p == '*') {
		*ok &= conv_add(fs, NULL, NULL, FIX_NONE);
		p++;
	}
	while (isdigit((unsigned char)*p))
		p++;
	return p;
}

/*
 * The conversions of the quoted format, counted as printf does: "*" widths
 * take an argument, so that each %p* is matched with its argument.  false
 * when there are more than PRINTFMT_MAX_CONV.
 */
static bool scan_convs(struct fmt_scan *fs)
{
	const char *p, *pct;
	bool ok = true;

	for (p = fs->fmt + 1; p < fs->fend - 1; p++) {
		if (*p == '\\') {
			p++;
			continue;
		}
		if (*p != '%')
			continue;
		p++;
		if (*p == '%')
			continue;
		pct = p - 1;
		while (*p && strchr("-+ #0", *p))
			p++;
		p = conv_width(fs, p, &ok);
		if (*p == '.')
			p = conv_width(fs, p + 1, &ok);
		if (!ok)
			return false;
		while (*p && strchr("hlLqjzt", *p))
			p++;
		if (!conv_add(fs, pct, p, conv_fix(pct, p)))
			return false;
	}
	return true;
}

/*
 * The arguments after the format, with the parser's tokens: each runs from
 * a comma outside brackets to the next one; the first that holds a newline
 * ends there, and is the last.  The first comma must follow the format at
 * once.
 */
static void scan_args(struct fmt_scan *fs, const struct parser *p, const char *end)
{
	int k = 1, depth;

	if (!fs->nconv || p->nt < 2 || !is_punct(p, 1, ",") || p->s + p->t[1].pos != fs->fend)
		return;
	while (fs->nargs < fs->nconv) {
		const char *a = p->s + p->t[k].pos + 1, *ae = end, *nl;

		for (k++, depth = 0; k < p->nt; k++) {
			const struct token *t = &p->t[k];
			char c = p->s[t->pos];

			if (t->kind != TK_PUNCT || t->len != 1)
				continue;
			if (c == '(' || c == '[' || c == '{') {
				depth++;
			} else if (c == ')' || c == ']' || c == '}') {
				depth--;
			} else if (c == ',' && depth <= 0) {
				ae = p->s + t->pos;
				break;
			}
		}
		nl = memchr(a, '\n', ae - a);
		fs->arg[fs->nargs] = a;
		fs->arg_end[fs->nargs++] = nl ? nl : ae;
		if (nl || k >= p->nt)
			break;
	}
}

/*
 * Find the print fmt line "print fmt: \"...\", args" and read its
 * conversions and arguments.  The number of conversions that need a
 * rewrite, or -1 when there is no usable print fmt.
 */
static int scan_print_fmt(const char *buf, size_t len, struct fmt_scan *fs)
{
	struct parser p = { .s = buf, .call = -1, .resolved = -1 };
	const char *line = buf, *end = buf + len;
	int ret = -1;

	memset(fs, 0, sizeof(*fs));
	while (line < end && (end - line < 12 || memcmp(line, "print fmt: \"", 12))) {
		line = memchr(line, '\n', end - line);
		if (!line)
			return -1;
		line++;
	}
	if (line >= end)
		return -1;
	/*
	 * to the end of the text: a literal left open runs there (the tokens
	 * before it stand), an argument ends at the line's end
	 */
	tokenize(&p, buf, line + 11 - buf, len);
	if (p.nt && p.t[0].kind == TK_STR) {
		fs->fmt = buf + p.t[0].pos;
		fs->fend = fs->fmt + p.t[0].len;
		if (scan_convs(fs)) {
			scan_args(fs, &p, end);
			ret = fs->nfix;
		}
	}
	free(p.t);
	return ret;
}

static enum dec_sym conv_sym(enum conv_fix fix)
{
	return fix == FIX_SYM ? DEC_SYM : fix == FIX_SYMOFF ? DEC_SYM_OFF :
	       fix == FIX_SYMOFF_B ? DEC_SYM_OFF_B : DEC_SYM_NONE;
}

/* The edits of one conversion and of its argument (a symbol: the helper's call around it). */
static void conv_edits(struct parser *p, const struct fmt_scan *fs, int i)
{
	static const char *const helper[] = {
		[FIX_SYMOFF] = "__tpctl_symoff(", [FIX_SYM] = "__tpctl_sym(",
		[FIX_SYMOFF_B] = "__tpctl_symoff_b(",
	};
	const struct conv *c = &fs->conv[i];
	const char *a;
	int pos = c->pct - p->s;

	switch (c->fix) {
	case FIX_SYMOFF: case FIX_SYM: case FIX_SYMOFF_B:
		/* "%pS": the letter after the p goes too */
		edit_add(p, pos, c->c + 2 - c->pct, "%s", NULL);
		if (i >= fs->nargs)
			break;
		for (a = fs->arg[i]; a < fs->arg_end[i] && *a == ' '; a++)
			;
		/* (of two insertions at one place the later goes first: an empty argument) */
		edit_add(p, fs->arg_end[i] - p->s, 0, ")", NULL);
		edit_add(p, a - p->s, 0, helper[c->fix], NULL);
		break;
	case FIX_PTR:
		edit_add(p, pos, c->c + 1 - c->pct, "%016lx", NULL);
		break;
	case FIX_ALT_HEX: {
		char *t = alt_hex_text(c->pct, c->c);

		if (!t)
			p->failed = true;
		else
			edit_add(p, pos, c->c + 1 - c->pct, t, t);
		break;
	}
	default:
		break;
	}
}

char *printfmt_convert(const char *buf, size_t len)
{
	struct parser p = { .s = buf };
	struct fmt_scan fs;
	char *res = NULL;
	int i;

	if (scan_print_fmt(buf, len, &fs) <= 0)
		return NULL;
	for (i = 0; i < fs.nconv && !p.failed; i++)
		conv_edits(&p, &fs, i);
	if (!p.failed)
		res = apply_edits(buf, len, p.e, p.ne);
	for (i = 0; i < p.ne; i++)
		free(p.e[i].owned);
	free(p.e);
	return res;
}

int printfmt_convs(const char *buf, size_t len, unsigned char *how)
{
	struct fmt_scan fs;
	int i;

	if (scan_print_fmt(buf, len, &fs) <= 0)
		return -1;
	for (i = 0; i < fs.nconv; i++)
		how[i] = conv_sym(fs.conv[i].fix);
	return fs.nconv;
}

enum dec_sym decode_format_field_sym(const char *buf, size_t len, const char *field)
{
	size_t flen = strlen(field);
	struct fmt_scan fs;
	int i;

	if (scan_print_fmt(buf, len, &fs) <= 0)
		return DEC_SYM_NONE;
	for (i = 0; i < fs.nargs; i++) {
		const char *a = fs.arg[i], *ae = fs.arg_end[i], *rec, *p;
		enum conv_fix fix = fs.conv[i].fix;

		if (fix != FIX_SYM && fix != FIX_SYMOFF && fix != FIX_SYMOFF_B)
			continue;
		/* only the bare field, maybe cast: "REC->f", "(void *)REC->f" */
		rec = memmem(a, ae - a, "REC->", 5);
		if (!rec || (size_t)(ae - rec - 5) < flen || memcmp(rec + 5, field, flen))
			continue;
		for (p = rec + 5 + flen; p < ae && (*p == ' ' || *p == ')'); p++)
			;
		if (p < ae)
			continue;
		for (p = a; p < rec && !strchr("+-/%&|^~!?:<>", *p); p++)
			;
		if (p < rec)
			continue;
		return conv_sym(fix);
	}
	return DEC_SYM_NONE;
}
