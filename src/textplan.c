// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * textplan - an event's print fmt as a plan made once; see textplan.h.
 *
 * A plan is a list of items in the order of the format: literal text, a
 * number conversion (an expression and how to write it) or a string
 * conversion (a string expression).  Expressions are small trees of nodes
 * with their constants, offsets and masks resolved.  Nothing in a plan
 * changes once built, so a plan could be shared by threads.
 */
#include <ctype.h>
#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "decode.h"
#include "digits.h"
#include "textplan.h"

/* ---------------------------------------------------------------- the plan */

enum nkind { N_CONST, N_FIELD, N_INDEX, N_MASK, N_COND, N_BIN };

struct node {
	enum nkind kind;
	char op;		/* N_BIN: see eval() */
	unsigned off, size;	/* N_FIELD; N_INDEX: base offset, element size */
	uint64_t val;		/* N_CONST: the value; N_MASK, N_INDEX: the mask */
	struct node *a, *b, *c;
};

enum skind { S_LIT, S_ARRAY, S_DYN, S_FLAGS, S_SYMBOL, S_COND, S_SYM };

struct flagv {
	long long v;
	const char *s;
	size_t len;
};

struct sarg {
	enum skind kind;
	const char *lit;	/* S_LIT (libtraceevent's own string) */
	size_t len;
	unsigned off, size;	/* S_ARRAY (size 0: the rest of the record); S_DYN: the data_loc */
	bool rel;		/* S_DYN: __rel_loc */
	struct node *num;	/* S_FLAGS, S_SYMBOL, S_COND, S_SYM */
	struct flagv *fl;
	int nfl;
	const char *delim;
	size_t dlen;
	struct sarg *a, *b;	/* S_COND */
	enum dec_sym how;	/* S_SYM */
};

enum ikind { I_TEXT, I_NUM, I_STR };

struct item {
	enum ikind kind;
	char *text;		/* I_TEXT */
	size_t len;
	struct node *num;	/* I_NUM */
	struct sarg *str;	/* I_STR */
	int ls;			/* I_NUM: -2 char .. 2 long long, as libtraceevent counts */
	char conv;		/* I_NUM: d i u x X o */
	bool fast;		/* I_NUM: no flags but '0' or '-', no precision; I_STR: "%s" */
	bool zero, left;
	int width;
	char fmt[32];		/* the conversion as written, for the other cases */
};

/* Everything a plan allocated, freed together. */
struct textplan {
	struct item *items;
	int n, alloc;
	void **mem;
	int nmem, amem;
};

static void *pmem(struct textplan *p, size_t size)
{
	void *m;

	if (p->nmem == p->amem) {
		int a = p->amem ? 2 * p->amem : 16;
		void **v = realloc(p->mem, a * sizeof(*v));

		if (!v)
			return NULL;
		p->mem = v;
		p->amem = a;
	}
	m = calloc(1, size);
	if (m)
		p->mem[p->nmem++] = m;
	return m;
}

void textplan_free(struct textplan *p)
{
	int i;

	if (!p)
		return;
	for (i = 0; i < p->nmem; i++)
		free(p->mem[i]);
	free(p->mem);
	free(p->items);
	free(p);
}

/* ---------------------------------------------------------------- building */

struct build {
	struct textplan *p;
	struct tep_event *ev;
	int long_size;
	int conv;		/* the conversion being built, counted from 0 */
	bool fail;
};

static struct node *node_new(struct build *b, enum nkind kind)
{
	struct node *n = pmem(b->p, sizeof(*n));

	if (!n)
		b->fail = true;
	else
		n->kind = kind;
	return n;
}

static struct tep_format_field *field_of(struct build *b, struct tep_print_arg *a)
{
	struct tep_format_field *f = a->field.field;

	if (!f && a->field.name)
		f = tep_find_any_field(b->ev, a->field.name);
	if (!f)
		b->fail = true;
	return f;
}

static bool int_size(unsigned size)
{
	return size == 1 || size == 2 || size == 4 || size == 8;
}

/* What libtraceevent's eval_type_str() does to a value cast to type: a mask. */
static uint64_t type_mask(const char *type, bool pointer)
{
	size_t len = strlen(type);

	if (len < 2)
		return ~0ULL;
	if (pointer) {
		char base[64];

		if (type[len - 1] != '*' || len - 2 >= sizeof(base))
			return ~0ULL;
		memcpy(base, type, len - 2);	/* without its " *" */
		base[len - 2] = '\0';
		return type_mask(base, false);
	}
	if (type[len - 1] == '*' || !strncmp(type, "struct", 6))
		return ~0ULL;
	if (!strcmp(type, "u8") || !strcmp(type, "s8"))
		return 0xff;
	if (!strcmp(type, "u16") || !strcmp(type, "s16"))
		return 0xffff;
	if (!strcmp(type, "u32") || !strcmp(type, "s32"))
		return 0xffffffff;
	if (!strncmp(type, "unsigned ", 9))
		type += 9;
	if (!strcmp(type, "char"))
		return 0xff;
	if (!strcmp(type, "short"))
		return 0xffff;
	if (!strcmp(type, "int"))
		return 0xffffffff;
	return ~0ULL;
}

/* The operators of eval_num_arg(), one character each. */
static char op_code(const char *op)
{
	static const struct { const char *s; char c; } ops[] = {
		{ "!", '!' }, { "!=", 'n' }, { "~", '~' }, { "|", '|' }, { "||", 'O' },
		{ "&", '&' }, { "&&", 'A' }, { "<", '<' }, { "<<", 'L' }, { "<=", 'l' },
		{ ">", '>' }, { ">>", 'R' }, { ">=", 'g' }, { "==", '=' }, { "-", '-' },
		{ "+", '+' }, { "/", '/' }, { "%", '%' }, { "*", '*' },
	};
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(op, ops[i].s))
			return ops[i].c;
	return 0;
}

static uint64_t eval(const struct node *n, const uint8_t *d, unsigned size);

/* A node whose operands are all constants is the constant it comes to. */
static struct node *fold(struct node *n)
{
	if (!n || n->kind == N_CONST || n->kind == N_FIELD || n->kind == N_INDEX)
		return n;
	if ((n->a && n->a->kind != N_CONST) || (n->b && n->b->kind != N_CONST) ||
	    (n->c && n->c->kind != N_CONST))
		return n;
	n->val = eval(n, NULL, 0);
	n->kind = N_CONST;
	n->a = n->b = n->c = NULL;
	return n;
}

static struct node *num_tree(struct build *b, struct tep_print_arg *a);

/* A number: what eval_num_arg() gives for a, its constant parts folded. */
static struct node *num_of(struct build *b, struct tep_print_arg *a)
{
	struct node *n = num_tree(b, a);

	/* a failed part may be missing: the plan is not made then anyway */
	return b->fail ? n : fold(n);
}

static struct node *num_tree(struct build *b, struct tep_print_arg *a)
{
	struct tep_format_field *f;
	struct node *n;

	if (b->fail)
		return NULL;
	if (!a || a->type == TEP_PRINT_NULL) {
		n = node_new(b, N_CONST);
		return n;
	}
	switch (a->type) {
	case TEP_PRINT_ATOM:
		n = node_new(b, N_CONST);
		if (!n)
			return NULL;
		/*
		 * A number, read as far as it goes ("1UL" is 1); a name, whose
		 * value libtraceevent looks up, or a string is not here
		 */
		if (!isdigit((unsigned char)a->atom.atom[0]))
			b->fail = true;
		n->val = strtoull(a->atom.atom, NULL, 0);
		return n;
	case TEP_PRINT_FIELD:
		f = field_of(b, a);
		if (!f || !int_size(f->size))
			break;
		n = node_new(b, N_FIELD);
		if (n) {
			n->off = f->offset;
			n->size = f->size;
		}
		return n;
	case TEP_PRINT_TYPE:
		n = node_new(b, N_MASK);
		if (n) {
			n->val = type_mask(a->typecast.type, false);
			n->a = num_of(b, a->typecast.item);
		}
		return n;
	case TEP_PRINT_OP: {
		struct tep_print_arg *base = a->op.left, *cast = NULL;

		if (!strcmp(a->op.op, "[")) {
			while (base && base->type == TEP_PRINT_TYPE) {
				if (!cast)
					cast = base;
				base = base->typecast.item;
			}
			if (!base || base->type != TEP_PRINT_FIELD)
				break;
			f = field_of(b, base);
			if (!f || !int_size(f->elementsize))
				break;
			n = node_new(b, N_INDEX);
			if (n) {
				n->off = f->offset;
				n->size = f->elementsize;
				n->val = cast ? type_mask(cast->typecast.type, true) : ~0ULL;
				n->a = num_of(b, a->op.right);
			}
			return n;
		}
		if (!strcmp(a->op.op, "?")) {
			if (!a->op.right || a->op.right->type != TEP_PRINT_OP ||
			    strcmp(a->op.right->op.op, ":"))
				break;
			n = node_new(b, N_COND);
			if (n) {
				n->a = num_of(b, a->op.left);
				n->b = num_of(b, a->op.right->op.left);
				n->c = num_of(b, a->op.right->op.right);
			}
			return n;
		}
		n = node_new(b, N_BIN);
		if (!n)
			return NULL;
		n->op = op_code(a->op.op);
		if (!n->op)
			break;
		n->a = num_of(b, a->op.left);
		n->b = num_of(b, a->op.right);
		return n;
	}
	default:
		/* flags, symbols, strings, arrays, print functions: not here */
		break;
	}
	b->fail = true;
	return NULL;
}

static struct sarg *sarg_new(struct build *b, enum skind kind)
{
	struct sarg *s = pmem(b->p, sizeof(*s));

	if (!s)
		b->fail = true;
	else
		s->kind = kind;
	return s;
}

/* The { value, "name" } list of __print_flags or __print_symbolic. */
static void flag_list(struct build *b, struct sarg *s, struct tep_print_flag_sym *fs)
{
	struct tep_print_flag_sym *f;
	int n = 0;

	for (f = fs; f; f = f->next)
		n++;
	s->fl = pmem(b->p, (n ? n : 1) * sizeof(*s->fl));
	if (!s->fl) {
		b->fail = true;
		return;
	}
	for (f = fs; f; f = f->next) {
		/* eval_flag(): a number, else a name of its own small table */
		if (!isdigit((unsigned char)f->value[0])) {
			b->fail = true;
			return;
		}
		s->fl[s->nfl].v = strtoull(f->value, NULL, 0);
		/* { 0, NULL } ends some lists: never printed (a flag of no bit is not) */
		s->fl[s->nfl].s = f->str ? f->str : "(null)";
		s->fl[s->nfl].len = strlen(s->fl[s->nfl].s);
		s->nfl++;
	}
}

/* A string: what print_str_arg() writes for a. */
static struct sarg *str_of(struct build *b, struct tep_print_arg *a)
{
	struct tep_format_field *f;
	struct sarg *s;

	if (b->fail)
		return NULL;
	switch (a ? a->type : TEP_PRINT_NULL) {
	case TEP_PRINT_NULL:
	case TEP_PRINT_TYPE:
		/* nothing is written */
		s = sarg_new(b, S_LIT);
		if (s)
			s->lit = "";
		return s;
	case TEP_PRINT_ATOM:
	case TEP_PRINT_BSTRING:
		s = sarg_new(b, S_LIT);
		if (s) {
			s->lit = a->type == TEP_PRINT_ATOM ? a->atom.atom : a->string.string;
			s->len = strlen(s->lit);
		}
		return s;
	case TEP_PRINT_FIELD:
		f = field_of(b, a);
		/* a long that is no array is a pointer to a format: not here */
		if (!f || (!(f->flags & TEP_FIELD_IS_ARRAY) && f->size == b->long_size))
			break;
		s = sarg_new(b, S_ARRAY);
		if (s) {
			s->off = f->offset;
			s->size = f->size;
		}
		return s;
	case TEP_PRINT_STRING:
		f = a->string.field;
		if (!f && a->string.string)
			f = tep_find_any_field(b->ev, a->string.string);
		if (!f || f->size != 4)
			break;
		s = sarg_new(b, S_DYN);
		if (s) {
			s->off = f->offset;
			s->size = f->size;
			s->rel = f->flags & TEP_FIELD_IS_RELATIVE;
		}
		return s;
	case TEP_PRINT_FLAGS:
	case TEP_PRINT_SYMBOL:
		s = sarg_new(b, a->type == TEP_PRINT_FLAGS ? S_FLAGS : S_SYMBOL);
		if (!s)
			return NULL;
		if (a->type == TEP_PRINT_FLAGS) {
			s->num = num_of(b, a->flags.field);
			s->delim = a->flags.delim;
			s->dlen = s->delim ? strlen(s->delim) : 0;
			flag_list(b, s, a->flags.flags);
		} else {
			s->num = num_of(b, a->symbol.field);
			flag_list(b, s, a->symbol.symbols);
		}
		return s;
	case TEP_PRINT_OP:
		if (strcmp(a->op.op, "?") || !a->op.right || a->op.right->type != TEP_PRINT_OP)
			break;
		s = sarg_new(b, S_COND);
		if (s) {
			s->num = num_of(b, a->op.left);
			s->a = str_of(b, a->op.right->op.left);
			s->b = str_of(b, a->op.right->op.right);
		}
		return s;
	case TEP_PRINT_FUNC: {
		enum dec_sym how = decode_conv_sym(b->ev->tep, b->ev->id, b->conv);

		/* only the symbol helpers, with their one argument */
		if (how == DEC_SYM_NONE || !a->func.args || a->func.args->next)
			break;
		s = sarg_new(b, S_SYM);
		if (s) {
			s->how = how;
			s->num = num_of(b, a->func.args);
		}
		return s;
	}
	default:
		break;
	}
	b->fail = true;
	return NULL;
}

static struct item *item_new(struct build *b, enum ikind kind)
{
	struct textplan *p = b->p;
	struct item *it;

	if (p->n == p->alloc) {
		int a = p->alloc ? 2 * p->alloc : 8;
		struct item *v = realloc(p->items, a * sizeof(*v));

		if (!v) {
			b->fail = true;
			return NULL;
		}
		p->items = v;
		p->alloc = a;
	}
	it = &p->items[p->n++];
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	return it;
}

/*
 * Literal text up to the next conversion, as parse_arg_string() reads it:
 * \n \t \r \\ and any other escaped character, %% as %.  Returns the bytes read.
 */
static int text_item(struct build *b, const char *f)
{
	const char *p = f;
	struct item *it;
	char *t;
	size_t n = 0;

	/* (16 bytes more: a short text is copied 16 bytes at once, put_text) */
	t = pmem(b->p, strlen(f) + 16);
	if (!t) {
		b->fail = true;
		return 1;
	}
	for (; *p; p++) {
		if (*p == '\\') {
			p++;
			if (!*p)
				break;
			t[n++] = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p == 'r' ? '\r' : *p;
		} else if (*p == '%') {
			if (p[1] != '%')
				break;
			t[n++] = '%';
			p++;
		} else {
			t[n++] = *p;
		}
	}
	if (n) {
		it = item_new(b, I_TEXT);
		if (it) {
			it->text = t;
			it->len = n;
		}
	}
	return p - f;
}

/* One conversion, as parse_arg_format() reads it.  Returns the bytes read. */
static int conv_item(struct build *b, const char *f, struct tep_print_arg **arg)
{
	const char *p = f + 1;
	struct item *it;
	bool flags_ok = true, dot = false;
	int ls = 0, len;

	for (; *p; p++) {
		switch (*p) {
		case 'h':
			ls--;
			continue;
		case 'l':
			ls++;
			continue;
		case 'L':
			ls = 2;
			continue;
		case 'z':
		case 'Z':
			ls = 1;
			continue;
		case '#':
			flags_ok = false;
			continue;
		case '.':
			dot = true;
			continue;
		case '0' ... '9':
		case '-':
			continue;
		case 'd': case 'u': case 'i': case 'x': case 'X': case 'o': case 's':
			break;
		default:
			/* '*', %p, %c and the rest: libtraceevent's own */
			b->fail = true;
			return 1;
		}
		break;
	}
	len = p - f + 1;
	if (!*p || !*arg || len > 30 || ls < -2 || ls > 2) {
		b->fail = true;
		return 1;
	}
	if (*p == 's') {
		it = item_new(b, I_STR);
		if (!it)
			return len;
		it->str = str_of(b, *arg);
		it->fast = len == 2;
	} else {
		it = item_new(b, I_NUM);
		if (!it)
			return len;
		it->num = num_of(b, *arg);
		it->ls = ls;
		it->conv = *p;
		/* fast: "%[-0]WIDTH[hlLzZ]conv" of d, i, u, x, X */
		it->fast = flags_ok && !dot && *p != 'o';
		for (p = f + 1; *p == '-' || *p == '0'; p++) {
			if (*p == '-')
				it->left = true;
			else
				it->zero = true;
		}
		while (isdigit((unsigned char)*p))
			it->width = it->width * 10 + (*p++ - '0');
		if (it->width > 64)
			it->fast = false;
	}
	memcpy(it->fmt, f, len);
	it->fmt[len] = '\0';
	*arg = (*arg)->next;
	b->conv++;
	return len;
}

struct textplan *textplan_build(struct tep_event *ev)
{
	struct build b = { .ev = ev };
	struct tep_print_arg *arg;
	const char *f;
	int len, ret;

	if (!ev || !ev->print_fmt.format || ev->handler ||
	    (ev->flags & (TEP_EVENT_FL_FAILED | TEP_EVENT_FL_ISBPRINT | TEP_EVENT_FL_PRINTRAW)))
		return NULL;
	/* the records are read in place: the file's byte order must be ours */
	if (tep_is_file_bigendian(ev->tep) != (__BYTE_ORDER == __BIG_ENDIAN))
		return NULL;
	b.long_size = tep_get_long_size(ev->tep);
	b.p = calloc(1, sizeof(*b.p));
	if (!b.p)
		return NULL;
	arg = ev->print_fmt.args;
	f = ev->print_fmt.format;
	len = strlen(f);
	/* parse_args()'s walk: a conversion, or text up to the next one */
	while (*f && !b.fail) {
		if (*f == '%' && f[1] != '%')
			ret = conv_item(&b, f, &arg);
		else
			ret = text_item(&b, f);
		len -= ret;
		if (len <= 0)
			break;
		f += ret;
	}
	if (b.fail) {
		textplan_free(b.p);
		return NULL;
	}
	return b.p;
}

/* ---------------------------------------------------------------- running */

static uint64_t rd(const uint8_t *p, unsigned size)
{
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (size) {
	case 1:
		v8 = *p;
		return v8;
	case 2:
		memcpy(&v16, p, 2);
		return v16;
	case 4:
		memcpy(&v32, p, 4);
		return v32;
	default:
		memcpy(&v64, p, 8);
		return v64;
	}
}

/* eval() of a field or a constant without the call: most nodes are one of them */
static inline uint64_t value(const struct node *n, const uint8_t *d, unsigned size)
{
	switch (n->kind) {
	case N_FIELD:
		return n->off + n->size <= size ? rd(d + n->off, n->size) : 0;
	case N_CONST:
		return n->val;
	default:
		return eval(n, d, size);
	}
}

/* eval_num_arg() of the plan's tree; a read past the record gives 0, as there. */
static uint64_t eval(const struct node *n, const uint8_t *d, unsigned size)
{
	uint64_t l, r;

	switch (n->kind) {
	case N_CONST:
	case N_FIELD:
		return value(n, d, size);
	case N_INDEX:
		r = value(n->a, d, size);
		if (r > size)
			return 0;
		l = n->off + r * n->size;
		return l + n->size <= size ? rd(d + l, n->size) & n->val : 0;
	case N_MASK:
		return value(n->a, d, size) & n->val;
	case N_COND:
		return value(n->a, d, size) ? value(n->b, d, size) : value(n->c, d, size);
	case N_BIN:
		break;
	}
	l = value(n->a, d, size);
	r = value(n->b, d, size);
	switch (n->op) {
	case '!': return !r;
	case 'n': return l != r;
	case '~': return ~r;
	case '|': return l | r;
	case 'O': return l || r;
	case '&': return l & r;
	case 'A': return l && r;
	case '<': return l < r;
	case 'L': return r < 64 ? l << r : 0;
	case 'l': return l <= r;
	case '>': return l > r;
	case 'R': return r < 64 ? l >> r : 0;
	case 'g': return l >= r;
	case '=': return l == r;
	case '-': return l - r;
	case '+': return l + r;
	case '/': return r ? l / r : 0;
	case '%': return r ? l % r : 0;
	case '*': return l * r;
	}
	return 0;
}

static int grow(struct tpbuf *b, size_t more)
{
	size_t cap;
	char *p;

	if (b->len + more <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + more)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p)
		return -1;
	b->p = p;
	b->cap = cap;
	return 0;
}

static int put(struct tpbuf *b, const char *s, size_t len)
{
	if (grow(b, len))
		return -1;
	memcpy(b->p + b->len, s, len);
	b->len += len;
	return 0;
}

/* The plan's own text: one copy of 16 bytes when it is short (text_item padded it). */
static inline int put_text(struct tpbuf *b, const struct item *it)
{
	if (b->len + it->len + 16 > b->cap && grow(b, it->len + 16))
		return -1;
	if (it->len <= 16)
		memcpy(b->p + b->len, it->text, 16);
	else
		memcpy(b->p + b->len, it->text, it->len);
	b->len += it->len;
	return 0;
}

/* A string through the conversion: "%s" as is, anything else by snprintf. */
static int put_conv_str(struct tpbuf *b, const struct item *it, const char *s, size_t len)
{
	char *z;
	int n;

	if (it->fast)
		return put(b, s, len);
	z = strndup(s, len);
	if (!z)
		return -1;
	n = snprintf(NULL, 0, it->fmt, z);
	if (n < 0 || grow(b, n + 1)) {
		free(z);
		return -1;
	}
	snprintf(b->p + b->len, n + 1, it->fmt, z);
	b->len += n;
	free(z);
	return 0;
}

static int put_hex0x(struct tpbuf *b, uint64_t v)
{
	char num[24];
	int n = snprintf(num, sizeof(num), "0x%llx", (unsigned long long)v);

	return put(b, num, n);
}

static int run_str(const struct sarg *s, const struct item *it, const uint8_t *d, unsigned size,
		   struct tpbuf *b)
{
	unsigned off, len;
	long long v;
	uint32_t loc;
	bool any = false;
	int i;

	switch (s->kind) {
	case S_LIT:
		return put_conv_str(b, it, s->lit, s->len);
	case S_ARRAY:
		/* a char array (size 0: the rest of the record), up to its NUL */
		if (s->off >= size)
			return put_conv_str(b, it, "", 0);
		len = s->size ? s->size : size - s->off;
		if (s->off + len > size)
			len = size - s->off;
		return put_conv_str(b, it, (const char *)d + s->off,
				    decode_strnlen((const char *)d + s->off, len));
	case S_DYN:
		if (s->off + s->size > size)
			return 0;
		memcpy(&loc, d + s->off, 4);
		/* dynamic_offset(): an offset or an end past the record reads as 0 */
		off = loc & 0xffff;
		len = loc >> 16;
		if (off + len > size)
			len = 0;
		if (off > size)
			off = 0;
		if (s->rel)
			off += s->off + s->size;
		/* an empty string is not written at all, not even padded */
		if (!len || off >= size)
			return 0;
		return put_conv_str(b, it, (const char *)d + off,
				    decode_strnlen((const char *)d + off, size - off));
	case S_FLAGS:
		v = value(s->num, d, size);
		for (i = 0; i < s->nfl; i++) {
			long long fv = s->fl[i].v;

			if (!v && fv < 0)
				return put_conv_str(b, it, s->fl[i].s, s->fl[i].len);
			if (fv > 0 && (v & fv) == fv) {
				if (any && s->delim && put(b, s->delim, s->dlen))
					return -1;
				if (put_conv_str(b, it, s->fl[i].s, s->fl[i].len))
					return -1;
				any = true;
				v &= ~fv;
			}
		}
		if (v) {
			if (any && s->delim && put(b, s->delim, s->dlen))
				return -1;
			return put_hex0x(b, v);
		}
		return 0;
	case S_SYMBOL:
		v = value(s->num, d, size);
		for (i = 0; i < s->nfl; i++)
			if (v == s->fl[i].v)
				return put_conv_str(b, it, s->fl[i].s, s->fl[i].len);
		return put_hex0x(b, v);
	case S_COND:
		return run_str(value(s->num, d, size) ? s->a : s->b, it, d, size, b);
	case S_SYM: {
		struct trace_seq seq;
		int r;

		trace_seq_init(&seq);
		decode_sym_print(&seq, value(s->num, d, size), s->how);
		trace_seq_terminate(&seq);
		r = seq.state == TRACE_SEQ__GOOD ? put(b, seq.buffer, seq.len) : -1;
		trace_seq_destroy(&seq);
		return r;
	}
	}
	return 0;
}

#define NUM 80

static int run_num(const struct item *it, uint64_t v, struct tpbuf *b)
{
	/* NUM for the text; 24 more past e: the digits are copied 24 bytes at once */
	char num[NUM + 24], *e = num + NUM, *w = e;
	bool neg = false;
	int n, pad;

	if (!it->fast) {
		/* print_arg_number(): the value as the type the length says */
		switch (it->ls) {
		case -2:
			n = snprintf(num, NUM, it->fmt, (char)v);
			break;
		case -1:
			n = snprintf(num, NUM, it->fmt, (short)v);
			break;
		case 0:
			n = snprintf(num, NUM, it->fmt, (int)v);
			break;
		case 1:
			n = snprintf(num, NUM, it->fmt, (long)v);
			break;
		default:
			n = snprintf(num, NUM, it->fmt, (long long)v);
		}
		if (n < 0)
			return -1;
		if ((size_t)n < NUM)
			return put(b, num, n);
		/* a wide field: once more, in the buffer */
		if (grow(b, n + 1))
			return -1;
		switch (it->ls) {
		case -2:
			snprintf(b->p + b->len, n + 1, it->fmt, (char)v);
			break;
		case -1:
			snprintf(b->p + b->len, n + 1, it->fmt, (short)v);
			break;
		case 0:
			snprintf(b->p + b->len, n + 1, it->fmt, (int)v);
			break;
		case 1:
			snprintf(b->p + b->len, n + 1, it->fmt, (long)v);
			break;
		default:
			snprintf(b->p + b->len, n + 1, it->fmt, (long long)v);
		}
		b->len += n;
		return 0;
	}
	/* the value's bits as the length says, signed for %d and %i */
	switch (it->ls) {
	case -2:
		v = it->conv == 'd' || it->conv == 'i' ? (uint64_t)(int64_t)(signed char)v :
		    (uint8_t)v;
		break;
	case -1:
		v = it->conv == 'd' || it->conv == 'i' ? (uint64_t)(int64_t)(short)v : (uint16_t)v;
		break;
	case 0:
		v = it->conv == 'd' || it->conv == 'i' ? (uint64_t)(int64_t)(int)v : (uint32_t)v;
		break;
	default:
		break;
	}
	if ((it->conv == 'd' || it->conv == 'i') && (int64_t)v < 0) {
		neg = true;
		v = -v;
	}
	if (it->conv == 'x' || it->conv == 'X') {
		const char *dig = it->conv == 'x' ? "0123456789abcdef" : "0123456789ABCDEF";

		do {
			*--w = dig[v & 15];
			v >>= 4;
		} while (v);
	} else {
		w = fmt_u64(e, v);
		e--;	/* (the NUL fmt_u64 ends with) */
	}
	n = e - w + neg;
	pad = it->width > n ? it->width - n : 0;
	if (grow(b, n + pad + 24))
		return -1;
	if (it->left) {
		if (neg)
			b->p[b->len++] = '-';
		memcpy(b->p + b->len, w, e - w);
		b->len += e - w;
		if (pad)
			memset(b->p + b->len, ' ', pad);
		b->len += pad;
		return 0;
	}
	if (pad && !it->zero) {
		memset(b->p + b->len, ' ', pad);
		b->len += pad;
	}
	if (neg)
		b->p[b->len++] = '-';
	if (pad && it->zero) {
		memset(b->p + b->len, '0', pad);
		b->len += pad;
	}
	/* (20 digits at most: a copy of a known size, not a call) */
	memcpy(b->p + b->len, w, 24 < NUM ? 24 : 0);
	b->len += e - w;
	return 0;
}

int textplan_run(const struct textplan *p, const void *data, int size, struct tpbuf *b)
{
	const uint8_t *d = data;
	unsigned usize = size > 0 ? (unsigned)size : 0;
	int i;

	for (i = 0; i < p->n; i++) {
		const struct item *it = &p->items[i];
		int r;

		switch (it->kind) {
		case I_TEXT:
			r = put_text(b, it);
			break;
		case I_NUM:
			r = run_num(it, value(it->num, d, usize), b);
			break;
		default:
			r = run_str(it->str, it, d, usize, b);
			break;
		}
		if (r)
			return -1;
	}
	return 0;
}
