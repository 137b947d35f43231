// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * decode-pages: ring-buffer pages built by hand, in the layout of the kernel's
 * events/header_page, decoded through the reader (kbuffer) and the output layer:
 * padding, time-extend and absolute-timestamp records, a page that says events
 * were lost (with and without a stored count), the merge of two CPUs, and an
 * event with every field kind (signed and unsigned ints, char[], __data_loc
 * char[], __data_loc int[], __rel_loc char[], a bitmask).  Prints TAP.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "decode.h"
#include "output.h"
#include "reader.h"

#define PAGE 4096
#define HDR 16			/* u64 timestamp + u64 commit */
#define MISSED (1ULL << 31)	/* commit flags: events were lost before this page */
#define STORED (1ULL << 30)	/* ... and their count follows the data */

static const char header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char kinds_format[] =
	"name: kinds\n"
	"ID: 900\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int u;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:u64 b;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:char name[8];\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc char[] str;\toffset:32;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc int[] arr;\toffset:36;\tsize:4;\tsigned:1;\n"
	"\tfield:__rel_loc char[] rs;\toffset:40;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc unsigned long[] mask;\toffset:44;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"a=%d u=%u b=%llu name=%s str=%s rs=%s mask=%s\", REC->a, REC->u, "
	"REC->b, REC->name, __get_str(str), __get_rel_str(rs), __get_bitmask(mask)\n";

static const char tick_format[] =
	"name: tick\n"
	"ID: 901\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:int n;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"n=%d\", REC->n\n";

/* The kernel's own formats of its stack records (6.18; 6.1 has the same). */
static const char kstack_format[] =
	"name: kernel_stack\n"
	"ID: 4\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n"
	"\n"
	"print fmt: \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" "
	"\"\\t=> %ps\\n\\t=> %ps\\n\", (void *)REC->caller[0], (void *)REC->caller[1], "
	"(void *)REC->caller[2], (void *)REC->caller[3], (void *)REC->caller[4], "
	"(void *)REC->caller[5], (void *)REC->caller[6], (void *)REC->caller[7]\n";

static const char ustack_format[] =
	"name: user_stack\n"
	"ID: 13\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned int tgid;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n"
	"\n"
	"print fmt: \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" "
	"\"\\t=> %ps\\n\\t=> %ps\\n\", (void *)REC->caller[0], (void *)REC->caller[1], "
	"(void *)REC->caller[2], (void *)REC->caller[3], (void *)REC->caller[4], "
	"(void *)REC->caller[5], (void *)REC->caller[6], (void *)REC->caller[7]\n";

/* An event with two kernel addresses, printed as the kernel's %ps and %pS. */
static const char sym_format[] =
	"name: symev\n"
	"ID: 902\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned long f;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long g;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"f=%ps g=%pS h=%ps\", (void *)REC->f, (void *)REC->g, (void *)REC->f\n";

/* Symbols as /proc/kallsyms lists them: kernel text, a module's, data. */
static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T do_syscall_64\n"
	"ffffffff81000180 t __kretprobe_trampoline\n"
	"ffffffff81000200 T entry_SYSCALL_64\n"
	"ffffffff81000300 D some_data\n"
	"ffffffffc0001000 t st_main_fn\t[sample_trace]\n"
	"ffffffffc0001100 t st_fire\t[sample_trace]\n"
	"ffffffffc0002000 T _etext_sample\t[sample_trace]\n";

/* Pages lie back to back in mem, as read from trace_pipe_raw. */
static unsigned char mem[4][PAGE];

struct page {
	unsigned char *b;
	size_t len;	/* bytes of data after the header */
};

static void page_init(struct page *p, uint64_t ts)
{
	memset(p->b, 0, PAGE);
	p->len = 0;
	memcpy(p->b, &ts, 8);
}

static void put32(struct page *p, uint32_t v)
{
	memcpy(p->b + HDR + p->len, &v, 4);
	p->len += 4;
}

/* A data record: type_len = payload words, then the payload (a multiple of 4). */
static void put_event(struct page *p, uint32_t delta, const void *data, size_t len)
{
	put32(p, (uint32_t)(len / 4) | delta << 5);
	memcpy(p->b + HDR + p->len, data, len);
	p->len += len;
}

static void put_extend(struct page *p, uint64_t delta)
{
	put32(p, 30 | (uint32_t)(delta & ((1 << 27) - 1)) << 5);
	put32(p, (uint32_t)(delta >> 27));
}

static void put_absolute(struct page *p, uint64_t ts)
{
	put32(p, 31 | (uint32_t)(ts & ((1 << 27) - 1)) << 5);
	put32(p, (uint32_t)(ts >> 27));
}

/* Padding record of total length len: its length word counts itself, not the header. */
static void put_padding(struct page *p, uint32_t len)
{
	put32(p, 29);
	put32(p, len - 4);
	p->len += len - 8;
}

static void page_commit(struct page *p, uint64_t flags)
{
	uint64_t c = p->len | flags;

	memcpy(p->b + 8, &c, 8);
}

static size_t tick(unsigned char *d, int pid, int n)
{
	uint16_t id = 901;

	memset(d, 0, 12);
	memcpy(d, &id, 2);
	d[2] = 0x01;	/* irqs off */
	d[3] = 0x12;	/* preempt depth 2, migrate-disable 1 */
	memcpy(d + 4, &pid, 4);
	memcpy(d + 8, &n, 4);
	return 12;
}

static size_t kinds(unsigned char *d)
{
	uint16_t id = 900;
	int32_t pid = 42, a = -5, arr[3] = { -1, 0, 7 };
	uint32_t u = 4000000000u, loc;
	uint64_t b = 18446744073709551615ULL, mask[2] = { 0x8001, 0x2 };
	size_t off = 48;

	memset(d, 0, 128);
	memcpy(d, &id, 2);
	memcpy(d + 4, &pid, 4);
	memcpy(d + 8, &a, 4);
	memcpy(d + 12, &u, 4);
	memcpy(d + 16, &b, 8);
	memcpy(d + 24, "comm\0xx", 8);
	/* str: "t\xc3\xa9\x01\"" and its NUL */
	loc = (uint32_t)off | 6 << 16;
	memcpy(d + 32, &loc, 4);
	memcpy(d + off, "t\xc3\xa9\x01\"", 6);
	off += 8;
	loc = (uint32_t)off | sizeof(arr) << 16;
	memcpy(d + 36, &loc, 4);
	memcpy(d + off, arr, sizeof(arr));
	off += sizeof(arr);
	/* __rel_loc: offset from the end of the field (40 + 4) */
	loc = (uint32_t)(off - 44) | 3 << 16;
	memcpy(d + 40, &loc, 4);
	memcpy(d + off, "rl", 3);
	off += 4;
	loc = (uint32_t)off | sizeof(mask) << 16;
	memcpy(d + 44, &loc, 4);
	memcpy(d + off, mask, sizeof(mask));
	off += sizeof(mask);
	return off;
}

/* A stack record: kernel (id 4, size field n) or user (id 13, 8 entries), frames f[0..n). */
static size_t stack_rec(unsigned char *d, bool user, int pid, const uint64_t *f, int n)
{
	uint16_t id = user ? 13 : 4;
	int32_t v = user ? pid : n;
	int slots = user ? 8 : n;

	memset(d, 0, 16 + 8 * slots);
	memcpy(d, &id, 2);
	d[2] = 0x01;
	d[3] = 0x12;
	memcpy(d + 4, &pid, 4);
	memcpy(d + 8, &v, 4);
	memcpy(d + 16, f, 8 * n);
	return 16 + 8 * slots;
}

static int n;
static int failed;

static void check(int ok, const char *what, const char *got, const char *want)
{
	printf("%s %d - %s\n", ok ? "ok" : "not ok", ++n, what);
	if (!ok) {
		printf("# got:\n# %s\n# want:\n# %s\n", got, want);
		failed = 1;
	}
}

/* Decode the pages of cpus 0 and 1 through the merge; output into buf. */
static char *run_hold(struct tep_handle *tep, enum output_mode mode, bool hold,
		      struct page *p0, int n0, struct page *p1, int n1)
{
	struct reader *r = reader_new(PAGE);
	struct tep_record rec;
	struct output *o;
	char *buf = NULL;
	size_t len = 0;
	long long lost;
	FILE *f = open_memstream(&buf, &len);

	reader_add_mem(r, 0, p0->b, (size_t)n0 * PAGE);
	if (n1)
		reader_add_mem(r, 1, p1->b, (size_t)n1 * PAGE);
	o = output_new(tep, f, mode);
	output_set_kernel_release(o, "6.18.0");
	output_set_stacks(o, hold);
	while (reader_next(r, &rec, &lost) > 0) {
		if (lost)
			output_lost(o, rec.cpu, lost);
		output_record(o, &rec);
	}
	output_flush(o);
	output_free(o);
	reader_free(r);
	fclose(f);
	return buf;
}

static char *run(struct tep_handle *tep, enum output_mode mode, struct page *p0, int n0,
		 struct page *p1, int n1)
{
	return run_hold(tep, mode, false, p0, n0, p1, n1);
}

int main(void)
{
	struct tep_handle *tep = decode_tep_new(false);
	struct page p[4] = { { mem[0], 0 }, { mem[1], 0 }, { mem[2], 0 }, { mem[3], 0 } };
	unsigned char d[256];
	size_t len;
	char *got;
	const char *want;
	uint64_t t0 = 1000000000ULL;	/* 1 s */

	printf("1..17\n");
	decode_header_page(tep, header_page, sizeof(header_page) - 1);
	check(decode_add_format(tep, "test", kinds_format, sizeof(kinds_format) - 1) == 0 &&
	      decode_add_format(tep, "test", tick_format, sizeof(tick_format) - 1) == 0,
	      "formats parse", "", "");
	tep_register_comm(tep, "worker", 7);

	/*
	 * cpu0, page 0 at 1 s: tick +100 ns; padding; time extend of 3 << 27 + 5 ns,
	 * then tick +0; an absolute stamp of 5 s, then tick +2000 ns.
	 */
	page_init(&p[0], t0);
	put_event(&p[0], 100, d, tick(d, 7, 1));
	put_padding(&p[0], 16);
	put_extend(&p[0], (3ULL << 27) + 5);
	put_event(&p[0], 0, d, tick(d, 7, 2));
	put_absolute(&p[0], 5000000000ULL);
	put_event(&p[0], 2000, d, tick(d, 7, 3));
	page_commit(&p[0], 0);
	/* cpu1: one tick at 1 s + 500 ns, then one at 3 s (between cpu0's 2nd and 3rd) */
	page_init(&p[2], t0 + 500);
	put_event(&p[2], 0, d, tick(d, 8, 10));
	put_extend(&p[2], 2000000000ULL - 500);
	put_event(&p[2], 0, d, tick(d, 8, 11));
	page_commit(&p[2], 0);

	got = run(tep, OUTPUT_TEXT, &p[0], 1, &p[2], 1);
	want =
	"          worker-7       [000] d..21     1.000000: tick: n=1\n"
	"           <...>-8       [001] d..21     1.000001: tick: n=10\n"
	"          worker-7       [000] d..21     1.402653: tick: n=2\n"
	"           <...>-8       [001] d..21     3.000000: tick: n=11\n"
	"          worker-7       [000] d..21     5.000002: tick: n=3\n";
	check(!strcmp(got, want), "padding, time extend, absolute stamp, merge of two CPUs",
	      got, want);
	free(got);

	/*
	 * Equal stamps on two CPUs: the lower CPU's record first, as the
	 * kernel's own `trace` orders them.  cpu1 gives the first record, so
	 * its next one (stamped like cpu0's head) must not simply follow it.
	 */
	page_init(&p[0], t0 + 1000);
	put_event(&p[0], 0, d, tick(d, 7, 1));
	put_event(&p[0], 1000, d, tick(d, 7, 2));
	page_commit(&p[0], 0);
	page_init(&p[2], t0 + 500);
	put_event(&p[2], 0, d, tick(d, 8, 10));
	put_event(&p[2], 500, d, tick(d, 8, 11));
	put_event(&p[2], 1000, d, tick(d, 8, 12));
	page_commit(&p[2], 0);
	got = run(tep, OUTPUT_TEXT, &p[0], 1, &p[2], 1);
	want =
	"           <...>-8       [001] d..21     1.000001: tick: n=10\n"
	"          worker-7       [000] d..21     1.000001: tick: n=1\n"
	"           <...>-8       [001] d..21     1.000001: tick: n=11\n"
	"          worker-7       [000] d..21     1.000002: tick: n=2\n"
	"           <...>-8       [001] d..21     1.000002: tick: n=12\n";
	check(!strcmp(got, want), "equal stamps on two CPUs: the lower CPU first", got, want);
	free(got);

	/* lost: one page with a stored count of 17, one that only says "some" */
	page_init(&p[0], t0);
	put_event(&p[0], 0, d, tick(d, 7, 1));
	{
		uint64_t cnt = 17;

		memcpy(p[0].b + HDR + p[0].len, &cnt, 8);
	}
	page_commit(&p[0], MISSED | STORED);
	page_init(&p[1], t0 + 1000);
	put_event(&p[1], 0, d, tick(d, 7, 2));
	page_commit(&p[1], MISSED);
	got = run(tep, OUTPUT_TEXT, &p[0], 2, NULL, 0);
	want =
	"CPU:0 [LOST 17 EVENTS]\n"
	"          worker-7       [000] d..21     1.000000: tick: n=1\n"
	"CPU:0 [LOST EVENTS]\n"
	"          worker-7       [000] d..21     1.000001: tick: n=2\n";
	check(!strcmp(got, want), "lost-events pages: the kernel's markers", got, want);
	free(got);
	got = run(tep, OUTPUT_JSON, &p[0], 2, NULL, 0);
	check(strstr(got, "{\"type\":\"lost\",\"cpu\":0,\"count\":17}\n") == got &&
	      strstr(got, "{\"type\":\"lost\",\"cpu\":0,\"count\":null}\n") != NULL,
	      "lost-events pages: JSON lost records", got, "count 17, then null");
	free(got);

	/* every field kind */
	page_init(&p[0], t0);
	len = kinds(d);
	put_event(&p[0], 0, d, (len + 3) & ~3UL);
	page_commit(&p[0], 0);
	got = run(tep, OUTPUT_JSON, &p[0], 1, NULL, 0);
	want = "{\"type\":\"event\",\"ts_ns\":1000000000,\"cpu\":0,\"pid\":42,\"comm\":null,"
	       "\"flags\":\".....\",\"system\":\"test\",\"event\":\"kinds\",\"fields\":{"
	       "\"a\":-5,\"u\":4000000000,\"b\":18446744073709551615,\"name\":\"comm\","
	       "\"str\":\"t\xc3\xa9\\u0001\\\"\",\"arr\":[-1,0,7],\"rs\":\"rl\","
	       "\"mask\":[0,15,65]}}\n";
	check(!strcmp(got, want), "every field kind as typed JSON", got, want);
	free(got);
	got = run(tep, OUTPUT_TEXT, &p[0], 1, NULL, 0);
	want = "           <...>-42      [000] .....     1.000000: kinds: a=-5 u=4000000000 "
	       "b=18446744073709551615 name=comm str=t\xc3\xa9\x01\" rs=rl "
	       "mask=00000000,00000002,00000000,00008001\n";
	check(!strcmp(got, want), "every field kind as text", got, want);
	free(got);
	/*
	 * Stacks: on cpu0 an event, its kernel stack of 10 frames (the print
	 * fmt shows 8) and its user stack; on cpu1 an event stamped between
	 * cpu0's event and its stacks.  The kernel stack has a frame in a
	 * module, the ftrace trampoline marker, an address no symbol holds and
	 * the kretprobe trampoline.
	 */
	{
		static const uint64_t kf[10] = {
			0xffffffff81000105, 0xffffffffc0001010, 0x7fffffff, 0xffffffff00000010,
			0xffffffff81000180, 0xffffffffc0001105, 0xffffffff81000201,
			0xffffffff81000101, 0xffffffffc0001001, 0xffffffff81000250,
		};
		static const uint64_t uf[2] = { 0x7f0000001234, 0x401000 };
		static const uint64_t cut[3] = {
			0xffffffff81000105, 0xffffffffffffffff, 0xffffffffc0001105,
		};
		const char *kjson =
			"\"stack\":[{\"addr\":18446744071578845445,\"sym\":\"do_syscall_64\",\"off\":5},"
			"{\"addr\":18446744072635813904,\"sym\":\"st_main_fn\",\"off\":16},"
			"{\"addr\":2147483647,\"sym\":\"[FTRACE TRAMPOLINE]\",\"off\":null},"
			"{\"addr\":18446744069414584336,\"sym\":null,\"off\":null},"
			"{\"addr\":18446744071578845568,\"sym\":\"[unknown/kretprobe'd]\",\"off\":null},"
			"{\"addr\":18446744072635814149,\"sym\":\"st_fire\",\"off\":5},"
			"{\"addr\":18446744071578845697,\"sym\":\"entry_SYSCALL_64\",\"off\":1},"
			"{\"addr\":18446744071578845441,\"sym\":\"do_syscall_64\",\"off\":1},"
			"{\"addr\":18446744072635813889,\"sym\":\"st_main_fn\",\"off\":1},"
			"{\"addr\":18446744071578845776,\"sym\":\"entry_SYSCALL_64\",\"off\":80}]";
		const char *ujson = "\"user_stack\":[{\"addr\":139637976732212},{\"addr\":4198400}]";
		char *w1, *w2, *w3;

		check(decode_add_format(tep, "ftrace", kstack_format, sizeof(kstack_format) - 1) == 0 &&
		      decode_add_format(tep, "ftrace", ustack_format, sizeof(ustack_format) - 1) == 0 &&
		      decode_kallsyms_parse(kallsyms, sizeof(kallsyms) - 1) == 0,
		      "stack formats and symbols parse", "", "");
		page_init(&p[0], t0);
		put_event(&p[0], 0, d, tick(d, 7, 1));
		put_event(&p[0], 100, d, stack_rec(d, false, 7, kf, 10));
		put_event(&p[0], 0, d, stack_rec(d, true, 7, uf, 2));
		page_commit(&p[0], 0);
		page_init(&p[2], t0 + 50);
		put_event(&p[2], 0, d, tick(d, 8, 10));
		page_commit(&p[2], 0);

		got = run(tep, OUTPUT_TEXT, &p[0], 1, &p[2], 1);
		want =
		"          worker-7       [000] d..21     1.000000: tick: n=1\n"
		"           <...>-8       [001] d..21     1.000000: tick: n=10\n"
		"          worker-7       [000] d..21     1.000000: <stack trace>\n"
		" => do_syscall_64\n"
		" => st_main_fn\n"
		" => [FTRACE TRAMPOLINE]\n"
		" => 0xffffffff00000010\n"
		" => [unknown/kretprobe'd]\n"
		" => st_fire\n"
		" => entry_SYSCALL_64\n"
		" => do_syscall_64\n"
		" => st_main_fn\n"
		" => entry_SYSCALL_64\n"
		"          worker-7       [000] d..21     1.000000: <user stack trace>\n"
		" =>  <00007f0000001234>\n"
		" =>  <0000000000401000>\n";
		check(!strcmp(got, want), "stack records as the kernel prints them, all 10 frames",
		      got, want);
		free(got);

		got = run_hold(tep, OUTPUT_JSON, true, &p[0], 1, &p[2], 1);
		if (asprintf(&w1, "{\"type\":\"event\",\"ts_ns\":1000000000,\"cpu\":0,\"pid\":7,"
			     "\"comm\":\"worker\",\"flags\":\"d..21\",\"system\":\"test\","
			     "\"event\":\"tick\",\"fields\":{\"n\":1},%s,%s}\n"
			     "{\"type\":\"event\",\"ts_ns\":1000000050,\"cpu\":1,\"pid\":8,"
			     "\"comm\":null,\"flags\":\"d..21\",\"system\":\"test\","
			     "\"event\":\"tick\",\"fields\":{\"n\":10}}\n", kjson, ujson) < 0)
			return 1;
		check(!strcmp(got, w1), "JSON: the stacks go into the event before them on their CPU, "
		      "events stay in time order", got, w1);
		free(got);

		got = run(tep, OUTPUT_JSON, &p[0], 1, &p[2], 1);
		if (asprintf(&w2, "{\"type\":\"event\",\"ts_ns\":1000000000,\"cpu\":0,\"pid\":7,"
			     "\"comm\":\"worker\",\"flags\":\"d..21\",\"system\":\"test\","
			     "\"event\":\"tick\",\"fields\":{\"n\":1}}\n"
			     "{\"type\":\"event\",\"ts_ns\":1000000050,\"cpu\":1,\"pid\":8,"
			     "\"comm\":null,\"flags\":\"d..21\",\"system\":\"test\","
			     "\"event\":\"tick\",\"fields\":{\"n\":10}}\n"
			     "{\"type\":\"event\",\"ts_ns\":1000000100,\"cpu\":0,\"pid\":7,"
			     "\"comm\":\"worker\",\"flags\":\"d..21\",\"system\":\"ftrace\","
			     "\"event\":\"kernel_stack\",\"fields\":{\"size\":10},%s}\n"
			     "{\"type\":\"event\",\"ts_ns\":1000000100,\"cpu\":0,\"pid\":7,"
			     "\"comm\":\"worker\",\"flags\":\"d..21\",\"system\":\"ftrace\","
			     "\"event\":\"user_stack\",\"fields\":{\"tgid\":7},%s}\n", kjson, ujson) < 0)
			return 1;
		check(!strcmp(got, w2), "JSON without holding: stack records as events of their own",
		      got, w2);
		free(got);

		/*
		 * A stack of another task stands alone and ends the event before
		 * it; ULONG_MAX ends the frames; the size field counts them.
		 */
		page_init(&p[0], t0);
		put_event(&p[0], 0, d, tick(d, 7, 2));
		put_event(&p[0], 10, d, stack_rec(d, false, 9, kf, 1));
		put_event(&p[0], 10, d, stack_rec(d, false, 7, cut, 3));
		put_event(&p[0], 10, d, tick(d, 7, 3));
		len = stack_rec(d, false, 7, kf, 3);
		d[8] = 2;	/* size: 2 frames of the 3 the record holds */
		put_event(&p[0], 10, d, len);
		page_commit(&p[0], 0);
		got = run_hold(tep, OUTPUT_JSON, true, &p[0], 1, NULL, 0);
		if (asprintf(&w3, "{\"type\":\"event\",\"ts_ns\":1000000000,\"cpu\":0,\"pid\":7,"
			     "\"comm\":\"worker\",\"flags\":\"d..21\",\"system\":\"test\","
			     "\"event\":\"tick\",\"fields\":{\"n\":2}}\n"
			     "{\"type\":\"event\",\"ts_ns\":1000000010,\"cpu\":0,\"pid\":9,"
			     "\"comm\":null,\"flags\":\"d..21\",\"system\":\"ftrace\","
			     "\"event\":\"kernel_stack\",\"fields\":{\"size\":1},\"stack\":["
			     "{\"addr\":18446744071578845445,\"sym\":\"do_syscall_64\",\"off\":5}]}\n"
			     "{\"type\":\"event\",\"ts_ns\":1000000020,\"cpu\":0,\"pid\":7,"
			     "\"comm\":\"worker\",\"flags\":\"d..21\",\"system\":\"ftrace\","
			     "\"event\":\"kernel_stack\",\"fields\":{\"size\":3},\"stack\":["
			     "{\"addr\":18446744071578845445,\"sym\":\"do_syscall_64\",\"off\":5}]}\n"
			     "{\"type\":\"event\",\"ts_ns\":1000000030,\"cpu\":0,\"pid\":7,"
			     "\"comm\":\"worker\",\"flags\":\"d..21\",\"system\":\"test\","
			     "\"event\":\"tick\",\"fields\":{\"n\":3},\"stack\":["
			     "{\"addr\":18446744071578845445,\"sym\":\"do_syscall_64\",\"off\":5},"
			     "{\"addr\":18446744072635813904,\"sym\":\"st_main_fn\",\"off\":16}]}\n") < 0)
			return 1;
		check(!strcmp(got, w3), "JSON: another task's stack stands alone; ULONG_MAX and the "
		      "size field end the frames", got, w3);
		free(got);
		got = run(tep, OUTPUT_TEXT, &p[0], 1, NULL, 0);
		want =
		"          worker-7       [000] d..21     1.000000: tick: n=2\n"
		"           <...>-9       [000] d..21     1.000000: <stack trace>\n"
		" => do_syscall_64\n"
		"          worker-7       [000] d..21     1.000000: <stack trace>\n"
		" => do_syscall_64\n"
		"          worker-7       [000] d..21     1.000000: tick: n=3\n"
		"          worker-7       [000] d..21     1.000000: <stack trace>\n"
		" => do_syscall_64\n"
		" => st_main_fn\n";
		check(!strcmp(got, want), "text: ULONG_MAX and the size field end the frames",
		      got, want);
		free(got);
		free(w1);
		free(w2);
		free(w3);
	}
	{
		/* a module's symbol: the kernel's %ps and %pS name the module after it */
		uint16_t id = 902;
		int32_t pid = 7;
		uint64_t g = 0xffffffffc0001010ULL;

		static const struct {
			uint64_t f;
			const char *want, *what;
		} c[] = {
			{ 0xffffffff81000100ULL,
			  "          worker-7       [000] .....     1.000000: symev: f=do_syscall_64 "
			  "g=st_main_fn+0x10/0x100 [sample_trace] h=do_syscall_64\n",
			  "%pS of a module's symbol: \"sym+0xoff/0xsize [module]\"" },
			{ 0xffffffffc0001105ULL,
			  "          worker-7       [000] .....     1.000000: symev: f=st_fire [sample_trace] "
			  "g=st_main_fn+0x10/0x100 [sample_trace] h=st_fire [sample_trace]\n",
			  "%ps of a module's symbol: \"sym [module]\"" },
		};

		check(decode_add_format(tep, "test", sym_format, sizeof(sym_format) - 1) == 0,
		      "a format with %ps and %pS parses", "", "");
		for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++) {
			memset(d, 0, 24);
			memcpy(d, &id, 2);
			memcpy(d + 4, &pid, 4);
			memcpy(d + 8, &c[k].f, 8);
			memcpy(d + 16, &g, 8);
			page_init(&p[0], t0);
			put_event(&p[0], 0, d, 24);
			page_commit(&p[0], 0);
			got = run(tep, OUTPUT_TEXT, &p[0], 1, NULL, 0);
			check(!strcmp(got, c[k].want), c[k].what, got, c[k].want);
			free(got);
		}
	}
	/*
	 * A print fmt whose plan cannot be made (textplan.c: a print function in
	 * an expression, next to parts it would fold): libtraceevent prints it,
	 * the same with plans on and off.
	 */
	{
		static const char planfail_format[] =
			"name: planfail\n"
			"ID: 905\n"
			"format:\n"
			"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
			"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
			"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
			"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
			"\n"
			"\tfield:int n;\toffset:8;\tsize:4;\tsigned:1;\n"
			"\n"
			"print fmt: \"n=%d v=%lu\", REC->n, REC->n ? (unsigned int)(__tpctl_kvar(0)) : 5\n";
		uint16_t id = 905;
		int pid = 7, v = 42;
		char *off;

		decode_add_format(tep, "test", planfail_format, sizeof(planfail_format) - 1);
		memset(d, 0, 12);
		memcpy(d, &id, 2);
		memcpy(d + 4, &pid, 4);
		memcpy(d + 8, &v, 4);
		page_init(&p[0], t0);
		put_event(&p[0], 0, d, 12);
		page_commit(&p[0], 0);
		got = run(tep, OUTPUT_TEXT, &p[0], 1, NULL, 0);
		setenv("TPCTL_TEXTPLAN", "0", 1);
		off = run(tep, OUTPUT_TEXT, &p[0], 1, NULL, 0);
		unsetenv("TPCTL_TEXTPLAN");
		check(!strcmp(got, off) && strstr(got, "planfail: n=42 v=0"),
		      "a print fmt with no plan: libtraceevent's text", got, off);
		free(got);
		free(off);
	}
	tep_free(tep);
	return failed;
}
