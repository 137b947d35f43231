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

#include "comm.h"
#include "decode.h"
#include "errname.h"
#include "json.h"
#include "output.h"
#include "output_local.h"
#include "util.h"

void output_set_kernel_release(struct output *o, const char *release)
{
	int v = decode_kernel_version(release);

	/* unknown: the newest forms */
	o->lazy_flags = !v || v >= KVER(6, 13);
	memset(o->flagtxt, 0, sizeof(o->flagtxt));
	o->sys_decimal = !v || v >= KVER(6, 18);
}

/* pid's columns (out_pid_info) are made again at its next record */
static void forget(void *ctx, int pid)
{
	struct output *o = ctx;
	struct pidinfo *pi = &o->pids[(unsigned)pid % PIDCACHE];

	if (pi->pid == pid) {
		pi->tlen = 0;
		pi->ready = false;
	}
}

struct output *output_new(struct tep_handle *tep, FILE *f, enum output_mode mode)
{
	struct output *o = calloc(1, sizeof(*o));
	struct utsname u;
	const char *env;

	if (!o)
		return NULL;
	o->dec = decoder_new(tep);
	o->lbuf = malloc(LINE_ROOM);
	if (!o->dec || !o->lbuf) {
		if (o->dec)
			decoder_free(o->dec);
		free(o->lbuf);
		free(o);
		return NULL;
	}
	o->tep = tep;
	o->f = f;
	o->tcpu = -1;
	o->straight = true;
	o->flast = o->flagtxt;
	o->mode = mode;
	o->ns_clock = true;
	o->learn.forget = forget;
	o->learn.ctx = o;
	if (uname(&u) == 0)
		output_set_kernel_release(o, u.release);
	trace_seq_init(&o->seq);
	env = getenv("TPCTL_TEXTPLAN");
	o->tplan_mode = !env ? 1 : !strcmp(env, "0") ? 0 : !strcmp(env, "check") ? 2 : 1;
	return o;
}

void output_set_loader(struct output *o,
		       int (*fn)(struct tep_handle *tep, int id, void *ctx), void *ctx)
{
	decoder_set_loader(o->dec, fn, ctx);
}

void output_set_comm_loader(struct output *o, comm_load_fn fn, void *ctx)
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
 * The digits of a time stamp at w, returns the end: the digits above the
 * last eight are those of the last stamp, mostly, and are kept as text.
 */
static char *fmt_ts_digits(struct output *o, char *w, uint64_t ts)
{
	/* ts_hi_len set: ts_hi is the stamp's value without its last eight digits */
	uint64_t lo = ts - o->ts_hi;
	char num[24], *d;

	if (lo >= 100000000 || !o->ts_hi_len) {
		uint64_t hi = ts / 100000000;

		if (!hi) {
			o->ts_hi_len = 0;
			return dec_u64(w, ts);
		}
		d = fmt_u64(num + sizeof(num), hi);
		o->ts_hi_len = num + sizeof(num) - 1 - d;
		memcpy(o->ts_hi_txt, d, o->ts_hi_len);
		o->ts_hi = hi * 100000000;
		lo = ts - o->ts_hi;
	}
	w = copy16(w, o->ts_hi_txt, o->ts_hi_len);
	fmt_8(w, lo);
	return w + 8;
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
	return (now->tv_sec - o->comm_last.tv_sec) * (long long)TP_NS_PER_S +
	       (now->tv_nsec - o->comm_last.tv_nsec) >= 100000000LL;
}

const char *out_comm_of(struct output *o, int pid)
{
	const char *comm = comm_saved_find(&o->names, pid);
	struct timespec now;

	if (!comm) {
		decode_lock();
		comm = tep_data_comm_from_pid(o->tep, pid);
		decode_unlock();
	}
	/*
	 * a pid the saved_cmdlines we loaded did not know yet: ask again, into
	 * handles of their own (comm.h: the session's forgets no pid)
	 */
	if (pid && !strcmp(comm, "<...>") && comm_retry_due(o, &now)) {
		o->comm_last = now;
		if (!comm_saved_reload(&o->names, o->comm_fn, o->comm_ctx)) {
			o->comm_gen++;
			for (size_t i = 0; i < PIDCACHE; i++)
				o->pids[i].ready = false;
			comm = comm_saved_find(&o->names, pid);
			if (!comm)
				comm = "<...>";
		}
	}
	return comm;
}

_Static_assert(COMM_NAMES <= OUTPUT_NAMES, "output_names() gives what comm_names_of() finds");

int output_names(struct output *o, const struct dec_event *de, const struct tep_record *rec,
		 struct output_name *v)
{
	const struct comm_plan *pl;
	struct comm_name c[COMM_NAMES];
	int i, n;

	if (!de || o->mode != OUTPUT_JSON || !(pl = comm_teaching(&o->learn, de)))
		return 0;
	n = comm_names_of(pl, de, rec->data, rec->size, c);
	for (i = 0; i < n; i++)
		v[i] = (struct output_name){ c[i].pid, c[i].name, c[i].len };
	return n;
}

void output_learn(struct output *o, int pid, const char *name, size_t len)
{
	comm_learn(&o->learn, pid, name, len);
}

int output_write_split(struct output *o, int pid, unsigned long long ts, const char *line,
		       size_t hole, size_t len)
{
	const struct pidinfo *pi = out_pid_info(o, pid, ts);
	FILE *f = o->f;

	put_mem(f, line, hole);
	if (o->mode == OUTPUT_JSON)
		put_mem(f, pi->json, pi->jlen);
	else
		put_mem(f, pi->text, pi->tlen);
	put_mem(f, line + hole, len - hole);
	return ferror_unlocked(f) ? -1 : 0;
}

int output_write_line(struct output *o, const char *line, size_t len)
{
	put_mem(o->f, line, len);
	return ferror_unlocked(o->f) ? -1 : 0;
}

struct dec_event *output_event(struct output *o, const struct tep_record *rec)
{
	return decoder_event(o->dec, decode_type(rec->data));
}

unsigned output_hole(const struct output *o)
{
	return o->hole;
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
	const struct comm_task *l = comm_learned(&o->learn, pid);
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

const struct pidinfo *out_pid_info_slow(struct output *o, int pid, unsigned long long ts)
{
	char pbuf[COMM_MAX + 2];
	struct pidinfo *pi = &o->pids[(unsigned)pid % PIDCACHE];
	const char *comm;
	char *buf = NULL;
	size_t len = 0;
	struct timespec now;
	FILE *mf;
	int n;

	/*
	 * an unknown name is asked for again, but the clock is not read per
	 * record (a learned name that changed cleared tlen: forget())
	 */
	if (pi->pid == pid && pi->gen == o->comm_gen && pi->tlen &&
	    (!pi->unknown || ++o->retry_tick % RETRY_EVERY || !comm_retry_due(o, &now))) {
		pi->ready = !pi->unknown;
		return pi;
	}
	comm = out_comm_of(o, pid);
	pi->pid = pid;
	pi->gen = o->comm_gen;
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
	pi->ready = !pi->unknown;
	return pi;
}

struct dec_event *output_prepare(struct output *o, const struct tep_record *rec,
				 const char **cols, unsigned *len, bool *special)
{
	int id = decode_type(rec->data), pid = decode_pid(rec->data);
	const struct pidinfo *pi;
	struct dec_event *de;

	if (o->prep_de && id == o->prep_id && pid == o->prep_pid && o->prep_gen == o->comm_gen &&
	    o->prep_lgen == o->learn.gen) {
		pi = o->prep_pi;
		*special = false;
		de = o->prep_de;
		goto out;
	}
	o->prep_de = NULL;
	de = decoder_event(o->dec, id);
	*special = de && de->special >= DS_FUNC;
	if (de && o->mode == OUTPUT_JSON)
		comm_learn_names(&o->learn, de, rec->data, rec->size);
	pi = out_pid_info(o, pid, rec->ts);
	if (de && !*special && !pi->unknown &&
	    (o->mode != OUTPUT_JSON || !comm_teaching(&o->learn, de))) {
		o->prep_de = de;
		o->prep_pi = pi;
		o->prep_id = id;
		o->prep_pid = pid;
		o->prep_gen = o->comm_gen;
		o->prep_lgen = o->learn.gen;
	}
out:
	*cols = o->mode == OUTPUT_JSON ? pi->json : pi->text;
	*len = o->mode == OUTPUT_JSON ? pi->jlen : pi->tlen;
	return de;
}

/* The kernel's flags column ("dNs.."): of the record's flags and preempt bytes. */
static inline const char *lat_flags(struct output *o, const void *data)
{
	struct flagtxt *e;
	uint16_t key;

	memcpy(&key, (const char *)data + 2, 2);
	/* (mostly the last record's) */
	if (o->flast->key == key + 1U)
		return o->flast->txt;
	e = o->flast = &o->flagtxt[(key ^ key >> 8) & (FLAGTXT - 1)];
	if (e->key != key + 1U) {
		decode_lat_flags(decode_flags(data), decode_preempt(data), o->lazy_flags, e->txt);
		e->key = key + 1U;
	}
	return e->txt;
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
	/* (out is a line's room: copy16 may write past the text) */
	copy16(out, o->sec_txt, o->sec_len);
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

	if (rec->size < de->fields_end)
		return false;
	for (i = 0; de->dynamic && i < de->nfields; i++) {
		const struct dec_field *f = &de->fields[i];

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

/* The slot of event id's plan, built the first time it is asked for; NULL: plans are off. */
static const struct tplan_slot *text_slot_new(struct output *o, const struct dec_event *de)
{
	struct tplan_slot *ts;
	int id = de->id;

	if (!o->tplan_mode || id < 0 || id > 0xffff)
		return NULL;
	if (id >= o->ntplans && !tp_array_grow(&o->tplans, &o->ntplans, id + 64,
						 sizeof(*o->tplans)))
		return NULL;
	ts = &o->tplans[id];
	if (!ts->tried) {
		ts->tried = true;
		/* the symbol conversions' table grows as formats load (output_pool.h) */
		decode_lock();
		ts->plan = textplan_build(de->event);
		decode_unlock();
		if (ts->plan) {
			ts->fixed = textplan_bound(ts->plan, 0);
			ts->dyn = textplan_bound(ts->plan, 1) - ts->fixed;
		}
	}
	return ts;
}

static inline const struct tplan_slot *text_slot(struct output *o, const struct dec_event *de)
{
	if ((unsigned)de->id < (unsigned)o->ntplans && o->tplans[de->id].tried)
		return &o->tplans[de->id];
	return text_slot_new(o, de);
}

/* The plan of event id; NULL: libtraceevent's. */
static const struct textplan *text_plan(struct output *o, const struct dec_event *de)
{
	const struct tplan_slot *ts = text_slot(o, de);

	return ts ? ts->plan : NULL;
}

/*
 * The event's own text (after "name: "): by its plan, else by
 * libtraceevent; with TPCTL_TEXTPLAN=check both, and a difference said on
 * stderr.  false: nothing to write (out of memory).
 */
static bool print_info(struct output *o, struct dec_event *de, struct tep_record *rec,
		       const char **text, size_t *len)
{
	const struct textplan *p = text_plan(o, de);

	if (p) {
		o->tbuf.len = 0;
		if (textplan_run(p, rec->data, rec->size, &o->tbuf) < 0)
			p = NULL;
	}
	if (!p || o->tplan_mode == 2) {
		trace_seq_reset(&o->seq);
		decode_lock();
		tep_print_event(o->tep, &o->seq, rec, "%s", TEP_PRINT_INFO);
		decode_unlock();
		trace_seq_terminate(&o->seq);
		if (p && (o->seq.len != o->tbuf.len ||
			  memcmp(o->seq.buffer, o->tbuf.p, o->tbuf.len)))
			fprintf(stderr, "tpctl: text plan of %s:%s differs\n  plan: %.*s\n  tep:  %s\n",
				de->event->system, de->event->name, (int)o->tbuf.len, o->tbuf.p,
				o->seq.buffer);
		if (o->seq.state != TRACE_SEQ__GOOD)
			return false;
		*text = o->seq.buffer;
		*len = o->seq.len;
		return true;
	}
	*text = o->tbuf.p;
	*len = o->tbuf.len;
	return true;
}

int out_text_record(struct output *o, struct dec_event *de, struct tep_record *rec)
{
	const struct tplan_slot *tp;
	const char *text;
	const void *data = rec->data;
	const struct pidinfo *pi;
	FILE *f = o->f;
	char *w;
	size_t n;
	int i;

	/* the head: the task's columns, "[%03d] ", the flags, the stamp */
	w = line_begin(o, 96 + (o->cols ? o->cols_len : sizeof(pi->text)));
	if (o->cols) {
		o->hole = 0;
		memcpy(w, o->cols, o->cols_len);
		w += o->cols_len;
	} else {
		pi = out_pid_info(o, decode_pid(data), rec->ts);
		w = copy16(w, pi->text, pi->tlen);
	}
	/* consecutive records mostly come from one CPU: its column is kept */
	if (rec->cpu == o->tcpu) {
		memcpy(w, o->tcpu_txt, 8);
		w += 6;
	} else if (rec->cpu >= 0 && rec->cpu < 1000) {
		w[0] = '[';
		w[1] = '0' + rec->cpu / 100;
		w[2] = '0' + rec->cpu / 10 % 10;
		w[3] = '0' + rec->cpu % 10;
		w[4] = ']';
		w[5] = ' ';
		memcpy(o->tcpu_txt, w, 6);
		o->tcpu = rec->cpu;
		w += 6;
	} else {
		w += sprintf(w, "[%03d] ", rec->cpu);
	}
	memcpy(w, lat_flags(o, data), 8);
	w[5] = ' ';
	w += 6;
	w += fmt_ts(o, w, rec->ts, o->ns_clock);

	if (!de) {
		line_end(o, w);
		fprintf(f, "[UNKNOWN EVENT %d]\n", decode_type(data));
		return 0;
	}
	switch (de->special) {
	case DS_SYS_ENTER:
		w = line_need(o, w, de->sysname_len + 1);
		w = copy16(w, de->sysname, de->sysname_len);
		*w++ = '(';
		for (i = de->first_arg; i < de->nfields; i++) {
			const struct dec_field *df = &de->fields[i];
			size_t len = strlen(df->name);
			uint64_t v = 0;

			if (df == de->ret)
				continue;
			if (df->kind == DK_STR) {
				line_end(o, w);
				text_string(o, de, df, rec, i > de->first_arg);
				w = line_begin(o, 0);
				continue;
			}
			/* the kernel's number: the bytes stored, not the declared type's */
			decode_stored(df, data, rec->size, &v);
			if (len > LINE_ROOM / 2) {
				/* (a name longer than the line's room: a damaged format) */
				line_end(o, w);
				fprintf(f, "%s%s: ", i > de->first_arg ? ", " : "", df->name);
				w = line_begin(o, 24);
			} else {
				w = line_need(o, w, len + 24);
				if (i > de->first_arg)
					w = lit_at(w, ", ");
				memcpy(w, df->name, len);
				w = lit_at(w + len, ": ");
			}
			/* since 6.18 the kernel prints values below 10 in decimal */
			if (v < 10 && o->sys_decimal)
				*w++ = '0' + v;
			else
				w = hex0x_at(w, v);
		}
		w = line_need(o, w, 32);
		*w++ = ')';
		/* a --strings event is written at the syscall's exit: its return value */
		if (de->ret) {
			uint64_t v = 0;

			decode_int(de->ret, data, rec->size, &v);
			w = hex0x_at(lit_at(w, " -> "), v);
		}
		*w++ = '\n';
		line_end(o, w);
		return 0;
	case DS_SYS_EXIT: {
		uint64_t v = 0;

		decode_int(de->ret, data, rec->size, &v);
		w = line_need(o, w, de->sysname_len + 32);
		w = copy16(w, de->sysname, de->sysname_len);
		w = hex0x_at(lit_at(w, " -> "), v);
		*w++ = '\n';
		line_end(o, w);
		return 0;
	}
	case DS_KSTACK:
	case DS_USTACK:
		line_end(o, w);
		text_stack(o, de, rec);
		return 1;
	case DS_FUNC: {
		uint64_t parent = ffield(de, 1, data, rec->size);

		line_end(o, w);
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
		line_end(o, w);
		fprintf(f, "%s: [damaged record]\n", de->event->name);
		return 0;
	}
	/* the plan writes in place when its longest text fits the line's room */
	if (o->tplan_mode == 1 && (tp = text_slot(o, de)) && tp->plan &&
	    (n = de->tname_len + tp->fixed + (size_t)tp->dyn * (unsigned)rec->size + 1) <=
	    LINE_ROOM - LINE_SLACK) {
		char *start;

		w = line_need(o, w, n);
		start = w = copy16(w, de->tname, de->tname_len);
		w = textplan_write(tp->plan, data, rec->size, w);
		/* ftrace:print carries its own newline, as the kernel prints it */
		if (w == start || w[-1] != '\n' || de->special != DS_FTRACE)
			*w++ = '\n';
		line_end(o, w);
		return 0;
	}
	/* (print_info writes nothing to o->f: the line stays open) */
	if (!print_info(o, de, rec, &text, &n)) {
		line_end(o, w);
		return 0;
	}
	if (de->tname_len + n + 2 <= LINE_ROOM - LINE_SLACK) {
		w = line_need(o, w, de->tname_len + n + 2);
		w = copy16(w, de->tname, de->tname_len);
		memcpy(w, text, n);
		w += n;
	} else {
		line_end(o, w);
		put_mem(f, de->tname, de->tname_len);
		put_mem(f, text, n);
		w = line_begin(o, 0);
	}
	/* ftrace:print carries its own newline, as the kernel prints it */
	if (!n || text[n - 1] != '\n' || de->special != DS_FTRACE)
		*w++ = '\n';
	line_end(o, w);
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
void out_json_frames(struct output *o, const struct dec_event *de, const void *data,
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

/* The errno name of a syscall's return value: ,"errno":"ENOENT", null for none (DEC_JERR_MAX bytes). */
static char *json_errno_at(char *w, const struct dec_field *ret, const void *data, int size)
{
	const char *e = NULL;
	uint64_t v;
	size_t n;

	if (decode_int(ret, data, size, &v))
		e = errname_ret((int64_t)v);
	if (!e)
		return lit_at(w, ",\"errno\":null");
	n = strnlen(e, ERRNAME_LEN_MAX);
	w = lit_at(w, ",\"errno\":\"");
	memcpy(w, e, n);
	w += n;
	*w++ = '"';
	return w;
}

/*
 * The fields of a record that holds them all when every one is a number or
 * a fixed array (de->jfast): within one bound, no check each.
 */
static inline char *json_fields_fast(struct output *o, const struct dec_event *de,
				     const struct tep_record *rec, char *w)
{
	const void *data = rec->data;
	int i;

	_Static_assert(DEC_JFAST_MAX <= LINE_ROOM - LINE_SLACK, "a jfast line fits the room");
	w = line_need(o, w, de->jhead_len + de->jmax);
	w = copy16(w, de->jhead, de->jhead_len);
	for (i = 0; i < de->nfields; i++) {
		const struct dec_field *df = &de->fields[i];
		const char *p = (const char *)data + df->offset;
		char *e;

		w = i ? copy16(w, df->jkeyc, df->jkey_len + 1) : copy16(w, df->jkey, df->jkey_len);
		if (df->kind == DK_INT && df->size == 4) {
			/* (pids, priorities, CPUs: the common width, 32-bit digits) */
			uint32_t v;

			memcpy(&v, p, 4);
			w = df->sign ? dec_i32(w, (int32_t)v) : dec_u32(w, v);
		} else if (df->kind == DK_INT) {
			uint64_t v = decode_elem(p, df->size, df->sign);

			w = df->sign ? dec_i64(w, (int64_t)v) : dec_u64(w, v);
		} else if ((e = json_plain_at(w, p, df->size))) {
			w = e;
		} else {
			/* to be escaped: through stdio */
			line_end(o, w);
			output_json_value(o->f, df, data, rec->size);
			w = line_begin(o, de->jmax);
		}
	}
	if (de->jerr)
		w = json_errno_at(w, de->jerr, data, rec->size);
	return w;
}

/* The fields of a record one by one, each checked against its length (ints: no need for numbers). */
static char *json_fields(struct output *o, const struct dec_event *de, const struct tep_record *rec,
			 char *w, bool ints)
{
	const void *data = rec->data;
	FILE *f = o->f;
	bool first = true;
	int i;

	if (de->jhead_len <= LINE_ROOM - LINE_SLACK) {
		w = line_need(o, w, de->jhead_len);
		w = copy16(w, de->jhead, de->jhead_len);
	} else {
		line_end(o, w);
		put_mem(f, de->jhead, de->jhead_len);
		w = line_begin(o, 0);
	}
	for (i = 0; i < de->nfields; i++) {
		const struct dec_field *df = &de->fields[i];
		size_t key = df->jkey_len + 1, n = 0;
		const char *p = NULL;
		uint64_t v;
		char *e;
		bool ok;

		if (df->common)
			continue;
		/* a string the kernel could not fetch (--strings) */
		if (de->strings && decode_str_fault(df, data, rec->size)) {
			o->faults++;
			w = line_need(o, w, key + 4);
			if (!first)
				*w++ = ',';
			first = false;
			w = copy16(w, df->jkey, df->jkey_len);
			w = lit_at(w, "null");
			continue;
		}
		switch (df->kind) {
		case DK_INT:
			w = line_need(o, w, key + 21);
			if (!first)
				*w++ = ',';
			first = false;
			w = copy16(w, df->jkey, df->jkey_len);
			if (!ints && !decode_int(df, data, rec->size, &v)) {
				w = lit_at(w, "null");
				continue;
			}
			if (ints)
				v = decode_elem((const char *)data + df->offset, df->size, df->sign);
			w = df->sign ? dec_i64(w, (int64_t)v) : dec_u64(w, v);
			continue;
		case DK_STR:
			ok = decode_area(df, data, rec->size, &p, &n);
			if (!ok)
				n = 0;
			if (key + n + 6 > LINE_ROOM - LINE_SLACK)
				break;
			w = line_need(o, w, key + n + 6);
			if (!first)
				*w++ = ',';
			first = false;
			w = copy16(w, df->jkey, df->jkey_len);
			if (!ok) {
				w = lit_at(w, "null");
				continue;
			}
			if ((e = json_plain_at(w, p, n))) {
				w = e;
				continue;
			}
			/* to be escaped: through stdio */
			line_end(o, w);
			output_json_value(f, df, data, rec->size);
			w = line_begin(o, 0);
			continue;
		default:
			break;
		}
		/* what is not written in place: through stdio */
		line_end(o, w);
		if (!first)
			putc_unlocked(',', f);
		first = false;
		put_mem(f, df->jkey, df->jkey_len);
		output_json_value(f, df, data, rec->size);
		w = line_begin(o, 0);
	}
	if (de->jerr) {
		w = line_need(o, w, DEC_JERR_MAX);
		w = json_errno_at(w, de->jerr, data, rec->size);
	}
	return w;
}

/*
 * One record's object up to and including its "fields": the caller closes
 * it, or with close (an event, no stack to add), the object and its line
 * are closed here.
 */
static void json_record(struct output *o, struct dec_event *de, const struct tep_record *rec,
			bool close)
{
	const void *data = rec->data;
	const struct pidinfo *pi;
	FILE *f = o->f;
	char *w;
	/* every field lies inside the record: no check per integer field */
	bool ints = de && rec->size >= de->fields_end;

	/* (the last event that taught no names is known without a call) */
	if (!o->cols && de && de != o->learn.nonames)
		comm_learn_names(&o->learn, de, data, rec->size);
	pi = o->cols ? NULL : out_pid_info(o, decode_pid(data), rec->ts);
	/* the head: at most 96 bytes and the task's columns */
	w = line_begin(o, 96 + (o->cols ? o->cols_len : sizeof(pi->json)));
	w = lit_at(w, "{\"type\":\"event\",\"ts_ns\":");
	w = fmt_ts_digits(o, w, rec->ts);
	w = lit_at(w, ",\"cpu\":");
	w = dec_i32(w, rec->cpu);
	if (o->cols) {
		o->hole = w - o->lstart;
		memcpy(w, o->cols, o->cols_len);
		w += o->cols_len;
	} else {
		w = copy16(w, pi->json, pi->jlen);
	}
	w = lit_at(w, ",\"flags\":\"");
	memcpy(w, lat_flags(o, data), 8);
	w[5] = '"';
	w += 6;
	if (!de) {
		line_end(o, w);
		put_str(f, ",\"id\":");
		put_i64(f, decode_type(data));
		put_str(f, ",\"system\":null,\"event\":null,\"fields\":{}");
		if (close)
			put_lit(f, "}\n");
		return;
	}
	/* numbers and fixed arrays: the fields within one bound, no check each */
	if (de->jfast && ints)
		w = json_fields_fast(o, de, rec, w);
	else
		w = json_fields(o, de, rec, w, ints);
	*w++ = '}';
	if (close) {
		*w++ = '}';
		*w++ = '\n';
	}
	line_end(o, w);
}

void out_json_open(struct output *o, struct dec_event *de, const struct tep_record *rec)
{
	json_record(o, de, rec, false);
}

int out_json_event(struct output *o, struct dec_event *de, const struct tep_record *rec)
{
	json_record(o, de, rec, true);
	return 0;
}

int out_json_record(struct output *o, struct dec_event *de, struct tep_record *rec)
{
	if (de && de->special < DS_KSTACK)
		return out_json_event(o, de, rec);
	out_json_open(o, de, rec);
	/* a stack that follows no event (no stacks expected, or its event was not read) */
	if (de && de->special >= DS_KSTACK) {
		out_json_frames(o, de, rec->data, rec->size);
		put_lit(o->f, "}\n");
		return 1;
	}
	put_lit(o->f, "}\n");
	return 0;
}

void out_lost_write(struct output *o, int cpu, long long count)
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
