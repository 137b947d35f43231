// SPDX-License-Identifier: GPL-2.0
/*
 * sample_trace - a module whose kernel thread fires the "sample-trace"
 * events every period_ms milliseconds, so that trace readers can be tried
 * and tested on events with every kind of field.
 *
 *   insmod sample_trace.ko period_ms=100
 *   echo 1 > /sys/kernel/tracing/events/sample-trace/enable
 */
#include <linux/module.h>
#include <linux/kthread.h>
#include <linux/delay.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/bitmap.h>
#include <linux/string.h>

#define CREATE_TRACE_POINTS
#include "sample_trace_events.h"

static unsigned int period_ms = 100;
module_param(period_ms, uint, 0644);
MODULE_PARM_DESC(period_ms, "milliseconds between two rounds of events (default 100)");

static bool hop = true;
module_param(hop, bool, 0644);
MODULE_PARM_DESC(hop, "move to the next online CPU after each round (default on)");

static struct task_struct *st_main_thread;

/*
 * The second thread runs while foo_bar_with_fn or foo_with_template_fn is
 * registered; both share the hooks, hence the count.
 */
static DEFINE_MUTEX(st_fn_lock);
static unsigned int st_fn_users;
static struct task_struct *st_fn_thread;

/*
 * Strings chosen to cover what a decoder must get right: plain ASCII, a
 * tab, quote and backslash, valid UTF-8 and a byte that is not UTF-8.
 */
static const char *const st_strings[] = {
	"plain",
	"tab\there",
	"quote\" back\\slash",
	"utf8 \xc3\xa9t\xc3\xa9",
	"bad \xff byte",
	"",
};

static const char *const st_foos[] = { "hello", "world", "123456789" };

static void st_sleep(void)
{
	unsigned int ms = READ_ONCE(period_ms);

	/* 0 would make the thread spin; the parameter is writable at run time. */
	schedule_timeout_interruptible(msecs_to_jiffies(ms ? ms : 1));
}

/* Varargs wrapper: __vstring records a printf-style message from a va_list. */
static __printf(7, 8) void st_fire_foo_bar(const char *foo, int bar, const int *list, int nr,
					   const char *str, const unsigned long *bits,
					   const char *fmt, ...)
{
	const struct cpumask *mask;
	va_list va;

	/* Alternate between a single CPU and all online ones. */
	mask = (bar & 1) ? cpumask_of(raw_smp_processor_id()) : cpu_online_mask;

	va_start(va, fmt);
	trace_foo_bar(foo, bar, list, nr, str, bits, mask, fmt, &va);
	va_end(va);
}

static void st_fire_round(unsigned long cnt)
{
	DECLARE_BITMAP(bits, ST_BITS_NR);
	const char *foo = st_foos[cnt % ARRAY_SIZE(st_foos)];
	int bar = cnt % 20;
	int list[8];
	int nr = cnt % (ARRAY_SIZE(list) + 1);
	int i;

	for (i = 0; i < nr; i++)
		list[i] = (int)cnt * 10 + i - 5;

	/* A low bit, a bit in the second word and one that moves. */
	bitmap_zero(bits, ST_BITS_NR);
	__set_bit(0, bits);
	__set_bit(65, bits);
	__set_bit(cnt % ST_BITS_NR, bits);

	st_fire_foo_bar(foo, bar, list, nr, st_strings[cnt % ARRAY_SIZE(st_strings)], bits,
			"round %lu of %s", cnt, current->comm);
	trace_foo_bar_with_cond(foo, bar);
	trace_foo_with_template_simple(foo, bar);
	trace_foo_with_template_cond(foo, bar);
	trace_foo_with_template_print(foo, bar);
#ifdef ST_HAVE_REL_LOC
	trace_foo_rel_loc(st_strings[cnt % ARRAY_SIZE(st_strings)], bar, bits,
			  (bar & 1) ? cpumask_of(raw_smp_processor_id()) : cpu_online_mask);
#endif
}

/*
 * Left alone, the scheduler tends to keep the thread on one CPU; moving it
 * puts records in every per-CPU buffer, so that readers must merge them.
 */
static void st_hop(void)
{
	unsigned int cpu;

	if (!READ_ONCE(hop))
		return;
	cpu = cpumask_next(raw_smp_processor_id(), cpu_online_mask);
	if (cpu >= nr_cpu_ids)
		cpu = cpumask_first(cpu_online_mask);
	set_cpus_allowed_ptr(current, cpumask_of(cpu));
}

static int st_main_fn(void *arg)
{
	unsigned long cnt = 0;

	while (!kthread_should_stop()) {
		st_fire_round(cnt++);
		st_hop();
		st_sleep();
	}
	return 0;
}

static int st_fn_fn(void *arg)
{
	unsigned long cnt = 0;

	while (!kthread_should_stop()) {
		trace_foo_bar_with_fn("fn", cnt % 20);
		trace_foo_with_template_fn("fn", cnt % 20);
		cnt++;
		st_sleep();
	}
	return 0;
}

int sample_trace_fn_reg(void)
{
	int ret = 0;

	mutex_lock(&st_fn_lock);
	if (st_fn_users++ == 0) {
		st_fn_thread = kthread_run(st_fn_fn, NULL, "sample-trace-fn");
		if (IS_ERR(st_fn_thread)) {
			ret = PTR_ERR(st_fn_thread);
			st_fn_thread = NULL;
			st_fn_users--;
		}
	}
	mutex_unlock(&st_fn_lock);
	return ret;
}

void sample_trace_fn_unreg(void)
{
	mutex_lock(&st_fn_lock);
	if (st_fn_users && --st_fn_users == 0 && st_fn_thread) {
		kthread_stop(st_fn_thread);
		st_fn_thread = NULL;
	}
	mutex_unlock(&st_fn_lock);
}

static int __init sample_trace_init(void)
{
	st_main_thread = kthread_run(st_main_fn, NULL, "sample-trace");
	return PTR_ERR_OR_ZERO(st_main_thread);
}

static void __exit sample_trace_exit(void)
{
	kthread_stop(st_main_thread);
	/*
	 * Events still enabled are unregistered only after this returns, and
	 * the second thread runs module code: stop it now.
	 */
	mutex_lock(&st_fn_lock);
	if (st_fn_thread) {
		kthread_stop(st_fn_thread);
		st_fn_thread = NULL;
	}
	mutex_unlock(&st_fn_lock);
}

module_init(sample_trace_init);
module_exit(sample_trace_exit);

MODULE_DESCRIPTION("sample-trace events for trying and testing trace readers");
MODULE_LICENSE("GPL");
