/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output_local - what the files of the output layer share and nothing else
 * sees: struct output and the structures it holds, the small writers every
 * printer uses per field (static inline, so the per-record path stays
 * within one file's calls), and the functions one file gives those above it.
 * From the bottom: output.c (one record as a text line or a JSON object),
 * output_ftrace.c (the function tracers' layout), output_stack.c (JSON
 * events waiting for their stacks), output_record.c (output_record() and
 * the order records go out in).  output_table.c writes the tables apart.
 * output.h is the interface.
 */
#ifndef TPCTL_OUTPUT_LOCAL_H
#define TPCTL_OUTPUT_LOCAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <time.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "comm.h"
#include "digits.h"
#include "decode.h"
#include "output.h"
#include "textplan.h"

/*
 * What a record header needs of its task, formatted once per pid: the text
 * prefix "%16s-%-7d " and the JSON ,"pid":N,"comm":"..." members.  Direct
 * mapped by pid; rebuilt when saved_cmdlines is read again.
 */
#define PIDCACHE 256
#define FLAGTXT 64		/* a power of two */
struct pidinfo {
	int pid;
	unsigned gen;
	bool unknown;		/* "<...>": look again (rate limited) */
	/*
	 * made, known, and nothing changed since: out_pid_info() takes it as
	 * it is (cleared where a name changes: forget(), a new saved_cmdlines)
	 */
	bool ready;
	unsigned short tlen, jlen;
	char text[48];
	char json[112];
};

/*
 * A kernel frame as it is written, " => name\n" or {"addr":..,"sym":..,"off":..}
 * (see json_frames), rendered once per address: stacks repeat the same
 * return addresses over and over, and the symbol search is the dearest part.
 */
struct kframe {
	uint64_t addr;
	char *s;
	size_t len;
};

struct output {
	struct tep_handle *tep;
	struct decoder *dec;
	FILE *f;
	enum output_mode mode;
	bool ns_clock;
	bool lazy_flags;	/* 6.13+: flag bit 1 is NEED_RESCHED_LAZY */
	bool sys_decimal;	/* 6.18+: syscall arguments below 10 in decimal */
	struct trace_seq seq;
	comm_load_fn comm_fn;
	void *comm_ctx;
	struct timespec comm_last;
	unsigned comm_gen;	/* bumped when saved_cmdlines was read again */
	struct comm_saved names;	/* saved_cmdlines as read again (comm.h) */
	struct pidinfo pids[PIDCACHE];
	/* task names the records taught (JSON); its gen: output_prepare()'s cache */
	struct comm_learn learn;
	/* text: each event's print fmt as a plan (textplan.h), by event id */
	/* (fixed, dyn: its textplan_bound(), as fixed + dyn * a record's size) */
	struct tplan_slot {
		struct textplan *plan;
		bool tried;
		unsigned dyn;
		size_t fixed;
	} *tplans;
	int ntplans;
	int tplan_mode;		/* TPCTL_TEXTPLAN: 0 off, 1 on, 2 check against libtraceevent */
	struct tpbuf tbuf;
	struct pendq *pq;	/* JSON with stacks (output_set_stacks), else NULL */
	struct kframe *kframes;	/* KFRAMES kernel frames as written, on first use */
	output_usym_fn usym_fn;
	void *usym_ctx;
	unsigned long long faults;	/* strings the kernel could not fetch (--strings) */
	struct graph *graph;	/* function_graph records seen: their state, else NULL */
	bool straight;		/* no graph, no JSON stacks (pq): an event goes straight to its printer */
	/*
	 * the flags column of the records, by their flags and preempt bytes:
	 * direct mapped (a run of records has a few), key 1 more (0: none)
	 */
	struct flagtxt {
		unsigned key;
		char txt[8];	/* 5 and a NUL, read 8 at a time */
	} flagtxt[FLAGTXT], *flast;	/* flast: the last record's */
	unsigned retry_tick;	/* pid_info: the clock is looked at every RETRY_EVERY uses */
	/* a stamp's digits above the last eight, as last written: they seldom change */
	uint64_t ts_hi;		/* the stamp less its last eight digits, as a number of ns */
	char ts_hi_txt[24];
	unsigned ts_hi_len;
	/*
	 * output_prepare(): the last record's event and task, when nothing of
	 * them can have changed by the next record of the same two (its event
	 * teaches no names; its task's name is known; no name was learned and
	 * saved_cmdlines was not read again since)
	 */
	struct dec_event *prep_de;	/* NULL: nothing to reuse */
	const struct pidinfo *prep_pi;
	int prep_id, prep_pid;
	unsigned prep_gen, prep_lgen;
	/* output_record_cols(): the task's columns as the writer's thread made them */
	const char *cols;
	unsigned cols_len;
	unsigned hole;		/* where the given columns went: bytes from the record's start */
	/* text: the last record's CPU (-1: none yet) and its "[%03d] " */
	int tcpu;
	char tcpu_txt[8];
	/* text: the seconds of the last stamp, as written ("%5llu.") */
	unsigned long long sec;
	char sec_txt[32];
	unsigned sec_len;
	/* line_begin(): where the line being built starts, how far it may go */
	char *lstart, *lend;	/* lstart not lbuf: the line is in the FILE's own buffer */
	char *lbuf;		/* LINE_ROOM bytes: the room when the FILE's buffer has none */
};

#define RETRY_EVERY 256

#define KFRAMES 4096		/* a power of two */

#define GRAPH_DEPTH 50		/* the kernel's FTRACE_RETFUNC_DEPTH */
#define GRAPH_HOLD_NS 100000000ULL

struct gcpu {
	int last_pid;		/* -1: nothing printed yet on this CPU */
	unsigned long long enter[GRAPH_DEPTH];	/* the function entered at each depth */
};

struct grec {
	struct dec_event *de;
	int cpu, size;
	unsigned long long ts;
	unsigned char *data;
	size_t alloc;
};

struct graph {
	struct gcpu *cpu;
	int ncpu;
	int width;		/* digits of the highest CPU number */
	struct grec *q;		/* records waiting behind an entry, in order */
	size_t n, cap;
	unsigned long long idle;	/* CLOCK_MONOTONIC ns of the first idle point waited through */
};

/*
 * JSON with stacks.  The kernel writes a stack as records of their own, on
 * the same CPU right after the event (ftrace:kernel_stack for
 * options/stacktrace and the stacktrace trigger, ftrace:user_stack for
 * options/userstacktrace, in either order), and they go into the event's
 * object.  So every record waits in a queue, in the order it came (the
 * merged timestamp order), and the queue is written from its head.  An
 * event stays open for stacks until the next record of its CPU arrives
 * (nothing more can follow it then), or a record stamped HOLD_NS after it
 * arrives on any CPU (the reader hands records out in timestamp order, so a
 * stack already committed would have come first), or, when nothing is ready,
 * at an idle point IDLE_HOLD_NS after the first idle point it waited through, or
 * at output_flush().  A stack that finds no open event of its task on its
 * CPU is written as the ftrace event it is, with its frames.
 */
#define HOLD_NS 10000000ULL
/*
 * The idle points' wait is longer: after the event was read, its stacks may
 * sit in a partly filled sub-buffer that the reader takes only when it has
 * waited 10 ms (reader.c's HOLD_MS) or at a 50 ms poll timeout; with the
 * same 10 ms here the two clocks raced, and an event went out a few
 * microseconds of work before its stacks were read (seen with the machine
 * busy compiling).
 */
#define IDLE_HOLD_NS 100000000ULL
#define PEND_MAX 65536		/* longest queue: the head is written when it is reached */

struct pend {
	bool lost;		/* a lost-events marker, not a record */
	long long count;	/* lost: how many (-1 unknown) */
	bool open;		/* the event may still get stacks */
	int cpu, size;		/* buf: the record, then its stack records as they came */
	int koff, klen, uoff, ulen;	/* where its kernel and user stack records are in buf */
	unsigned long long ts;
	unsigned long long idle;	/* CLOCK_MONOTONIC ns of the first idle point, or 0 */
	struct dec_event *de, *kde, *ude;
	unsigned char *buf;
	size_t alloc;
};

struct pendq {
	struct pend *v;
	size_t cap;		/* a power of two */
	size_t head, tail;	/* absolute indices: slot i & (cap - 1) */
	long long *open;	/* per CPU: index of its open event, -1 none */
	int ncpu;
};

/*
 * A record is written as a dozen short pieces, and fwrite_unlocked() costs
 * about 100 instructions a call before it copies a byte: more than the
 * pieces themselves, and the larger part of a JSON line's cost.  glibc's
 * FILE has public write pointers (its putc_unlocked() macro works on them),
 * so a piece that fits into the buffer is copied there directly; anything
 * else (no room, line-buffered or unbuffered stdout, another libc) goes
 * through fwrite_unlocked().
 */
static inline void put_mem(FILE *f, const void *s, size_t n)
{
#ifdef __GLIBC__
	if ((size_t)(f->_IO_write_end - f->_IO_write_ptr) >= n) {
		memcpy(f->_IO_write_ptr, s, n);
		f->_IO_write_ptr += n;
		return;
	}
#endif
	fwrite_unlocked(s, 1, n, f);
}

static inline void put_str(FILE *f, const char *s)
{
	put_mem(f, s, strlen(s));
}

/* A string literal, its length known at compile time. */
#define put_lit(f, lit) put_mem(f, lit, sizeof(lit) - 1)

/* Eight digits of v (below 10^8), zero-padded, at w. */
static inline void fmt_8(char *w, uint32_t v)
{
	memcpy(w + 6, digit_pairs + 2 * (v % 100), 2);
	v /= 100;
	memcpy(w + 4, digit_pairs + 2 * (v % 100), 2);
	v /= 100;
	memcpy(w + 2, digit_pairs + 2 * (v % 100), 2);
	v /= 100;
	memcpy(w, digit_pairs + 2 * v, 2);
}

static inline void put_u64(FILE *f, uint64_t v)
{
	/* small numbers (pids, priorities, flags) are the common case */
	if (v < 100) {
		char two[2];

		if (v < 10) {
			putc_unlocked('0' + v, f);
			return;
		}
		memcpy(two, digit_pairs + 2 * v, 2);
		put_mem(f, two, 2);
		return;
	}
	char buf[24], *p = fmt_u64(buf + sizeof(buf), v);

	put_mem(f, p, buf + sizeof(buf) - 1 - p);
}

static inline void put_i64(FILE *f, int64_t v)
{
	if (v < 0) {
		putc_unlocked('-', f);
		put_u64(f, -(uint64_t)v);
	} else {
		put_u64(f, v);
	}
}

/*
 * A line built in place.  The per-record writers know an upper bound of
 * each piece they are about to write (the head, a field's key and value):
 * line_begin() hands out room for at least n bytes, in the FILE's buffer
 * when it has them (glibc), else in o->lbuf, and line_need() makes sure n
 * more fit before a piece, taking what was written and starting again when
 * they do not; line_end() takes the line: it moves the FILE's write
 * pointer, or writes o->lbuf out.  In between, the pieces are written with
 * plain stores and fixed-size copies, none of them a call.  LINE_SLACK is
 * room past the limit for those copies, which may write up to 15 bytes
 * more than they keep.  A piece larger than LINE_ROOM, or one the writer
 * cannot bound (an escaped string, an array), goes through stdio between a
 * line_end() and a new line_begin().
 */
#define LINE_SLACK 64
#define LINE_ROOM 8192		/* o->lbuf's size: n is at most LINE_ROOM - LINE_SLACK */

static inline char *line_begin(struct output *o, size_t n)
{
#ifdef __GLIBC__
	FILE *f = o->f;

	if ((size_t)(f->_IO_write_end - f->_IO_write_ptr) >= n + LINE_SLACK) {
		o->lend = f->_IO_write_end - LINE_SLACK;
		return o->lstart = f->_IO_write_ptr;
	}
#endif
	(void)n;
	o->lend = o->lbuf + LINE_ROOM - LINE_SLACK;
	return o->lstart = o->lbuf;
}

static inline void line_end(struct output *o, char *w)
{
#ifdef __GLIBC__
	if (o->lstart != o->lbuf) {
		o->f->_IO_write_ptr = w;
		return;
	}
#endif
	fwrite_unlocked(o->lstart, 1, w - o->lstart, o->f);
}

static inline char *line_need(struct output *o, char *w, size_t n)
{
	if ((size_t)(o->lend - w) >= n)
		return w;
	line_end(o, w);
	return line_begin(o, n);
}

/*
 * n bytes of s at w, copied 16 at a time: reads and writes up to 15 bytes
 * past n (s must have them: the pre-built pieces are padded to 16, see
 * decode.c's pad16; w has LINE_SLACK).  Returns the end of the n bytes.
 */
static inline char *copy16(char *w, const char *s, size_t n)
{
	size_t i = 0;

	do {
		memcpy(w + i, s + i, 16);
		i += 16;
	} while (i < n);
	return w + n;
}

/* A string literal at w; returns its end. */
#define lit_at(w, lit) (memcpy(w, lit, sizeof(lit) - 1), (w) + sizeof(lit) - 1)

/*
 * A char array's string at w as a JSON string, up to its NUL or its n
 * bytes, when it is plain printable ASCII (task names, most strings of
 * events); NULL when something must be escaped: json_write_string() then.
 * Eight bytes a step: the lowest byte flagged by the masks below is exact
 * (a borrow or carry only runs up from a flagged byte), so the string ends
 * there if it is a NUL, and needs escaping if it is not.
 */
static inline char *json_plain_at(char *w, const char *p, size_t n)
{
	size_t i = 0;

	*w++ = '"';
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;

	for (; i + 8 <= n; i += 8) {
		uint64_t x, bad;

		memcpy(&x, p + i, 8);
		memcpy(w + i, &x, 8);
		bad = ((x - ones * 0x20) & ~x) |		/* below 0x20, NUL too */
		      ((x + ones) | x) |			/* 0x7f and above */
		      (((x ^ (ones * '"')) - ones) & ~(x ^ (ones * '"'))) |
		      (((x ^ (ones * '\\')) - ones) & ~(x ^ (ones * '\\')));
		bad &= highs;
		if (bad) {
			unsigned at = __builtin_ctzll(bad) / 8;

			if (p[i + at])
				return NULL;
			w[i + at] = '"';
			return w + i + at + 1;
		}
	}
#endif
	for (; i < n; i++) {
		unsigned char c = p[i];

		if (!c)
			break;
		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			return NULL;
		w[i] = c;
	}
	w[i] = '"';
	return w + i + 1;
}

/*
 * The name the kernel prints for a kernel frame: its symbol, or the markers
 * of ftrace trampolines and of functions a kretprobe returns through; NULL
 * for an address no symbol holds.  *sym: it is a symbol and *off is valid.
 */
static inline const char *frame_name(uint64_t addr, unsigned long long *off, bool *sym)
{
	const char *name;

	*sym = false;
	if (addr == DECODE_FRAME_TRAMPOLINE)
		return "[FTRACE TRAMPOLINE]";
	name = decode_ksym(addr, off);
	if (name && !*off && (!strcmp(name, "__kretprobe_trampoline") ||
			      !strcmp(name, "kretprobe_trampoline")))
		return "[unknown/kretprobe'd]";
	*sym = name != NULL;
	return name;
}

/* Field k of a function tracer's record (decode.h: dec_event.ff). */
static inline uint64_t ffield(const struct dec_event *de, int k, const void *data, int size)
{
	uint64_t v = 0;

	decode_int(de->ff[k], data, size, &v);
	return v;
}

static inline struct pend *pend_at(struct pendq *q, size_t i)
{
	return &q->v[i & (q->cap - 1)];
}

static inline int flush_table(FILE *f)
{
	if (fflush(f) || ferror(f)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}

/* output.c: the task of a record, one record as a text line or a JSON object */
const char *out_comm_of(struct output *o, int pid);
const struct pidinfo *out_pid_info_slow(struct output *o, int pid, unsigned long long ts);

/*
 * The task's columns (text and JSON), built once per pid: a busy task's
 * records come in runs, and its columns stand while no name changed.
 */
static inline const struct pidinfo *out_pid_info(struct output *o, int pid,
						  unsigned long long ts)
{
	const struct pidinfo *pi = &o->pids[(unsigned)pid % PIDCACHE];

	if (pi->pid == pid && pi->ready)
		return pi;
	return out_pid_info_slow(o, pid, ts);
}
int out_text_record(struct output *o, struct dec_event *de, struct tep_record *rec);
int out_json_record(struct output *o, struct dec_event *de, struct tep_record *rec);
/* out_json_record() of a record that is not a stack (de->special below DS_KSTACK) */
int out_json_event(struct output *o, struct dec_event *de, const struct tep_record *rec);
void out_json_open(struct output *o, struct dec_event *de, const struct tep_record *rec);
void out_json_frames(struct output *o, const struct dec_event *de, const void *data, int size);
void out_lost_write(struct output *o, int cpu, long long count);

/* output_ftrace.c: function and function_graph records */
struct graph *out_graph_new(void);
void out_graph_free(struct graph *g);
int out_graph_push(struct output *o, struct dec_event *de, const struct tep_record *rec);
void out_text_graph(struct output *o, struct dec_event *de, const struct tep_record *rec,
		    const struct tep_record *leaf);
void out_json_function(struct output *o, struct dec_event *de, const struct tep_record *rec,
		       const struct tep_record *leaf);

/* output_stack.c: JSON events waiting for their stacks */
void out_pendq_free(struct pendq *q);
void out_pend_write(struct output *o);
void out_pend_drain(struct output *o, unsigned long long now);
struct pend *out_pend_push(struct output *o, int cpu);
int out_pend_record(struct output *o, struct dec_event *de, struct tep_record *rec);

#endif
