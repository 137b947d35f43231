/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * decode - libtraceevent set-up and record -> typed values, without touching
 * tracefs: everything comes in as bytes (header_page, format files,
 * saved_cmdlines, kallsyms text), so the same code runs on a live stream, on
 * a trace.dat file and on saved fixtures in the unit tests.
 *
 * Two halves:
 *  - tep set-up helpers: decode_tep_new(), decode_header_page(),
 *    decode_add_format() (which adapts the print fmt so that libtraceevent
 *    prints pointers and symbols the way the kernel's `trace` file does),
 *    decode_kallsyms_*().
 *  - struct decoder: a per-tep cache of what each event id needs to be
 *    written quickly (field kinds for JSON, syscall special forms), built
 *    once per event id, never per record.  A loader hook parses a format the
 *    first time its id shows up (lazy loading).
 */
#ifndef TPCTL_DECODE_H
#define TPCTL_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct tep_handle;
struct tep_event;
struct tep_format_field;
struct tep_record;

/* A tep_handle for this host: page size, endianness, tpctl's print helpers, plugins. */
struct tep_handle *decode_tep_new(bool plugins);
/* Register the symbol print helpers used by rewritten formats (decode_tep_new does it). */
void decode_tep_register_helpers(struct tep_handle *tep);
/* events/header_page text; sets the long size (8 on 64-bit kernels). */
int decode_header_page(struct tep_handle *tep, const char *buf, size_t len);
/*
 * What a print fmt names that neither its format nor the record holds: enum
 * constants the kernel left unresolved (HRTIMER_MODE_ABS, I_DIRTY_SYNC; their
 * values are in the kernel's BTF) and kernel variables read when the text is
 * printed (jiffies).  The caller knows the kernel; the decode layer asks.
 */
struct decode_names {
	/* The value of the enum constant name[0..len); false when unknown. */
	bool (*constant)(const char *name, size_t len, unsigned long long *value, void *ctx);
	/* The current value of the kernel variable name[0..len); false when unknown. */
	bool (*variable)(const char *name, size_t len, unsigned long long *value, void *ctx);
	void *ctx;
};
/*
 * The names decode_add_format() resolves from now on (copied); NULL for none,
 * as for a trace.dat, whose kernel may not be the running one.
 */
void decode_set_names(const struct decode_names *names);
/*
 * Stand-ins: events a feature makes to be traced in place of a syscall event,
 * with its layout but strings the kernel fetched where it has pointers
 * (--strings' probes, strargs.h).  The hook gives the name of the syscalls
 * event that system:name stands for, or NULL; a decoder then shows the event
 * as that one and marks it (dec_event.strings).  One hook per process, set
 * before the first decoder_event(); NULL for none.
 */
typedef const char *(*decode_shown_fn)(const char *system, const char *name);
void decode_set_shown(decode_shown_fn fn);
/*
 * A format made readable for any libtraceevent user, as tpctl record writes
 * it into a trace.dat: enum constants replaced by their values, raw tabs in
 * string literals escaped.  NULL when nothing changes.  Caller frees.
 */
char *decode_format_resolve(const char *buf, size_t len, const struct decode_names *names);
/*
 * Parse one format file (events/<sys>/<event>/format).  Before libtraceevent
 * sees it, the print fmt is adapted to the kernel's own printing: "%pS"/"%pB"
 * become sym+0xoff/0xsize, "%ps" the bare symbol (kallsyms), and a plain "%p"
 * the 16 zero-padded hex digits the kernel prints when options/hash-ptr is 0
 * (with hash-ptr 1, the kernel's default, it prints a keyed hash that no
 * reader can reproduce; we print the real address), "%#x" prints "0x0" for 0
 * as the kernel does, enum constants and kernel variables are resolved
 * (decode_set_names), and expressions libtraceevent would misread are
 * rewritten (printfmt.c).  Returns 0 when the
 * event is in tep afterwards (even when its print fmt failed to parse: its
 * fields still decode), -1 otherwise.
 */
int decode_add_format(struct tep_handle *tep, const char *sys, const char *buf, size_t len);
/*
 * A uprobe's format with its head as the kernel's trace file prints it:
 * "(0x<ip>)" for an entry, "(0x<ret_ip> <- 0x<func>)" for a return, where
 * the format's print fmt (and trace-cmd report) says "(<ip>)" and
 * "(<func> <- <ret_ip>)".  For live text, which is the kernel's; a
 * trace.dat keeps trace-cmd's.  NULL when it is no such format.
 */
char *decode_probe_kernel_head(const char *buf, size_t len);
/*
 * Symbols for %pS/%ps.  Loaded on first use from decode_kallsyms_path
 * ("/proc/kallsyms" by default) unless decode_kallsyms_parse() was called.
 */
void decode_kallsyms_set_path(const char *path);
int decode_kallsyms_parse(const char *buf, size_t len);
/*
 * Stack frames (decode_ksym) from the functions registered in tep instead
 * (a tep that libtracecmd set up from a file's own kallsyms); NULL: the table.
 */
void decode_kallsyms_use_tep(struct tep_handle *tep);

/*
 * Kernel symbols in print fmts: which conversion (%ps, %pS, %pB) a format's
 * print fmt uses for the bare field (REC->field, maybe cast), from the format
 * text as tracefs has it; and an address printed that way, as the kernel does.
 */
enum dec_sym {
	DEC_SYM_NONE,
	DEC_SYM,	/* %ps: "sym" */
	DEC_SYM_OFF,	/* %pS: "sym+0xoff/0xsize" */
	DEC_SYM_OFF_B,	/* %pB: the same for the call before a return address */
};
struct trace_seq;
enum dec_sym decode_format_field_sym(const char *buf, size_t len, const char *field);
void decode_sym_print(struct trace_seq *s, unsigned long long addr, enum dec_sym how);
/*
 * How conversion conv (0 for the first) of event id's parsed print fmt prints
 * its symbol (the helper decode_add_format put there), DEC_SYM_NONE if not.
 */
enum dec_sym decode_conv_sym(const struct tep_handle *tep, int id, int conv);

enum dec_kind {
	DK_INT,		/* scalar integer of 1, 2, 4 or 8 bytes */
	DK_STR,		/* char[N], __data_loc char[], __rel_loc char[] */
	DK_ARRAY,	/* other fixed or dynamic arrays: integers */
	DK_BITMASK,	/* bitmask / cpumask: the numbers of the set bits */
	DK_BYTES,	/* anything else: an array of byte values */
};

struct dec_field {
	struct tep_format_field *field;
	const char *name;
	char *jkey;		/* "\"name\":" pre-quoted for the JSON writer */
	char *jkeyc;		/* ",\"name\":": the key after another (jkey_len + 1 bytes) */
	unsigned jkey_len;
	bool common;		/* common_*: in the record's header, not in "fields" */
	enum dec_kind kind;
	/*
	 * DK_INT: the value as the field's declared type has it: an "int dfd"
	 * the kernel stores in 8 bytes is read as the 4 signed bytes of an int
	 * (size and sign), where store is the 8 the kernel prints in its text
	 */
	int offset, size;
	int store;		/* the bytes the format says the field takes */
	int elem;		/* element size for arrays */
	bool sign;
	bool err;		/* a syscall's return value ("ret"): errno names (errname.h) */
	bool dynamic;		/* __data_loc */
	bool relative;		/* __rel_loc */
};

enum dec_special {
	DS_NONE,
	DS_SYS_ENTER,		/* kernel prints "sys_name(arg: 0x..., ...)" */
	DS_SYS_EXIT,		/* kernel prints "sys_name -> 0x..." */
	DS_FTRACE,		/* ftrace's own events: no "name: " prefix */
	DS_FUNC,		/* ftrace:function: "func <-parent" */
	DS_GRAPH_ENT,		/* ftrace:funcgraph_entry: the function_graph layout */
	DS_GRAPH_RET,		/* ftrace:funcgraph_exit */
	DS_KSTACK,		/* ftrace:kernel_stack: "<stack trace>" and one line per frame */
	DS_USTACK,		/* ftrace:user_stack: "<user stack trace>" and its frames */
};

#define DEC_JFAST_MAX 4096
/* ,"errno":"NAME" or ,"errno":null (a name of ERRNAME_LEN_MAX bytes at most) */
#define DEC_JERR_MAX 36

struct dec_event {
	struct tep_event *event;
	int id;
	enum dec_special special;
	char *sysname;		/* "sys_openat" for the syscall forms */
	size_t sysname_len;
	char *tname;		/* "name: ", the text's lead-in to the print fmt's text */
	size_t tname_len;	/* 0 for ftrace's events, which have none */
	char *jhead;		/* ,"system":"..","event":"..","fields":{ */
	size_t jhead_len;
	/* sysname, tname, jhead and the fields' jkey and jkeyc are padded for reads 16 bytes at a time */
	/*
	 * A record at least this long holds every field (a string or array
	 * of dynamic length: its place); else each is checked.  dynamic: it
	 * has fields of dynamic length.
	 */
	int fields_end;
	bool dynamic;
	/*
	 * JSON: every field a number (of 1, 2, 4 or 8 bytes) or a char array
	 * of fixed size, not a --strings stand-in: a record that holds them
	 * all takes at most jmax bytes after jhead ("}}\n" included), and
	 * the two at most DEC_JFAST_MAX
	 */
	bool jfast;
	size_t jmax;
	/* the syscall's return value, whose errno name JSON adds after the fields (or NULL) */
	const struct dec_field *jerr;
	/*
	 * The event's names as shown: its own, or for a stand-in
	 * (decode_set_shown(): a --strings probe) the syscall event it stands
	 * for, whose layout it has with a string for each string argument and
	 * "ret" last; strings is then true.
	 */
	const char *system, *name;
	bool strings;
	int nfields;
	struct dec_field *fields;	/* the event's own fields (common_* left out) */
	struct dec_field *ret;		/* sys_exit_*: the "ret" field (its err is true) */
	int first_arg;			/* sys_enter_*: index of the first argument */
	/*
	 * DS_KSTACK/DS_USTACK: the "caller" array, taken out of fields (its
	 * declared 8 entries are only a minimum: a kernel stack record holds
	 * as many frames as its "size" field says and its length allows).
	 */
	struct dec_field frames;
	struct dec_field *nframes;	/* DS_KSTACK: the "size" field */
	struct dec_field *tgid;		/* DS_USTACK: the process the frames are in */
	/*
	 * DS_FUNC: ip, parent_ip; DS_GRAPH_ENT: func, depth; DS_GRAPH_RET:
	 * func, depth, overrun, calltime, rettime
	 */
	struct dec_field *ff[5];
};

typedef int (*decode_loader_fn)(struct tep_handle *tep, int id, void *ctx);

struct decoder;
struct decoder *decoder_new(struct tep_handle *tep);
void decoder_free(struct decoder *d);
/* Called with an id tep does not know yet; it should decode_add_format() it. */
void decoder_set_loader(struct decoder *d, decode_loader_fn fn, void *ctx);
/* The cached description of event id, or NULL when it cannot be had. */
struct dec_event *decoder_event_load(struct decoder *d, int id);
/* struct decoder's first member: the events described so far, by id */
struct decoder_head {
	struct dec_event **ev;
	int nev;
};
static inline struct dec_event *decoder_event(struct decoder *d, int id)
{
	const struct decoder_head *h = (const struct decoder_head *)d;

	if ((unsigned)id < (unsigned)h->nev && h->ev[id])
		return h->ev[id];
	return decoder_event_load(d, id);
}
struct tep_handle *decoder_tep(struct decoder *d);

/*
 * The common_* header of a record (offsets fixed by the kernel ABI).  Read
 * with memcpy: a damaged page can hand out a record at an odd address.
 */
static inline int decode_type(const void *data)
{
	uint16_t v;

	memcpy(&v, data, sizeof(v));
	return v;
}
static inline unsigned decode_flags(const void *data)
{
	return ((const uint8_t *)data)[2];
}
static inline unsigned decode_preempt(const void *data)
{
	return ((const uint8_t *)data)[3];
}
static inline int decode_pid(const void *data)
{
	int32_t v;

	memcpy(&v, (const char *)data + 4, sizeof(v));
	return v;
}

/*
 * The kernel's 5-char irqs-off/need-resched/hardirq/preempt/migrate column;
 * lazy: the kernel is 6.13 or later (bit 1 means NEED_RESCHED_LAZY).
 */
void decode_lat_flags(unsigned flags, unsigned preempt, bool lazy, char out[6]);
/* "6.18.4-foo" -> 6 * 256 + 18; 0 when unknown. */
int decode_kernel_version(const char *release);
#define KVER(a, b) ((a) * 256 + (b))

/* Value access; false when the field lies outside the record. */
static inline uint64_t decode_elem(const void *p, int elem, bool sign)
{
	switch (elem) {
	case 1: {
		uint8_t v = *(const uint8_t *)p;

		return sign ? (uint64_t)(int64_t)(int8_t)v : v;
	}
	case 2: {
		uint16_t v;

		memcpy(&v, p, 2);
		return sign ? (uint64_t)(int64_t)(int16_t)v : v;
	}
	case 4: {
		uint32_t v;

		memcpy(&v, p, 4);
		return sign ? (uint64_t)(int64_t)(int32_t)v : v;
	}
	default: {
		uint64_t v;

		memcpy(&v, p, 8);
		return v;
	}
	}
}

static inline bool decode_int(const struct dec_field *f, const void *data, int size,
			      uint64_t *v)
{
	/* offsets come from a format file, which may be damaged too */
	if (f->offset < 0 || f->size <= 0 || f->offset > size - f->size)
		return false;
	*v = decode_elem((const char *)data + f->offset, f->size, f->sign);
	return true;
}

/*
 * An integer field's bytes as stored, all store of them unsigned (the
 * kernel's text of a syscall's arguments), where decode_int reads the
 * declared type's.
 */
static inline bool decode_stored(const struct dec_field *f, const void *data, int size,
				 uint64_t *v)
{
	int off = f->offset;

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	off -= f->store - f->size;
#endif
	if (off < 0 || f->store <= 0 || off > size - f->store)
		return false;
	*v = decode_elem((const char *)data + off, f->store, false);
	return true;
}

/*
 * Where a string/array/bitmask lives in the record, all of its bytes (a
 * string's NUL and what follows it too); false when it lies outside.
 */
static inline bool decode_area(const struct dec_field *f, const void *data, int size,
			       const char **p, size_t *len)
{
	const char *d = data;
	size_t off, n;

	if (f->offset < 0 || f->size < 0 || f->offset > size)
		return false;
	if (f->dynamic || f->relative) {
		uint32_t loc;

		if (f->offset > size - 4)
			return false;
		memcpy(&loc, d + f->offset, 4);
		off = loc & 0xffff;
		n = loc >> 16;
		if (f->relative)
			off += f->offset + f->size;
	} else {
		off = f->offset;
		n = f->size ? (size_t)f->size : (size > f->offset ? (size_t)(size - f->offset) : 0);
	}
	if (off > (size_t)size)
		return false;
	if (off + n > (size_t)size)
		n = size - off;
	*p = d + off;
	*len = n;
	return true;
}

/*
 * The length of the string at p, at most n: up to its first NUL.  Eight
 * bytes a step (the lowest zero byte the mask flags is exact).
 */
static inline size_t decode_strnlen(const char *p, size_t n)
{
	size_t i = 0;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; i + 8 <= n; i += 8) {
		uint64_t x, z;

		memcpy(&x, p + i, 8);
		z = (x - 0x0101010101010101ULL) & ~x & 0x8080808080808080ULL;
		if (z)
			return i + __builtin_ctzll(z) / 8;
	}
#endif
	while (i < n && p[i])
		i++;
	return i;
}

/* Where a string/array/bitmask lives in the record; for strings, len stops at NUL. */
static inline bool decode_span(const struct dec_field *f, const void *data, int size,
			       const char **p, size_t *len)
{
	if (!decode_area(f, data, size, p, len))
		return false;
	if (f->kind == DK_STR)
		*len = decode_strnlen(*p, *len);
	return true;
}

/*
 * A string a probe could not fetch (the kernel's "(fault)"): its __data_loc
 * says length 0, where a fetched string, even "", counts its NUL.
 */
bool decode_str_fault(const struct dec_field *f, const void *data, int size);

/*
 * A kernel stack frame as the kernel's `trace` prints it (default options,
 * no sym-offset): the name of the symbol holding addr, module symbols by
 * their bare name, and *off its distance from the symbol's start; NULL when
 * no symbol holds addr (the kernel prints "0x%08lx" then).
 */
const char *decode_ksym(unsigned long long addr, unsigned long long *off);
/* The module addr's symbol is in; NULL: the kernel's own, or not known. */
const char *decode_ksym_module(unsigned long long addr);
/*
 * The frames of a DS_KSTACK/DS_USTACK record, as the kernel's printer walks
 * them: at most the "size" field's count (kernel stacks) and what the record
 * holds, ending at the first ULONG_MAX (and, in user stacks, at the first 0).
 * Returns the number of frames; frame i is decode_frame(de, data, i).
 */
int decode_frames(const struct dec_event *de, const void *data, int size);
static inline uint64_t decode_frame(const struct dec_event *de, const void *data, int i)
{
	return decode_elem((const char *)data + de->frames.offset + i * de->frames.elem,
			   de->frames.elem, false);
}
/* The kernel's marker frame for an ftrace trampoline (FTRACE_TRAMPOLINE_MARKER). */
#define DECODE_FRAME_TRAMPOLINE 0x7fffffffULL

/*
 * libtraceevent's handle is not thread-safe (tep_find_event keeps the last
 * event found; formats, comms and the kallsyms map are added to lazily):
 * where other threads format records on the same tep (output_pool.h), every
 * use of it that is not a plain read of a loaded format takes this lock:
 * the loading of a new event, libtraceevent's printing, comm and symbol
 * lookups.  Recursive: a print handler may look up a symbol.
 */
void decode_lock(void);
void decode_unlock(void);

#endif
