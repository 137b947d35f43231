// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * decode - tep set-up from bytes and the per-event decode cache; see decode.h.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "decode.h"
#include "json.h"
#include "kallsyms.h"
#include "printfmt.h"
#include "util.h"

/* ---------------------------------------------------------------- the print helpers */

/* The names decode_add_format() resolves; one kernel per process, as for kallsyms. */
static struct decode_names names;
static bool names_set;

/* Which events stand in for a syscall event (decode_set_shown); NULL: none. */
static decode_shown_fn shown_fn;

void decode_set_shown(decode_shown_fn fn)
{
	shown_fn = fn;
}

void decode_set_names(const struct decode_names *n)
{
	names_set = n != NULL;
	if (n)
		names = *n;
}

/* __tpctl_kvar(N): the value of kernel variable N when the line is printed. */
static unsigned long long helper_kvar(struct trace_seq *s, unsigned long long *args)
{
	const char *name = printfmt_kvar_name(args[0]);
	unsigned long long v = 0;

	(void)s;
	if (name && names_set && names.variable &&
	    !names.variable(name, strlen(name), &v, names.ctx))
		v = 0;
	return v;
}

void decode_tep_register_helpers(struct tep_handle *tep)
{
	tep_register_print_function(tep, helper_kvar, TEP_FUNC_ARG_LONG, "__tpctl_kvar",
				    TEP_FUNC_ARG_LONG, TEP_FUNC_ARG_VOID);
	tep_register_print_function(tep, kallsyms_symoff, TEP_FUNC_ARG_VOID, "__tpctl_symoff",
				    TEP_FUNC_ARG_LONG, TEP_FUNC_ARG_VOID);
	tep_register_print_function(tep, kallsyms_sym, TEP_FUNC_ARG_VOID, "__tpctl_sym",
				    TEP_FUNC_ARG_LONG, TEP_FUNC_ARG_VOID);
	tep_register_print_function(tep, kallsyms_symoff_b, TEP_FUNC_ARG_VOID, "__tpctl_symoff_b",
				    TEP_FUNC_ARG_LONG, TEP_FUNC_ARG_VOID);
}

/* ---------------------------------------------------------------- tep set-up */

static struct tep_plugin_list *plugin_list;

struct tep_handle *decode_tep_new(bool plugins)
{
	struct tep_handle *tep = tep_alloc();
	const char *dir;

	if (!tep)
		return NULL;
	tep_set_page_size(tep, getpagesize());
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	tep_set_file_bigendian(tep, TEP_BIG_ENDIAN);
	tep_set_local_bigendian(tep, TEP_BIG_ENDIAN);
#else
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
#endif
	tep_set_long_size(tep, sizeof(long));
	decode_tep_register_helpers(tep);
	if (plugins) {
		dir = tp_plugin_dir();
		tep_add_plugin_path(tep, (char *)dir, TEP_PLUGIN_LAST);
		if (!plugin_list)
			plugin_list = tep_load_plugins(tep);
	}
	return tep;
}

int decode_header_page(struct tep_handle *tep, const char *buf, size_t len)
{
	char *copy = strndup(buf, len);
	int ret;

	if (!copy)
		return -1;
	ret = tep_parse_header_page(tep, copy, len, sizeof(long));
	free(copy);
	return ret ? -1 : 0;
}

/* Growable text for the rewritten format. */
struct sbuf {
	char *s;
	size_t len, alloc;
};

static int sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->alloc) {
		size_t na = (b->len + n + 1) * 2;
		char *ns = realloc(b->s, na);

		if (!ns)
			return -1;
		b->s = ns;
		b->alloc = na;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
	return 0;
}

static int sb_puts(struct sbuf *b, const char *s)
{
	return sb_add(b, s, strlen(s));
}

static int type_elem_size(const char *type);

/* The function tracers' records, when their fields are all there: DS_FUNC, DS_GRAPH_*. */
static void function_fields(struct dec_event *de)
{
	static const char *const func[] = { "ip", "parent_ip", NULL };
	static const char *const ent[] = { "func", "depth", NULL };
	static const char *const ret[] = { "func", "depth", "overrun", "calltime", "rettime", NULL };
	const char *const *want;
	enum dec_special sp;
	int i, k;

	if (!strcmp(de->event->name, "function"))
		want = func, sp = DS_FUNC;
	else if (!strcmp(de->event->name, "funcgraph_entry"))
		want = ent, sp = DS_GRAPH_ENT;
	else if (!strcmp(de->event->name, "funcgraph_exit"))
		want = ret, sp = DS_GRAPH_RET;
	else
		return;
	for (k = 0; want[k]; k++) {
		de->ff[k] = NULL;
		for (i = 0; i < de->nfields; i++)
			if (!strcmp(de->fields[i].name, want[k]) && de->fields[i].kind == DK_INT)
				de->ff[k] = &de->fields[i];
		if (!de->ff[k])
			return;
	}
	de->special = sp;
}

/*
 * A NUL-terminated copy of the format (it ends at an embedded NUL, which a
 * tracefs file never has) with every "sizeof(type)" replaced by its number:
 * libtraceevent 1.7.1 frees a token twice when it parses sizeof in a print
 * fmt (dma:dma_map_sg, sample-trace:foo_bar; found by tests/fuzz).  An
 * unclosed "sizeof(" becomes 0, which fails to parse harmlessly.
 */
static char *replace_sizeof(const char *buf, size_t len)
{
	struct sbuf out = { 0 };
	const char *p, *s, *close, *end;
	char type[64], num[16];
	size_t n;

	len = strnlen(buf, len);
	end = buf + len;
	sb_add(&out, "", 0);
	for (p = buf; (s = memmem(p, end - p, "sizeof", 6)); p = s) {
		sb_add(&out, p, s - p);
		s += 6;
		/* a part of a longer name, as in "my_sizeof_x" */
		if ((s - 6 > buf && (isalnum((unsigned char)s[-7]) || s[-7] == '_')) ||
		    (s < end && (isalnum((unsigned char)*s) || *s == '_'))) {
			sb_add(&out, s - 6, 6);
			continue;
		}
		while (s < end && isspace((unsigned char)*s))
			s++;
		if (s >= end || *s != '(') {
			sb_puts(&out, "sizeof ");	/* harmless without an argument */
			continue;
		}
		close = memchr(s, ')', end - s);
		if (!close) {
			sb_puts(&out, "0");
			continue;
		}
		n = close - s - 1;
		snprintf(type, sizeof(type), "%.*s", (int)(n < sizeof(type) ? n : sizeof(type) - 1),
			 s + 1);
		snprintf(num, sizeof(num), "%d", strchr(type, '*') ? (int)sizeof(long) :
			 type_elem_size(type));
		sb_puts(&out, num);
		s = close + 1;
	}
	sb_add(&out, p, end - p);
	return out.s;
}

/* buf with the first from..from+flen replaced by to (NUL-terminated); NULL on ENOMEM. */
static char *replace_at(const char *buf, size_t len, const char *from, size_t flen,
			const char *to)
{
	size_t tlen = strlen(to), head = from - buf;
	char *out = malloc(len - flen + tlen + 1);

	if (!out)
		return NULL;
	memcpy(out, buf, head);
	memcpy(out + head, to, tlen);
	memcpy(out + head + tlen, from + flen, len - head - flen);
	out[len - flen + tlen] = '\0';
	return out;
}

char *decode_probe_kernel_head(const char *buf, size_t len)
{
	static const char ret_fmt[] = "print fmt: \"(%lx <- %lx)";
	static const char ret_args[] = "REC->__probe_func, REC->__probe_ret_ip";
	static const char ent_fmt[] = "print fmt: \"(%lx)";
	char *text = strndup(buf, len), *p, *a, *out;

	if (!text)
		return NULL;
	if ((p = strstr(text, ret_fmt)) && (a = strstr(p, ret_args))) {
		/* the arguments first, as later text moves when the format grows */
		out = replace_at(text, len, a, strlen(ret_args),
				 "REC->__probe_ret_ip, REC->__probe_func");
		free(text);
		if (!out)
			return NULL;
		p = strstr(out, ret_fmt);
		text = replace_at(out, strlen(out), p, strlen(ret_fmt),
				  "print fmt: \"(0x%lx <- 0x%lx)");
		free(out);
		return text;
	}
	if ((p = strstr(text, ent_fmt)) && strstr(p, ", REC->__probe_ip")) {
		out = replace_at(text, len, p, strlen(ent_fmt), "print fmt: \"(0x%lx)");
		free(text);
		return out;
	}
	free(text);
	return NULL;
}

char *decode_format_resolve(const char *buf, size_t len, const struct decode_names *n)
{
	return printfmt_rewrite(buf, len, n, PF_ESCAPE | PF_CONSTANTS);
}

/*
 * Which conversions of a parsed print fmt print a symbol through the helpers
 * (printfmt_convert()), per event: libtraceevent gives no name of a print
 * function in its argument tree (struct tep_function_handler is private), so
 * a reader of that tree (textplan.c) learns it here.
 */
struct conv_syms {
	const struct tep_handle *tep;
	int id, n;
	unsigned char how[PRINTFMT_MAX_CONV];	/* enum dec_sym */
};
static struct conv_syms *csyms;
static size_t ncsyms, acsyms;

static void conv_syms_save(const struct tep_handle *tep, int id, const char *buf, size_t len)
{
	unsigned char how[PRINTFMT_MAX_CONV];
	struct conv_syms *c;
	int nconv;

	nconv = printfmt_convs(buf, len, how);
	if (nconv < 0)
		return;
	if (ncsyms == acsyms) {
		size_t a = acsyms ? 2 * acsyms : 64;
		struct conv_syms *v = realloc(csyms, a * sizeof(*v));

		if (!v)
			return;
		csyms = v;
		acsyms = a;
	}
	c = &csyms[ncsyms++];
	c->tep = tep;
	c->id = id;
	c->n = nconv;
	memcpy(c->how, how, nconv);
}

enum dec_sym decode_conv_sym(const struct tep_handle *tep, int id, int conv)
{
	size_t i;

	/* the newest first: an id parsed again (a probe made anew) has its last format */
	for (i = ncsyms; i-- > 0;)
		if (csyms[i].tep == tep && csyms[i].id == id)
			return conv >= 0 && conv < csyms[i].n ? (enum dec_sym)csyms[i].how[conv] :
			       DEC_SYM_NONE;
	return DEC_SYM_NONE;
}

int decode_add_format(struct tep_handle *tep, const char *sys, const char *buf, size_t len)
{
	struct tep_event *event = NULL;
	char *text = replace_sizeof(buf, len), *named, *fixed;
	unsigned flags = PF_ESCAPE | PF_OPERANDS | PF_FLAGS_ZERO;
	enum tep_errno err;
	bool helpers = false;

	if (!text)
		return -1;
	buf = text;
	len = strlen(text);
	if (names_set)
		flags |= PF_CONSTANTS | PF_VARIABLES;
	named = printfmt_rewrite(buf, len, names_set ? &names : NULL, flags);
	fixed = printfmt_convert(named ? named : buf, named ? strlen(named) : len);
	if (!fixed) {
		fixed = named;
		named = NULL;
	} else {
		helpers = true;
	}
	if (fixed) {
		err = tep_parse_format(tep, &event, fixed, strlen(fixed), sys);
		free(fixed);
		if (event && helpers)
			conv_syms_save(tep, event->id, named ? named : buf, named ? strlen(named) : len);
		/* a rewrite libtraceevent dislikes: fall back to the original text */
		if (err && !event)
			err = tep_parse_format(tep, &event, buf, len, sys);
	} else {
		err = tep_parse_format(tep, &event, buf, len, sys);
	}
	free(named);
	free(text);
	if (!event)
		return -1;
	if (err)
		tp_debug("format of '%s:%s' only partly parsed", sys, event->name);
	return 0;
}

/* ---------------------------------------------------------------- values */

void decode_lat_flags(unsigned flags, unsigned preempt, bool lazy, char out[6])
{
	/* include/linux/trace_events.h: enum trace_flag_type */
	enum {
		F_IRQS_OFF = 0x01, F_BIT1 = 0x02, F_RESCHED = 0x04, F_HARDIRQ = 0x08,
		F_SOFTIRQ = 0x10, F_PREEMPT_RESCHED = 0x20, F_NMI = 0x40, F_BH_OFF = 0x80,
	};
	bool nmi = flags & F_NMI, hard = flags & F_HARDIRQ, soft = flags & F_SOFTIRQ;
	bool bh = flags & F_BH_OFF;
	static const char resched[8] = {
		/* index: RESCHED | RESCHED_LAZY << 1 | PREEMPT_RESCHED << 2 */
		'.', 'n', 'l', 'b', 'p', 'N', 'L', 'B',
	};
	unsigned r = (flags & F_RESCHED ? 1 : 0) | (flags & F_PREEMPT_RESCHED ? 4 : 0);

	/*
	 * Bit 1 was IRQS_NOSUPPORT ('X' in the first column) until 6.13 made
	 * it NEED_RESCHED_LAZY.
	 */
	if (lazy && (flags & F_BIT1))
		r |= 2;
	out[0] = (flags & F_IRQS_OFF) ? (bh ? 'D' : 'd') : bh ? 'b' :
		 (!lazy && (flags & F_BIT1)) ? 'X' : '.';
	out[1] = resched[r];
	out[2] = nmi ? (hard ? 'Z' : 'z') : hard ? (soft ? 'H' : 'h') : soft ? 's' : '.';
	out[3] = (preempt & 0xf) ? "0123456789abcdef"[preempt & 0xf] : '.';
	out[4] = (preempt & 0xf0) ? "0123456789abcdef"[preempt >> 4] : '.';
	out[5] = '\0';
}

int decode_kernel_version(const char *release)
{
	unsigned a = 0, b = 0;

	if (!release || sscanf(release, "%u.%u", &a, &b) < 1)
		return 0;
	return a * 256 + b;
}

int decode_frames(const struct dec_event *de, const void *data, int size)
{
	const struct dec_field *f = &de->frames;
	uint64_t end = f->elem == 8 ? UINT64_MAX : (1ULL << (f->elem * 8)) - 1, v;
	int n, i;

	if (f->offset < 0 || f->elem <= 0 || size <= f->offset)
		return 0;
	n = (size - f->offset) / f->elem;
	if (de->nframes && decode_int(de->nframes, data, size, &v) && v < (uint64_t)n)
		n = v;
	for (i = 0; i < n; i++) {
		v = decode_frame(de, data, i);
		if (v == end || (!v && de->special == DS_USTACK))
			break;
	}
	return i;
}

/* ---------------------------------------------------------------- event cache */

struct decoder {
	struct decoder_head h;	/* first: decode.h's decoder_event() reads it */
	struct tep_handle *tep;
	decode_loader_fn loader;
	void *loader_ctx;
	unsigned char *tried;	/* ids the loader could not provide */
};

struct decoder *decoder_new(struct tep_handle *tep)
{
	struct decoder *d = calloc(1, sizeof(*d));

	if (d)
		d->tep = tep;
	return d;
}

struct tep_handle *decoder_tep(struct decoder *d)
{
	return d->tep;
}

void decoder_set_loader(struct decoder *d, decode_loader_fn fn, void *ctx)
{
	d->loader = fn;
	d->loader_ctx = ctx;
}

static void dec_event_free(struct dec_event *de)
{
	int i;

	if (!de)
		return;
	for (i = 0; i < de->nfields; i++) {
		free(de->fields[i].jkey);
		free(de->fields[i].jkeyc);
	}
	free(de->fields);
	free(de->sysname);
	free(de->jhead);
	free(de->tname);
	free(de);
}

void decoder_free(struct decoder *d)
{
	int i;

	if (!d)
		return;
	for (i = 0; i < d->h.nev; i++)
		dec_event_free(d->h.ev[i]);
	free(d->h.ev);
	free(d->tried);
	free(d);
}

/* Does any print argument use field as a bitmask or cpumask? */
static bool arg_is_bitmask(struct tep_print_arg *a, struct tep_format_field *f, int depth)
{
	for (; a && depth < 16; a = a->next) {
		switch (a->type) {
		case TEP_PRINT_BITMASK:
		case TEP_PRINT_CPUMASK:
			if (a->bitmask.field == f ||
			    (a->bitmask.bitmask && !strcmp(a->bitmask.bitmask, f->name)))
				return true;
			break;
		case TEP_PRINT_OP:
			if (arg_is_bitmask(a->op.left, f, depth + 1) ||
			    arg_is_bitmask(a->op.right, f, depth + 1))
				return true;
			break;
		case TEP_PRINT_TYPE:
			if (arg_is_bitmask(a->typecast.item, f, depth + 1))
				return true;
			break;
		case TEP_PRINT_FUNC:
			if (arg_is_bitmask(a->func.args, f, depth + 1))
				return true;
			break;
		default:
			break;
		}
	}
	return false;
}

/* Size of one element of an array type such as "__data_loc u32[]" or "int x[4]". */
static int type_elem_size(const char *type)
{
	static const struct { const char *name; int size; } t[] = {
		{ "long long", 8 }, { "u64", 8 }, { "s64", 8 }, { "__u64", 8 }, { "uint64_t", 8 },
		{ "long", sizeof(long) }, { "size_t", sizeof(long) }, { "*", sizeof(long) },
		{ "u32", 4 }, { "s32", 4 }, { "__u32", 4 }, { "int", 4 }, { "pid_t", 4 },
		{ "u16", 2 }, { "s16", 2 }, { "__u16", 2 }, { "short", 2 },
		{ "u8", 1 }, { "s8", 1 }, { "__u8", 1 }, { "char", 1 }, { "bool", 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strstr(type, t[i].name))
			return t[i].size;
	return 1;
}

/*
 * The size and signedness of a scalar integer type as C declares it ("int",
 * "unsigned short", "umode_t"), const and volatile aside; false for a type
 * not known here (a pointer, a struct, plain char, whose sign the kernel's
 * build chooses).  For a 64-bit kernel: a trace.dat of a 32-bit one stores
 * its longs in 4 bytes, narrower than these, and keeps its own.
 */
static bool type_int_decl(const char *type, int *size, bool *sign)
{
	static const struct { const char *name; signed char size; } t[] = {
		/* size < 0: signed */
		{ "signed char", -1 }, { "s8", -1 }, { "__s8", -1 }, { "int8_t", -1 },
		{ "unsigned char", 1 }, { "u8", 1 }, { "__u8", 1 }, { "uint8_t", 1 },
		{ "bool", 1 }, { "_Bool", 1 },
		{ "short", -2 }, { "short int", -2 }, { "signed short", -2 }, { "s16", -2 },
		{ "__s16", -2 }, { "int16_t", -2 },
		{ "unsigned short", 2 }, { "unsigned short int", 2 }, { "u16", 2 },
		{ "__u16", 2 }, { "uint16_t", 2 }, { "umode_t", 2 },
		{ "int", -4 }, { "signed int", -4 }, { "signed", -4 }, { "s32", -4 },
		{ "__s32", -4 }, { "int32_t", -4 }, { "pid_t", -4 }, { "clockid_t", -4 },
		{ "key_t", -4 }, { "mqd_t", -4 }, { "timer_t", -4 }, { "key_serial_t", -4 },
		{ "rwf_t", -4 },
		{ "unsigned int", 4 }, { "unsigned", 4 }, { "uint", 4 }, { "u32", 4 },
		{ "__u32", 4 }, { "uint32_t", 4 }, { "uid_t", 4 }, { "gid_t", 4 },
		{ "qid_t", 4 }, { "gfp_t", 4 },
		{ "long", -8 }, { "long int", -8 }, { "signed long", -8 }, { "long long", -8 },
		{ "long long int", -8 }, { "s64", -8 }, { "__s64", -8 }, { "int64_t", -8 },
		{ "loff_t", -8 }, { "off_t", -8 }, { "ssize_t", -8 }, { "time64_t", -8 },
		{ "unsigned long", 8 }, { "unsigned long long", 8 }, { "u64", 8 },
		{ "__u64", 8 }, { "uint64_t", 8 }, { "size_t", 8 },
	};
	size_t i, n;

	for (;;) {
		if (!strncmp(type, "const ", 6))
			type += 6;
		else if (!strncmp(type, "volatile ", 9))
			type += 9;
		else
			break;
	}
	n = strlen(type);
	while (n && type[n - 1] == ' ')
		n--;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (strlen(t[i].name) == n && !strncmp(type, t[i].name, n)) {
			*size = t[i].size < 0 ? -t[i].size : t[i].size;
			*sign = t[i].size < 0;
			return true;
		}
	}
	return false;
}

/*
 * An integer field whose declared type is narrower than its storage or
 * signed where the format says unsigned (a syscall's "int dfd" in 8
 * bytes, signed:0) is read as that type: the low bytes, its sign.
 */
static void field_declared(struct dec_field *df, const char *type)
{
	bool sign;
	int size;

	if (!type_int_decl(type, &size, &sign) || size > df->store ||
	    (size == df->store && sign == df->sign))
		return;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	df->offset += df->store - size;
#endif
	df->size = size;
	df->sign = sign;
}

/*
 * buf (len bytes) with zeroes after it up to a multiple of 16 past len: the
 * line writers copy the pre-built pieces (jkey, jhead, sysname, tname) 16
 * bytes at a time (output_local.h's copy16).
 */
static char *pad16(char *buf, size_t len)
{
	size_t n = (len + 16) & ~(size_t)15;
	char *p = buf ? realloc(buf, n) : NULL;

	if (!p) {
		free(buf);
		return NULL;
	}
	memset(p + len, 0, n - len);
	return p;
}

static char *json_key(const char *name)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	json_write_string(f, name, strlen(name));
	putc(':', f);
	fclose(f);
	return pad16(buf, len);
}

/*
 * Handlers from tpctl's own plugins exist to print what the kernel prints;
 * those of libtraceevent's system plugins print trace-cmd's layout.
 */
static bool handler_is_ours(void *fn)
{
	char real[PATH_MAX], *dir;
	Dl_info info;
	bool ours;

	if (!dladdr(fn, &info) || !info.dli_fname)
		return false;
	dir = realpath(tp_plugin_dir(), NULL);
	if (!dir)
		return false;
	ours = realpath(info.dli_fname, real) && !strncmp(real, dir, strlen(dir)) &&
	       real[strlen(dir)] == '/';
	free(dir);
	return ours;
}

/*
 * A stack record's "caller" array moves from fields into frames: JSON writes
 * it as "stack"/"user_stack" with every frame, and the record may be shorter
 * than the declared 8 entries.  -1 when the format is not the kernel's.
 */
static int stack_fields(struct dec_event *de)
{
	int i, c = -1;

	for (i = 0; i < de->nfields; i++) {
		if (!strcmp(de->fields[i].name, "caller"))
			c = i;
		else if (!strcmp(de->fields[i].name, "size") && de->special == DS_KSTACK)
			de->nframes = &de->fields[i];
		else if (!strcmp(de->fields[i].name, "tgid") && de->special == DS_USTACK)
			de->tgid = &de->fields[i];
	}
	if (c < 0 || de->fields[c].kind != DK_ARRAY ||
	    (de->fields[c].elem != 4 && de->fields[c].elem != 8)) {
		de->nframes = de->tgid = NULL;
		return -1;
	}
	de->frames = de->fields[c];
	de->frames.jkey = de->frames.jkeyc = NULL;
	free(de->fields[c].jkey);
	free(de->fields[c].jkeyc);
	memmove(&de->fields[c], &de->fields[c + 1], (de->nfields - c - 1) * sizeof(*de->fields));
	de->nfields--;
	if (de->nframes > &de->fields[c])
		de->nframes--;
	if (de->tgid > &de->fields[c])
		de->tgid--;
	return 0;
}

/* One field's keys, place and kind. */
static int field_build(struct dec_field *df, struct tep_format_field *f, struct tep_event *event)
{
	bool arr = f->flags & TEP_FIELD_IS_ARRAY;
	const char *t = f->type;

	df->field = f;
	df->name = f->name;
	df->jkey = json_key(f->name);
	if (!df->jkey)
		return -1;
	df->jkey_len = strlen(df->jkey);
	if (asprintf(&df->jkeyc, ",%s", df->jkey) < 0) {
		df->jkeyc = NULL;
		return -1;
	}
	df->jkeyc = pad16(df->jkeyc, df->jkey_len + 1);
	if (!df->jkeyc)
		return -1;
	df->common = !strncmp(f->name, "common_", 7);
	df->offset = f->offset;
	df->size = df->store = f->size;
	df->sign = f->flags & TEP_FIELD_IS_SIGNED;
	df->dynamic = f->flags & TEP_FIELD_IS_DYNAMIC;
	df->relative = f->flags & TEP_FIELD_IS_RELATIVE;
	if (!strncmp(t, "__data_loc ", 11) || !strncmp(t, "__rel_loc ", 10)) {
		df->dynamic = !strncmp(t, "__data_loc ", 11);
		df->relative = !df->dynamic;
		arr = true;
	}
	if (arg_is_bitmask(event->print_fmt.args, f, 0) || strstr(t, "cpumask_t")) {
		df->kind = DK_BITMASK;
		df->elem = sizeof(long);
	} else if (arr && strstr(t, "char") && !strstr(t, "unsigned char")) {
		df->kind = DK_STR;
		df->elem = 1;
	} else if (arr) {
		df->kind = DK_ARRAY;
		df->elem = f->arraylen && f->size ? (int)(f->size / f->arraylen) :
			   type_elem_size(t);
		if (df->elem != 1 && df->elem != 2 && df->elem != 4 && df->elem != 8)
			df->elem = 1;
	} else if (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) {
		df->kind = DK_INT;
		field_declared(df, t);
	} else {
		df->kind = DK_BYTES;
		df->elem = 1;
	}
	return 0;
}

/* The syscall events: "sys_x" for the text, the first argument, the return value. */
static void syscall_fields(struct dec_event *de)
{
	const char *nm = de->name;
	int i;

	if (!strncmp(nm, "sys_enter_", 10)) {
		de->special = DS_SYS_ENTER;
		if (asprintf(&de->sysname, "sys_%s", nm + 10) < 0)
			de->sysname = NULL;
	} else if (!strncmp(nm, "sys_exit_", 9)) {
		de->special = DS_SYS_EXIT;
		if (asprintf(&de->sysname, "sys_%s", nm + 9) < 0)
			de->sysname = NULL;
	}
	if (de->sysname) {
		de->sysname_len = strlen(de->sysname);
		de->sysname = pad16(de->sysname, de->sysname_len);
	}
	if (!de->sysname)
		de->special = DS_NONE;
	for (i = 0; i < de->nfields; i++) {
		if (!strcmp(de->fields[i].name, "__syscall_nr"))
			de->first_arg = i + 1;
		if (!strcmp(de->fields[i].name, "ret"))
			de->ret = &de->fields[i];
	}
	if (de->special == DS_SYS_EXIT && !de->ret)
		de->special = DS_NONE;
	if (de->ret)
		de->ret->err = de->ret->kind == DK_INT;
}

/* What the kernel prints with a function of its own: syscalls, ftrace's events, stacks. */
static void special_find(struct dec_event *de, struct tep_event *event)
{
	const char *nm;

	/* an event standing for another is shown as that one (decode_set_shown) */
	de->system = event->system;
	de->name = event->name;
	if (shown_fn && event->system && event->name &&
	    (nm = shown_fn(event->system, event->name))) {
		de->system = "syscalls";
		de->name = nm;
		de->strings = true;
	}
	if (de->system && !strcmp(de->system, "syscalls")) {
		syscall_fields(de);
	} else if (event->system && !strcmp(event->system, "ftrace")) {
		de->special = DS_FTRACE;
		if (!strcmp(event->name, "kernel_stack"))
			de->special = DS_KSTACK;
		else if (!strcmp(event->name, "user_stack"))
			de->special = DS_USTACK;
		if (de->special != DS_FTRACE && stack_fields(de) < 0)
			de->special = DS_FTRACE;
		if (de->special == DS_FTRACE)
			function_fields(de);
	}
}

/*
 * The JSON object's head (system, event, the fields' key) and whether the
 * fast writer can take a record: its bound, a key, a comma, the longest
 * number or the array and quotes.
 */
static int json_head(struct dec_event *de)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);
	int i;

	if (!mf)
		return -1;
	fputs(",\"system\":", mf);
	json_write_string(mf, de->system, strlen(de->system));
	fputs(",\"event\":", mf);
	json_write_string(mf, de->name, strlen(de->name));
	fputs(",\"fields\":{", mf);
	fclose(mf);
	de->jhead = pad16(buf, len);
	de->jhead_len = len;
	if (!de->jhead)
		return -1;
	de->jfast = !de->strings;
	de->jmax = 3;
	if (de->ret && de->ret->err) {
		de->jerr = de->ret;
		de->jmax += DEC_JERR_MAX;
	}
	for (i = 0; i < de->nfields; i++) {
		const struct dec_field *df = &de->fields[i];

		if (df->common || df->offset < 0)
			de->jfast = false;
		else if (df->kind == DK_INT && (df->size == 1 || df->size == 2 || df->size == 4 ||
						df->size == 8))
			de->jmax += df->jkey_len + 1 + 21;
		else if (df->kind == DK_STR && !df->dynamic && !df->relative && df->size > 0 &&
			 df->size <= 4096)
			de->jmax += df->jkey_len + 1 + df->size + 2;
		else
			de->jfast = false;
	}
	if (de->jhead_len + de->jmax > DEC_JFAST_MAX)
		de->jfast = false;
	return 0;
}

static struct dec_event *dec_event_build(struct tep_event *event)
{
	struct dec_event *de = calloc(1, sizeof(*de));
	struct tep_format_field *f;
	int n = 0, i;

	if (!de)
		return NULL;
	de->event = event;
	de->id = event->id;
	for (f = event->format.fields; f; f = f->next)
		n++;
	de->fields = calloc(n ? n : 1, sizeof(*de->fields));
	if (!de->fields)
		goto fail;
	/* (first: a failure part way frees the keys made so far) */
	de->nfields = n;
	for (f = event->format.fields, i = 0; f; f = f->next, i++)
		if (field_build(&de->fields[i], f, event) < 0)
			goto fail;
	special_find(de, event);

	/* (after stack_fields(), which takes the frames out of fields) */
	for (i = 0; i < de->nfields; i++) {
		const struct dec_field *df = &de->fields[i];

		/* (a damaged format's negative offset or size: every record is checked) */
		if (df->offset < 0 || df->size < 0)
			de->fields_end = INT_MAX;
		else if (df->offset + df->size > de->fields_end)
			de->fields_end = df->offset + df->size;
		if (df->dynamic || df->relative)
			de->dynamic = true;
	}
	if (json_head(de) < 0)
		goto fail;
	/* the text's "name: " before the print fmt's text; ftrace's events have none */
	if (asprintf(&de->tname, "%s: ", event->name) < 0) {
		de->tname = NULL;
		goto fail;
	}
	de->tname_len = de->special == DS_FTRACE ? 0 : strlen(de->tname);
	de->tname = pad16(de->tname, strlen(de->tname));
	if (!de->tname)
		goto fail;

	/*
	 * A plugin's handler prints trace-cmd's own layout; the kernel prints the
	 * format's print fmt.  Keep a handler only where libtraceevent could not
	 * parse the print fmt: there it is the only text we can have.
	 */
	if (event->handler && !(event->flags & TEP_EVENT_FL_FAILED) &&
	    !handler_is_ours((void *)event->handler))
		event->handler = NULL;
	return de;
fail:
	dec_event_free(de);
	return NULL;
}

struct dec_event *decoder_event_load(struct decoder *d, int id)
{
	struct tep_event *event;

	if (id < 0)
		return NULL;
	if (id < d->h.nev && d->h.ev[id])
		return d->h.ev[id];
	if (id >= d->h.nev) {
		int nn = id + 256;
		struct dec_event **nv = realloc(d->h.ev, nn * sizeof(*nv));
		unsigned char *nt;

		if (!nv)
			return NULL;
		memset(nv + d->h.nev, 0, (nn - d->h.nev) * sizeof(*nv));
		d->h.ev = nv;
		nt = realloc(d->tried, nn);
		if (!nt)
			return NULL;
		memset(nt + d->h.nev, 0, nn - d->h.nev);
		d->tried = nt;
		d->h.nev = nn;
	}
	decode_lock();
	event = tep_find_event(d->tep, id);
	if (!event && d->loader && !d->tried[id]) {
		d->tried[id] = 1;
		if (d->loader(d->tep, id, d->loader_ctx) == 0)
			event = tep_find_event(d->tep, id);
	}
	if (event)
		d->h.ev[id] = dec_event_build(event);
	decode_unlock();
	return event ? d->h.ev[id] : NULL;
}

bool decode_str_fault(const struct dec_field *f, const void *data, int size)
{
	uint32_t loc;

	if (f->kind != DK_STR || (!f->dynamic && !f->relative) || f->offset + 4 > size)
		return false;
	memcpy(&loc, (const char *)data + f->offset, sizeof(loc));
	return !(loc >> 16);
}
