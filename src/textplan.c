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

/* N_FMASK: a field and a mask (a cast of a field, or "field & constant") */
enum nkind { N_CONST, N_FIELD, N_FMASK, N_INDEX, N_MASK, N_COND, N_BIN };

struct node {
	enum nkind kind;
	char op;		/* N_BIN: see eval() */
	unsigned off, size;	/* N_FIELD, N_FMASK; N_INDEX: base offset, element size */
	uint64_t val;		/* N_CONST: the value; N_FMASK, N_MASK, N_INDEX: the mask */
	struct node *a, *b, *c;
};

enum skind { S_LIT, S_ARRAY, S_DYN, S_FLAGS, S_SYMBOL, S_COND, S_SYM };

struct flagv {
	long long v;
	const char *s;		/* padded: see padded() */
	size_t len;
};

struct sarg {
	enum skind kind;
	const char *lit;	/* S_LIT (padded: see padded()) */
	size_t len;
	unsigned off, size;	/* S_ARRAY (size 0: the rest of the record); S_DYN: the data_loc */
	bool rel;		/* S_DYN: __rel_loc */
	struct node *num;	/* S_FLAGS, S_SYMBOL, S_COND, S_SYM */
	struct flagv *fl;
	int nfl;
	const char *delim;	/* padded: see padded() */
	size_t dlen;
	struct sarg *a, *b;	/* S_COND */
	enum dec_sym how;	/* S_SYM */
	/*
	 * S_FLAGS, S_SYMBOL of a "%s": the text of each value below TABN,
	 * made once (tables()), TABSLOT bytes each: its length, then the text
	 */
	char *tab;
};

#define TABN 256
#define TABSLOT 48

enum ikind { I_TEXT, I_NUM, I_STR };

struct item {
	enum ikind kind;
	const char *text;	/* the literal text before the conversion (padded) */
	size_t len;
	struct node *num;	/* I_NUM */
	struct sarg *str;	/* I_STR */
	int ls;			/* I_NUM: -2 char .. 2 long long, as libtraceevent counts */
	char conv;		/* I_NUM: d i u x X o */
	bool fast;		/* I_NUM: no flags but '0' or '-', no precision; I_STR: "%s" */
	bool zero, left;
	bool sgn, hex;		/* I_NUM: %d or %i; %x or %X */
	unsigned char sh;	/* I_NUM: 64 less the bits the length says */
	const char *dig;	/* I_NUM: the hex digits */
	int width, prec;	/* as written (0: none) */
	size_t room;		/* I_NUM, not fast: the most its snprintf writes */
	char fmt[32];		/* the conversion as written, for the other cases */
};

/*
 * An item as the op that writes it, specialised by what it writes: a
 * number field of 32 or 64 bits in plain decimal, a char[16] (a task's
 * name), a string that the few values of one field decide (flags and
 * symbols, the conditions around them: a table of their texts), and the
 * item's general walk for the rest.  The ops read the fields without a
 * check each: the plan runs them on records of need bytes or more.
 */
enum opkind { OP_TEXT, OP_S32, OP_U32, OP_S64, OP_U64, OP_Z32, OP_CHARS16, OP_STRTAB, OP_ITEM };

struct op {
	unsigned char kind;
	unsigned char size, shift;	/* OP_STRTAB: the field's size, the mask's lowest bit */
	unsigned char width;		/* OP_Z32: zero-padded to this width (16 at most) */
	bool sgn;			/* OP_Z32: %d */
	unsigned off;			/* the field's offset */
	size_t len;			/* the literal text before, 16 bytes at most (padded) */
	const char *text;
	uint64_t mask;			/* OP_STRTAB: the bits of the field that decide */
	const char *tab;		/* OP_STRTAB: TABSLOT bytes a value: length, text */
	const struct item *it;		/* OP_ITEM */
};

/* Everything a plan allocated, freed together. */
struct textplan {
	struct item *items;
	int n, alloc;
	/* a record's text is at most fixed + dyn * its size bytes (SLACK included) */
	size_t fixed;
	unsigned dyn;
	void **mem;
	int nmem, amem;
	/* the items as ops (see struct op), run when a record is need bytes or more */
	struct op *ops;
	int nops;
	unsigned need;
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

static void tables(struct build *b, struct sarg *s, const struct item *it);
static void ops_build(struct build *b);

/* A copy of s with 16 bytes of padding: a short string is copied 16 bytes at once. */
static const char *padded(struct build *b, const char *s, size_t *len)
{
	char *c;

	*len = strlen(s);
	c = pmem(b->p, *len + 16);
	if (!c) {
		b->fail = true;
		return "";
	}
	memcpy(c, s, *len);
	return c;
}

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

/*
 * A node whose operands are all constants is the constant it comes to; a
 * field masked by a cast or an '&' of a constant is one node.
 */
static struct node *fold(struct node *n)
{
	struct node *f = NULL;
	uint64_t mask = 0;

	if (!n || n->kind == N_CONST || n->kind == N_FIELD || n->kind == N_FMASK ||
	    n->kind == N_INDEX)
		return n;
	if (n->kind == N_MASK && n->a && n->a->kind == N_FIELD) {
		f = n->a;
		mask = n->val;
	} else if (n->kind == N_BIN && n->op == '&' && n->a && n->b) {
		if (n->a->kind == N_FIELD && n->b->kind == N_CONST) {
			f = n->a;
			mask = n->b->val;
		} else if (n->b->kind == N_FIELD && n->a->kind == N_CONST) {
			f = n->b;
			mask = n->a->val;
		}
	}
	if (f) {
		n->kind = N_FMASK;
		n->off = f->off;
		n->size = f->size;
		n->val = mask;
		n->a = n->b = n->c = NULL;
		return n;
	}
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
		s->fl[s->nfl].s = padded(b, f->str ? f->str : "(null)", &s->fl[s->nfl].len);
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
			s->lit = padded(b, "", &s->len);
		return s;
	case TEP_PRINT_ATOM:
	case TEP_PRINT_BSTRING:
		s = sarg_new(b, S_LIT);
		if (s)
			s->lit = padded(b, a->type == TEP_PRINT_ATOM ? a->atom.atom : a->string.string,
					&s->len);
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
			if (a->flags.delim)
				s->delim = padded(b, a->flags.delim, &s->dlen);
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

	/* (16 bytes more: a short text is copied 16 bytes at once, put_at) */
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
	it = item_new(b, *p == 's' ? I_STR : I_NUM);
	if (!it)
		return len;
	if (*p == 's') {
		it->str = str_of(b, *arg);
		it->fast = len == 2;
	} else {
		it->num = num_of(b, *arg);
		it->ls = ls;
		it->conv = *p;
		/* fast: "%[-0]WIDTH[hlLzZ]conv" of d, i, u, x, X */
		it->fast = flags_ok && !dot && *p != 'o';
		it->sgn = *p == 'd' || *p == 'i';
		it->hex = *p == 'x' || *p == 'X';
		it->dig = *p == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
		it->sh = ls == -2 ? 56 : ls == -1 ? 48 : ls == 0 ? 32 : 0;
	}
	/* flags, width and precision: what the item may write */
	for (p = f + 1; *p == '-' || *p == '0' || *p == '#'; p++) {
		if (*p == '-')
			it->left = true;
		else if (*p == '0')
			it->zero = true;
	}
	while (isdigit((unsigned char)*p) && it->width <= 4096)
		it->width = it->width * 10 + (*p++ - '0');
	if (*p == '.')
		while (isdigit((unsigned char)*++p) && it->prec <= 4096)
			it->prec = it->prec * 10 + (*p - '0');
	if (it->width > 4096 || it->prec > 4096) {
		b->fail = true;
		return len;
	}
	if (it->width > 64)
		it->fast = false;
	/* sign, "0x" and 22 octal digits at most, widened or made precise */
	it->room = it->width + it->prec + 32;
	memcpy(it->fmt, f, len);
	it->fmt[len] = '\0';
	*arg = (*arg)->next;
	b->conv++;
	return len;
}

/*
 * What the fixed-size copies may write past the end they keep: a short
 * text or string as 16 bytes, a number's digits as 24, a NUL after them.
 */
#define SLACK 32
/* The longest text a symbol helper (%pS and the like) gives: cut there. */
#define SYM_MAX 1024

/* The most a string argument writes, as fixed bytes and times the record's size. */
static void sarg_bound(const struct sarg *s, size_t width, size_t *fixed, unsigned *dyn)
{
	size_t f = 0, f2;
	unsigned d = 0, d2;
	int i;

	switch (s->kind) {
	case S_LIT:
		f = s->len + width;
		break;
	case S_ARRAY:
		/* size 0: the rest of the record */
		f = s->size + width;
		d = !s->size;
		break;
	case S_DYN:
		f = width;
		d = 1;
		break;
	case S_FLAGS:
		/* every flag and its delimiter, then the rest in hex */
		f = s->dlen + 18;
		for (i = 0; i < s->nfl; i++)
			f += s->fl[i].len + width + s->dlen;
		break;
	case S_SYMBOL:
		f = 18;
		for (i = 0; i < s->nfl; i++)
			if (s->fl[i].len + width > f)
				f = s->fl[i].len + width;
		break;
	case S_COND:
		sarg_bound(s->a, width, &f, &d);
		sarg_bound(s->b, width, &f2, &d2);
		if (f2 > f)
			f = f2;
		if (d2 > d)
			d = d2;
		break;
	case S_SYM:
		f = SYM_MAX;
		break;
	}
	*fixed = f;
	*dyn = d;
}

/*
 * Each conversion takes the text before it along (a plan is a walk of the
 * conversions, not of the texts between them); text after the last one
 * stays an item of its own.
 */
static void join_texts(struct textplan *p)
{
	static const char nothing[16];
	int i, n = 0;

	for (i = 0; i < p->n; i++) {
		struct item it = p->items[i];

		if (it.kind == I_TEXT && i + 1 < p->n && p->items[i + 1].kind != I_TEXT) {
			p->items[i + 1].text = it.text;
			p->items[i + 1].len = it.len;
			continue;
		}
		if (!it.text) {
			it.text = nothing;
			it.len = 0;
		}
		p->items[n++] = it;
	}
	p->n = n;
}

/* The most a record's text takes: p->fixed + p->dyn * its size. */
static void plan_bound(struct textplan *p)
{
	int i;

	p->fixed = SLACK;
	p->dyn = 0;
	for (i = 0; i < p->n; i++) {
		const struct item *it = &p->items[i];
		size_t f;
		unsigned d;

		p->fixed += it->len;
		switch (it->kind) {
		case I_TEXT:
			break;
		case I_NUM:
			p->fixed += it->room;
			break;
		case I_STR:
			sarg_bound(it->str, it->width, &f, &d);
			p->fixed += f;
			p->dyn += d;
			break;
		}
	}
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
	join_texts(b.p);
	plan_bound(b.p);
	for (len = 0; len < b.p->n; len++)
		if (b.p->items[len].kind == I_STR)
			tables(&b, b.p->items[len].str, &b.p->items[len]);
	ops_build(&b);
	if (b.fail) {
		textplan_free(b.p);
		return NULL;
	}
	return b.p;
}

/* ---------------------------------------------------------------- running */

/*
 * The writers below write at w, which has room for the plan's bound
 * (textplan_bound(): every piece at its longest, and SLACK), so no piece
 * checks for room; each returns the end of what it wrote.
 */

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
	case N_FMASK:
		return n->off + n->size <= size ? rd(d + n->off, n->size) & n->val : 0;
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
	case N_FMASK:
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

/* n bytes of s at w: one 16-byte copy when n is at most 16 and s has 16 bytes to read */
static inline char *put_at(char *w, const char *s, size_t n, size_t avail)
{
	if (n <= 16 && avail >= 16)
		memcpy(w, s, 16);
	else
		memcpy(w, s, n);
	return w + n;
}

/*
 * A string through the conversion: "%s" as is, anything else by snprintf
 * (at most len + width bytes: a precision only cuts).  avail: the bytes
 * that may be read at s.
 */
static char *conv_str_slow(char *w, const struct item *it, const char *s, size_t len)
{
	size_t most = len + it->width;
	char *z;
	int n;

	z = strndup(s, len);
	if (!z)
		return w;
	n = snprintf(w, most + 1, it->fmt, z);
	free(z);
	if (n < 0)
		return w;
	return w + ((size_t)n < most ? (size_t)n : most);
}

static inline char *conv_str_at(char *w, const struct item *it, const char *s, size_t len,
				size_t avail)
{
	if (it->fast)
		return put_at(w, s, len, avail);
	return conv_str_slow(w, it, s, len);
}

/* __print_flags(): each flag of v in the list's order, then what is left in hex */
static char *flags_at(char *w, const struct sarg *s, const struct item *it, long long v)
{
	bool any = false;
	int i;

	for (i = 0; i < s->nfl; i++) {
		long long fv = s->fl[i].v;

		if (!v && fv < 0)
			return conv_str_at(w, it, s->fl[i].s, s->fl[i].len, s->fl[i].len + 16);
		if (fv > 0 && (v & fv) == fv) {
			if (any && s->delim)
				w = put_at(w, s->delim, s->dlen, s->dlen + 16);
			w = conv_str_at(w, it, s->fl[i].s, s->fl[i].len, s->fl[i].len + 16);
			any = true;
			v &= ~fv;
		}
	}
	if (v) {
		if (any && s->delim)
			w = put_at(w, s->delim, s->dlen, s->dlen + 16);
		return hex0x_at(w, v);
	}
	return w;
}

/* __print_symbolic(): the name of v, else v in hex */
static char *symbol_at(char *w, const struct sarg *s, const struct item *it, long long v)
{
	int i;

	for (i = 0; i < s->nfl; i++)
		if (v == s->fl[i].v)
			return conv_str_at(w, it, s->fl[i].s, s->fl[i].len, s->fl[i].len + 16);
	return hex0x_at(w, v);
}

/*
 * The tables of s and the strings under it (of item it): each value's text
 * as the two functions above write it, made once where every value below
 * TABN has a text that fits a slot.  What has none walks its list per
 * record.
 */
static void tables(struct build *b, struct sarg *s, const struct item *it)
{
	char buf[TABSLOT + SLACK];
	size_t most;
	unsigned dyn;
	long long v;

	if (!s || b->fail)
		return;
	if (s->kind == S_COND) {
		tables(b, s->a, it);
		tables(b, s->b, it);
		return;
	}
	if ((s->kind != S_FLAGS && s->kind != S_SYMBOL) || !it->fast)
		return;
	/*
	 * a slot is copied whole: the bound, at least 18 (a hex value) and
	 * SLACK after it, has room for that
	 */
	sarg_bound(s, 0, &most, &dyn);
	if (most > TABSLOT - 1 || most + SLACK < TABSLOT - 1)
		return;
	s->tab = pmem(b->p, TABN * TABSLOT);
	if (!s->tab) {
		b->fail = true;
		return;
	}
	for (v = 0; v < TABN; v++) {
		char *e = s->kind == S_FLAGS ? flags_at(buf, s, it, v) : symbol_at(buf, s, it, v);

		s->tab[v * TABSLOT] = e - buf;
		memcpy(s->tab + v * TABSLOT + 1, buf, e - buf);
	}
}

static char *str_at(char *w, const struct sarg *s, const struct item *it, const uint8_t *d,
		    unsigned size)
{
	unsigned off, len;
	long long v;
	uint32_t loc;

	switch (s->kind) {
	case S_LIT:
		return conv_str_at(w, it, s->lit, s->len, s->len + 16);
	case S_ARRAY:
		/* a char array (size 0: the rest of the record), up to its NUL */
		if (s->off >= size)
			return conv_str_at(w, it, "", 0, 0);
		len = s->size ? s->size : size - s->off;
		if (s->off + len > size)
			len = size - s->off;
		return conv_str_at(w, it, (const char *)d + s->off,
				   decode_strnlen((const char *)d + s->off, len), len);
	case S_DYN:
		if (s->off + s->size > size)
			return w;
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
			return w;
		return conv_str_at(w, it, (const char *)d + off,
				   decode_strnlen((const char *)d + off, size - off), size - off);
	case S_FLAGS:
	case S_SYMBOL:
		v = value(s->num, d, size);
		if (s->tab && (uint64_t)v < TABN) {
			const char *e = s->tab + v * TABSLOT;

			memcpy(w, e + 1, TABSLOT - 1);
			return w + (unsigned char)e[0];
		}
		return s->kind == S_FLAGS ? flags_at(w, s, it, v) : symbol_at(w, s, it, v);
	case S_COND:
		return str_at(w, value(s->num, d, size) ? s->a : s->b, it, d, size);
	case S_SYM: {
		struct trace_seq seq;

		trace_seq_init(&seq);
		decode_sym_print(&seq, value(s->num, d, size), s->how);
		trace_seq_terminate(&seq);
		if (seq.state == TRACE_SEQ__GOOD) {
			memcpy(w, seq.buffer, seq.len < SYM_MAX ? seq.len : SYM_MAX);
			w += seq.len < SYM_MAX ? seq.len : SYM_MAX;
		}
		trace_seq_destroy(&seq);
		return w;
	}
	}
	return w;
}

/* A number conversion at w (at most it->room bytes) */
static char *num_at(char *w, const struct item *it, uint64_t v)
{
	/* the digits (at most 20, and the writers' NUL), copied 24 bytes at once */
	char num[24], *e;
	bool neg = false;
	size_t n, pad;
	int r;

	if (!it->fast) {
		/* print_arg_number(): the value as the type the length says */
		switch (it->ls) {
		case -2:
			r = snprintf(w, it->room, it->fmt, (char)v);
			break;
		case -1:
			r = snprintf(w, it->room, it->fmt, (short)v);
			break;
		case 0:
			r = snprintf(w, it->room, it->fmt, (int)v);
			break;
		case 1:
			r = snprintf(w, it->room, it->fmt, (long)v);
			break;
		default:
			r = snprintf(w, it->room, it->fmt, (long long)v);
		}
		if (r < 0)
			return w;
		return w + ((size_t)r < it->room ? (size_t)r : it->room - 1);
	}
	/* the value's bits as the length says, signed for %d and %i */
	v = it->sgn ? (uint64_t)((int64_t)(v << it->sh) >> it->sh) : v << it->sh >> it->sh;
	if (!it->width) {
		if (it->hex)
			return hex_at(w, v, it->dig);
		return it->sgn ? dec_i64(w, (int64_t)v) : dec_u64(w, v);
	}
	if (it->sgn && (int64_t)v < 0) {
		neg = true;
		v = -v;
	}
	e = it->hex ? hex_at(num, v, it->dig) : dec_u64(num, v);
	n = e - num + neg;
	pad = (size_t)it->width > n ? it->width - n : 0;
	if (it->left) {
		if (neg)
			*w++ = '-';
		memcpy(w, num, 24);
		w += e - num;
		memset(w, ' ', pad);
		return w + pad;
	}
	if (!it->zero) {
		memset(w, ' ', pad);
		w += pad;
	}
	if (neg)
		*w++ = '-';
	if (it->zero) {
		memset(w, '0', pad);
		w += pad;
	}
	memcpy(w, num, 24);
	return w + (e - num);
}

/* One item of the plan at w, its fields read with a check each */
static char *item_at(char *w, const struct item *it, const uint8_t *d, unsigned size)
{
	switch (it->kind) {
	case I_TEXT:
		return w;
	case I_NUM:
		return num_at(w, it, value(it->num, d, size));
	default:
		return str_at(w, it->str, it, d, size);
	}
}

/* ---------------------------------------------------------------- ops */

/* The field and the bits of it that a number node reads; false: not one field's bits. */
static bool node_key(const struct node *n, unsigned *off, unsigned *size, uint64_t *mask)
{
	uint64_t m;

	if (!n)
		return false;
	if (n->kind == N_CONST)
		return true;
	if ((n->kind != N_FIELD && n->kind != N_FMASK) || !int_size(n->size))
		return false;
	m = n->size == 8 ? ~0ULL : (1ULL << (8 * n->size)) - 1;
	if (n->kind == N_FMASK)
		m &= n->val;
	if (*size && (n->off != *off || n->size != *size))
		return false;
	*off = n->off;
	*size = n->size;
	*mask |= m;
	return true;
}

/* The same for every number a string reads: its text is a function of the field's bits. */
static bool sarg_key(const struct sarg *s, unsigned *off, unsigned *size, uint64_t *mask)
{
	switch (s ? s->kind : S_SYM) {
	case S_LIT:
		return true;
	case S_FLAGS:
	case S_SYMBOL:
		return node_key(s->num, off, size, mask);
	case S_COND:
		return node_key(s->num, off, size, mask) && sarg_key(s->a, off, size, mask) &&
		       sarg_key(s->b, off, size, mask);
	default:
		return false;
	}
}

static void wr(uint8_t *p, unsigned size, uint64_t v)
{
	uint16_t v16 = v;
	uint32_t v32 = v;

	switch (size) {
	case 1:
		*p = v;
		break;
	case 2:
		memcpy(p, &v16, 2);
		break;
	case 4:
		memcpy(p, &v32, 4);
		break;
	default:
		memcpy(p, &v, 8);
	}
}

/*
 * op as an OP_STRTAB of item it, a "%s" of a string that one field's bits
 * decide, when they are few (TABN values at most) and each text fits a slot:
 * the text of every value, written once by str_at() on a record made of it.
 */
static bool strtab_op(struct build *b, struct op *op, const struct item *it)
{
	char buf[4 * TABSLOT + SLACK], *e;
	unsigned off = 0, size = 0, n, i;
	uint64_t mask = 0;
	uint8_t *rec;
	size_t most;
	unsigned dyn;
	char *tab;

	if (!it->fast || !sarg_key(it->str, &off, &size, &mask) || !size || !mask)
		return false;
	sarg_bound(it->str, 0, &most, &dyn);
	op->shift = __builtin_ctzll(mask);
	if (dyn || most > TABSLOT - 1 || (mask >> op->shift) >= TABN)
		return false;
	n = (mask >> op->shift) + 1;
	/* (16 bytes more: a slot's text is copied 16 bytes at a time) */
	tab = pmem(b->p, n * TABSLOT + 16);
	rec = calloc(1, off + size);
	if (!tab || !rec) {
		free(rec);
		b->fail = true;
		return false;
	}
	for (i = 0; i < n; i++) {
		wr(rec + off, size, (uint64_t)i << op->shift);
		e = str_at(buf, it->str, it, rec, off + size);
		tab[i * TABSLOT] = e - buf;
		memcpy(tab + i * TABSLOT + 1, buf, e - buf);
	}
	free(rec);
	op->kind = OP_STRTAB;
	op->off = off;
	op->size = size;
	op->mask = mask;
	op->tab = tab;
	return true;
}

/* The op of a number item: a field of 32 or 64 bits in plain decimal, else the item's. */
static enum opkind num_op(const struct item *it)
{
	const struct node *n = it->num;

	if (!it->fast || it->hex || n->kind != N_FIELD)
		return OP_ITEM;
	if (it->width)
		return it->zero && !it->left && it->width <= 16 && n->size == 4 && !it->ls ?
		       OP_Z32 : OP_ITEM;
	/* (a 4-byte field of a long conversion is read as unsigned: positive) */
	if (n->size == 4 && it->ls >= 0)
		return it->ls == 0 && it->sgn ? OP_S32 : OP_U32;
	if (n->size == 8 && it->ls > 0)
		return it->sgn ? OP_S64 : OP_U64;
	return OP_ITEM;
}

static void ops_build(struct build *b)
{
	struct textplan *p = b->p;
	int i, most = 1;

	if (b->fail)
		return;
	/* a text longer than 16 bytes: ops of text alone before its item's */
	for (i = 0; i < p->n; i++)
		most += 1 + p->items[i].len / 16;
	p->ops = pmem(p, most * sizeof(*p->ops));
	if (!p->ops) {
		b->fail = true;
		return;
	}
	for (i = 0; i < p->n; i++) {
		const struct item *it = &p->items[i];
		const char *text = it->text;
		size_t len = it->len;
		struct op *op;

		for (; len > 16; text += 16, len -= 16) {
			op = &p->ops[p->nops++];
			op->kind = OP_TEXT;
			op->text = text;
			op->len = 16;
		}
		op = &p->ops[p->nops++];
		op->text = text;
		op->len = len;
		op->it = it;
		op->kind = OP_ITEM;
		if (it->kind == I_TEXT) {
			op->kind = OP_TEXT;
		} else if (it->kind == I_NUM) {
			op->kind = num_op(it);
			op->off = it->num->off;
			op->size = it->num->size;
			op->width = it->width;
			op->sgn = it->sgn;
		} else if (it->fast && it->str->kind == S_ARRAY && it->str->size == 16) {
			op->kind = OP_CHARS16;
			op->off = it->str->off;
			op->size = 16;
		} else {
			strtab_op(b, op, it);
		}
		if (op->kind != OP_ITEM && op->kind != OP_TEXT && op->off + op->size > p->need)
			p->need = op->off + op->size;
	}
}

/* "%0WIDTHd" (or u) of v at w, the width 16 at most */
static inline char *zero_at(char *w, uint32_t v, bool sgn, unsigned width)
{
	char num[16];
	bool neg = sgn && (int32_t)v < 0;
	size_t n = dec_u32(num, neg ? -v : v) - num;
	size_t pad = width > n + neg ? width - n - neg : 0;

	*w = '-';
	w += neg;
	memcpy(w, "0000000000000000", 16);
	memcpy(w + pad, num, 16);
	return w + pad + n;
}

static char *ops_write(const struct textplan *p, const uint8_t *d, unsigned size, char *w)
{
	const struct op *op, *end = p->ops + p->nops;

	for (op = p->ops; op < end; op++) {
		const uint8_t *f = d + op->off;
		uint32_t v32;
		uint64_t v64;
		const char *e;

		/* (texts are padded and 16 bytes at most, w has SLACK) */
		memcpy(w, op->text, 16);
		w += op->len;
		switch (op->kind) {
		case OP_TEXT:
			break;
		case OP_S32:
			memcpy(&v32, f, 4);
			w = dec_i32(w, (int32_t)v32);
			break;
		case OP_U32:
			memcpy(&v32, f, 4);
			w = dec_u32(w, v32);
			break;
		case OP_S64:
			memcpy(&v64, f, 8);
			w = dec_i64(w, (int64_t)v64);
			break;
		case OP_U64:
			memcpy(&v64, f, 8);
			w = dec_u64(w, v64);
			break;
		case OP_Z32:
			memcpy(&v32, f, 4);
			w = zero_at(w, v32, op->sgn, op->width);
			break;
		case OP_CHARS16:
			/* the name up to its NUL: 16 bytes copied, its length counted */
			memcpy(w, f, 16);
			w += decode_strnlen((const char *)f, 16);
			break;
		case OP_STRTAB:
			/* (a slot's text is read 16 bytes at a time: the table has 16 more) */
			e = op->tab + ((rd(f, op->size) & op->mask) >> op->shift) * TABSLOT;
			memcpy(w, e + 1, 16);
			if ((unsigned char)e[0] > 16)
				memcpy(w + 16, e + 17, TABSLOT - 17);
			w += (unsigned char)e[0];
			break;
		default:
			w = item_at(w, op->it, d, size);
		}
	}
	return w;
}

size_t textplan_bound(const struct textplan *p, int size)
{
	return p->fixed + (size_t)p->dyn * (size > 0 ? (size_t)size : 0);
}

char *textplan_write(const struct textplan *p, const void *data, int size, char *w)
{
	const uint8_t *d = data;
	unsigned usize = size > 0 ? (unsigned)size : 0;
	int i;

	if (usize >= p->need)
		return ops_write(p, d, usize, w);
	for (i = 0; i < p->n; i++) {
		const struct item *it = &p->items[i];

		w = put_at(w, it->text, it->len, it->len + 16);
		w = item_at(w, it, d, usize);
	}
	return w;
}

int textplan_run(const struct textplan *p, const void *data, int size, struct tpbuf *b)
{
	size_t need = textplan_bound(p, size), cap;
	char *n;

	if (b->len + need > b->cap) {
		cap = b->cap ? b->cap : 256;
		while (cap < b->len + need)
			cap *= 2;
		n = realloc(b->p, cap);
		if (!n)
			return -1;
		b->p = n;
		b->cap = cap;
	}
	b->len = textplan_write(p, data, size, b->p + b->len) - b->p;
	return 0;
}
