// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * output_ftrace - function and function_graph records (see output_local.h).
 *
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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode.h"
#include "json.h"
#include "output_local.h"

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

/* "%ps" of a function the graph tracer recorded: its name, a module's after it */
static void put_func(FILE *f, unsigned long long addr)
{
	unsigned long long off;
	const char *name = decode_ksym(addr, &off), *mod;

	if (!name) {
		fprintf(f, "0x%llx", addr);
		return;
	}
	put_str(f, name);
	mod = decode_ksym_module(addr);
	if (mod) {
		put_lit(f, " [");
		put_str(f, mod);
		putc_unlocked(']', f);
	}
}

/* The task as the graph's context-switch line centres it: comm (7 chars at most)-pid in 14. */
static void graph_proc(struct output *o, int pid)
{
	char buf[32];
	int len, sp, i;

	len = snprintf(buf, sizeof(buf), "%.7s-%d", out_comm_of(o, pid), pid);
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
void out_text_graph(struct output *o, struct dec_event *de, const struct tep_record *rec,
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
void out_json_function(struct output *o, struct dec_event *de, const struct tep_record *rec,
		       const struct tep_record *leaf)
{
	const struct pidinfo *pi = out_pid_info(o, decode_pid(rec->data), rec->ts);
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

int out_graph_push(struct output *o, struct dec_event *de, const struct tep_record *rec)
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

struct graph *out_graph_new(void)
{
	struct graph *g = calloc(1, sizeof(*g));

	if (g)
		g->width = graph_width();
	return g;
}

void out_graph_free(struct graph *g)
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
