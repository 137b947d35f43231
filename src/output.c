// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * output - kernel-identical text lines and NDJSON for decoded records; see
 * output.h.  Both forms come from the same per-event description (decode.h)
 * built once per event id, so no lookup happens per record.
 *
 * Text follows the kernel's print_trace_line() for the default options
 * (irq-info on, record-tgid off): "%16s-%-7d [%03d] FLAGS %5lu.%06lu: "
 * then "name: " and the event's print fmt, except for the syscall events
 * ("sys_x(arg: 0x.., ...)", "sys_x -> 0x..") and ftrace's own events (no
 * name prefix), which the kernel prints with dedicated functions.
 *
 * stdout is written with buffered stdio; the caller flushes (output_flush)
 * whenever nothing more is ready, so a pipe reader sees every produced line
 * promptly without one write() per record.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "agg.h"
#include "comm.h"
#include "decode.h"
#include "json.h"
#include "output.h"
#include "sched.h"
#include "tpctl.h"

/*
 * What a record header needs of its task, formatted once per pid: the text
 * prefix "%16s-%-7d " and the JSON ,"pid":N,"comm":"..." members.  Direct
 * mapped by pid; rebuilt when saved_cmdlines is read again.
 */
#define PIDCACHE 256
struct pidinfo {
	int pid;
	unsigned gen;
	unsigned lgen;		/* the learned name's generation it was made with */
	bool unknown;		/* "<...>": look again (rate limited) */
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

/*
 * Task names learned from the records as they are written (JSON): what a
 * task was called at the time of its events, where saved_cmdlines may say
 * "<...>", an older task's name of the same pid, or the name it has now.
 */
#define LEARNED 4096		/* a power of two; a colliding pid forgets the other */

struct learned {
	int pid;
	unsigned gen;		/* bumped (from o->learn_gen) when the name changes */
	char name[COMM_MAX + 1];
};

/* Which fields of an event name a task: comm and pid pairs, an exec's file. */
#define NAME_PAIRS 4

struct name_plan {
	bool built;
	signed char npair;
	short comm[NAME_PAIRS], pid[NAME_PAIRS];	/* field indexes; pid -1: common_pid */
	short exec_file;				/* sched_process_exec's filename, or -1 */
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
	output_comm_fn comm_fn;
	void *comm_ctx;
	struct timespec comm_last;
	unsigned comm_gen;	/* bumped when saved_cmdlines was read again */
	struct comm_saved names;	/* saved_cmdlines as read again (comm.h) */
	struct pidinfo pids[PIDCACHE];
	struct learned *learned;	/* LEARNED entries, on first use */
	unsigned learn_gen;
	struct name_plan *plans;	/* by event id */
	int nplans;
	struct pendq *pq;	/* JSON with stacks (output_set_stacks), else NULL */
	struct kframe *kframes;	/* KFRAMES kernel frames as written, on first use */
	output_usym_fn usym_fn;
	void *usym_ctx;
	unsigned long long faults;	/* strings the kernel could not fetch (--strings) */
	struct graph *graph;	/* function_graph records seen: their state, else NULL */
	/* the flags column of the last record: consecutive records mostly share it */
	unsigned fkey;		/* its flags and preempt bytes; above 0xffff: none yet */
	char ftxt[6];
	unsigned retry_tick;	/* pid_info: the clock is looked at every RETRY_EVERY uses */
	/* a stamp's digits above the last eight, as last written: they seldom change */
	uint64_t ts_hi;
	char ts_hi_txt[24];
	unsigned ts_hi_len;
	/* text: the seconds of the last stamp, as written ("%5llu.") */
	unsigned long long sec;
	char sec_txt[32];
	unsigned sec_len;
};

#define RETRY_EVERY 256

#define KFRAMES 4096		/* a power of two */

struct graph;
static void graph_free(struct graph *g);

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
 * at an idle point HOLD_NS after the first idle point it waited through, or
 * at output_flush().  A stack that finds no open event of its task on its
 * CPU is written as the ftrace event it is, with its frames.
 */
#define HOLD_NS 10000000ULL
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

void output_set_kernel_release(struct output *o, const char *release)
{
	int v = decode_kernel_version(release);

	/* unknown: the newest forms */
	o->lazy_flags = !v || v >= KVER(6, 13);
	o->fkey = ~0U;
	o->sys_decimal = !v || v >= KVER(6, 18);
}

struct output *output_new(struct tep_handle *tep, FILE *f, enum output_mode mode)
{
	struct output *o = calloc(1, sizeof(*o));
	struct utsname u;

	if (!o)
		return NULL;
	o->dec = decoder_new(tep);
	if (!o->dec) {
		free(o);
		return NULL;
	}
	o->tep = tep;
	o->f = f;
	o->mode = mode;
	o->ns_clock = true;
	o->fkey = ~0U;
	if (uname(&u) == 0)
		output_set_kernel_release(o, u.release);
	trace_seq_init(&o->seq);
	return o;
}

static void pendq_free(struct pendq *q)
{
	size_t i;

	if (!q)
		return;
	for (i = 0; i < q->cap; i++)
		free(q->v[i].buf);
	free(q->v);
	free(q->open);
	free(q);
}

int output_set_stacks(struct output *o, bool hold)
{
	if (!hold || o->mode != OUTPUT_JSON) {
		if (o->pq)
			output_flush(o);
		pendq_free(o->pq);
		o->pq = NULL;
		return 0;
	}
	if (o->pq)
		return 0;
	o->pq = calloc(1, sizeof(*o->pq));
	if (!o->pq)
		return -1;
	return 0;
}

void output_free(struct output *o)
{
	int i;

	if (!o)
		return;
	pendq_free(o->pq);
	graph_free(o->graph);
	for (i = 0; o->kframes && i < KFRAMES; i++)
		free(o->kframes[i].s);
	free(o->kframes);
	free(o->learned);
	free(o->plans);
	trace_seq_destroy(&o->seq);
	decoder_free(o->dec);
	comm_saved_free(&o->names);
	free(o);
}

void output_set_loader(struct output *o,
		       int (*fn)(struct tep_handle *tep, int id, void *ctx), void *ctx)
{
	decoder_set_loader(o->dec, fn, ctx);
}

void output_set_comm_loader(struct output *o, output_comm_fn fn, void *ctx)
{
	o->comm_fn = fn;
	o->comm_ctx = ctx;
}

void output_set_ns_clock(struct output *o, bool ns)
{
	o->ns_clock = ns;
}

void output_set_user_symbols(struct output *o, output_usym_fn fn, void *ctx)
{
	o->usym_fn = fn;
	o->usym_ctx = ctx;
}

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

static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* Decimal digits of v into the end of buf; returns the start. */
static char *fmt_u64(char *end, uint64_t v)
{
	uint32_t w;

	*--end = '\0';
	/*
	 * A nanosecond stamp has 13 digits or more: eight at a time in 32-bit
	 * arithmetic, two per step (cheaper than 64-bit divisions per digit)
	 */
	while (v >= 100000000) {
		uint32_t lo = v % 100000000;
		int k;

		v /= 100000000;
		for (k = 0; k < 4; k++) {
			end -= 2;
			memcpy(end, digit_pairs + 2 * (lo % 100), 2);
			lo /= 100;
		}
	}
	w = v;
	while (w >= 100) {
		end -= 2;
		memcpy(end, digit_pairs + 2 * (w % 100), 2);
		w /= 100;
	}
	if (w >= 10) {
		end -= 2;
		memcpy(end, digit_pairs + 2 * w, 2);
	} else {
		*--end = '0' + w;
	}
	return end;
}

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

/*
 * The digits of a time stamp at w, returns the end: the digits above the
 * last eight are those of the last stamp, mostly, and are kept as text.
 */
static char *fmt_ts_digits(struct output *o, char *w, uint64_t ts)
{
	uint64_t hi = ts / 100000000;
	char num[24], *d;

	if (!hi) {
		d = fmt_u64(num + sizeof(num), ts);
		memcpy(w, d, num + sizeof(num) - 1 - d);
		return w + (num + sizeof(num) - 1 - d);
	}
	if (hi != o->ts_hi || !o->ts_hi_len) {
		d = fmt_u64(num + sizeof(num), hi);
		o->ts_hi_len = num + sizeof(num) - 1 - d;
		memcpy(o->ts_hi_txt, d, o->ts_hi_len);
		o->ts_hi = hi;
	}
	memcpy(w, o->ts_hi_txt, o->ts_hi_len);
	w += o->ts_hi_len;
	fmt_8(w, ts % 100000000);
	return w + 8;
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
 * saved_cmdlines may be read again (it is 100 ms since the last time):
 * the kernel's cache keeps growing.  It saves a task's name when the task
 * is switched out, so a busy process that keeps its CPU stays unknown for a
 * while: its events must not pay more than this check until then.
 */
static bool comm_retry_due(struct output *o, struct timespec *now)
{
	if (!o->comm_fn)
		return false;
	clock_gettime(CLOCK_MONOTONIC_COARSE, now);
	return (now->tv_sec - o->comm_last.tv_sec) * 1000000000LL +
	       (now->tv_nsec - o->comm_last.tv_nsec) >= 100000000LL;
}

static const char *comm_of(struct output *o, int pid)
{
	const char *comm = comm_saved_find(&o->names, pid);
	struct timespec now;

	if (!comm)
		comm = tep_data_comm_from_pid(o->tep, pid);
	/*
	 * a pid the saved_cmdlines we loaded did not know yet: ask again, into
	 * handles of their own (comm.h: the session's forgets no pid)
	 */
	if (pid && !strcmp(comm, "<...>") && comm_retry_due(o, &now)) {
		o->comm_last = now;
		if (!comm_saved_reload(&o->names, o->comm_fn, o->comm_ctx)) {
			o->comm_gen++;
			comm = comm_saved_find(&o->names, pid);
			if (!comm)
				comm = "<...>";
		}
	}
	return comm;
}

static struct learned *learned_of(struct output *o, int pid)
{
	struct learned *l;

	if (!o->learned || pid <= 0)
		return NULL;
	l = &o->learned[(unsigned)pid & (LEARNED - 1)];
	return l->pid == pid ? l : NULL;
}

static void learn(struct output *o, int pid, const char *name, size_t len)
{
	struct learned *l;

	if (pid <= 0 || !len)
		return;
	if (!o->learned && !(o->learned = calloc(LEARNED, sizeof(*o->learned))))
		return;
	if (len > COMM_MAX)
		len = COMM_MAX;
	l = &o->learned[(unsigned)pid & (LEARNED - 1)];
	if (l->pid == pid && !strncmp(l->name, name, len) && !l->name[len])
		return;
	l->pid = pid;
	l->gen = ++o->learn_gen;
	memcpy(l->name, name, len);
	l->name[len] = '\0';
}

static int field_index(const struct dec_event *de, const char *name)
{
	int i;

	for (i = 0; i < de->nfields; i++)
		if (!strcmp(de->fields[i].name, name))
			return i;
	return -1;
}

static const struct name_plan *name_plan(struct output *o, const struct dec_event *de)
{
	static const char *const pairs[][2] = {
		{ "comm", "pid" }, { "prev_comm", "prev_pid" }, { "next_comm", "next_pid" },
		{ "parent_comm", "parent_pid" }, { "newcomm", "pid" },
	};
	struct name_plan *pl;
	size_t i;

	if (de->id < 0 || de->id > 65535)
		return NULL;
	if (de->id >= o->nplans) {
		int n = de->id + 64;
		struct name_plan *np = realloc(o->plans, n * sizeof(*np));

		if (!np)
			return NULL;
		memset(np + o->nplans, 0, (n - o->nplans) * sizeof(*np));
		o->plans = np;
		o->nplans = n;
	}
	pl = &o->plans[de->id];
	if (pl->built)
		return pl;
	pl->built = true;
	pl->exec_file = -1;
	for (i = 0; i < sizeof(pairs) / sizeof(pairs[0]) && pl->npair < NAME_PAIRS; i++) {
		int c = field_index(de, pairs[i][0]), p = field_index(de, pairs[i][1]);

		if (c < 0 || de->fields[c].kind != DK_STR)
			continue;
		/* task_rename without a pid field renames the task that traced it */
		if (p >= 0 && de->fields[p].kind != DK_INT)
			continue;
		if (p < 0 && strcmp(pairs[i][0], "newcomm"))
			continue;
		pl->comm[pl->npair] = c;
		pl->pid[pl->npair++] = p;
	}
	if (!strcmp(de->system, "sched") && !strcmp(de->name, "sched_process_exec"))
		pl->exec_file = field_index(de, "filename");
	return pl;
}

/*
 * What this record says of task names, before its own pid is looked up.
 * Not a fork's child_comm: a child mostly execs at once, often where no
 * exec record says so, and would keep its parent's name.
 */
static void learn_names(struct output *o, const struct dec_event *de, const void *data, int size)
{
	const struct name_plan *pl = name_plan(o, de);
	const char *p;
	size_t len;
	uint64_t v;
	int i;

	if (!pl)
		return;
	for (i = 0; i < pl->npair; i++) {
		int pid = decode_pid(data);

		if (pl->pid[i] >= 0) {
			if (!decode_int(&de->fields[pl->pid[i]], data, size, &v))
				continue;
			pid = (int)v;
		}
		if (decode_span(&de->fields[pl->comm[i]], data, size, &p, &len))
			learn(o, pid, p, len);
	}
	/* the kernel names a task after exec by the file's basename */
	if (pl->exec_file >= 0 && decode_span(&de->fields[pl->exec_file], data, size, &p, &len)) {
		const char *b = memrchr(p, '/', len);

		if (b) {
			len -= b + 1 - p;
			p = b + 1;
		}
		learn(o, decode_pid(data), p, len);
	}
}

/*
 * The JSON name of pid: the kernel's text may say "<...>" (or an older
 * task's name of the same pid), JSON says the name wherever something knows
 * it (the records so far, which name it as it was at their time; comm.h:
 * the COMMAND tpctl ran; a live task's /proc/PID/comm), null where nothing
 * does.
 */
static const char *json_comm(struct output *o, int pid, unsigned long long ts,
			     const char *comm, char *buf, size_t size)
{
	const struct learned *l = learned_of(o, pid);
	const char *known = comm_known(pid);

	if (l)
		return l->name;
	if (known)
		return known;
	if (strcmp(comm, "<...>"))
		return comm;
	/* comm_fn: the records are live, not a recording's */
	if (o->comm_fn && comm_proc(pid, o->ns_clock ? ts : 0, buf, size, NULL))
		return buf;
	return NULL;
}

static const struct pidinfo *pid_info(struct output *o, int pid, unsigned long long ts)
{
	char pbuf[COMM_MAX + 2];
	struct pidinfo *pi = &o->pids[(unsigned)pid % PIDCACHE];
	const char *comm;
	char *buf = NULL;
	size_t len = 0;
	struct timespec now;
	FILE *mf;
	int n;

	const struct learned *l = learned_of(o, pid);
	unsigned lgen = l ? l->gen : 0;

	/* an unknown name is asked for again, but the clock is not read per record */
	if (pi->pid == pid && pi->gen == o->comm_gen && pi->lgen == lgen && pi->tlen &&
	    (!pi->unknown || ++o->retry_tick % RETRY_EVERY || !comm_retry_due(o, &now)))
		return pi;
	comm = comm_of(o, pid);
	pi->pid = pid;
	pi->gen = o->comm_gen;
	pi->lgen = lgen;
	pi->unknown = !strcmp(comm, "<...>");
	n = snprintf(pi->text, sizeof(pi->text), "%16s-%-7d ", comm, pid);
	pi->tlen = n < (int)sizeof(pi->text) ? n : (int)sizeof(pi->text) - 1;
	mf = open_memstream(&buf, &len);
	comm = json_comm(o, pid, ts, comm, pbuf, sizeof(pbuf));
	if (mf && comm) {
		fprintf(mf, ",\"pid\":%d,\"comm\":", pid);
		json_write_string(mf, comm, strlen(comm));
	}
	if (mf)
		fclose(mf);
	if (comm && buf && len < sizeof(pi->json)) {
		memcpy(pi->json, buf, len + 1);
		pi->jlen = len;
	} else {
		pi->jlen = snprintf(pi->json, sizeof(pi->json), ",\"pid\":%d,\"comm\":null", pid);
	}
	free(buf);
	return pi;
}

/* The kernel's flags column ("dNs.."): of the record's flags and preempt bytes. */
static inline const char *lat_flags(struct output *o, const void *data)
{
	uint16_t key;

	memcpy(&key, (const char *)data + 2, 2);
	if (key != o->fkey) {
		decode_lat_flags(decode_flags(data), decode_preempt(data), o->lazy_flags, o->ftxt);
		o->fkey = key;
	}
	return o->ftxt;
}

/* "%5llu.%06llu: " of the kernel's microsecond-rounded stamp, or "%12llu: " */
static size_t fmt_ts(struct output *o, char *out, unsigned long long ts, bool ns)
{
	unsigned long long us, sec;
	uint32_t frac;
	size_t n;

	if (!ns)
		return sprintf(out, "%12llu: ", ts);
	us = (ts + 500) / 1000;
	sec = us / 1000000;
	frac = us % 1000000;
	/* the seconds change seldom: their text is kept (ts_hi is JSON's, unused here) */
	if (sec != o->sec || !o->sec_len) {
		o->sec_len = snprintf(o->sec_txt, sizeof(o->sec_txt), "%5llu.", sec);
		o->sec = sec;
	}
	memcpy(out, o->sec_txt, o->sec_len);
	n = o->sec_len;
	memcpy(out + n + 4, digit_pairs + 2 * (frac % 100), 2);
	frac /= 100;
	memcpy(out + n + 2, digit_pairs + 2 * (frac % 100), 2);
	frac /= 100;
	memcpy(out + n, digit_pairs + 2 * frac, 2);
	n += 6;
	out[n++] = ':';
	out[n++] = ' ';
	return n;
}

/*
 * Does every field of the record, dynamic ones included, lie inside it?
 * libtraceevent's printing trusts the record, and a damaged trace.dat or
 * saved page must not make it read past the data (found by tests/fuzz).
 */
static bool record_fits(const struct dec_event *de, const struct tep_record *rec)
{
	const char *p;
	size_t len;
	uint32_t loc;
	int i;

	for (i = 0; i < de->nfields; i++) {
		const struct dec_field *f = &de->fields[i];

		if (f->offset < 0 || f->size < 0 || f->offset > rec->size - f->size)
			return false;
		if (!f->dynamic && !f->relative)
			continue;
		if (!decode_span(f, rec->data, rec->size, &p, &len))
			return false;
		/* decode_span clips the length; the printer would not */
		memcpy(&loc, (const char *)rec->data + f->offset, 4);
		if ((size_t)(p - (const char *)rec->data) + (loc >> 16) > (size_t)rec->size)
			return false;
	}
	return true;
}

/* Hex digits of v, zero-padded to at least width, into the end of buf; returns the start. */
static char *fmt_hex(char *end, uint64_t v, int width)
{
	char *p = end;

	*--p = '\0';
	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v || end - 1 - p < width);
	return p;
}

/*
 * The name the kernel prints for a kernel frame: its symbol, or the markers
 * of ftrace trampolines and of functions a kretprobe returns through; NULL
 * for an address no symbol holds.  *sym: it is a symbol and *off is valid.
 */
static const char *frame_name(uint64_t addr, unsigned long long *off, bool *sym)
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

static const struct kframe *kframe_get(struct output *o, uint64_t addr)
{
	struct kframe *k;
	unsigned long long off;
	const char *name;
	char hex[24];
	FILE *mf;
	bool sym;

	if (!o->kframes) {
		o->kframes = calloc(KFRAMES, sizeof(*o->kframes));
		if (!o->kframes)
			return NULL;
	}
	k = &o->kframes[(addr ^ addr >> 13) & (KFRAMES - 1)];
	if (k->s && k->addr == addr)
		return k;
	free(k->s);
	k->s = NULL;
	mf = open_memstream(&k->s, &k->len);
	if (!mf)
		return NULL;
	name = frame_name(addr, &off, &sym);
	if (o->mode == OUTPUT_JSON) {
		put_lit(mf, "{\"addr\":");
		put_u64(mf, addr);
		put_lit(mf, ",\"sym\":");
		if (name)
			json_write_string(mf, name, strlen(name));
		else
			put_lit(mf, "null");
		put_lit(mf, ",\"off\":");
		if (sym)
			put_u64(mf, off);
		else
			put_lit(mf, "null");
		putc('}', mf);
	} else {
		put_lit(mf, " => ");
		if (name) {
			fputs(name, mf);
		} else {
			put_lit(mf, "0x");
			fputs(fmt_hex(hex + sizeof(hex), addr, 8), mf);
		}
		putc('\n', mf);
	}
	if (fclose(mf)) {
		free(k->s);
		k->s = NULL;
		return NULL;
	}
	k->addr = addr;
	return k;
}

/*
 * A stack record as the kernel's `trace` prints it with the default options
 * (no sym-offset, sym-addr or sym-userobj): every frame the record holds, not
 * only the 8 of the format's print fmt.
 */
static void text_stack(struct output *o, const struct dec_event *de,
		       const struct tep_record *rec)
{
	int i, n = decode_frames(de, rec->data, rec->size);
	FILE *f = o->f;
	char hex[24];

	if (de->special == DS_USTACK) {
		put_lit(f, "<user stack trace>\n");
		for (i = 0; i < n; i++) {
			put_lit(f, " =>  <");
			fputs_unlocked(fmt_hex(hex + sizeof(hex), decode_frame(de, rec->data, i),
					       de->frames.elem * 2), f);
			put_lit(f, ">\n");
		}
		return;
	}
	put_lit(f, "<stack trace>\n");
	for (i = 0; i < n; i++) {
		const struct kframe *k = kframe_get(o, decode_frame(de, rec->data, i));

		if (k)
			fwrite_unlocked(k->s, 1, k->len, f);
	}
}

/*
 * A string argument of a syscall event, ", name: \"...\"" as the kernel
 * prints a probe's string (the bytes as they are), or "(fault)" where the
 * kernel could not fetch it, counted.
 */
static void text_string(struct output *o, const struct dec_event *de, const struct dec_field *df,
			const struct tep_record *rec, bool comma)
{
	const char *p;
	size_t len;
	FILE *f = o->f;

	fprintf(f, "%s%s: ", comma ? ", " : "", df->name);
	if ((de->strings && decode_str_fault(df, rec->data, rec->size)) ||
	    !decode_span(df, rec->data, rec->size, &p, &len)) {
		o->faults++;
		put_str(f, "(fault)");
		return;
	}
	putc_unlocked('"', f);
	put_mem(f, p, len);
	putc_unlocked('"', f);
}

/* ---------------------------------------------------------------- function tracers */

/*
 * The function tracers' text as the kernel's `trace` file prints it with its
 * default options (funcgraph-cpu, -overhead, -duration and -irqs on, -proc
 * and -abstime off).  libtraceevent's plugin_function prints trace-cmd's
 * layout ("func <-- parent", with its own indentation), not the kernel's,
 * and trace-cmd's function_graph printer lives in libtracecmd, where it
 * needs a tracecmd_input to peek at the next record: neither does for a live
 * stream, so the layout is written here.
 *
 * A function_graph entry prints as a leaf "func();" with its duration when
 * the next record of its CPU is the return of the same call (same task, same
 * function), and as "func() {" otherwise.  So an entry waits, and every
 * record read after it waits behind it (the order stays the merged one),
 * until its CPU's next record arrives, the output is flushed, or it waited
 * through idle points for GRAPH_HOLD_NS.
 */
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

static int graph_width(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	int w = 1;

	for (n = n > 1 ? n - 1 : 0; n >= 10; n /= 10)
		w++;
	return w;
}

static struct gcpu *graph_cpu(struct graph *g, int cpu)
{
	if (cpu < 0)
		cpu = 0;
	if (cpu >= g->ncpu) {
		int n = cpu + 16, i;
		struct gcpu *c = realloc(g->cpu, n * sizeof(*c));

		if (!c)
			return NULL;
		for (i = g->ncpu; i < n; i++) {
			memset(&c[i], 0, sizeof(c[i]));
			c[i].last_pid = -1;
		}
		g->cpu = c;
		g->ncpu = n;
	}
	return &g->cpu[cpu];
}

static uint64_t ffield(const struct dec_event *de, int k, const void *data, int size)
{
	uint64_t v = 0;

	decode_int(de->ff[k], data, size, &v);
	return v;
}

/* "%ps" of a function the tracer recorded (the bare name, as the kernel's) */
static void put_func(FILE *f, unsigned long long addr)
{
	unsigned long long off;
	const char *name = decode_ksym(addr, &off);

	if (name)
		put_str(f, name);
	else
		fprintf(f, "0x%llx", addr);
}

/* seq_print_ip_sym: "0" for no address, the symbol, or "0x%08lx" */
static void put_ip(FILE *f, unsigned long long addr)
{
	unsigned long long off;
	const char *name;

	if (!addr) {
		putc_unlocked('0', f);
		return;
	}
	name = decode_ksym(addr, &off);
	if (name)
		put_str(f, name);
	else
		fprintf(f, "0x%08llx", addr);
}

/* The task as the graph's context-switch line centres it: comm (7 chars at most)-pid in 14. */
static void graph_proc(struct output *o, int pid)
{
	char buf[32];
	int len, sp, i;

	len = snprintf(buf, sizeof(buf), "%.7s-%d", comm_of(o, pid), pid);
	sp = len < 14 ? 14 - len : 0;
	for (i = 0; i < sp / 2; i++)
		putc_unlocked(' ', o->f);
	put_mem(o->f, buf, len);
	for (i = 0; i < sp - sp / 2; i++)
		putc_unlocked(' ', o->f);
}

/* The duration column: overhead mark, microseconds to 7 digits, "|  " */
static void graph_duration(FILE *f, unsigned long long ns)
{
	static const struct {
		unsigned long long over;
		char mark;
	} marks[] = {
		{ 1000000000ULL, '$' }, { 100000000ULL, '@' }, { 10000000ULL, '*' },
		{ 1000000ULL, '#' }, { 100000ULL, '!' }, { 10000ULL, '+' },
	};
	char mark = ' ', us[24], rem[8];
	size_t i;
	int len;

	for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (ns > marks[i].over) {
			mark = marks[i].mark;
			break;
		}
	putc_unlocked(mark, f);
	putc_unlocked(' ', f);
	len = snprintf(us, sizeof(us), "%llu", ns / 1000);
	put_mem(f, us, len);
	/* nanoseconds as far as 7 digits in all allow */
	if (len < 7) {
		snprintf(rem, sizeof(rem), "%03llu", ns % 1000);
		rem[7 - len < 4 ? 7 - len : 4] = '\0';
		putc_unlocked('.', f);
		put_str(f, rem);
		len += strlen(rem) + 1;
	}
	put_lit(f, " us ");
	for (; len < 8; len++)
		putc_unlocked(' ', f);
	put_lit(f, "|  ");
}

static void indent(FILE *f, long depth)
{
	for (depth *= 2; depth > 0; depth--)
		putc_unlocked(' ', f);
}

/* One function_graph line (entry: leaf is its return when it is a leaf). */
static void text_graph(struct output *o, struct dec_event *de, const struct tep_record *rec,
		       const struct tep_record *leaf)
{
	struct graph *g = o->graph;
	struct gcpu *c = graph_cpu(g, rec->cpu);
	int pid = decode_pid(rec->data);
	long depth = (int32_t)ffield(de, 1, rec->data, rec->size);
	unsigned long long func = ffield(de, 0, rec->data, rec->size);
	FILE *f = o->f;

	if (!c)
		return;
	if (c->last_pid != pid) {
		int prev = c->last_pid;

		c->last_pid = pid;
		if (prev != -1) {
			put_lit(f, " ------------------------------------------\n");
			fprintf(f, " %*d) ", g->width, rec->cpu);
			graph_proc(o, prev);
			put_lit(f, " => ");
			graph_proc(o, pid);
			put_lit(f, "\n ------------------------------------------\n\n");
		}
	}
	fprintf(f, " %*d) ", g->width, rec->cpu);
	if (de->special == DS_GRAPH_ENT && leaf) {
		const struct dec_event *rde = decoder_event(o->dec, decode_type(leaf->data));

		graph_duration(f, ffield(rde, 4, leaf->data, leaf->size) -
				  ffield(rde, 3, leaf->data, leaf->size));
		if (depth >= 0 && depth < GRAPH_DEPTH)
			c->enter[depth] = 0;
		indent(f, depth);
		put_func(f, func);
		put_lit(f, "();\n");
	} else if (de->special == DS_GRAPH_ENT) {
		put_lit(f, "              |  ");
		if (depth >= 0 && depth < GRAPH_DEPTH)
			c->enter[depth] = func;
		indent(f, depth);
		put_func(f, func);
		put_lit(f, "() {\n");
	} else {
		bool match = true;

		graph_duration(f, ffield(de, 4, rec->data, rec->size) -
				  ffield(de, 3, rec->data, rec->size));
		if (depth >= 0 && depth < GRAPH_DEPTH) {
			match = c->enter[depth] == func;
			c->enter[depth] = 0;
		}
		indent(f, depth);
		if (match) {
			put_lit(f, "}\n");
		} else {
			put_lit(f, "} /* ");
			put_func(f, func);
			put_lit(f, " */\n");
		}
	}
}

static void json_func(struct output *o, const char *key, unsigned long long addr)
{
	unsigned long long off;
	const char *name = decode_ksym(addr, &off);

	put_str(o->f, key);
	if (name)
		json_write_string(o->f, name, strlen(name));
	else
		put_lit(o->f, "null");
}

/*
 * {"type":"function",...,"func":"vfs_read","parent":"ksys_read","ip":N,"parent_ip":N}
 * {"type":"graph_entry",...,"func":"vfs_read","depth":0}
 * {"type":"graph_return",...,"func":"vfs_read","depth":0,"duration_ns":N,"calltime_ns":N,
 *  "rettime_ns":N,"overrun":N}
 * {"type":"graph_leaf",...} a graph_entry whose return came next: the return's members
 */
static void json_function(struct output *o, struct dec_event *de, const struct tep_record *rec,
			  const struct tep_record *leaf)
{
	const struct pidinfo *pi = pid_info(o, decode_pid(rec->data), rec->ts);
	const void *d = rec->data;
	FILE *f = o->f;
	char flags[6];

	decode_lat_flags(decode_flags(d), decode_preempt(d), o->lazy_flags, flags);
	put_lit(f, "{\"type\":\"");
	put_str(f, de->special == DS_FUNC ? "function" : de->special == DS_GRAPH_RET ?
		"graph_return" : leaf ? "graph_leaf" : "graph_entry");
	put_lit(f, "\",\"ts_ns\":");
	put_u64(f, rec->ts);
	put_lit(f, ",\"cpu\":");
	put_i64(f, rec->cpu);
	put_mem(f, pi->json, pi->jlen);
	put_lit(f, ",\"flags\":\"");
	put_mem(f, flags, 5);
	putc_unlocked('"', f);
	json_func(o, ",\"func\":", ffield(de, 0, d, rec->size));
	if (de->special == DS_FUNC) {
		json_func(o, ",\"parent\":", ffield(de, 1, d, rec->size));
		put_lit(f, ",\"ip\":");
		put_u64(f, ffield(de, 0, d, rec->size));
		put_lit(f, ",\"parent_ip\":");
		put_u64(f, ffield(de, 1, d, rec->size));
		put_lit(f, "}\n");
		return;
	}
	put_lit(f, ",\"depth\":");
	put_i64(f, (int32_t)ffield(de, 1, d, rec->size));
	if (leaf) {
		de = decoder_event(o->dec, decode_type(leaf->data));
		d = leaf->data;
		rec = leaf;
	}
	if (de->special == DS_GRAPH_RET) {
		uint64_t call = ffield(de, 3, d, rec->size), ret = ffield(de, 4, d, rec->size);

		put_lit(f, ",\"duration_ns\":");
		put_u64(f, ret - call);
		put_lit(f, ",\"calltime_ns\":");
		put_u64(f, call);
		put_lit(f, ",\"rettime_ns\":");
		put_u64(f, ret);
		put_lit(f, ",\"overrun\":");
		put_u64(f, ffield(de, 2, d, rec->size));
	}
	put_lit(f, "}\n");
}

static int write_one(struct output *o, struct dec_event *de, struct tep_record *rec,
		     const struct tep_record *leaf);

/* Is q[j] the return of the entry q[0] (the next record of its CPU)? */
static bool graph_leaf(const struct grec *e, const struct grec *r)
{
	return r->de && r->de->special == DS_GRAPH_RET && decode_pid(e->data) == decode_pid(r->data) &&
	       ffield(e->de, 0, e->data, e->size) == ffield(r->de, 0, r->data, r->size);
}

static int graph_drain(struct output *o, bool force)
{
	struct graph *g = o->graph;

	while (g->n) {
		struct grec *e = &g->q[0], tmp;
		struct tep_record rec = { .cpu = e->cpu, .ts = e->ts, .size = e->size,
					  .data = e->data };
		struct tep_record lrec;
		size_t j = 0;
		bool leaf = false;

		if (e->de && e->de->special == DS_GRAPH_ENT) {
			for (j = 1; j < g->n && g->q[j].cpu != e->cpu; j++)
				;
			if (j == g->n && !force)
				break;
			leaf = j < g->n && graph_leaf(e, &g->q[j]);
		}
		if (leaf)
			lrec = (struct tep_record){ .cpu = g->q[j].cpu, .ts = g->q[j].ts,
						    .size = g->q[j].size, .data = g->q[j].data };
		if (write_one(o, e->de, &rec, leaf ? &lrec : NULL) < 0)
			return -1;
		/* the slots keep their buffers: the written ones move to the end */
		if (leaf) {
			tmp = g->q[j];
			memmove(&g->q[j], &g->q[j + 1], (g->n - j - 1) * sizeof(*g->q));
			g->q[g->n - 1] = tmp;
			g->n--;
		}
		tmp = g->q[0];
		memmove(&g->q[0], &g->q[1], (g->n - 1) * sizeof(*g->q));
		g->q[g->n - 1] = tmp;
		g->n--;
		g->idle = 0;
	}
	return 0;
}

static int graph_push(struct output *o, struct dec_event *de, const struct tep_record *rec)
{
	struct graph *g = o->graph;
	struct grec *r;

	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 64;
		struct grec *q = realloc(g->q, cap * sizeof(*q));

		if (!q)
			return -1;
		memset(q + g->cap, 0, (cap - g->cap) * sizeof(*q));
		g->q = q;
		g->cap = cap;
	}
	r = &g->q[g->n];
	if (r->alloc < (size_t)rec->size) {
		unsigned char *b = realloc(r->data, rec->size);

		if (!b)
			return -1;
		r->data = b;
		r->alloc = rec->size;
	}
	memcpy(r->data, rec->data, rec->size);
	r->size = rec->size;
	r->cpu = rec->cpu;
	r->ts = rec->ts;
	r->de = de;
	g->n++;
	return 0;
}

static struct graph *graph_new(void)
{
	struct graph *g = calloc(1, sizeof(*g));

	if (g)
		g->width = graph_width();
	return g;
}

static void graph_free(struct graph *g)
{
	size_t i;

	if (!g)
		return;
	for (i = 0; i < g->cap; i++)
		free(g->q[i].data);
	free(g->q);
	free(g->cpu);
	free(g);
}

static int text_record(struct output *o, struct dec_event *de, struct tep_record *rec)
{
	const void *data = rec->data;
	int pid = decode_pid(data);
	const struct pidinfo *pi;
	char hdr[128];
	FILE *f = o->f;
	size_t n;
	int i;

	if (de && (de->special == DS_GRAPH_ENT || de->special == DS_GRAPH_RET)) {
		text_graph(o, de, rec, NULL);
		return 0;
	}
	pi = pid_info(o, pid, rec->ts);
	put_mem(f, pi->text, pi->tlen);
	/* "[%03d] " */
	if (rec->cpu >= 0 && rec->cpu < 1000) {
		hdr[0] = '[';
		hdr[1] = '0' + rec->cpu / 100;
		hdr[2] = '0' + rec->cpu / 10 % 10;
		hdr[3] = '0' + rec->cpu % 10;
		hdr[4] = ']';
		hdr[5] = ' ';
		n = 6;
	} else {
		n = sprintf(hdr, "[%03d] ", rec->cpu);
	}
	memcpy(hdr + n, lat_flags(o, data), 6);
	n += 5;
	hdr[n++] = ' ';
	n += fmt_ts(o, hdr + n, rec->ts, o->ns_clock);
	put_mem(f, hdr, n);

	if (!de) {
		fprintf(f, "[UNKNOWN EVENT %d]\n", decode_type(data));
		return 0;
	}
	switch (de->special) {
	case DS_SYS_ENTER:
		put_str(f, de->sysname);
		putc_unlocked('(', f);
		for (i = de->first_arg; i < de->nfields; i++) {
			const struct dec_field *df = &de->fields[i];
			uint64_t v = 0;

			if (df == de->ret)
				continue;
			if (df->kind == DK_STR) {
				text_string(o, de, df, rec, i > de->first_arg);
				continue;
			}
			decode_int(df, data, rec->size, &v);
			/* since 6.18 the kernel prints values below 10 in decimal */
			fprintf(f, v < 10 && o->sys_decimal ? "%s%s: %llu" : "%s%s: 0x%llx",
				i > de->first_arg ? ", " : "", df->name, (unsigned long long)v);
		}
		putc_unlocked(')', f);
		/* a --strings event is written at the syscall's exit: its return value */
		if (de->ret) {
			uint64_t v = 0;

			decode_int(de->ret, data, rec->size, &v);
			fprintf(f, " -> 0x%llx", (unsigned long long)v);
		}
		putc_unlocked('\n', f);
		return 0;
	case DS_SYS_EXIT: {
		uint64_t v = 0;

		decode_int(de->ret, data, rec->size, &v);
		fprintf(f, "%s -> 0x%llx\n", de->sysname, (unsigned long long)v);
		return 0;
	}
	case DS_KSTACK:
	case DS_USTACK:
		text_stack(o, de, rec);
		return 1;
	case DS_FUNC: {
		uint64_t parent = ffield(de, 1, data, rec->size);

		put_ip(f, ffield(de, 0, data, rec->size));
		/* options/print-parent, on by default */
		if (parent) {
			put_lit(f, " <-");
			put_ip(f, parent);
		}
		putc_unlocked('\n', f);
		return 0;
	}
	default:
		break;
	}
	if (!record_fits(de, rec)) {
		fprintf(f, "%s: [damaged record]\n", de->event->name);
		return 0;
	}
	trace_seq_reset(&o->seq);
	tep_print_event(o->tep, &o->seq, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&o->seq);
	if (de->special != DS_FTRACE) {
		put_str(f, de->event->name);
		put_str(f, ": ");
	}
	put_mem(f, o->seq.buffer, o->seq.len);
	/* ftrace:print carries its own newline, as the kernel prints it */
	if (!o->seq.len || o->seq.buffer[o->seq.len - 1] != '\n' || de->special != DS_FTRACE)
		putc_unlocked('\n', f);
	return 0;
}

/*
 * A JSON string: a short one of plain printable ASCII (task names, most
 * strings of events) is written in one piece, anything else by the writer
 * that escapes and checks UTF-8.
 */
static void put_json_str(FILE *f, const char *p, size_t len)
{
	char buf[130];
	size_t i;

	if (len > sizeof(buf) - 2) {
		json_write_string(f, p, len);
		return;
	}
	for (i = 0; i < len; i++) {
		unsigned char c = p[i];

		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
			json_write_string(f, p, len);
			return;
		}
	}
	buf[0] = '"';
	memcpy(buf + 1, p, len);
	buf[len + 1] = '"';
	put_mem(f, buf, len + 2);
}

void output_json_value(FILE *f, const struct dec_field *df, const void *data, int size)
{
	const char *p;
	size_t len, i;
	uint64_t v;
	bool first = true;

	switch (df->kind) {
	case DK_INT:
		if (!decode_int(df, data, size, &v))
			put_str(f, "null");
		else if (df->sign)
			put_i64(f, (int64_t)v);
		else
			put_u64(f, v);
		return;
	case DK_STR:
		if (!decode_span(df, data, size, &p, &len))
			put_str(f, "null");
		else
			put_json_str(f, p, len);
		return;
	case DK_BITMASK:
		if (!decode_span(df, data, size, &p, &len)) {
			put_str(f, "null");
			return;
		}
		putc_unlocked('[', f);
		for (i = 0; i + df->elem <= len; i += df->elem) {
			uint64_t w = decode_elem(p + i, df->elem, false);
			int b;

			for (b = 0; w && b < df->elem * 8; b++, w >>= 1) {
				if (!(w & 1))
					continue;
				if (!first)
					putc_unlocked(',', f);
				first = false;
				put_u64(f, i * 8 + b);
			}
		}
		putc_unlocked(']', f);
		return;
	case DK_ARRAY:
	case DK_BYTES:
		if (!decode_span(df, data, size, &p, &len)) {
			put_str(f, "null");
			return;
		}
		putc_unlocked('[', f);
		for (i = 0; i + df->elem <= len; i += df->elem) {
			if (i)
				putc_unlocked(',', f);
			v = decode_elem(p + i, df->elem, df->sign);
			if (df->sign)
				put_i64(f, (int64_t)v);
			else
				put_u64(f, v);
		}
		putc_unlocked(']', f);
		return;
	}
}

static void json_field(FILE *f, const struct dec_field *df, const void *data, int size)
{
	put_mem(f, df->jkey, df->jkey_len);
	output_json_value(f, df, data, size);
}

/* ,"sym":"name","off":N,"obj":"path" of a user frame, what of it is known. */
static void json_usym(struct output *o, const struct dec_event *de, const void *data, int size,
		      uint64_t addr, bool ret)
{
	unsigned long long off = 0;
	const char *name, *obj;
	uint64_t tgid;
	FILE *f = o->f;

	if (!de->tgid || !decode_int(de->tgid, data, size, &tgid))
		return;
	name = o->usym_fn(o->usym_ctx, (int)tgid, addr, ret, &off, &obj);
	if (name) {
		put_lit(f, ",\"sym\":");
		json_write_string(f, name, strlen(name));
		put_lit(f, ",\"off\":");
		put_u64(f, off);
	}
	if (obj) {
		put_lit(f, ",\"obj\":");
		json_write_string(f, obj, strlen(obj));
	}
}

/*
 * A stack record's frames as a member of the object being written:
 * "stack":[{"addr":N,"sym":"name","off":N},...] ("sym" as the kernel prints
 * the frame, null with "off" for an address no symbol holds; "off" null for
 * the kernel's marker names) or "user_stack":[{"addr":N},...] (with
 * "sym", "off" and "obj" where output_set_user_symbols() names the frame).
 */
static void json_frames(struct output *o, const struct dec_event *de, const void *data,
			int size)
{
	int i, n = decode_frames(de, data, size);
	FILE *f = o->f;

	if (de->special == DS_USTACK)
		put_lit(f, ",\"user_stack\":[");
	else
		put_lit(f, ",\"stack\":[");
	for (i = 0; i < n; i++) {
		uint64_t addr = decode_frame(de, data, i);
		const struct kframe *k;

		if (i)
			putc_unlocked(',', f);
		if (de->special == DS_USTACK) {
			put_lit(f, "{\"addr\":");
			put_u64(f, addr);
			if (o->usym_fn)
				json_usym(o, de, data, size, addr, i > 0);
			putc_unlocked('}', f);
		} else if ((k = kframe_get(o, addr))) {
			fwrite_unlocked(k->s, 1, k->len, f);
		}
	}
	putc_unlocked(']', f);
}

/* One record's object up to and including its "fields"; the caller closes it. */
static void json_open(struct output *o, struct dec_event *de, const struct tep_record *rec)
{
	const void *data = rec->data;
	const struct pidinfo *pi;
	FILE *f = o->f;
	/* the head up to "flags" is made here and written in one piece */
	char head[96 + sizeof(pi->json)], num[24], *w = head, *d;
	bool first = true;
	int i;

	if (de)
		learn_names(o, de, data, rec->size);
	pi = pid_info(o, decode_pid(data), rec->ts);
#define HEAD_LIT(lit) (memcpy(w, lit, sizeof(lit) - 1), w += sizeof(lit) - 1)
	HEAD_LIT("{\"type\":\"event\",\"ts_ns\":");
	w = fmt_ts_digits(o, w, rec->ts);
	HEAD_LIT(",\"cpu\":");
	if (rec->cpu >= 0 && rec->cpu < 10) {
		*w++ = '0' + rec->cpu;
	} else {
		if (rec->cpu < 0)
			*w++ = '-';
		d = fmt_u64(num + sizeof(num),
			    rec->cpu < 0 ? -(uint64_t)rec->cpu : (uint64_t)rec->cpu);
		memcpy(w, d, num + sizeof(num) - 1 - d);
		w += num + sizeof(num) - 1 - d;
	}
	memcpy(w, pi->json, pi->jlen);
	w += pi->jlen;
	HEAD_LIT(",\"flags\":\"");
	memcpy(w, lat_flags(o, data), 5);
	w += 5;
	*w++ = '"';
#undef HEAD_LIT
	put_mem(f, head, w - head);
	if (!de) {
		put_str(f, ",\"id\":");
		put_i64(f, decode_type(data));
		put_str(f, ",\"system\":null,\"event\":null,\"fields\":{}");
		return;
	}
	put_mem(f, de->jhead, de->jhead_len);
	for (i = 0; i < de->nfields; i++) {
		const struct dec_field *df = &de->fields[i];

		if (df->common)
			continue;
		if (!first)
			putc_unlocked(',', f);
		first = false;
		/* a string the kernel could not fetch (--strings) */
		if (de->strings && decode_str_fault(df, data, rec->size)) {
			o->faults++;
			put_mem(f, df->jkey, df->jkey_len);
			put_lit(f, "null");
			continue;
		}
		json_field(f, df, data, rec->size);
	}
	putc_unlocked('}', f);
}

static int json_record(struct output *o, struct dec_event *de, struct tep_record *rec)
{
	json_open(o, de, rec);
	/* a stack that follows no event (no stacks expected, or its event was not read) */
	if (de && de->special >= DS_KSTACK) {
		json_frames(o, de, rec->data, rec->size);
		put_lit(o->f, "}\n");
		return 1;
	}
	put_lit(o->f, "}\n");
	return 0;
}

static void lost_write(struct output *o, int cpu, long long count)
{
	FILE *f = o->f;

	if (o->mode == OUTPUT_JSON) {
		fputs_unlocked("{\"type\":\"lost\",\"cpu\":", f);
		put_i64(f, cpu);
		fputs_unlocked(",\"count\":", f);
		if (count < 0)
			fputs_unlocked("null", f);
		else
			put_i64(f, count);
		fputs_unlocked("}\n", f);
	} else if (count < 0) {
		fprintf(f, "CPU:%d [LOST EVENTS]\n", cpu);
	} else {
		fprintf(f, "CPU:%d [LOST %lld EVENTS]\n", cpu, count);
	}
}

int output_pair(struct output *o, const char *start, const char *end, uint64_t ns,
		struct tep_record *srec, struct tep_record *erec)
{
	struct dec_event *sde, *ede;
	FILE *f = o->f;
	char buf[48];

	if (srec->size < 8 || erec->size < 8)
		return 0;
	sde = decoder_event(o->dec, decode_type(srec->data));
	ede = decoder_event(o->dec, decode_type(erec->data));
	if (o->mode == OUTPUT_JSON) {
		fputs_unlocked("{\"type\":\"pair\",\"start\":", f);
		json_write_string(f, start, strlen(start));
		fputs_unlocked(",\"end\":", f);
		json_write_string(f, end, strlen(end));
		fputs_unlocked(",\"latency_ns\":", f);
		put_u64(f, ns);
		fputs_unlocked(",\"events\":[", f);
		json_open(o, sde, srec);
		fputs_unlocked("},", f);
		json_open(o, ede, erec);
		fputs_unlocked("}]}\n", f);
	} else {
		snprintf(buf, sizeof(buf), "%.3f", ns / 1e6);
		fprintf(f, "%sms  %s -> %s\n", buf, start, end);
		text_record(o, sde, srec);
		text_record(o, ede, erec);
	}
	return ferror(f) ? -1 : 0;
}

int output_exit(struct output *o, int pid, int status, int sig)
{
	FILE *f = o->f;

	if (o->mode != OUTPUT_JSON)
		return 0;
	fputs_unlocked("{\"type\":\"exit\",\"pid\":", f);
	put_i64(f, pid);
	fputs_unlocked(",\"status\":", f);
	if (sig)
		fputs_unlocked("null", f);
	else
		put_i64(f, status);
	fputs_unlocked(",\"signal\":", f);
	if (sig)
		put_i64(f, sig);
	else
		fputs_unlocked("null", f);
	fputs_unlocked("}\n", f);
	return ferror(f) ? -1 : 0;
}

/* ------------------------------------------------- JSON with stacks: the queue */

static struct pend *pend_at(struct pendq *q, size_t i)
{
	return &q->v[i & (q->cap - 1)];
}

/* Write the queue's head (an event with what it collected, or a lost marker). */
static void pend_write(struct output *o)
{
	struct pendq *q = o->pq;
	struct pend *p = pend_at(q, q->head);
	struct tep_record rec = { 0 };

	if (p->open && q->open[p->cpu] == (long long)q->head)
		q->open[p->cpu] = -1;
	p->open = false;
	q->head++;
	if (p->lost) {
		lost_write(o, p->cpu, p->count);
		return;
	}
	rec.ts = p->ts;
	rec.cpu = p->cpu;
	rec.size = p->size;
	rec.data = p->buf;
	json_open(o, p->de, &rec);
	if (p->de && p->de->special >= DS_KSTACK)
		json_frames(o, p->de, p->buf, p->size);
	if (p->klen)
		json_frames(o, p->kde, p->buf + p->koff, p->klen);
	if (p->ulen)
		json_frames(o, p->ude, p->buf + p->uoff, p->ulen);
	put_lit(o->f, "}\n");
}

/* Write the head while it is complete; now: stamp of the newest record (0: none). */
static void pend_drain(struct output *o, unsigned long long now)
{
	struct pendq *q = o->pq;

	while (q->head != q->tail) {
		struct pend *p = pend_at(q, q->head);

		if (p->open && !(o->ns_clock && now > p->ts + HOLD_NS))
			break;
		pend_write(o);
	}
}

/* Room for one more entry at the tail; NULL when out of memory. */
static struct pend *pend_push(struct output *o, int cpu)
{
	struct pendq *q = o->pq;
	struct pend *p;

	if (q->tail - q->head >= PEND_MAX)
		pend_write(o);
	if (q->tail - q->head == q->cap) {
		size_t ncap = q->cap ? q->cap * 2 : 64, i;
		struct pend *nv = calloc(ncap, sizeof(*nv));

		if (!nv)
			return NULL;
		for (i = q->head; i != q->tail; i++)
			nv[i & (ncap - 1)] = *pend_at(q, i);
		free(q->v);
		q->v = nv;
		q->cap = ncap;
	}
	if (cpu >= q->ncpu) {
		int n = cpu + 16, i;
		long long *no = realloc(q->open, n * sizeof(*no));

		if (!no)
			return NULL;
		for (i = q->ncpu; i < n; i++)
			no[i] = -1;
		q->open = no;
		q->ncpu = n;
	}
	p = pend_at(q, q->tail);
	p->lost = p->open = false;
	p->cpu = cpu;
	p->size = p->koff = p->klen = p->uoff = p->ulen = 0;
	p->idle = 0;
	p->de = p->kde = p->ude = NULL;
	q->tail++;
	return p;
}

/* Append len bytes to the entry's buffer at offset at. */
static int pend_copy(struct pend *p, size_t at, const void *data, size_t len)
{
	if (at + len > p->alloc) {
		size_t na = (at + len) * 2 > 256 ? (at + len) * 2 : 256;
		unsigned char *nb = realloc(p->buf, na);

		if (!nb)
			return -1;
		p->buf = nb;
		p->alloc = na;
	}
	memcpy(p->buf + at, data, len);
	return 0;
}

static int pend_record(struct output *o, struct dec_event *de, struct tep_record *rec)
{
	struct pendq *q = o->pq;
	struct pend *p = NULL;
	bool stack = de && de->special >= DS_KSTACK;
	int cpu = rec->cpu < 0 ? 0 : rec->cpu, at;

	if (cpu < q->ncpu && q->open[cpu] >= 0)
		p = pend_at(q, q->open[cpu]);
	if (stack && p && decode_pid(p->buf) == decode_pid(rec->data) &&
	    !(de->special == DS_KSTACK ? p->klen : p->ulen)) {
		at = p->size + p->klen + p->ulen;
		if (pend_copy(p, at, rec->data, rec->size) < 0)
			return -1;
		if (de->special == DS_KSTACK) {
			p->kde = de;
			p->koff = at;
			p->klen = rec->size;
		} else {
			p->ude = de;
			p->uoff = at;
			p->ulen = rec->size;
		}
		pend_drain(o, rec->ts);
		return 1;
	}
	/* the event before this record on its CPU is complete */
	if (p) {
		p->open = false;
		q->open[cpu] = -1;
	}
	p = pend_push(o, cpu);
	if (!p || pend_copy(p, 0, rec->data, rec->size) < 0)
		return -1;
	p->ts = rec->ts;
	p->size = rec->size;
	p->de = de;
	if (!stack) {
		p->open = true;
		q->open[cpu] = q->tail - 1;
	}
	pend_drain(o, rec->ts);
	return stack;
}

static int write_one(struct output *o, struct dec_event *de, struct tep_record *rec,
		     const struct tep_record *leaf)
{
	int r;

	if (de && de->special == DS_GRAPH_ENT && o->mode == OUTPUT_TEXT) {
		text_graph(o, de, rec, leaf);
		return ferror(o->f) ? -1 : 0;
	}
	if (de && de->special >= DS_FUNC && de->special <= DS_GRAPH_RET && o->mode == OUTPUT_JSON) {
		json_function(o, de, rec, leaf);
		return ferror(o->f) ? -1 : 0;
	}
	/* text_record and json_record say whether rec was a stack: no test more per event */
	if (o->mode == OUTPUT_TEXT) {
		r = text_record(o, de, rec);
	} else if (!o->pq) {
		r = json_record(o, de, rec);
	} else {
		r = pend_record(o, de, rec);
		if (r < 0) {
			errno = ENOMEM;
			return -1;
		}
	}
	return ferror_unlocked(o->f) ? -1 : r;
}

int output_record(struct output *o, struct tep_record *rec)
{
	struct dec_event *de;

	if (rec->size < 8)
		return 0;
	de = decoder_event(o->dec, decode_type(rec->data));
	if (de && de->special == DS_GRAPH_ENT && !o->graph) {
		o->graph = graph_new();
		if (!o->graph) {
			errno = ENOMEM;
			return -1;
		}
	}
	/* a function_graph entry waits for its CPU's next record, and what follows for it */
	if ((o->graph && o->graph->n) || (de && de->special == DS_GRAPH_ENT)) {
		if (graph_push(o, de, rec) < 0) {
			errno = ENOMEM;
			return -1;
		}
		return graph_drain(o, false) < 0 || ferror(o->f) ? -1 : 0;
	}
	if (de && de->special == DS_GRAPH_RET && !o->graph) {
		o->graph = graph_new();
		if (!o->graph) {
			errno = ENOMEM;
			return -1;
		}
	}
	return write_one(o, de, rec, NULL);
}

unsigned long long output_faults(struct output *o)
{
	return o->faults;
}

void output_faults_report(unsigned long long n)
{
	if (n)
		tp_warn("%llu string(s) the kernel could not fetch: (fault) in text, null in JSON "
			"(the page was not in memory)", n);
}

bool output_is_stack(struct output *o, const struct tep_record *rec)
{
	struct dec_event *de;

	if (rec->size < 8)
		return false;
	de = decoder_event(o->dec, decode_type(rec->data));
	return de && de->special >= DS_KSTACK;
}

int output_lost(struct output *o, int cpu, long long count)
{
	struct pendq *q = o->pq;
	struct pend *p;

	if (q && q->head != q->tail) {
		/* in its place in the queue; what was open on cpu lost its stacks, if any */
		if (cpu >= 0 && cpu < q->ncpu && q->open[cpu] >= 0) {
			pend_at(q, q->open[cpu])->open = false;
			q->open[cpu] = -1;
		}
		p = pend_push(o, cpu < 0 ? 0 : cpu);
		if (!p) {
			errno = ENOMEM;
			return -1;
		}
		p->lost = true;
		p->cpu = cpu;
		p->count = count;
		pend_drain(o, 0);
	} else {
		lost_write(o, cpu, count);
	}
	return ferror(o->f) ? -1 : 0;
}

static int flush_table(FILE *f)
{
	if (fflush(f) || ferror(f)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}

static int flush_file(struct output *o)
{
	return flush_table(o->f);
}

int output_flush(struct output *o)
{
	struct pendq *q = o->pq;

	if (o->graph && graph_drain(o, true) < 0)
		return -1;
	if (q) {
		while (q->head != q->tail)
			pend_write(o);
	}
	return flush_file(o);
}

int output_idle(struct output *o)
{
	struct pendq *q = o->pq;
	struct timespec now;
	unsigned long long ns;
	int cpu;

	/* an entry whose CPU said nothing more for GRAPH_HOLD_NS: "func() {" */
	if (o->graph && o->graph->n) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		ns = now.tv_sec * 1000000000ULL + now.tv_nsec;
		if (!o->graph->idle)
			o->graph->idle = ns;
		else if (ns - o->graph->idle >= GRAPH_HOLD_NS && graph_drain(o, true) < 0)
			return -1;
	}
	if (q && q->head != q->tail) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		ns = now.tv_sec * 1000000000ULL + now.tv_nsec;
		for (cpu = 0; cpu < q->ncpu; cpu++) {
			struct pend *p;

			if (q->open[cpu] < 0)
				continue;
			p = pend_at(q, q->open[cpu]);
			if (!p->idle) {
				p->idle = ns;
			} else if (ns - p->idle >= HOLD_NS) {
				p->open = false;
				q->open[cpu] = -1;
			}
		}
		pend_drain(o, 0);
	}
	return flush_file(o);
}

/* ---------------------------------------------------------------- count and hist tables */

#define BAR_WIDTH 52
/* Linear buckets: empty ones between two others are shown up to this many lines. */
#define GAP_LINES_MAX 200

/* A key cell as text; control bytes of strings become '?' so a terminal stays sane. */
static void agg_cell_text(char *buf, size_t size, enum agg_col_type type, const struct agg_cell *c)
{
	size_t i;

	switch (type) {
	case AGG_COL_STR:
		for (i = 0; c->s[i] && i < size - 1; i++)
			buf[i] = (unsigned char)c->s[i] < 0x20 || c->s[i] == 0x7f ? '?' : c->s[i];
		buf[i] = '\0';
		break;
	case AGG_COL_INT:
		snprintf(buf, size, "%lld", (long long)c->v);
		break;
	default:
		snprintf(buf, size, "%llu", (unsigned long long)c->v);
	}
}

/* A frame of a stack key: "name+0xoff" (the kernel's sym-offset form), a marker, or the address. */
static void agg_frame_text(FILE *f, uint64_t addr)
{
	unsigned long long off = 0;
	const char *name;
	bool sym;

	name = frame_name(addr, &off, &sym);
	if (sym)
		fprintf(f, "    %s+0x%llx\n", name, off);
	else if (name)
		fprintf(f, "    %s\n", name);
	else
		fprintf(f, "    0x%016llx\n", (unsigned long long)addr);
}

/* The keys of a group or row that is printed as a block: "k=v k=v" and the frames after. */
static int agg_block_keys(FILE *f, const struct agg_table *t, const struct agg_group *g)
{
	const struct agg_spec *s = t->spec;
	char buf[512];
	int k, n = 0;

	for (k = 0; k < s->nkeys; k++) {
		if (t->type[k] == AGG_COL_STACK)
			continue;
		agg_cell_text(buf, sizeof(buf), t->type[k], &g->key[k]);
		fprintf(f, "%s%s=%s", n++ ? " " : "", s->name[k], buf);
	}
	return n;
}

static void agg_block_frames(FILE *f, const struct agg_table *t, const struct agg_group *g)
{
	size_t i;
	int k;

	for (k = 0; k < t->spec->nkeys; k++) {
		if (t->type[k] != AGG_COL_STACK)
			continue;
		if (!g->key[k].v)
			fputs("    (no stack)\n", f);
		for (i = 0; i < g->key[k].v; i++)
			agg_frame_text(f, g->key[k].frames[i]);
	}
}

static void agg_value_text(char *buf, size_t size, bool sign, uint64_t v)
{
	if (sign)
		snprintf(buf, size, "%lld", (long long)v);
	else
		snprintf(buf, size, "%llu", (unsigned long long)v);
}

static char *i128_text(char *end, __int128 v)
{
	unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;

	*--end = '\0';
	do {
		*--end = '0' + (int)(u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--end = '-';
	return end;
}

/* A log2 bound as bpftrace writes it: 512, 1K, 4M, 16E. */
static void pow2_text(char *buf, size_t size, __int128 v)
{
	static const char sfx[] = "KMGTPE";
	char tmp[48];
	int i = -1;

	while (v >= 1024 && !(v % 1024) && i < 5) {
		v /= 1024;
		i++;
	}
	if (i >= 0)
		snprintf(buf, size, "%s%c", i128_text(tmp + sizeof(tmp), v), sfx[i]);
	else
		snprintf(buf, size, "%s", i128_text(tmp + sizeof(tmp), v));
}

/*
 * A time in ns as a reader wants it: the largest unit it reaches, three
 * significant digits at most (64us, 1.02ms, 2.5s); exact below a microsecond.
 */
static void dur_text(char *buf, size_t size, __int128 ns)
{
	static const struct {
		const char *unit;
		double div;
	} u[] = { { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 } };
	size_t i;

	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		double v = (double)ns / u[i].div;

		if (v >= 1) {
			snprintf(buf, size, v >= 100 ? "%.0f%s" : v >= 10 ? "%.3g%s" : "%.3g%s", v,
				 u[i].unit);
			return;
		}
	}
	snprintf(buf, size, "%lldns", (long long)ns);
}

static void bucket_label(char *buf, size_t size, bool log2, bool dur, const struct agg_bucket *b)
{
	char lo[48], hi[48];

	if (dur) {
		dur_text(lo, sizeof(lo), b->lo);
		dur_text(hi, sizeof(hi), b->hi);
		snprintf(buf, size, "[%s, %s)", b->lo ? lo : "0", hi);
		return;
	}
	if (log2 && b->hi == 0) {
		snprintf(buf, size, "(..., 0)");
	} else if (log2 && b->hi - b->lo == 1) {
		pow2_text(lo, sizeof(lo), b->lo);
		snprintf(buf, size, "[%s]", lo);
	} else if (log2) {
		pow2_text(lo, sizeof(lo), b->lo);
		pow2_text(hi, sizeof(hi), b->hi);
		snprintf(buf, size, "[%s, %s)", lo, hi);
	} else {
		snprintf(buf, size, "[%s, ", i128_text(lo + sizeof(lo), b->lo));
		snprintf(buf + strlen(buf), size - strlen(buf), "%s)",
			 i128_text(hi + sizeof(hi), b->hi));
	}
}

/* The bucket after b, for the empty ones shown between two others. */
static struct agg_bucket bucket_next(bool log2, __int128 unit, const struct agg_bucket *b)
{
	struct agg_bucket n = { .lo = b->hi, .count = 0 };

	if (!log2)
		n.hi = b->hi + (b->hi - b->lo);
	else
		n.hi = n.lo ? n.lo * 2 : unit;
	return n;
}

static void text_hist_group(FILE *f, const struct agg_table *t, const struct agg_group *g)
{
	bool log2 = t->spec->scale == AGG_SCALE_LOG2, dur = t->spec->join != NULL;
	/* the first log2 bucket: [0] for values, [0, 1us) for latency (counted in us) */
	__int128 unit = dur && log2 ? 1000 : 1;
	struct agg_bucket *all, cur;
	size_t n = 0, i, lw = 0, cw = 8, maxc = 0;
	char label[112], num[32], bar[BAR_WIDTH + 1];
	bool fill = true;

	if (!g->nbuckets)
		return;
	if (!log2) {
		__int128 span = (g->buckets[g->nbuckets - 1].hi - g->buckets[0].lo) /
				(g->buckets[0].hi - g->buckets[0].lo);

		fill = span <= GAP_LINES_MAX;
	}
	all = calloc(fill ? (log2 ? 70 : GAP_LINES_MAX + 2) : g->nbuckets, sizeof(*all));
	if (!all)
		return;
	for (i = 0; i < g->nbuckets; i++) {
		if (fill && n) {
			for (cur = bucket_next(log2, unit, &all[n - 1]); cur.lo < g->buckets[i].lo;
			     cur = bucket_next(log2, unit, &cur))
				all[n++] = cur;
		}
		all[n++] = g->buckets[i];
	}
	for (i = 0; i < n; i++) {
		bucket_label(label, sizeof(label), log2, dur, &all[i]);
		if (strlen(label) > lw)
			lw = strlen(label);
		if (all[i].count > maxc)
			maxc = all[i].count;
		if ((size_t)snprintf(num, sizeof(num), "%llu", (unsigned long long)all[i].count) > cw)
			cw = strlen(num);
	}
	for (i = 0; i < n; i++) {
		size_t len = maxc ? (size_t)((unsigned __int128)all[i].count * BAR_WIDTH / maxc) : 0;

		bucket_label(label, sizeof(label), log2, dur, &all[i]);
		memset(bar, '@', len);
		memset(bar + len, ' ', BAR_WIDTH - len);
		bar[BAR_WIDTH] = '\0';
		fprintf(f, "%-*s %*llu |%s|\n", (int)lw, label, (int)cw,
			(unsigned long long)all[i].count, bar);
	}
	free(all);
}

static void text_agg(FILE *f, const struct agg_table *t, const struct output_agg *o)
{
	const struct agg_spec *s = t->spec;
	size_t w[AGG_MAX_KEYS + 1], i;
	bool stack = false;
	char buf[512];
	int k;

	for (k = 0; k < s->nkeys; k++)
		stack |= t->type[k] == AGG_COL_STACK;

	if (o->clear)
		fputs("\033[H\033[2J", f);
	if (o->title)
		fprintf(f, "%s\n", o->title);
	if (o->start) {
		fprintf(f, "%s -> %s", o->start, o->end);
		if (t->unmatched)
			fprintf(f, " (%llu without an end)", (unsigned long long)t->unmatched);
		fputs("\n\n", f);
	}
	if (o->hist || o->start) {
		for (i = 0; i < t->n; i++) {
			const struct agg_group *g = &t->g[i];
			char sum[32], min[32], max[32];

			if (agg_block_keys(f, t, g))
				fputs("  ", f);
			if (o->start) {
				dur_text(sum, sizeof(sum), g->count ? g->sum / g->count : 0);
				dur_text(min, sizeof(min), g->min);
				dur_text(max, sizeof(max), g->max);
				fprintf(f, "count=%llu avg=%s min=%s max=%s\n",
					(unsigned long long)g->count, sum, min, max);
			} else {
				agg_value_text(sum, sizeof(sum), t->vsign, g->sum);
				agg_value_text(min, sizeof(min), t->vsign, g->min);
				agg_value_text(max, sizeof(max), t->vsign, g->max);
				fprintf(f, "count=%llu sum=%s min=%s max=%s\n",
					(unsigned long long)g->count, sum, min, max);
			}
			agg_block_frames(f, t, g);
			text_hist_group(f, t, g);
			if (i + 1 < t->n)
				putc('\n', f);
		}
		if (!t->n)
			fprintf(f, "count=0\n");
	} else if (stack) {
		/* a stack does not fit a column: a block per row, as hist has it */
		for (i = 0; i < t->n; i++) {
			if (agg_block_keys(f, t, &t->g[i]))
				fputs("  ", f);
			fprintf(f, "count=%llu\n", (unsigned long long)t->g[i].count);
			agg_block_frames(f, t, &t->g[i]);
			if (i + 1 < t->n)
				putc('\n', f);
		}
	} else {
		/* column widths: the header and every cell */
		for (k = 0; k < s->nkeys; k++)
			w[k] = strlen(s->name[k]);
		w[k] = 5;
		for (i = 0; i < t->n; i++) {
			for (k = 0; k < s->nkeys; k++) {
				agg_cell_text(buf, sizeof(buf), t->type[k], &t->g[i].key[k]);
				if (strlen(buf) > w[k])
					w[k] = strlen(buf);
			}
			snprintf(buf, sizeof(buf), "%llu", (unsigned long long)t->g[i].count);
			if (strlen(buf) > w[k])
				w[k] = strlen(buf);
		}
		/* keys named as given (a field may be called count), then COUNT */
		for (k = 0; k < s->nkeys; k++)
			fprintf(f, t->type[k] == AGG_COL_STR ? "%-*s  " : "%*s  ", (int)w[k],
				s->name[k]);
		fprintf(f, "%*s\n", (int)w[k], "COUNT");
		for (i = 0; i < t->n; i++) {
			for (k = 0; k < s->nkeys; k++) {
				agg_cell_text(buf, sizeof(buf), t->type[k], &t->g[i].key[k]);
				fprintf(f, t->type[k] == AGG_COL_STR ? "%-*s  " : "%*s  ", (int)w[k],
					buf);
			}
			fprintf(f, "%*llu\n", (int)w[k], (unsigned long long)t->g[i].count);
		}
	}
	if (t->n < t->nall)
		fprintf(f, "... %zu more\n", t->nall - t->n);
}

static void json_agg_value(struct json *j, const char *key, bool sign, uint64_t v)
{
	if (sign)
		json_int(j, key, (int64_t)v);
	else
		json_uint(j, key, v);
}

/* A stack key as the stacks of events are (DESIGN.md): [{"addr":N,"sym":"name","off":N},...] */
static void json_agg_frames(struct json *j, const char *key, const struct agg_cell *c)
{
	unsigned long long off;
	const char *name;
	size_t i;
	bool sym;

	json_arr_open(j, key);
	for (i = 0; i < c->v; i++) {
		off = 0;
		name = frame_name(c->frames[i], &off, &sym);
		json_obj_open(j, NULL);
		json_uint(j, "addr", c->frames[i]);
		json_str(j, "sym", name);
		if (sym)
			json_uint(j, "off", off);
		else
			json_null(j, "off");
		json_obj_close(j);
	}
	json_arr_close(j);
}

static void json_agg(FILE *f, const struct agg_table *t, const struct output_agg *o)
{
	const struct agg_spec *s = t->spec;
	struct json j;
	size_t i, b;
	int k;

	bool groups = o->hist || o->start;

	json_init(&j, f, false);
	json_obj_open(&j, NULL);
	json_str(&j, "type", o->start ? "latency" : o->hist ? "hist" : "count");
	json_uint(&j, "ts_ns", o->ts_ns);
	json_uint(&j, "interval_ns", o->interval_ns);
	if (o->start) {
		json_str(&j, "start", o->start);
		json_str(&j, "end", o->end);
		json_str(&j, "unit", "ns");
	} else if (o->hist) {
		json_str(&j, "field", o->field);
	}
	json_arr_open(&j, "by");
	for (k = 0; k < s->nkeys; k++)
		json_str(&j, NULL, s->name[k]);
	json_arr_close(&j);
	json_arr_open(&j, groups ? "groups" : "rows");
	for (i = 0; i < t->n; i++) {
		const struct agg_group *g = &t->g[i];

		json_obj_open(&j, NULL);
		json_obj_open(&j, "key");
		for (k = 0; k < s->nkeys; k++) {
			if (s->kind[k] == AGG_KEY_COMM && !strcmp(g->key[k].s, "<...>"))
				json_null(&j, s->name[k]);	/* nothing knows it */
			else if (t->type[k] == AGG_COL_STR)
				json_str(&j, s->name[k], g->key[k].s);
			else if (t->type[k] == AGG_COL_STACK)
				json_agg_frames(&j, s->name[k], &g->key[k]);
			else
				json_agg_value(&j, s->name[k], t->type[k] == AGG_COL_INT, g->key[k].v);
		}
		json_obj_close(&j);
		json_uint(&j, "count", g->count);
		if (groups) {
			json_agg_value(&j, "sum", t->vsign, g->sum);
			json_agg_value(&j, "min", t->vsign, g->min);
			json_agg_value(&j, "max", t->vsign, g->max);
			json_arr_open(&j, "buckets");
			for (b = 0; b < g->nbuckets; b++) {
				json_obj_open(&j, NULL);
				json_i128(&j, "min", g->buckets[b].lo);
				json_i128(&j, "max", g->buckets[b].hi);
				json_uint(&j, "count", g->buckets[b].count);
				json_obj_close(&j);
			}
			json_arr_close(&j);
		}
		json_obj_close(&j);
	}
	json_arr_close(&j);
	if (o->start)
		json_uint(&j, "unmatched", t->unmatched);
	json_uint(&j, "lost", t->lost);
	json_obj_close(&j);
	json_end_line(&j);
}

int output_agg(FILE *f, enum output_mode mode, const struct agg_table *t,
	       const struct output_agg *o)
{
	if (mode == OUTPUT_JSON)
		json_agg(f, t, o);
	else
		text_agg(f, t, o);
	return flush_table(f);
}

/* ns as perf prints milliseconds ("%9.3f"): rounded to the microsecond, here without a double */
static void text_ms(FILE *f, const char *pre, uint64_t ns, int width)
{
	uint64_t us = (ns + 500) / 1000;
	char buf[48];

	snprintf(buf, sizeof(buf), "%" PRIu64 ".%03" PRIu64, us / 1000, us % 1000);
	fprintf(f, "%s%*s ms", pre, width, buf);
}

static void text_s(FILE *f, const char *pre, uint64_t ns, int width, bool ns_clock)
{
	char buf[48];

	if (ns_clock)
		snprintf(buf, sizeof(buf), "%" PRIu64 ".%06" PRIu64, ns / 1000000000,
			 ns / 1000 % 1000000);
	else
		snprintf(buf, sizeof(buf), "%" PRIu64, ns);
	fprintf(f, "%s%*s s", pre, width, buf);
}

static void text_rule(FILE *f, int width)
{
	fputc(' ', f);
	while (width--)
		fputc('-', f);
	fputc('\n', f);
}

static void text_sched(FILE *f, const struct sched_table *t, bool ns_clock)
{
	char name[64];
	size_t i;

	fputc('\n', f);
	text_rule(f, 139);
	fprintf(f, "  %-22s|   Runtime ms  | Switches | Avg delay ms    | Max delay ms    |"
		" Max delay start           | Max delay end          |\n", "Task");
	text_rule(f, 139);
	for (i = 0; i < t->n; i++) {
		const struct sched_task *k = &t->tasks[i];

		snprintf(name, sizeof(name), "%s:%d", k->comm ? k->comm : "<...>", k->pid);
		fprintf(f, "  %-22s|", name);
		text_ms(f, "", k->runtime_ns, 10);
		fprintf(f, " |%9" PRIu64 " |", k->switches);
		text_ms(f, " avg:", k->avg_delay_ns, 8);
		text_ms(f, " | max:", k->max_delay_ns, 8);
		text_s(f, " | max start:", k->max_delay_ts_ns, 12, ns_clock);
		text_s(f, " | max end:", k->max_delay_end_ns, 12, ns_clock);
		fputc('\n', f);
	}
	text_rule(f, 139);
	fprintf(f, "  %-22s|", "TOTAL:");
	text_ms(f, "", t->runtime_ns, 10);
	fprintf(f, " |%9" PRIu64 " |\n", t->switches);
	text_rule(f, 51);
	fputc('\n', f);
}

static void json_sched(FILE *f, const struct sched_table *t)
{
	struct json j;
	size_t i;

	json_init(&j, f, false);
	json_obj_open(&j, NULL);
	json_str(&j, "type", "sched");
	json_arr_open(&j, "tasks");
	for (i = 0; i < t->n; i++) {
		const struct sched_task *k = &t->tasks[i];

		json_obj_open(&j, NULL);
		json_int(&j, "pid", k->pid);
		json_str(&j, "comm", k->comm);
		json_uint(&j, "runtime_ns", k->runtime_ns);
		json_uint(&j, "switches", k->switches);
		json_uint(&j, "avg_delay_ns", k->avg_delay_ns);
		json_uint(&j, "max_delay_ns", k->max_delay_ns);
		json_uint(&j, "max_delay_ts_ns", k->max_delay_ts_ns);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_obj_close(&j);
	json_end_line(&j);
}

int output_sched(FILE *f, enum output_mode mode, const struct sched_table *t, bool ns_clock)
{
	if (mode == OUTPUT_JSON)
		json_sched(f, t);
	else
		text_sched(f, t, ns_clock);
	return flush_table(f);
}
