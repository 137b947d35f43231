/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace events of the "sample-trace" system.
 *
 * Each event exists to exercise one kind of field or one TRACE_EVENT
 * variant, so that a trace reader can be checked against the kernel's own
 * output for every kind: fixed arrays, scalars, dynamic arrays, dynamic
 * strings, bitmasks, cpumasks, vstrings and the __rel_loc variants, printed
 * with __print_symbolic, __print_flags, __print_array and a helper function
 * that user space only knows through a libtraceevent plugin.
 *
 * This header is read several times by the tracepoint machinery (see
 * include/trace/define_trace.h), hence the unusual include guard.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sample-trace

/* "sample-trace" is not a C identifier; this names the generated symbols. */
#undef TRACE_SYSTEM_VAR
#define TRACE_SYSTEM_VAR sample_trace

#ifndef _SAMPLE_TRACE_HELPERS
#define _SAMPLE_TRACE_HELPERS
#include <linux/version.h>
#include <linux/cpumask.h>

/* Width of foo_bar's "bits" bitmask: more than one long, to show word order. */
#define ST_BITS_NR	72

/*
 * The source given to __string() and __rel_string() in TP_STRUCT__entry is
 * also the one copied: __assign_rel_str() lost its second argument in 6.9,
 * __assign_str() in 6.10.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define st_assign_str(dst, src)		__assign_str(dst)
#else
#define st_assign_str(dst, src)		__assign_str(dst, src)
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
#define st_assign_rel_str(dst, src)	__assign_rel_str(dst)
#else
#define st_assign_rel_str(dst, src)	__assign_rel_str(dst, src)
#endif

/*
 * Called from foo_with_template_print's TP_printk.  The format file shows
 * the call by name only, so user space can print it only when a plugin
 * registers a function of the same name (plugins/plugin_sample_trace.c).
 */
static inline const char *sample_trace_level(int bar)
{
	if (bar < 5)
		return "low";
	if (bar < 15)
		return "mid";
	return "high";
}

/* TRACE_EVENT_FN hooks: the events they guard fire only while enabled. */
int sample_trace_fn_reg(void);
void sample_trace_fn_unreg(void);
#endif /* _SAMPLE_TRACE_HELPERS */

#if !defined(_SAMPLE_TRACE_EVENTS_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SAMPLE_TRACE_EVENTS_H

#include <linux/tracepoint.h>

/* Values of foo_bar's "state" (bar % 4) and bits of its "flags" (bar). */
#define ST_STATES				\
	{ 0, "IDLE" },				\
	{ 1, "RUNNING" },			\
	{ 2, "BLOCKED" },			\
	{ 3, "DONE" }

#define ST_FLAGS				\
	{ 0x01, "ONE" },			\
	{ 0x02, "TWO" },			\
	{ 0x04, "FOUR" },			\
	{ 0x08, "EIGHT" },			\
	{ 0x10, "SIXTEEN" }

/*
 * The event with every field kind.  The optional kinds depend on what the
 * kernel's trace headers offer (ST_HAVE_* come from module/Makefile).
 */
#ifdef ST_HAVE_CPUMASK
#define ST_CPUMASK_ENTRY	__cpumask(cpum)
#define ST_CPUMASK_ASSIGN	__assign_cpumask(cpum, cpumask_bits(mask));
#define ST_CPUMASK_FMT		" cpum=%s"
#define ST_CPUMASK_ARG		, __get_cpumask(cpum)
#else
#define ST_CPUMASK_ENTRY
#define ST_CPUMASK_ASSIGN
#define ST_CPUMASK_FMT
#define ST_CPUMASK_ARG
#endif

#ifdef ST_HAVE_VSTRING
#define ST_VSTRING_ENTRY	__vstring(vstr, fmt, va)
#define ST_VSTRING_ASSIGN	__assign_vstr(vstr, fmt, va);
#define ST_VSTRING_FMT		" vstr=%s"
#define ST_VSTRING_ARG		, __get_str(vstr)
#else
#define ST_VSTRING_ENTRY
#define ST_VSTRING_ASSIGN
#define ST_VSTRING_FMT
#define ST_VSTRING_ARG
#endif

TRACE_EVENT(foo_bar,

	TP_PROTO(const char *foo, int bar, const int *list, int nr, const char *str,
		 const unsigned long *bits, const struct cpumask *mask,
		 const char *fmt, va_list *va),

	TP_ARGS(foo, bar, list, nr, str, bits, mask, fmt, va),

	TP_STRUCT__entry(
		__array(char,		foo,	10)
		__field(int,		bar)
		__dynamic_array(int,	list,	nr)
		__string(str,		str)
		__bitmask(bits,		ST_BITS_NR)
		ST_CPUMASK_ENTRY
		ST_VSTRING_ENTRY
	),

	TP_fast_assign(
		strscpy(__entry->foo, foo, sizeof(__entry->foo));
		__entry->bar = bar;
		memcpy(__get_dynamic_array(list), list, nr * sizeof(*list));
		st_assign_str(str, str);
		__assign_bitmask(bits, bits, ST_BITS_NR);
		ST_CPUMASK_ASSIGN
		ST_VSTRING_ASSIGN
	),

	TP_printk("foo=%s bar=%d state=%s flags=%s list=%s str=%s bits=%s"
		  ST_CPUMASK_FMT ST_VSTRING_FMT,
		  __entry->foo, __entry->bar,
		  __print_symbolic(__entry->bar % 4, ST_STATES),
		  __print_flags(__entry->bar, "|", ST_FLAGS),
		  __print_array(__get_dynamic_array(list),
				__get_dynamic_array_len(list) / sizeof(int), sizeof(int)),
		  __get_str(str), __get_bitmask(bits)
		  ST_CPUMASK_ARG ST_VSTRING_ARG)
);

/* Recorded only when the condition holds: bar a multiple of 3. */
TRACE_EVENT_CONDITION(foo_bar_with_cond,

	TP_PROTO(const char *foo, int bar),

	TP_ARGS(foo, bar),

	TP_CONDITION(bar % 3 == 0),

	TP_STRUCT__entry(
		__string(foo,	foo)
		__field(int,	bar)
	),

	TP_fast_assign(
		st_assign_str(foo, foo);
		__entry->bar = bar;
	),

	TP_printk("foo %s %d", __get_str(foo), __entry->bar)
);

/* Enabling it starts a second kernel thread that fires it; disabling stops it. */
TRACE_EVENT_FN(foo_bar_with_fn,

	TP_PROTO(const char *foo, int bar),

	TP_ARGS(foo, bar),

	TP_STRUCT__entry(
		__string(foo,	foo)
		__field(int,	bar)
	),

	TP_fast_assign(
		st_assign_str(foo, foo);
		__entry->bar = bar;
	),

	TP_printk("foo %s %d", __get_str(foo), __entry->bar),

	sample_trace_fn_reg,
	sample_trace_fn_unreg
);

/* One class, four events: plain, conditional, with hooks and with its own print. */
DECLARE_EVENT_CLASS(foo_template,

	TP_PROTO(const char *foo, int bar),

	TP_ARGS(foo, bar),

	TP_STRUCT__entry(
		__string(foo,	foo)
		__field(int,	bar)
	),

	TP_fast_assign(
		st_assign_str(foo, foo);
		__entry->bar = bar;
	),

	TP_printk("foo %s %d", __get_str(foo), __entry->bar)
);

DEFINE_EVENT(foo_template, foo_with_template_simple,
	TP_PROTO(const char *foo, int bar),
	TP_ARGS(foo, bar));

DEFINE_EVENT_CONDITION(foo_template, foo_with_template_cond,
	TP_PROTO(const char *foo, int bar),
	TP_ARGS(foo, bar),
	TP_CONDITION(bar % 4 == 0));

DEFINE_EVENT_FN(foo_template, foo_with_template_fn,
	TP_PROTO(const char *foo, int bar),
	TP_ARGS(foo, bar),
	sample_trace_fn_reg,
	sample_trace_fn_unreg);

DEFINE_EVENT_PRINT(foo_template, foo_with_template_print,
	TP_PROTO(const char *foo, int bar),
	TP_ARGS(foo, bar),
	TP_printk("bar %s %d level=%s", __get_str(foo), __entry->bar,
		  sample_trace_level(__entry->bar)));

#ifdef ST_HAVE_REL_LOC
#ifdef ST_HAVE_REL_CPUMASK
#define ST_REL_CPUMASK_ENTRY	__rel_cpumask(cpumask)
#define ST_REL_CPUMASK_ASSIGN	__assign_rel_cpumask(cpumask, cpumask_bits(mask));
#define ST_REL_CPUMASK_FMT	", %s"
#define ST_REL_CPUMASK_ARG	, __get_rel_cpumask(cpumask)
#else
#define ST_REL_CPUMASK_ENTRY
#define ST_REL_CPUMASK_ASSIGN
#define ST_REL_CPUMASK_FMT
#define ST_REL_CPUMASK_ARG
#endif

/*
 * __rel_loc fields: offsets relative to the end of the field itself, the
 * layout used by eprobes and user-space defined events.
 */
TRACE_EVENT(foo_rel_loc,

	TP_PROTO(const char *foo, int bar, const unsigned long *bits,
		 const struct cpumask *mask),

	TP_ARGS(foo, bar, bits, mask),

	TP_STRUCT__entry(
		__rel_string(foo,	foo)
		__field(int,		bar)
		__rel_bitmask(bitmask,	ST_BITS_NR)
		ST_REL_CPUMASK_ENTRY
	),

	TP_fast_assign(
		st_assign_rel_str(foo, foo);
		__entry->bar = bar;
		__assign_rel_bitmask(bitmask, bits, ST_BITS_NR);
		ST_REL_CPUMASK_ASSIGN
	),

	TP_printk("foo_rel_loc %s, %d, %s" ST_REL_CPUMASK_FMT,
		  __get_rel_str(foo), __entry->bar, __get_rel_bitmask(bitmask)
		  ST_REL_CPUMASK_ARG)
);
#endif /* ST_HAVE_REL_LOC */

#endif /* _SAMPLE_TRACE_EVENTS_H */

/* Outside the guard: define_trace.h re-reads this file to build the events. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE sample_trace_events
#include <trace/define_trace.h>
