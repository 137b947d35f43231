// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * printfmt: print fmt expressions through decode_add_format() (printfmt.c's
 * rewrites, then libtraceevent) against the C compiler as the oracle.  Each
 * expression below is compiled into this program and also pasted, as text,
 * into the print fmt of a format: for every test record, libtraceevent's
 * "%llu" of the text must equal the compiled value.  Enum constants and a
 * kernel variable come from this file's own enum and variable through
 * struct decode_names, as BTF and /proc/timer_list do for tpctl.  Then the
 * print helpers whose text the kernel defines: __print_flags of 0 and of
 * unknown names, "%#x" of 0, a raw tab in the format string.  TAP output.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "decode.h"

/* The record: the common header, then the fields of the format below. */
struct rec {
	uint16_t common_type;
	uint8_t common_flags, common_preempt_count;
	int32_t common_pid;
	uint64_t a, b, c, d;
	uint32_t flags;
	uint32_t pad;
};

#define FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n" \
	"\tfield:u64 a;\toffset:8;\tsize:8;\tsigned:0;\n" \
	"\tfield:u64 b;\toffset:16;\tsize:8;\tsigned:0;\n" \
	"\tfield:u64 c;\toffset:24;\tsize:8;\tsigned:0;\n" \
	"\tfield:u64 d;\toffset:32;\tsize:8;\tsigned:0;\n" \
	"\tfield:unsigned int flags;\toffset:40;\tsize:4;\tsigned:0;\n\n"

/* Names only the "kernel" knows: resolved through struct decode_names. */
enum test_names { TEST_ONE = 1, TEST_TWO = 2, TEST_FOUR = 4, TEST_SIX = 6, TEST_BIG = 0x40000 };
static unsigned long jiffies = 4295000000UL;

/*
 * Expressions as TP_printk writes them after the preprocessor.  The first
 * ones are those of real 6.18 formats that libtraceevent 1.7.1 reads wrong
 * as they are (timer:timer_start, kmem:mm_page_alloc_extfrag,
 * btrfs:raid56_read, writeback:writeback_single_inode).
 */
#define EXPRS \
	X(REC->flags & (0x00040000 | 0x00080000 | 0x00100000 | 0x00200000)) \
	X(REC->a < (((unsigned int)((21 - 12))) < ((unsigned int)(10)) ? \
		    ((unsigned int)((21 - 12))) : ((unsigned int)(10)))) \
	X((REC->c < REC->a) ? (REC->c + 1) : ((REC->c < REC->b) ? (REC->c - REC->a + 1) : 0)) \
	X((jiffies - REC->a) / 250) \
	X(REC->a - REC->b - REC->c) \
	X(REC->a - REC->b * REC->c + REC->d) \
	X(REC->a - REC->b + REC->c - REC->d) \
	X(REC->a - (REC->b - REC->c)) \
	X(REC->a * (REC->b + 1) * 2) \
	X(REC->a / REC->b / 2) \
	X(REC->a % 7 * 3) \
	X(REC->a << 2 >> 1) \
	X(REC->a >> 1 << 3) \
	X((REC->a + REC->b) * (REC->c - REC->d)) \
	X(REC->a | REC->b & REC->c + REC->d) \
	X((REC->a | REC->b) & REC->c) \
	X(REC->a & ~(TEST_SIX | TEST_ONE)) \
	X(!REC->a && REC->b || REC->c) \
	X(REC->a > REC->b ? REC->a - REC->b : REC->b - REC->a) \
	X(REC->a > REC->b + 1 ? REC->c : REC->d + 1) \
	X(!REC->a ? REC->b * 2 : REC->c) \
	X(REC->a && REC->b ? 1 : REC->c ? 2 - REC->d : 3) \
	X(!REC->a ? 10 : REC->b == 1 ? 20 : 30) \
	X(REC->a == TEST_ONE ? TEST_TWO + REC->b : TEST_SIX - 1 - REC->c) \
	X(REC->a != -1UL ? REC->a : 0) \
	X(REC->flags & TEST_BIG ? TEST_FOUR * TEST_SIX : TEST_TWO) \
	X(REC->a < REC->b == REC->c < REC->d) \
	X(REC->a + -REC->c * 2)

struct values {
	uint64_t a, b, c, d;
	uint32_t flags;
};

static const struct values vals[] = {
	{ 100, 7, 3, 2, 0 },
	{ 5, 9, 4, 1, 0x00080003 },
	{ 0, 1, 0, 0, 0x003c0000 },
	{ 1, 1, 1, 1, 0x00040000 },
	{ 0x123456, 0x40, 0x7, 0x3, 0x12 },
	{ 12, 3, 10, 11, 0xffffffff },
	{ 4294999000ULL, 13, 2, 5, 0x00200000 },
};

/* precedence is what is tested: the expressions are written without extra parentheses */
#pragma GCC diagnostic ignored "-Wparentheses"
static unsigned long long compiled(int i, const struct rec *REC)
{
	int n = 0;

#define X(e) if (n++ == i) return (unsigned long long)(e);
	EXPRS
#undef X
	return 0;
}

static const char *const texts[] = {
#define X(e) #e,
	EXPRS
#undef X
};

static bool name_value(const char *name, size_t len, unsigned long long *value, void *ctx)
{
	static const struct { const char *name; unsigned long long value; } t[] = {
		{ "TEST_ONE", TEST_ONE }, { "TEST_TWO", TEST_TWO }, { "TEST_FOUR", TEST_FOUR },
		{ "TEST_SIX", TEST_SIX }, { "TEST_BIG", TEST_BIG },
	};
	size_t i;

	(void)ctx;
	for (i = 0; i < sizeof(t) / sizeof(*t); i++) {
		if (strlen(t[i].name) == len && !memcmp(t[i].name, name, len)) {
			*value = t[i].value;
			return true;
		}
	}
	return false;
}

static bool variable_value(const char *name, size_t len, unsigned long long *value, void *ctx)
{
	(void)ctx;
	if (len != 7 || memcmp(name, "jiffies", 7))
		return false;
	*value = jiffies;
	return true;
}

/*
 * Print fmts whose text the kernel defines, with the text it prints for each
 * of vals[] (NULL: not checked further).
 */
static const struct {
	const char *print, *what, *want[7];
} texts_kernel[] = {
	/*
	 * __print_flags as the kernel's trace_print_flags_seq() prints it: the
	 * names of the bits set, in table order, then what is left in hex; 0
	 * prints nothing.  The names' values come from decode_names.
	 */
	{ "\"%s\", __print_flags(REC->flags, \"|\", { TEST_ONE, \"ONE\" }, "
	  "{ TEST_TWO, \"TWO\" }, { TEST_FOUR, \"FOUR\" }, { TEST_BIG, \"BIG\" })",
	  "__print_flags with enum names: the kernel's text, 0 prints nothing",
	  { "", "ONE|TWO|0x80000", "BIG|0x380000", "BIG", "TWO|0x10",
	    "ONE|TWO|FOUR|BIG|0xfffbfff8", "0x200000" } },
	/* names nobody knows: 0 still prints nothing, other values their hex */
	{ "\"%s\", __print_flags(REC->flags, \"|\", { UNKNOWN_A, \"A\" }, "
	  "{ UNKNOWN_B, \"B\" })",
	  "__print_flags with unknown names: 0 prints nothing, others in hex",
	  { "", "0x80003", "0x3c0000", "0x40000", "0x12", "0xffffffff", "0x200000" } },
	{ "\"mode=%s\", __print_symbolic(REC->a, { 0, \"NONE\" }, { TEST_ONE, \"ONE\" }, "
	  "{ TEST_TWO, \"TWO\" })",
	  "__print_symbolic with enum names",
	  { "mode=0x64", "mode=0x5", "mode=NONE", "mode=ONE" } },
	/* the kernel's %#x writes 0x before any value, 0 too, within the width */
	{ "\"%#x %#010x %#llx %#llX\", REC->flags, REC->flags, REC->a, REC->c",
	  "%#x prints 0x0 for 0, as the kernel does",
	  { "0x0 0x00000000 0x64 0X3", "0x80003 0x00080003 0x5 0X4" } },
	/* strings out of nested ?: (kvm:kvm_nested_vmenter, xfs:xfs_free_extent) */
	{ "\"%s %s\", !REC->a ? \"guest\" : REC->b == TEST_SIX + 3 ? \"eptp\" : \"cr3\", "
	  "REC->c > 5 ? (REC->d > 5 ? \"both\" : \"left\") : (REC->d ? \"right\" : \"none\")",
	  "strings out of nested ?:",
	  { "cr3 right", "eptp right", "guest none", "cr3 right", "cr3 left", "cr3 both",
	    "cr3 right" } },
	/* a raw tab in the format string, as maple_tree's formats have it */
	{ "\"%llu\tnode %llu\", REC->a, REC->b",
	  "a raw tab in the format string parses and prints",
	  { "100\tnode 7" } },
};

static int ntest;
static int failed;

static void ok(bool cond, const char *fmt, const char *detail)
{
	ntest++;
	printf("%s %d - %s\n", cond ? "ok" : "not ok", ntest, fmt);
	if (!cond) {
		failed = 1;
		if (detail)
			printf("# %s\n", detail);
	}
}

/* Parse a format of the fields above with this print fmt; the event or NULL. */
static struct tep_event *add(struct tep_handle *tep, int id, const char *print)
{
	char *text;
	struct tep_event *ev;

	if (asprintf(&text, "name: e%d\nID: %d\nformat:\n" FIELDS "print fmt: %s\n", id, id,
		     print) < 0)
		exit(1);
	if (decode_add_format(tep, "test", text, strlen(text)) < 0) {
		free(text);
		return NULL;
	}
	free(text);
	ev = tep_find_event(tep, id);
	return ev && !(ev->flags & TEP_EVENT_FL_FAILED) ? ev : NULL;
}

static const char *print(struct tep_handle *tep, int id, const struct values *v)
{
	static struct trace_seq s;
	static bool init;
	struct rec r = { .common_type = id, .a = v->a, .b = v->b, .c = v->c, .d = v->d,
			 .flags = v->flags };
	struct tep_record rec = { .data = &r, .size = sizeof(r) };

	if (!init) {
		trace_seq_init(&s);
		init = true;
	}
	trace_seq_reset(&s);
	tep_print_event(tep, &s, &rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	return s.buffer;
}

/* One print fmt, its text for each value set against the expected texts. */
static void check_text(struct tep_handle *tep, int id, const char *fmt, const char *what,
		       const char *const want[7])
{
	struct tep_event *ev = add(tep, id, fmt);
	char detail[512] = "";
	bool good = ev != NULL;
	size_t k;

	for (k = 0; good && k < sizeof(vals) / sizeof(*vals) && want[k]; k++) {
		const char *got = print(tep, id, &vals[k]);

		if (strcmp(got, want[k])) {
			snprintf(detail, sizeof(detail), "values %zu: got '%s', want '%s'", k, got,
				 want[k]);
			good = false;
		}
	}
	if (!ev)
		snprintf(detail, sizeof(detail), "print fmt does not parse: %s", fmt);
	ok(good, what, detail);
}

int main(void)
{
	static const struct decode_names names = {
		.constant = name_value, .variable = variable_value,
	};
	struct tep_handle *tep = decode_tep_new(false);
	size_t nexpr = sizeof(texts) / sizeof(*texts), i, k;

	tep_set_loglevel(TEP_LOG_NONE);
	decode_set_names(&names);
	printf("1..%zu\n", nexpr + sizeof(texts_kernel) / sizeof(*texts_kernel));
	for (i = 0; i < nexpr; i++) {
		char *fmt, detail[512] = "", *msg;
		struct tep_event *ev;
		bool good;

		if (asprintf(&fmt, "\"%%llu\", %s", texts[i]) < 0)
			return 1;
		ev = add(tep, 100 + i, fmt);
		good = ev != NULL;
		if (!ev)
			snprintf(detail, sizeof(detail), "does not parse: %s", fmt);
		for (k = 0; good && k < sizeof(vals) / sizeof(*vals); k++) {
			const struct values *v = &vals[k];
			struct rec r = { .a = v->a, .b = v->b, .c = v->c, .d = v->d,
					 .flags = v->flags };
			char want[32];
			const char *got = print(tep, 100 + i, v);

			snprintf(want, sizeof(want), "%llu", compiled(i, &r));
			if (strcmp(got, want)) {
				snprintf(detail, sizeof(detail), "values %zu: %s, C: %s", k, got,
					 want);
				good = false;
			}
		}
		if (asprintf(&msg, "%s: as C computes it", texts[i]) < 0)
			return 1;
		ok(good, msg, detail);
		free(msg);
		free(fmt);
	}

	for (i = 0; i < sizeof(texts_kernel) / sizeof(*texts_kernel); i++)
		check_text(tep, 10 + i, texts_kernel[i].print, texts_kernel[i].what,
			   texts_kernel[i].want);
	tep_free(tep);
	return failed;
}
