// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * output_stack - JSON with stacks: every record waits in a queue until its
 * event can get no more stack records (output_local.h says when), then the
 * event is written with them.
 */
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "output_local.h"

void out_pendq_free(struct pendq *q)
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

/* Write the queue's head (an event with what it collected, or a lost marker). */
void out_pend_write(struct output *o)
{
	struct pendq *q = o->pq;
	struct pend *p = pend_at(q, q->head);
	struct tep_record rec = { 0 };

	if (p->open && q->open[p->cpu] == (long long)q->head)
		q->open[p->cpu] = -1;
	p->open = false;
	q->head++;
	if (p->lost) {
		out_lost_write(o, p->cpu, p->count);
		return;
	}
	rec.ts = p->ts;
	rec.cpu = p->cpu;
	rec.size = p->size;
	rec.data = p->buf;
	out_json_open(o, p->de, &rec);
	if (p->de && p->de->special >= DS_KSTACK)
		out_json_frames(o, p->de, p->buf, p->size);
	if (p->klen)
		out_json_frames(o, p->kde, p->buf + p->koff, p->klen);
	if (p->ulen)
		out_json_frames(o, p->ude, p->buf + p->uoff, p->ulen);
	put_lit(o->f, "}\n");
}

/* Write the head while it is complete; now: stamp of the newest record (0: none). */
void out_pend_drain(struct output *o, unsigned long long now)
{
	struct pendq *q = o->pq;

	while (q->head != q->tail) {
		struct pend *p = pend_at(q, q->head);

		if (p->open && !(o->ns_clock && now > p->ts + HOLD_NS))
			break;
		out_pend_write(o);
	}
}

/* Room for one more entry at the tail; NULL when out of memory. */
struct pend *out_pend_push(struct output *o, int cpu)
{
	struct pendq *q = o->pq;
	struct pend *p;

	if (q->tail - q->head >= PEND_MAX)
		out_pend_write(o);
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

int out_pend_record(struct output *o, struct dec_event *de, struct tep_record *rec)
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
		out_pend_drain(o, rec->ts);
		return 1;
	}
	/* the event before this record on its CPU is complete */
	if (p) {
		p->open = false;
		q->open[cpu] = -1;
	}
	p = out_pend_push(o, cpu);
	if (!p || pend_copy(p, 0, rec->data, rec->size) < 0)
		return -1;
	p->ts = rec->ts;
	p->size = rec->size;
	p->de = de;
	if (!stack) {
		p->open = true;
		q->open[cpu] = q->tail - 1;
	}
	out_pend_drain(o, rec->ts);
	return stack;
}
