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
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "decode.h"
#include "json.h"
#include "output.h"
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
	bool unknown;		/* "<...>": look again (rate limited) */
	unsigned short tlen, jlen;
	char text[48];
	char json[112];
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
	struct pidinfo pids[PIDCACHE];
};

void output_set_kernel_release(struct output *o, const char *release)
{
	int v = decode_kernel_version(release);

	/* unknown: the newest forms */
	o->lazy_flags = !v || v >= KVER(6, 13);
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
	if (uname(&u) == 0)
		output_set_kernel_release(o, u.release);
	trace_seq_init(&o->seq);
	return o;
}

void output_free(struct output *o)
{
	if (!o)
		return;
	trace_seq_destroy(&o->seq);
	decoder_free(o->dec);
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

/* A string literal, its length known at compile time. */
#define put_lit(f, lit) fwrite_unlocked(lit, 1, sizeof(lit) - 1, f)

/* Decimal digits of v into the end of buf; returns the start. */
static char *fmt_u64(char *end, uint64_t v)
{
	*--end = '\0';
	do {
		*--end = '0' + v % 10;
		v /= 10;
	} while (v);
	return end;
}

static inline void put_u64(FILE *f, uint64_t v)
{
	char buf[24];

	fputs_unlocked(fmt_u64(buf + sizeof(buf), v), f);
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

static const char *comm_of(struct output *o, int pid)
{
	const char *comm = tep_data_comm_from_pid(o->tep, pid);
	struct timespec now;

	/*
	 * A pid the saved_cmdlines we loaded did not know yet: ask again, at
	 * most every 100 ms, as the kernel's own cache keeps growing.
	 */
	if (pid && o->comm_fn && !strcmp(comm, "<...>")) {
		clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
		if ((now.tv_sec - o->comm_last.tv_sec) * 1000000000LL +
		    (now.tv_nsec - o->comm_last.tv_nsec) >= 100000000LL) {
			o->comm_last = now;
			o->comm_fn(o->tep, o->comm_ctx);
			o->comm_gen++;
			comm = tep_data_comm_from_pid(o->tep, pid);
		}
	}
	return comm;
}

static const struct pidinfo *pid_info(struct output *o, int pid)
{
	struct pidinfo *pi = &o->pids[(unsigned)pid % PIDCACHE];
	const char *comm;
	char *buf = NULL;
	size_t len = 0;
	FILE *mf;
	int n;

	if (pi->pid == pid && pi->gen == o->comm_gen && pi->tlen && !pi->unknown)
		return pi;
	comm = comm_of(o, pid);
	pi->pid = pid;
	pi->gen = o->comm_gen;
	pi->unknown = !strcmp(comm, "<...>");
	n = snprintf(pi->text, sizeof(pi->text), "%16s-%-7d ", comm, pid);
	pi->tlen = n < (int)sizeof(pi->text) ? n : (int)sizeof(pi->text) - 1;
	mf = open_memstream(&buf, &len);
	if (mf) {
		fprintf(mf, ",\"pid\":%d,\"comm\":", pid);
		json_write_string(mf, comm, strlen(comm));
		fclose(mf);
	}
	if (buf && len < sizeof(pi->json)) {
		memcpy(pi->json, buf, len + 1);
		pi->jlen = len;
	} else {
		pi->jlen = snprintf(pi->json, sizeof(pi->json), ",\"pid\":%d,\"comm\":null", pid);
	}
	free(buf);
	return pi;
}

/* "%5llu.%06llu: " of the kernel's microsecond-rounded stamp, or "%12llu: " */
static size_t fmt_ts(char *out, unsigned long long ts, bool ns)
{
	char digits[24], *d = digits + sizeof(digits);
	unsigned long long us, sec;
	size_t n = 0, k;
	int i;

	if (!ns)
		return sprintf(out, "%12llu: ", ts);
	us = (ts + 500) / 1000;
	sec = us / 1000000;
	us %= 1000000;
	do {
		*--d = '0' + sec % 10;
		sec /= 10;
	} while (sec);
	k = digits + sizeof(digits) - d;
	for (; k + n < 5; n++)
		out[n] = ' ';
	memcpy(out + n, d, k);
	n += k;
	out[n++] = '.';
	for (i = 5; i >= 0; i--) {
		out[n + i] = '0' + us % 10;
		us /= 10;
	}
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

static int text_record(struct output *o, struct dec_event *de, struct tep_record *rec)
{
	const void *data = rec->data;
	int pid = decode_pid(data);
	const struct pidinfo *pi;
	char hdr[128];
	FILE *f = o->f;
	size_t n;
	int i;

	pi = pid_info(o, pid);
	fwrite_unlocked(pi->text, 1, pi->tlen, f);
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
	decode_lat_flags(decode_flags(data), decode_preempt(data), o->lazy_flags, hdr + n);
	n += 5;
	hdr[n++] = ' ';
	n += fmt_ts(hdr + n, rec->ts, o->ns_clock);
	fwrite_unlocked(hdr, 1, n, f);

	if (!de) {
		fprintf(f, "[UNKNOWN EVENT %d]\n", decode_type(data));
		return 0;
	}
	switch (de->special) {
	case DS_SYS_ENTER:
		fputs_unlocked(de->sysname, f);
		putc_unlocked('(', f);
		for (i = de->first_arg; i < de->nfields; i++) {
			uint64_t v = 0;

			decode_int(&de->fields[i], data, rec->size, &v);
			/* since 6.18 the kernel prints values below 10 in decimal */
			fprintf(f, v < 10 && o->sys_decimal ? "%s%s: %llu" : "%s%s: 0x%llx",
				i > de->first_arg ? ", " : "", de->fields[i].name,
				(unsigned long long)v);
		}
		fputs_unlocked(")\n", f);
		return 0;
	case DS_SYS_EXIT: {
		uint64_t v = 0;

		decode_int(de->ret, data, rec->size, &v);
		fprintf(f, "%s -> 0x%llx\n", de->sysname, (unsigned long long)v);
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
		fputs_unlocked(de->event->name, f);
		fputs_unlocked(": ", f);
	}
	fwrite_unlocked(o->seq.buffer, 1, o->seq.len, f);
	/* ftrace:print carries its own newline, as the kernel prints it */
	if (!o->seq.len || o->seq.buffer[o->seq.len - 1] != '\n' || de->special != DS_FTRACE)
		putc_unlocked('\n', f);
	return 0;
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
			fputs_unlocked("null", f);
		else if (df->sign)
			put_i64(f, (int64_t)v);
		else
			put_u64(f, v);
		return;
	case DK_STR:
		if (!decode_span(df, data, size, &p, &len))
			fputs_unlocked("null", f);
		else
			json_write_string(f, p, len);
		return;
	case DK_BITMASK:
		if (!decode_span(df, data, size, &p, &len)) {
			fputs_unlocked("null", f);
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
			fputs_unlocked("null", f);
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
	fputs_unlocked(df->jkey, f);
	output_json_value(f, df, data, size);
}

static int json_record(struct output *o, struct dec_event *de, struct tep_record *rec)
{
	const void *data = rec->data;
	const struct pidinfo *pi = pid_info(o, decode_pid(data));
	FILE *f = o->f;
	char flags[6];
	bool first = true;
	int i;

	decode_lat_flags(decode_flags(data), decode_preempt(data), o->lazy_flags, flags);
	put_lit(f, "{\"type\":\"event\",\"ts_ns\":");
	put_u64(f, rec->ts);
	put_lit(f, ",\"cpu\":");
	put_i64(f, rec->cpu);
	fwrite_unlocked(pi->json, 1, pi->jlen, f);
	put_lit(f, ",\"flags\":\"");
	fwrite_unlocked(flags, 1, 5, f);
	putc_unlocked('"', f);
	if (!de) {
		fputs_unlocked(",\"id\":", f);
		put_i64(f, decode_type(data));
		fputs_unlocked(",\"system\":null,\"event\":null,\"fields\":{}}\n", f);
		return 0;
	}
	fputs_unlocked(de->jhead, f);
	for (i = 0; i < de->nfields; i++) {
		const struct dec_field *df = &de->fields[i];

		if (!strncmp(df->name, "common_", 7))
			continue;
		if (!first)
			putc_unlocked(',', f);
		first = false;
		json_field(f, df, data, rec->size);
	}
	fputs_unlocked("}}\n", f);
	return 0;
}

int output_record(struct output *o, struct tep_record *rec)
{
	struct dec_event *de;

	if (rec->size < 8)
		return 0;
	de = decoder_event(o->dec, decode_type(rec->data));
	if (o->mode == OUTPUT_JSON)
		json_record(o, de, rec);
	else
		text_record(o, de, rec);
	return ferror(o->f) ? -1 : 0;
}

int output_lost(struct output *o, int cpu, long long count)
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
	return ferror(f) ? -1 : 0;
}

int output_flush(struct output *o)
{
	if (fflush(o->f) || ferror(o->f)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}
