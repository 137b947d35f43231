// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * record_flight - record --flight, --stop-on, --rearm (see record_flight.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live.h"
#include "opt.h"
#include "record_flight.h"
#include "record_rotate.h"
#include "tfs.h"
#include "util.h"

/*
 * How often the waiting recorder looks at tracing_on (a --stop-on that
 * fired) and its SIGUSR1 count: a read of one file, nothing else.
 */
#define FLIGHT_LOOK_MS 200
/*
 * The condition of a --stop-on without one: a trigger with a condition runs
 * after its event is recorded (one without runs before, and the event it
 * stops at would not be in the file).
 */
#define FLIGHT_ALWAYS "common_pid >= 0"

int flight_stop_opt(const struct tp_opt *o, const char *arg)
{
	struct flight_opts *f = o->value;

	if (f->nstop == FLIGHT_STOPS_MAX) {
		tp_error("at most %d --stop-on events", FLIGHT_STOPS_MAX);
		return TP_USAGE;
	}
	f->stop[f->nstop++] = (char *)arg;
	return TP_OK;
}

/* FLIGHT_FILTER_MAX in a message: its digits, from the one definition */
#define DIGITS_(n) #n
#define DIGITS(n) DIGITS_(n)
_Static_assert(FLIGHT_FILTER_MAX + sizeof(FLIGHT_TRIGGER) - 1 == 4095,
	       "a trigger 'traceoff if FILTER' of the longest filter is 4095 bytes");

int flight_stop_split(const char *arg, char **event, const char **filter, const char **why)
{
	size_t n;
	const char *p;
	char *colon;

	*event = NULL;
	*filter = NULL;
	arg += strspn(arg, " \t");
	n = strcspn(arg, " \t");
	p = arg + n + strspn(arg + n, " \t");
	if (*p && (strncmp(p, "if", 2) || (p[2] != ' ' && p[2] != '\t'))) {
		*why = "'EVENT' or 'EVENT if FILTER'";
		return TP_USAGE;
	}
	if (*p) {
		*filter = p + 3 + strspn(p + 3, " \t");
		if (!**filter) {
			*why = "'EVENT if FILTER' with a FILTER after 'if'";
			return TP_USAGE;
		}
		/* the trigger "traceoff if FILTER" is one write, less than a page */
		if (strlen(*filter) > FLIGHT_FILTER_MAX) {
			*why = "a FILTER of at most " DIGITS(FLIGHT_FILTER_MAX) " bytes";
			return TP_USAGE;
		}
	}
	*event = strndup(arg, n);
	if (!*event)
		return tp_oom();
	colon = strchr(*event, ':');
	if (colon)
		*colon = '\0';
	if (!colon || !tfs_name_valid(*event) || !tfs_name_valid(colon + 1)) {
		free(*event);
		*event = NULL;
		*why = "the event as system:event";
		return TP_USAGE;
	}
	*colon = ':';
	return TP_OK;
}

/* The recorded event named (an event not recorded or not there: the error). */
static const struct tfs_event *stop_event(struct live *l, char *name)
{
	const struct tfs_event_list *evs = live_events(l);
	struct tfs_event_list found = { 0 };
	int ret;

	for (size_t i = 0; i < evs->n; i++) {
		const struct tfs_event *e = &evs->v[i];
		size_t sl = strlen(e->system);

		if (!strncmp(name, e->system, sl) && name[sl] == ':' && !strcmp(name + sl + 1, e->name))
			return e;
	}
	/* "no such event" with the closest one, from the kernel's list */
	ret = tfs_events_resolve(live_instance(l), &name, 1, &found);
	tfs_event_list_free(&found);
	if (!ret)
		tp_error("--stop-on event '%s' is not recorded: name it among the EVENTs too", name);
	return NULL;
}

static int stop_arm(struct live *l, const char *arg)
{
	const struct tfs_event *ev;
	const char *filter, *why;
	char *name, *cmd = NULL;
	int ret;

	ret = flight_stop_split(arg, &name, &filter, &why);
	if (ret == TP_USAGE)
		tp_error("invalid --stop-on '%s': %s", arg, why);
	if (ret)
		return ret;
	ev = stop_event(l, name);
	if (!ev)
		ret = TP_USAGE;
	else if (filter)
		ret = tfs_filter_check(live_tep(l), ev, filter);
	if (!ret && asprintf(&cmd, FLIGHT_TRIGGER "%s", filter ? filter : FLIGHT_ALWAYS) < 0)
		ret = tp_oom();
	/* the kernel's refusal is an invalid filter too: its error_log said why */
	if (!ret && tfs_trigger_add(live_instance(l), ev, cmd, false))
		ret = TP_USAGE;
	free(cmd);
	free(name);
	return ret;
}

int flight_arm(struct live *l, const struct flight_opts *f)
{
	int ret;

	/* a new instance's default, said here: the newest events push the oldest out */
	ret = tfs_option_set(live_instance(l), "overwrite", true);
	for (int i = 0; !ret && i < f->nstop; i++)
		ret = stop_arm(l, f->stop[i]);
	return ret;
}

struct flight {
	const struct rot_spec *s;
	const char *base;
	const struct flight_opts *o;
	struct tracefs_instance *inst;
	unsigned long n;	/* FILE.N written so far */
	unsigned long usr1;	/* the SIGUSR1s dumped for */
	int ret;		/* a dump that failed: the status the run ends with */
};

/* The buffers into path: tracing off, read to their end, the file written, on again. */
static int dump(struct flight *f, const char *path, bool resume)
{
	struct rot *r = NULL;
	int ret;

	ret = tfs_tracing_set(f->inst, false);
	if (ret)
		return ret;
	/* tracing is off: the threads have nothing of their own to hide */
	ret = rot_start(&r, f->s, path);
	if (r) {
		int end = rot_finish(r);

		ret = ret ? ret : end;
	}
	if (!ret)
		tp_note("wrote '%s'", path);
	/* what a failed dump left behind is dropped: the next one holds what comes after */
	else if (resume)
		tfs_buffer_clear(f->inst);
	if (resume && tfs_tracing_set(f->inst, true))
		ret = TP_FAIL;
	return ret;
}

/* FILE.N+1; a failure (full disk) is said, the files before kept, the recorder goes on. */
static int dump_next(struct flight *f)
{
	char *path = rot_name(f->base, f->n + 1);
	int ret;

	if (!path)
		return LIVE_FAIL;
	ret = dump(f, path, true);
	free(path);
	if (!ret)
		f->n++;
	else
		f->ret = ret;
	return tfs_tracing_is_on(f->inst) == 1 ? LIVE_GO : LIVE_FAIL;
}

static int flight_check(void *ctx)
{
	struct flight *f = ctx;
	int v = LIVE_GO;

	if (f->o->nstop && tfs_tracing_is_on(f->inst) == 0) {
		if (!f->o->rearm)
			return LIVE_STOP;
		tp_debug("a --stop-on event came: the trigger stays armed");
		v = dump_next(f);
	}
	/* one dump per signal, those that came during a dump too */
	while (v == LIVE_GO && rot_usr1_count() != f->usr1) {
		f->usr1++;
		v = dump_next(f);
	}
	return v;
}

int flight_record(const struct rot_spec *s, const char *base, const struct flight_opts *o,
		  double duration)
{
	struct flight f = { .s = s, .base = base, .o = o, .inst = live_instance(s->l) };
	int ret, end;

	rot_usr1_catch();
	f.usr1 = rot_usr1_count();
	ret = live_start(s->l);
	if (ret)
		return ret;
	ret = live_run(s->l, &(struct live_tool){
		.check = flight_check, .ctx = &f, .duration = duration,
		.wait_ms = FLIGHT_LOOK_MS, .flags = LIVE_RUN_NOREAD,
	});
	/* what the buffers hold at the end, or at the --stop-on event */
	end = dump(&f, base, false);
	if (!ret)
		ret = f.ret ? f.ret : end;
	return ret;
}
