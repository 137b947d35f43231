// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libtraceevent plugin for the "sample-trace" events of module/.
 *
 * foo_with_template_print's print fmt calls a kernel function,
 * sample_trace_level(REC->bar).  A format file names the function but cannot
 * carry its code, so without this plugin libtraceevent cannot parse the
 * print fmt and prints the raw fields instead of the kernel's text.  The
 * plugin registers a function of the same name that computes the same
 * string, which makes the user-space text identical to the kernel's `trace`.
 *
 * Loaded by tpctl from its plugin directory (TPCTL_PLUGIN_DIR, or the
 * TPCTL_PLUGIN_DIR environment variable), or by any libtraceevent user from
 * TRACEEVENT_PLUGIN_DIR.
 */
#include <event-parse.h>
#include <trace-seq.h>

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
	/* The argument is the int field bar, sign-extended by libtraceevent. */
	long long bar = (int)args[0];

	trace_seq_puts(s, sample_trace_level(bar));
	return 0;
}

int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	return tep_register_print_function(tep, st_level_handler, TEP_FUNC_ARG_STRING,
					   "sample_trace_level", TEP_FUNC_ARG_INT,
					   TEP_FUNC_ARG_VOID);
}

int TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	return tep_unregister_print_function(tep, st_level_handler, "sample_trace_level");
}
