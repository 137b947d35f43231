// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perfetto - decoded records as a Perfetto protobuf trace; see perfetto.h.
 *
 * The protobuf wire format needs only two of its types here: varints
 * (wire type 0: every integer, negative ones as 64-bit two's complement,
 * as int32/int64 fields are encoded) and length-delimited bytes (wire
 * type 2: strings and nested messages).  A nested message is encoded into
 * a buffer of its own and copied behind its length; the per-CPU bundles
 * are written straight to the file behind the packet and bundle headers.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "dat.h"
#include "decode.h"
#include "json.h"
#include "output.h"
#include "perfetto.h"
#include "util.h"

/* Field numbers, from Perfetto's protos/perfetto/... (the .proto file named). */
enum {
	/* trace/trace.proto: Trace */
	TRACE_PACKET = 1,
	/* trace/trace_packet.proto: TracePacket */
	PACKET_FTRACE_EVENTS = 1,
	PACKET_PROCESS_TREE = 2,
	PACKET_TIMESTAMP = 8,
	PACKET_SYSTEM_INFO = 45,
	/* trace/ftrace/ftrace_event_bundle.proto: FtraceEventBundle */
	BUNDLE_CPU = 1,
	BUNDLE_EVENT = 2,
	BUNDLE_LOST_EVENTS = 3,
	/* trace/ftrace/ftrace_event.proto: FtraceEvent */
	EVENT_TIMESTAMP = 1,
	EVENT_PID = 2,
	EVENT_COMMON_FLAGS = 5,
	EVENT_GENERIC = 327,
	/* trace/ftrace/generic.proto: GenericFtraceEvent and its Field */
	GENERIC_EVENT_NAME = 1,
	GENERIC_FIELD = 2,
	FIELD_NAME = 1,
	FIELD_STR = 3,
	FIELD_INT = 4,
	FIELD_UINT = 5,
	/* common/system_info.proto: SystemInfo, Utsname */
	SYSINFO_UTSNAME = 1,
	UTS_SYSNAME = 1,
	UTS_VERSION = 2,
	UTS_RELEASE = 3,
	UTS_MACHINE = 4,
	/* trace/ps/process_tree.proto: ProcessTree, Process */
	TREE_PROCESSES = 1,
	PROCESS_PID = 1,
	PROCESS_CMDLINE = 3,
	PROCESS_CMDLINE_IS_COMM = 9,
	/* trace/trace_packet.proto: TracePacket (function_graph as slices) */
	PACKET_SEQUENCE_ID = 10,	/* trusted_packet_sequence_id */
	PACKET_TRACK_EVENT = 11,
	PACKET_SEQUENCE_FLAGS = 13,
	PACKET_TRACK_DESCRIPTOR = 60,
	SEQ_INCREMENTAL_STATE_CLEARED = 1,
	/* track_event/track_descriptor.proto: TrackDescriptor */
	TRACK_UUID = 1,
	TRACK_NAME = 2,
	/* track_event/track_event.proto: TrackEvent */
	TEVENT_TYPE = 9,
	TEVENT_TRACK_UUID = 11,
	TEVENT_NAME = 23,
	TYPE_SLICE_BEGIN = 1,
	TYPE_SLICE_END = 2,
};

/* The tracks of function_graph's slices: one per task, this plus its pid (32 bits). */
#define GRAPH_TRACK_UUID 0x7470637400000000ULL	/* "tpct" */
#define GRAPH_SEQUENCE 1

enum { WT_VARINT = 0, WT_LEN = 2 };

/*
 * The typed messages: FtraceEvent's field for the event, and for each field
 * of the kernel's format, the message's field of the same name (the
 * messages in trace/ftrace/sched.proto, task.proto and ftrace.proto use the
 * kernel's names).
 */
struct typed_field {
	const char *name;
	uint32_t num;
};

/* sched.proto's three wakeup messages have the same fields */
#define WAKEUP_FIELDS { { "comm", 1 }, { "pid", 2 }, { "prio", 3 }, { "success", 4 }, \
			{ "target_cpu", 5 } }

static const struct typed {
	const char *system, *event;
	uint32_t num;
	struct typed_field f[8];
} typed[] = {
	{ "ftrace", "print", 3, { { "ip", 1 }, { "buf", 2 } } },
	{ "sched", "sched_switch", 4, {
		{ "prev_comm", 1 }, { "prev_pid", 2 }, { "prev_prio", 3 }, { "prev_state", 4 },
		{ "next_comm", 5 }, { "next_pid", 6 }, { "next_prio", 7 } } },
	{ "sched", "sched_wakeup", 17, WAKEUP_FIELDS },
	{ "sched", "sched_waking", 20, WAKEUP_FIELDS },
	{ "sched", "sched_wakeup_new", 114, WAKEUP_FIELDS },
	{ "task", "task_newtask", 235, {
		{ "pid", 1 }, { "comm", 2 }, { "clone_flags", 3 }, { "oom_score_adj", 4 } } },
	{ "task", "task_rename", 236, {
		{ "pid", 1 }, { "oldcomm", 2 }, { "newcomm", 3 }, { "oom_score_adj", 4 } } },
	{ "sched", "sched_process_exec", 237, {
		{ "filename", 1 }, { "pid", 2 }, { "old_pid", 3 } } },
	{ "sched", "sched_process_exit", 238, {
		{ "comm", 1 }, { "pid", 2 }, { "tgid", 3 }, { "prio", 4 } } },
	{ "sched", "sched_process_fork", 239, {
		{ "parent_comm", 1 }, { "parent_pid", 2 },
		{ "child_comm", 3 }, { "child_pid", 4 } } },
	{ "sched", "sched_process_free", 240, { { "comm", 1 }, { "pid", 2 }, { "prio", 3 } } },
};

/* A bundle is written once its events take this many bytes (or at the end). */
#define BUNDLE_BYTES (64 * 1024)
#define MAX_CPUS 65536

/* A growable protobuf message. */
struct pb {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};

static bool pb_reserve(struct pb *b, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (b->oom)
		return false;
	if (b->len + n <= b->cap)
		return true;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + n)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

static void pb_raw(struct pb *b, const void *d, size_t n)
{
	if (n && pb_reserve(b, n)) {
		memcpy(b->p + b->len, d, n);
		b->len += n;
	}
}

static size_t varint_put(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (v & 0x7f) | 0x80;
		v >>= 7;
	}
	out[n++] = v;
	return n;
}

static size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static void pb_varint(struct pb *b, uint64_t v)
{
	if (pb_reserve(b, 10))
		b->len += varint_put(b->p + b->len, v);
}

static void pb_key(struct pb *b, uint32_t field, int wt)
{
	pb_varint(b, (uint64_t)field << 3 | wt);
}

/* Any integer field: signed values arrive sign-extended to 64 bits. */
static void pb_uint(struct pb *b, uint32_t field, uint64_t v)
{
	pb_key(b, field, WT_VARINT);
	pb_varint(b, v);
}

static void pb_bytes(struct pb *b, uint32_t field, const void *d, size_t n)
{
	pb_key(b, field, WT_LEN);
	pb_varint(b, n);
	pb_raw(b, d, n);
}

static void pb_msg(struct pb *b, uint32_t field, const struct pb *m)
{
	if (m->oom)
		b->oom = true;
	pb_bytes(b, field, m->p, m->len);
}

/*
 * A string field holds UTF-8: invalid bytes become U+FFFD, one for each,
 * as in report --json.
 */
static void pb_string(struct pb *b, uint32_t field, const char *str, size_t n)
{
	static const uint8_t repl[] = { 0xef, 0xbf, 0xbd };
	const unsigned char *s = (const unsigned char *)str;
	size_t i, k, extra = 0;

	for (i = 0; i < n; i += k ? k : 1) {
		k = json_utf8_len(s + i, n - i);
		if (!k)
			extra += sizeof(repl) - 1;
	}
	if (!extra) {
		pb_bytes(b, field, s, n);
		return;
	}
	pb_key(b, field, WT_LEN);
	pb_varint(b, n + extra);
	for (i = 0; i < n; i += k ? k : 1) {
		k = json_utf8_len(s + i, n - i);
		if (k)
			pb_raw(b, s + i, k);
		else
			pb_raw(b, repl, sizeof(repl));
	}
}

static void pb_cstr(struct pb *b, uint32_t field, const char *s)
{
	if (s && *s)
		pb_string(b, field, s, strlen(s));
}

/* How one event id is written, built the first time the id shows up. */
struct plan_field {
	const struct dec_field *df;
	uint32_t num;			/* typed: the message's field */
};

struct plan {
	bool built;
	uint32_t num;			/* FtraceEvent's field of the message */
	const char *name;		/* generic: the event's name */
	int nfields;
	struct plan_field *f;
	const struct dec_event *stack;	/* kernel_stack, user_stack: their frames */
};

struct bundle {
	struct pb events;		/* encoded "event" fields */
	bool lost;			/* events were lost before the first of them */
};

/* A task of function_graph records: its track, and the slices begun and not ended. */
#define GRAPH_DEPTH_MAX 64
struct gtask {
	int32_t tid;
	bool used;
	uint8_t nopen;
	int16_t depth[GRAPH_DEPTH_MAX];	/* the depths of the slices open, innermost last */
};

struct perfetto {
	FILE *f;
	struct gtask *gt;		/* open-addressed by tid, a power of two */
	size_t ngt, ngtused;
	bool seq_started;
	struct decoder *dec;
	struct plan *plans;
	int nplans;
	struct bundle *cpu;
	int ncpus;
	struct pb body, ev, field, pkt;	/* scratch messages */
	const char *cmdlines;
	size_t cmdlines_len;
	uint64_t first_ts;
	bool have_ts;
	bool failed;
};

/* One TracePacket whose content is pkt, as a "packet" field of Trace. */
static void write_packet(struct perfetto *p, const struct pb *pkt)
{
	uint8_t hdr[16];
	size_t n;

	if (pkt->oom) {
		p->failed = true;
		errno = ENOMEM;
		return;
	}
	n = varint_put(hdr, TRACE_PACKET << 3 | WT_LEN);
	n += varint_put(hdr + n, pkt->len);
	if (fwrite(hdr, 1, n, p->f) != n || fwrite(pkt->p, 1, pkt->len, p->f) != pkt->len)
		p->failed = true;
}

static void write_system_info(struct perfetto *p, const char *uname)
{
	struct dat_uname u;
	struct pb uts = { 0 }, info = { 0 };

	if (!uname || !dat_uname_parse(uname, &u))
		return;
	pb_cstr(&uts, UTS_SYSNAME, u.sysname);
	pb_cstr(&uts, UTS_VERSION, u.version);
	pb_cstr(&uts, UTS_RELEASE, u.release);
	pb_cstr(&uts, UTS_MACHINE, u.machine);
	pb_msg(&info, SYSINFO_UTSNAME, &uts);
	p->pkt.len = 0;
	pb_msg(&p->pkt, PACKET_SYSTEM_INFO, &info);
	write_packet(p, &p->pkt);
	free(uts.p);
	free(info.p);
}

struct perfetto *perfetto_new(struct tep_handle *tep, FILE *f, const struct perfetto_info *info)
{
	struct perfetto *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->dec = decoder_new(tep);
	if (!p->dec) {
		free(p);
		return NULL;
	}
	p->f = f;
	p->cmdlines = info->cmdlines;
	p->cmdlines_len = info->cmdlines_len;
	write_system_info(p, info->uname);
	return p;
}

void perfetto_set_loader(struct perfetto *p, decode_loader_fn fn, void *ctx)
{
	decoder_set_loader(p->dec, fn, ctx);
}

static void plan_build(struct plan *pl, const struct dec_event *de)
{
	const struct tep_event *ev = de->event;
	const struct typed *t = NULL;

	pl->built = true;
	pl->num = EVENT_GENERIC;
	pl->name = ev->name;
	if (de->special == DS_KSTACK || de->special == DS_USTACK)
		pl->stack = de;
	for (size_t i = 0; i < sizeof(typed) / sizeof(*typed); i++)
		if (!strcmp(ev->system, typed[i].system) && !strcmp(ev->name, typed[i].event))
			t = &typed[i];
	pl->f = calloc(de->nfields ? de->nfields : 1, sizeof(*pl->f));
	if (!pl->f)
		return;
	for (int i = 0; i < de->nfields; i++) {
		const struct dec_field *df = &de->fields[i];
		uint32_t num = 0;

		if (!strncmp(df->name, "common_", 7))
			continue;
		if (t) {
			for (int k = 0; k < 8 && t->f[k].name; k++)
				if (!strcmp(t->f[k].name, df->name))
					num = t->f[k].num;
			/* typed messages hold integers and strings only */
			if (!num || (df->kind != DK_INT && df->kind != DK_STR))
				continue;
		}
		pl->f[pl->nfields].df = df;
		pl->f[pl->nfields].num = num;
		pl->nfields++;
	}
	if (t)
		pl->num = t->num;
}

static struct plan *plan_get(struct perfetto *p, int id, struct dec_event **dep)
{
	struct dec_event *de = decoder_event(p->dec, id);

	*dep = de;
	if (!de)
		return NULL;
	if (id >= p->nplans && !tp_array_grow(&p->plans, &p->nplans, id + 64, sizeof(*p->plans)))
		return NULL;
	if (!p->plans[id].built)
		plan_build(&p->plans[id], de);
	return p->plans[id].f ? &p->plans[id] : NULL;
}

/* A value as report --json writes it, as a string (arrays, bitmasks, bytes). */
static void pb_json_value(struct pb *b, uint32_t field, const struct dec_field *df,
			  const void *data, int size)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);

	if (!mf) {
		b->oom = true;
		return;
	}
	output_json_value(mf, df, data, size);
	if (fclose(mf) == 0 && buf)
		pb_string(b, field, buf, len);
	else
		b->oom = true;
	free(buf);
}

/*
 * A stack record's frames (decode.h keeps them out of the fields: the
 * record holds as many as its size says) as a "caller" field, the JSON
 * array of their addresses.
 */
static void pb_frames(struct perfetto *p, const struct dec_event *de, const struct tep_record *rec)
{
	int n = decode_frames(de, rec->data, rec->size);
	char *buf = NULL;
	size_t len = 0;
	FILE *mf = open_memstream(&buf, &len);

	if (!mf) {
		p->body.oom = true;
		return;
	}
	putc('[', mf);
	for (int i = 0; i < n; i++)
		fprintf(mf, i ? ",%llu" : "%llu",
			(unsigned long long)decode_frame(de, rec->data, i));
	putc(']', mf);
	if (fclose(mf) == 0 && buf) {
		p->field.len = 0;
		pb_cstr(&p->field, FIELD_NAME, "caller");
		pb_string(&p->field, FIELD_STR, buf, len);
		pb_msg(&p->body, GENERIC_FIELD, &p->field);
	} else {
		p->body.oom = true;
	}
	free(buf);
}

static void encode_fields(struct perfetto *p, const struct plan *pl, const struct tep_record *rec)
{
	struct pb *body = &p->body, *fld = &p->field;
	const char *s;
	size_t len;
	uint64_t v;

	body->len = 0;
	if (pl->num == EVENT_GENERIC)
		pb_cstr(body, GENERIC_EVENT_NAME, pl->name);
	for (int i = 0; i < pl->nfields; i++) {
		const struct dec_field *df = pl->f[i].df;

		if (pl->num != EVENT_GENERIC) {
			if (df->kind == DK_INT && decode_int(df, rec->data, rec->size, &v))
				pb_uint(body, pl->f[i].num, v);
			else if (df->kind == DK_STR &&
				 decode_span(df, rec->data, rec->size, &s, &len))
				pb_string(body, pl->f[i].num, s, len);
			continue;
		}
		fld->len = 0;
		pb_cstr(fld, FIELD_NAME, df->name);
		switch (df->kind) {
		case DK_INT:
			if (decode_int(df, rec->data, rec->size, &v))
				pb_uint(fld, df->sign ? FIELD_INT : FIELD_UINT, v);
			break;
		case DK_STR:
			if (decode_span(df, rec->data, rec->size, &s, &len))
				pb_string(fld, FIELD_STR, s, len);
			break;
		default:
			pb_json_value(fld, FIELD_STR, df, rec->data, rec->size);
			break;
		}
		pb_msg(body, GENERIC_FIELD, fld);
	}
	if (pl->stack)
		pb_frames(p, pl->stack, rec);
}

static struct bundle *bundle_get(struct perfetto *p, int cpu)
{
	if (cpu < 0 || cpu >= MAX_CPUS)
		return NULL;
	if (cpu >= p->ncpus) {
		int n = cpu + 1;
		struct bundle *v = realloc(p->cpu, n * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + p->ncpus, 0, (n - p->ncpus) * sizeof(*v));
		p->cpu = v;
		p->ncpus = n;
	}
	return &p->cpu[cpu];
}

/* TracePacket { ftrace_events: FtraceEventBundle { cpu, lost_events, event... } } */
static void bundle_write(struct perfetto *p, int cpu)
{
	struct bundle *b = &p->cpu[cpu];
	struct pb head = { 0 };
	uint8_t hdr[40];
	size_t n, blen, inner;

	if (!b->events.len && !b->lost)
		return;
	pb_uint(&head, BUNDLE_CPU, cpu);
	if (b->lost)
		pb_uint(&head, BUNDLE_LOST_EVENTS, 1);
	if (head.oom || b->events.oom) {
		p->failed = true;
		errno = ENOMEM;
		free(head.p);
		return;
	}
	blen = head.len + b->events.len;
	inner = varint_len(PACKET_FTRACE_EVENTS << 3 | WT_LEN) + varint_len(blen) + blen;
	n = varint_put(hdr, TRACE_PACKET << 3 | WT_LEN);
	n += varint_put(hdr + n, inner);
	n += varint_put(hdr + n, PACKET_FTRACE_EVENTS << 3 | WT_LEN);
	n += varint_put(hdr + n, blen);
	if (fwrite(hdr, 1, n, p->f) != n || fwrite(head.p, 1, head.len, p->f) != head.len ||
	    fwrite(b->events.p, 1, b->events.len, p->f) != b->events.len)
		p->failed = true;
	free(head.p);
	b->events.len = 0;
	b->lost = false;
}

/* "pid comm": the pid, or -1 when the line does not start with digits and a space. */
static long cmdline_pid(const char *s, const char *e, const char **comm)
{
	long pid = 0;

	/* the text comes from the file: bounded, not NUL-terminated */
	if (s >= e || *s < '0' || *s > '9')
		return -1;
	for (; s < e && *s >= '0' && *s <= '9'; s++) {
		pid = pid * 10 + (*s - '0');
		if (pid > INT32_MAX)
			return -1;
	}
	if (s + 1 >= e || *s != ' ')
		return -1;
	*comm = s + 1;
	return pid;
}

/*
 * function_graph as nested slices: each task's entries and returns as
 * TrackEvent slice begins and ends on a track of its own ("function_graph
 * COMM PID"), named by the function (the recording's kallsyms), so that
 * Perfetto draws the call tree.  A return whose entry is not in the trace
 * (tracing began inside the call) ends nothing; a slice whose return was
 * lost ends where the task's next entry or return is not deeper than it.
 * The raw records stay in the ftrace bundles as well.
 */
static struct gtask *gtask_slot(struct gtask *t, size_t n, int32_t tid)
{
	size_t i;

	for (i = ((uint32_t)tid * 2654435761u) & (n - 1); t[i].used && t[i].tid != tid;
	     i = (i + 1) & (n - 1))
		;
	return &t[i];
}

/* The name a task's track gets: its saved_cmdlines name, else its pid alone. */
static void graph_track_name(struct perfetto *p, int32_t tid, char *buf, size_t size)
{
	const char *s = p->cmdlines, *end = s ? s + p->cmdlines_len : NULL, *comm;

	/* the idle tasks, pid 0 on every CPU: a track per CPU (-1 - cpu) */
	if (tid < 0) {
		snprintf(buf, size, "function_graph <idle> CPU %d", -1 - tid);
		return;
	}
	for (; s && s < end; ) {
		const char *nl = memchr(s, '\n', end - s), *e = nl ? nl : end;
		long pid = cmdline_pid(s, e, &comm);

		if (pid == tid) {
			snprintf(buf, size, "function_graph %.*s %d", (int)(e - comm), comm, tid);
			return;
		}
		s = e + 1;
	}
	snprintf(buf, size, "function_graph %d", tid);
}

static struct gtask *gtask_get(struct perfetto *p, int32_t tid)
{
	struct gtask *t;
	char name[64];

	if (p->ngtused * 2 >= p->ngt) {
		size_t n = p->ngt ? p->ngt * 2 : 64, i;
		struct gtask *nt = calloc(n, sizeof(*nt));

		if (!nt)
			return NULL;
		for (i = 0; i < p->ngt; i++)
			if (p->gt[i].used)
				*gtask_slot(nt, n, p->gt[i].tid) = p->gt[i];
		free(p->gt);
		p->gt = nt;
		p->ngt = n;
	}
	t = gtask_slot(p->gt, p->ngt, tid);
	if (t->used)
		return t;
	t->used = true;
	t->tid = tid;
	t->nopen = 0;
	p->ngtused++;
	/* TracePacket { track_descriptor { uuid, name } } before its first slice */
	graph_track_name(p, tid, name, sizeof(name));
	p->body.len = 0;
	pb_uint(&p->body, TRACK_UUID, GRAPH_TRACK_UUID + (uint32_t)tid);
	pb_cstr(&p->body, TRACK_NAME, name);
	p->pkt.len = 0;
	pb_msg(&p->pkt, PACKET_TRACK_DESCRIPTOR, &p->body);
	write_packet(p, &p->pkt);
	return t;
}

/* One slice begin (name: the function) or end on tid's track at ts. */
static void graph_slice(struct perfetto *p, int32_t tid, uint64_t ts, int type, const char *name)
{
	p->body.len = 0;
	pb_uint(&p->body, TEVENT_TYPE, type);
	pb_uint(&p->body, TEVENT_TRACK_UUID, GRAPH_TRACK_UUID + (uint32_t)tid);
	if (name)
		pb_cstr(&p->body, TEVENT_NAME, name);
	p->pkt.len = 0;
	pb_uint(&p->pkt, PACKET_TIMESTAMP, ts);
	pb_uint(&p->pkt, PACKET_SEQUENCE_ID, GRAPH_SEQUENCE);
	if (!p->seq_started) {
		pb_uint(&p->pkt, PACKET_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
		p->seq_started = true;
	}
	pb_msg(&p->pkt, PACKET_TRACK_EVENT, &p->body);
	write_packet(p, &p->pkt);
}

static void graph_record(struct perfetto *p, const struct dec_event *de,
			 const struct tep_record *rec)
{
	const struct dec_field *ff = NULL, *df = NULL;
	int32_t tid = decode_pid(rec->data), depth;
	uint64_t func = 0, d = 0;
	struct gtask *t;
	char name[32];
	const char *sym;
	unsigned long long off;

	for (int i = 0; i < de->nfields; i++) {
		if (!strcmp(de->fields[i].name, "func"))
			ff = &de->fields[i];
		else if (!strcmp(de->fields[i].name, "depth"))
			df = &de->fields[i];
	}
	if (!ff || !df || !decode_int(ff, rec->data, rec->size, &func) ||
	    !decode_int(df, rec->data, rec->size, &d))
		return;
	depth = (int32_t)d;
	if (depth < 0)
		return;
	/* pid 0 runs on every CPU at once: its slices go on a track per CPU */
	if (tid == 0)
		tid = -1 - (int32_t)rec->cpu;
	/* a task's track is made at its first entry: a return alone ends nothing */
	if (de->special == DS_GRAPH_RET) {
		t = p->ngt ? gtask_slot(p->gt, p->ngt, tid) : NULL;
		if (!t || !t->used)
			return;
	} else {
		t = gtask_get(p, tid);
		if (!t)
			return;
	}
	/* returns lost: the slices deeper than this record are over (an entry's too) */
	while (t->nopen && (t->depth[t->nopen - 1] > depth ||
			    (de->special == DS_GRAPH_ENT && t->depth[t->nopen - 1] == depth))) {
		graph_slice(p, tid, rec->ts, TYPE_SLICE_END, NULL);
		t->nopen--;
	}
	if (de->special == DS_GRAPH_RET) {
		/* a return whose entry came before the trace ends nothing */
		if (t->nopen && t->depth[t->nopen - 1] == depth) {
			graph_slice(p, tid, rec->ts, TYPE_SLICE_END, NULL);
			t->nopen--;
		}
		return;
	}
	if (t->nopen == GRAPH_DEPTH_MAX || depth > INT16_MAX)
		return;
	sym = decode_ksym(func, &off);
	if (!sym) {
		snprintf(name, sizeof(name), "0x%llx", (unsigned long long)func);
		sym = name;
	}
	graph_slice(p, tid, rec->ts, TYPE_SLICE_BEGIN, sym);
	t->depth[t->nopen++] = (int16_t)depth;
}

int perfetto_record(struct perfetto *p, struct tep_record *rec)
{
	struct dec_event *de;
	struct bundle *b;
	struct plan *pl;
	struct pb *ev = &p->ev;
	int id;

	if (rec->size < 8)
		return 0;
	b = bundle_get(p, rec->cpu);
	if (!b)
		return 0;
	id = decode_type(rec->data);
	pl = plan_get(p, id, &de);
	ev->len = 0;
	pb_uint(ev, EVENT_TIMESTAMP, rec->ts);
	pb_uint(ev, EVENT_PID, (uint32_t)decode_pid(rec->data));
	pb_uint(ev, EVENT_COMMON_FLAGS, decode_flags(rec->data));
	if (pl) {
		encode_fields(p, pl, rec);
		pb_msg(ev, pl->num, &p->body);
	} else {
		/* an id the file has no format for: its number, as report --json gives it */
		p->field.len = 0;
		pb_cstr(&p->field, FIELD_NAME, "id");
		pb_uint(&p->field, FIELD_UINT, id);
		p->body.len = 0;
		pb_cstr(&p->body, GENERIC_EVENT_NAME, "unknown");
		pb_msg(&p->body, GENERIC_FIELD, &p->field);
		pb_msg(ev, EVENT_GENERIC, &p->body);
	}
	pb_msg(&b->events, BUNDLE_EVENT, ev);
	if (de && (de->special == DS_GRAPH_ENT || de->special == DS_GRAPH_RET))
		graph_record(p, de, rec);
	if (!p->have_ts || rec->ts < p->first_ts) {
		p->first_ts = rec->ts;
		p->have_ts = true;
	}
	if (b->events.len >= BUNDLE_BYTES)
		bundle_write(p, rec->cpu);
	if (b->events.oom) {
		p->failed = true;
		errno = ENOMEM;
	}
	return p->failed || ferror(p->f) ? -1 : 0;
}

bool perfetto_is_stack(struct perfetto *p, const struct tep_record *rec)
{
	struct dec_event *de;

	if (rec->size < 8)
		return false;
	de = decoder_event(p->dec, decode_type(rec->data));
	return de && (de->special == DS_KSTACK || de->special == DS_USTACK);
}

int perfetto_lost(struct perfetto *p, int cpu)
{
	struct bundle *b = bundle_get(p, cpu);

	if (!b)
		return 0;
	/* lost_events says: lost before this bundle's first event */
	bundle_write(p, cpu);
	b->lost = true;
	return p->failed || ferror(p->f) ? -1 : 0;
}

/* ProcessTree: a process for each "pid comm" line of saved_cmdlines. */
static void write_process_tree(struct perfetto *p)
{
	const char *s = p->cmdlines, *end;
	struct pb tree = { 0 }, proc = { 0 };

	if (!s)
		return;
	for (end = s + p->cmdlines_len; s < end; ) {
		const char *nl = memchr(s, '\n', end - s), *e = nl ? nl : end, *comm;
		long pid = cmdline_pid(s, e, &comm);

		if (pid > 0) {
			proc.len = 0;
			pb_uint(&proc, PROCESS_PID, pid);
			pb_string(&proc, PROCESS_CMDLINE, comm, e - comm);
			pb_uint(&proc, PROCESS_CMDLINE_IS_COMM, 1);
			pb_msg(&tree, TREE_PROCESSES, &proc);
		}
		s = e + 1;
	}
	if (tree.len) {
		p->pkt.len = 0;
		pb_uint(&p->pkt, PACKET_TIMESTAMP, p->first_ts);
		pb_msg(&p->pkt, PACKET_PROCESS_TREE, &tree);
		write_packet(p, &p->pkt);
	}
	free(tree.p);
	free(proc.p);
}

int perfetto_finish(struct perfetto *p)
{
	for (int c = 0; c < p->ncpus; c++)
		bundle_write(p, c);
	write_process_tree(p);
	if (fflush(p->f) || ferror(p->f) || p->failed) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}

void perfetto_free(struct perfetto *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->nplans; i++)
		free(p->plans[i].f);
	for (int c = 0; c < p->ncpus; c++)
		free(p->cpu[c].events.p);
	free(p->plans);
	free(p->cpu);
	free(p->gt);
	free(p->body.p);
	free(p->ev.p);
	free(p->field.p);
	free(p->pkt.p);
	decoder_free(p->dec);
	free(p);
}
