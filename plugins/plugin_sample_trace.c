// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libtraceevent plugin for the "sample-trace" events of module/: it makes
 * user-space text identical to the kernel's own `trace` output where
 * libtraceevent alone cannot.
 *
 * - foo_with_template_print's print fmt calls a kernel function,
 *   sample_trace_level(REC->bar).  A format file names the function but
 *   cannot carry its code, so libtraceevent fails to parse that print fmt.
 *   We register a print function of the same name computing the same string.
 * - foo_bar and foo_rel_loc: libtraceevent 1.7 prints __print_array() as
 *   "1 2 3" where the kernel prints "{0x1,0x2,0x3}", and a cpumask as a CPU
 *   list ("0-1") where the kernel (6.1) prints it as a hex bitmask like any
 *   other ("00000000,00000003").  We print those two events ourselves, the
 *   way the kernel does, from the fields the format file describes (fields
 *   a kernel does not have, such as cpum before __cpumask existed, are left
 *   out just as the module leaves them out).
 *
 * Loaded by tpctl from its plugin directory (TPCTL_PLUGIN_DIR, or the
 * TPCTL_PLUGIN_DIR environment variable), or by any libtraceevent user from
 * TRACEEVENT_PLUGIN_DIR.  The tables below mirror
 * module/sample_trace_events.h and must change with it.
 */
#include <stdint.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#define SYSTEM "sample-trace"

/* Must stay in step with sample_trace_level() in module/sample_trace_events.h. */
static const char *sample_trace_level(long long bar)
{
	if (bar < 5)
		return "low";
	if (bar < 15)
		return "mid";
	return "high";
}

/*
 * A print function writes its text to @s when used for "%s"; the return
 * value is what a numeric conversion would get.
 */
static unsigned long long st_level_handler(struct trace_seq *s, unsigned long long *args)
{
	/* The argument is the int field bar. */
	trace_seq_puts(s, sample_trace_level((int)args[0]));
	return 0;
}

/* ST_STATES and ST_FLAGS of the module. */
static const char *const st_states[] = { "IDLE", "RUNNING", "BLOCKED", "DONE" };
static const struct {
	unsigned int mask;
	const char *name;
} st_flags[] = {
	{ 0x01, "ONE" }, { 0x02, "TWO" }, { 0x04, "FOUR" }, { 0x08, "EIGHT" },
	{ 0x10, "SIXTEEN" },
};

/* Where a __data_loc or __rel_loc field's data is in the record, and its length. */
static const unsigned char *st_dyn(struct tep_event *event, struct tep_record *record,
				   const char *name, unsigned int *len)
{
	struct tep_format_field *f = tep_find_field(event, name);
	unsigned long long v;
	unsigned int off;

	if (!f || !(f->flags & TEP_FIELD_IS_DYNAMIC) || f->size != 4 ||
	    f->offset + 4 > record->size)
		return NULL;
	v = tep_read_number(event->tep, (const char *)record->data + f->offset, 4);
	off = v & 0xffff;
	*len = v >> 16;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += f->offset + f->size;
	if (off + *len > (unsigned int)record->size)
		return NULL;
	return (const unsigned char *)record->data + off;
}

static int st_int(struct tep_event *event, struct tep_record *record, const char *name,
		  long long *val)
{
	struct tep_format_field *f = tep_find_field(event, name);
	unsigned long long v;

	if (!f || tep_read_number_field(f, record->data, &v) < 0)
		return -1;
	*val = f->size == 4 ? (int)v : (long long)v;
	return 0;
}

/* A dynamic string as the kernel's "%s" prints it: up to the first NUL. */
static void st_str(struct trace_seq *s, struct tep_event *event, struct tep_record *record,
		   const char *name)
{
	unsigned int len;
	const unsigned char *p = st_dyn(event, record, name, &len);

	if (p)
		trace_seq_printf(s, "%.*s", (int)strnlen((const char *)p, len), p);
}

/*
 * A bitmask (array of kernel longs) as the kernel's %*pb prints it: 32-bit
 * chunks in hex, most significant first, separated by commas.
 */
static void st_mask(struct trace_seq *s, struct tep_event *event, struct tep_record *record,
		    const char *name)
{
	int lsize = tep_get_long_size(event->tep);
	unsigned int len, nbits, chunk, i;
	const unsigned char *p = st_dyn(event, record, name, &len);

	if (!p || lsize <= 0)
		return;
	nbits = len * 8;
	for (chunk = (nbits + 31) / 32; chunk-- > 0;) {
		uint32_t val = 0;

		for (i = 0; i < 32 && chunk * 32 + i < nbits; i++) {
			unsigned int bit = chunk * 32 + i;
			unsigned int word = bit / (lsize * 8);
			unsigned long long w = tep_read_number(event->tep, p + word * lsize, lsize);

			if (w >> (bit % (lsize * 8)) & 1)
				val |= 1U << i;
		}
		/* Only the most significant chunk can be narrower than 32 bits. */
		if (chunk * 32 + 32 >= nbits)
			trace_seq_printf(s, "%0*x", (int)(nbits - chunk * 32 + 3) / 4, val);
		else
			trace_seq_printf(s, ",%08x", val);
	}
}

/* __print_array(..., sizeof(int)) as the kernel prints it: {0x1,0x2}. */
static void st_int_array(struct trace_seq *s, struct tep_event *event, struct tep_record *record,
			 const char *name)
{
	unsigned int len, i;
	const unsigned char *p = st_dyn(event, record, name, &len);

	trace_seq_putc(s, '{');
	for (i = 0; p && i + 4 <= len; i += 4)
		trace_seq_printf(s, "%s0x%x", i ? "," : "",
				 (unsigned int)tep_read_number(event->tep, p + i, 4));
	trace_seq_putc(s, '}');
}

static int st_foo_bar(struct trace_seq *s, struct tep_record *record, struct tep_event *event,
		      void *context)
{
	struct tep_format_field *foo = tep_find_field(event, "foo");
	long long bar;
	size_t i;
	int any = 0;

	(void)context;
	if (!foo || st_int(event, record, "bar", &bar) < 0 ||
	    foo->offset + foo->size > record->size)
		return -1;
	trace_seq_printf(s, "foo=%.*s bar=%d state=", (int)strnlen((char *)record->data +
			 foo->offset, foo->size), (char *)record->data + foo->offset, (int)bar);
	/* __print_symbolic prints the value in hex when no name matches. */
	if ((int)bar % 4 >= 0)
		trace_seq_puts(s, st_states[(int)bar % 4]);
	else
		trace_seq_printf(s, "0x%x", (int)bar % 4);
	trace_seq_puts(s, " flags=");
	for (i = 0; i < sizeof(st_flags) / sizeof(st_flags[0]); i++) {
		if ((bar & st_flags[i].mask) == st_flags[i].mask) {
			trace_seq_printf(s, "%s%s", any ? "|" : "", st_flags[i].name);
			any = 1;
			bar &= ~(long long)st_flags[i].mask;
		}
	}
	/* __print_flags prints the bits left over in hex. */
	if (bar & 0xffffffffLL)
		trace_seq_printf(s, "%s0x%x", any ? "|" : "", (unsigned int)bar);
	trace_seq_puts(s, " list=");
	st_int_array(s, event, record, "list");
	trace_seq_puts(s, " str=");
	st_str(s, event, record, "str");
	trace_seq_puts(s, " bits=");
	st_mask(s, event, record, "bits");
	if (tep_find_field(event, "cpum")) {
		trace_seq_puts(s, " cpum=");
		st_mask(s, event, record, "cpum");
	}
	if (tep_find_field(event, "vstr")) {
		trace_seq_puts(s, " vstr=");
		st_str(s, event, record, "vstr");
	}
	return 0;
}

static int st_foo_rel_loc(struct trace_seq *s, struct tep_record *record,
			  struct tep_event *event, void *context)
{
	long long bar;

	(void)context;
	if (st_int(event, record, "bar", &bar) < 0)
		return -1;
	trace_seq_puts(s, "foo_rel_loc ");
	st_str(s, event, record, "foo");
	trace_seq_printf(s, ", %d, ", (int)bar);
	st_mask(s, event, record, "bitmask");
	if (tep_find_field(event, "cpumask")) {
		trace_seq_puts(s, ", ");
		st_mask(s, event, record, "cpumask");
	}
	return 0;
}

int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	tep_register_print_function(tep, st_level_handler, TEP_FUNC_ARG_STRING,
				    "sample_trace_level", TEP_FUNC_ARG_INT, TEP_FUNC_ARG_VOID);
	tep_register_event_handler(tep, -1, SYSTEM, "foo_bar", st_foo_bar, NULL);
	tep_register_event_handler(tep, -1, SYSTEM, "foo_rel_loc", st_foo_rel_loc, NULL);
	return 0;
}

int TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	tep_unregister_print_function(tep, st_level_handler, "sample_trace_level");
	tep_unregister_event_handler(tep, -1, SYSTEM, "foo_bar", st_foo_bar, NULL);
	tep_unregister_event_handler(tep, -1, SYSTEM, "foo_rel_loc", st_foo_rel_loc, NULL);
	return 0;
}
