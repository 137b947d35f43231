// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * agg - the count/hist row model without tracefs: records made from text
 * lines go through the user engine, hist files through the kernel engine,
 * and the table comes out through the output layer; agg.t computes what
 * each should say in python3 from the same input and compares.
 *
 *   agg [OPTIONS] user EVENT...     records from stdin, one a line:
 *                                   "sys:event CPU PID field=value ..."
 *                                   (values: integers or strings), or
 *                                   "comm PID NAME" (saved_cmdlines)
 *   agg [OPTIONS] kernel EVENT...   --hist FILE for each EVENT, in order
 *
 * A kernel stack record: "ftrace:kernel_stack CPU PID frames=ADDR,ADDR,...".
 *
 * OPTIONS: --formats DIR (format files named sys:event), --by KEYS,
 * --field F, --linear STEP, --top N, --text, --kallsyms FILE, --reap,
 * --max-rows N (agg_set_max_rows).
 *
 * --reap: as live, with a loader of saved_cmdlines (the "comm" lines), so
 * that the tasks are tracked (their /proc entries read); a line "reap" then
 * forgets the tasks that are gone (agg_tasks_reap), a line "tick" ends an
 * interval.  At the end "tracked N open M refused R" on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "agg.h"
#include "decode.h"
#include "output.h"
#include "util.h"

static char *slurp(const char *path, size_t *len)
{
	size_t alloc = 65536, n = 0, r;
	char *buf = malloc(alloc + 1);
	FILE *f = fopen(path, "r");

	if (!f || !buf) {
		fprintf(stderr, "agg: cannot read %s\n", path);
		exit(2);
	}
	while ((r = fread(buf + n, 1, alloc - n, f)) > 0) {
		n += r;
		if (n == alloc) {
			alloc *= 2;
			buf = realloc(buf, alloc + 1);
			if (!buf)
				exit(2);
		}
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* One record from "sys:event CPU PID name=value ..." into data (zeroed, room for 4 KiB). */
static int make_record(struct tep_handle *tep, char *line, struct tep_record *rec,
		       unsigned char *data)
{
	char *save = NULL, *name = strtok_r(line, " \n", &save), *tok, *colon;
	struct tep_event *ev;
	int size, cpu, pid;
	uint16_t type;

	colon = name ? strchr(name, ':') : NULL;
	if (!colon)
		return -1;
	*colon = '\0';
	ev = tep_find_event_by_name(tep, name, colon + 1);
	if (!ev)
		return -1;
	cpu = atoi(strtok_r(NULL, " \n", &save));
	pid = atoi(strtok_r(NULL, " \n", &save));
	memset(data, 0, 4096);
	type = ev->id;
	memcpy(data, &type, 2);
	memcpy(data + 4, &pid, 4);
	size = ev->format.fields ? 0 : 8;
	for (struct tep_format_field *f = ev->format.common_fields; f; f = f->next)
		if (f->offset + f->size > size)
			size = f->offset + f->size;
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
		if (f->offset + f->size > size)
			size = f->offset + f->size;
	while ((tok = strtok_r(NULL, " \n", &save))) {
		char *eq = strchr(tok, '=');
		struct tep_format_field *f;

		if (!eq)
			return -1;
		*eq = '\0';
		if (!strcmp(tok, "frames")) {
			/* ftrace:kernel_stack: "size" frames in "caller", as many as given */
			struct tep_format_field *n = tep_find_any_field(ev, "size");
			struct tep_format_field *c = tep_find_any_field(ev, "caller");
			char *p = eq + 1, *end;
			int32_t count = 0;

			if (!n || !c)
				return -1;
			while (*p && c->offset + (count + 1) * 8 <= 4096) {
				unsigned long long a = strtoull(p, &end, 0);

				if (end == p)
					break;
				memcpy(data + c->offset + count * 8, &a, 8);
				count++;
				p = *end == ',' ? end + 1 : end;
			}
			memcpy(data + n->offset, &count, 4);
			size = c->offset + count * 8;
			continue;
		}
		f = tep_find_any_field(ev, tok);
		if (!f)
			return -1;
		if (f->flags & TEP_FIELD_IS_DYNAMIC) {
			/* __data_loc: the string after the fixed part */
			uint32_t loc = size | (uint32_t)(strlen(eq + 1) + 1) << 16;

			memcpy(data + f->offset, &loc, 4);
			memcpy(data + size, eq + 1, strlen(eq + 1) + 1);
			size += strlen(eq + 1) + 1;
		} else if (f->flags & TEP_FIELD_IS_STRING || f->flags & TEP_FIELD_IS_ARRAY) {
			strncpy((char *)data + f->offset, eq + 1, f->size);
		} else {
			unsigned long long v = eq[1] == '-' ? (unsigned long long)strtoll(eq + 1, NULL, 0) :
					       strtoull(eq + 1, NULL, 0);

			memcpy(data + f->offset, &v, f->size);	/* little endian */
		}
	}
	memset(rec, 0, sizeof(*rec));
	rec->data = data;
	rec->size = size;
	rec->cpu = cpu;
	return 0;
}

/* the "comm" lines, for the loader of --reap */
static struct {
	int pid;
	char name[64];
} comms[256];
static int ncomms;

static int load_comms(void *ctx, comm_line_fn fn, void *fctx)
{
	int i;

	(void)ctx;
	for (i = 0; i < ncomms; i++)
		fn(fctx, comms[i].pid, comms[i].name, strlen(comms[i].name));
	return 0;
}

int main(int argc, char **argv)
{
	const char *formats = "tests/unit/fixtures/host/formats", *by = NULL, *field = NULL;
	const char *hist[16];
	struct agg_spec spec = { 0 };
	unsigned long long step = 0, top = 0, max_rows = 0;
	bool text = false, kernel, reap = false;
	struct tep_handle *tep;
	struct agg_table *t;
	struct agg *a;
	int i, nhist = 0, ret;

	tp.cmd = "agg";
	for (i = 1; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--text"))
			text = true;
		else if (!strcmp(argv[i], "--reap"))
			reap = true;
		else if (i + 1 >= argc)
			return 2;
		else if (!strcmp(argv[i], "--formats"))
			formats = argv[++i];
		else if (!strcmp(argv[i], "--by"))
			by = argv[++i];
		else if (!strcmp(argv[i], "--field"))
			field = argv[++i];
		else if (!strcmp(argv[i], "--linear"))
			step = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--max-rows"))
			max_rows = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--top"))
			top = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--kallsyms"))
			decode_kallsyms_set_path(argv[++i]);
		else if (!strcmp(argv[i], "--hist") && nhist < 16)
			hist[nhist++] = argv[++i];
		else
			return 2;
	}
	if (i >= argc)
		return 2;
	kernel = !strcmp(argv[i++], "kernel");
	if (field || by) {
		ret = by ? agg_spec_keys(&spec, by) : 0;
	} else {
		ret = agg_spec_keys(&spec, NULL);
	}
	if (ret)
		return ret;
	spec.value = field;
	spec.scale = !field ? AGG_SCALE_NONE : step ? AGG_SCALE_LINEAR : AGG_SCALE_LOG2;
	spec.step = step;

	tep = decode_tep_new(false);
	a = agg_new(&spec, tep);
	{
		/* stacks come as ftrace:kernel_stack records: its format, where the fixtures have it */
		char path[4096], *buf;
		size_t len;
		FILE *f;

		snprintf(path, sizeof(path), "%s/ftrace:kernel_stack", formats);
		f = fopen(path, "r");
		if (f) {
			fclose(f);
			buf = slurp(path, &len);
			decode_add_format(tep, "ftrace", buf, len);
			free(buf);
		}
	}
	for (int k = i; k < argc; k++) {
		char path[4096], *buf, *colon;
		size_t len;

		snprintf(path, sizeof(path), "%s/%s", formats, argv[k]);
		buf = slurp(path, &len);
		colon = strchr(argv[k], ':');
		*colon = '\0';
		if (decode_add_format(tep, argv[k], buf, len))
			return 2;
		ret = agg_add_event(a, argv[k], colon + 1, buf, len);
		free(buf);
		if (ret)
			return ret;
	}
	if (reap)
		agg_set_comm_loader(a, load_comms, NULL);
	agg_set_max_rows(a, max_rows);
	if (kernel) {
		for (int k = 0; k < nhist && k < agg_nevents(a); k++) {
			const char *why;
			uint64_t dropped;
			struct tracefs_hist *h = agg_kernel_hist(a, k, &why);
			char *buf;

			if (!h) {
				fprintf(stderr, "agg: no hist trigger: %s\n", why);
				return 1;
			}
			buf = slurp(hist[k], NULL);
			if (agg_kernel_update(a, k, buf, &dropped) < 0)
				fprintf(stderr, "agg: entries not understood in %s\n", hist[k]);
			/* read twice: the second read of the same counts adds nothing */
			agg_kernel_update(a, k, buf, &dropped);
			agg_add_lost(a, dropped);
			free(buf);
		}
	} else {
		static unsigned char data[4096];
		char line[4096];
		struct tep_record rec;

		while (fgets(line, sizeof(line), stdin)) {
			if (!strncmp(line, "comm ", 5)) {
				char name[64];
				int pid;

				if (sscanf(line, "comm %d %63s", &pid, name) == 2) {
					tep_register_comm(tep, name, pid);
					if (ncomms < 256) {
						comms[ncomms].pid = pid;
						snprintf(comms[ncomms++].name, 64, "%s", name);
					}
				}
				continue;
			}
			if (!strcmp(line, "reap\n")) {
				agg_tasks_reap(a);
				continue;
			}
			if (!strcmp(line, "tick\n")) {
				agg_interval_end(a);
				continue;
			}
			if (make_record(tep, line, &rec, data) < 0) {
				fprintf(stderr, "agg: bad input line\n");
				return 2;
			}
			agg_record(a, &rec);
		}
		agg_flush(a);
	}
	agg_interval_end(a);
	if (reap)
		fprintf(stderr, "tracked %zu open %zu refused %llu\n", agg_tasks_tracked(a),
			agg_open_starts(a), (unsigned long long)agg_refused(a));
	t = agg_snapshot(a, true, top);
	{
		struct output_agg oa = {
			.hist = field != NULL,
			.field = field,
			.ts_ns = 1,
			.interval_ns = 2,
		};

		output_agg(stdout, text ? OUTPUT_TEXT : OUTPUT_JSON, t, &oa);
	}
	agg_table_free(t);
	agg_free(a);
	agg_spec_release(&spec);
	tep_free(tep);
	return 0;
}
