// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * output_record - output_record(): each record to the printer that writes
 * it, in the order it came: a function_graph entry waits for its CPU's next
 * record (output_ftrace.c), a JSON event for its stacks (output_stack.c);
 * lost markers in their place, flush and idle points; output_free.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "decode.h"
#include "json.h"
#include "output_local.h"
#include "util.h"

int output_set_stacks(struct output *o, bool hold)
{
	if (!hold || o->mode != OUTPUT_JSON) {
		if (o->pq)
			output_flush(o);
		out_pendq_free(o->pq);
		o->pq = NULL;
		o->straight = !o->graph;
		return 0;
	}
	if (o->pq)
		return 0;
	o->pq = calloc(1, sizeof(*o->pq));
	if (!o->pq)
		return -1;
	o->straight = false;
	return 0;
}

void output_free(struct output *o)
{
	int i;

	if (!o)
		return;
	out_pendq_free(o->pq);
	out_graph_free(o->graph);
	for (i = 0; o->kframes && i < KFRAMES; i++)
		free(o->kframes[i].s);
	free(o->kframes);
	comm_learn_free(&o->learn);
	for (i = 0; i < o->ntplans; i++)
		textplan_free(o->tplans[i].plan);
	free(o->tplans);
	free(o->tbuf.p);
	free(o->lbuf);
	trace_seq_destroy(&o->seq);
	decoder_free(o->dec);
	comm_saved_free(&o->names);
	free(o);
}

static int write_one(struct output *o, struct dec_event *de, struct tep_record *rec,
		     const struct tep_record *leaf)
{
	int r;

	if (de && (de->special == DS_GRAPH_ENT || de->special == DS_GRAPH_RET) &&
	    o->mode == OUTPUT_TEXT) {
		out_text_graph(o, de, rec, leaf);
		return ferror(o->f) ? -1 : 0;
	}
	if (de && de->special >= DS_FUNC && de->special <= DS_GRAPH_RET && o->mode == OUTPUT_JSON) {
		out_json_function(o, de, rec, leaf);
		return ferror(o->f) ? -1 : 0;
	}
	/* out_text_record and out_json_record say whether rec was a stack: no test more per event */
	if (o->mode == OUTPUT_TEXT) {
		r = out_text_record(o, de, rec);
	} else if (!o->pq) {
		r = out_json_record(o, de, rec);
	} else {
		r = out_pend_record(o, de, rec);
		if (r < 0) {
			errno = ENOMEM;
			return -1;
		}
	}
	return ferror_unlocked(o->f) ? -1 : r;
}

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

/*
 * The common case: an event of the kernel's own layout, no function_graph
 * state, no stacks to wait for; its printer writes it whole.
 */
static inline bool plain(const struct output *o, const struct dec_event *de)
{
	return de && de->special < DS_FUNC && o->straight;
}

static inline int write_plain(struct output *o, struct dec_event *de, struct tep_record *rec)
{
	int r = o->mode == OUTPUT_TEXT ? out_text_record(o, de, rec) : out_json_event(o, de, rec);

	return ferror_unlocked(o->f) ? -1 : r;
}

int output_record(struct output *o, struct tep_record *rec)
{
	struct dec_event *de;

	if (rec->size < 8)
		return 0;
	de = decoder_event(o->dec, decode_type(rec->data));
	if (plain(o, de))
		return write_plain(o, de, rec);
	if (de && de->special == DS_GRAPH_ENT && !o->graph) {
		o->graph = out_graph_new();
		o->straight = false;
		if (!o->graph) {
			errno = ENOMEM;
			return -1;
		}
	}
	/* a function_graph entry waits for its CPU's next record, and what follows for it */
	if ((o->graph && o->graph->n) || (de && de->special == DS_GRAPH_ENT)) {
		if (out_graph_push(o, de, rec) < 0) {
			errno = ENOMEM;
			return -1;
		}
		return graph_drain(o, false) < 0 || ferror(o->f) ? -1 : 0;
	}
	if (de && de->special == DS_GRAPH_RET && !o->graph) {
		o->graph = out_graph_new();
		o->straight = false;
		if (!o->graph) {
			errno = ENOMEM;
			return -1;
		}
	}
	return write_one(o, de, rec, NULL);
}

int output_record_cols(struct output *o, struct dec_event *de, struct tep_record *rec,
		       const char *cols, unsigned len)
{
	int r;

	o->cols = cols;
	o->cols_len = len;
	o->hole = UINT_MAX;	/* stays so where the printer writes the columns itself */
	r = plain(o, de) ? write_plain(o, de, rec) : write_one(o, de, rec, NULL);
	o->cols = NULL;
	return r;
}

void output_set_file(struct output *o, FILE *f)
{
	o->f = f;
}

/* A record as text: function_graph records have a layout of their own. */
static void text_any(struct output *o, struct dec_event *de, struct tep_record *rec)
{
	if (de && (de->special == DS_GRAPH_ENT || de->special == DS_GRAPH_RET))
		out_text_graph(o, de, rec, NULL);
	else
		out_text_record(o, de, rec);
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
		out_json_open(o, sde, srec);
		fputs_unlocked("},", f);
		out_json_open(o, ede, erec);
		fputs_unlocked("}]}\n", f);
	} else {
		snprintf(buf, sizeof(buf), "%.3f", ns / 1e6);
		fprintf(f, "%sms  %s -> %s\n", buf, start, end);
		text_any(o, sde, srec);
		text_any(o, ede, erec);
	}
	return ferror(f) ? -1 : 0;
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
		p = out_pend_push(o, cpu < 0 ? 0 : cpu);
		if (!p) {
			errno = ENOMEM;
			return -1;
		}
		p->lost = true;
		p->cpu = cpu;
		p->count = count;
		out_pend_drain(o, 0);
	} else {
		out_lost_write(o, cpu, count);
	}
	return ferror(o->f) ? -1 : 0;
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
			out_pend_write(o);
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
		ns = now.tv_sec * TP_NS_PER_S + now.tv_nsec;
		if (!o->graph->idle)
			o->graph->idle = ns;
		else if (ns - o->graph->idle >= GRAPH_HOLD_NS && graph_drain(o, true) < 0)
			return -1;
	}
	if (q && q->head != q->tail) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		ns = now.tv_sec * TP_NS_PER_S + now.tv_nsec;
		for (cpu = 0; cpu < q->ncpu; cpu++) {
			struct pend *p;

			if (q->open[cpu] < 0)
				continue;
			p = pend_at(q, q->open[cpu]);
			if (!p->idle) {
				p->idle = ns;
			} else if (ns - p->idle >= IDLE_HOLD_NS) {
				p->open = false;
				q->open[cpu] = -1;
			}
		}
		out_pend_drain(o, 0);
	}
	return flush_file(o);
}
