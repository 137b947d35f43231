// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The folded and SVG writers of src/flame.c: stacks merged and sorted, the
 * weights of every path, names that would split a frame or a line replaced,
 * names that would be markup escaped, nothing half written.  flame [SVG]:
 * with a path, the SVG of the hostile names is left there for flame.t's
 * XML checks.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flame.h"
#include "tap.h"

#define FR(n, k) { n, k }

static char *folded(struct flame *fl)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	flame_write_folded(fl, f);
	fclose(f);
	return buf;
}

static char *svg(struct flame *fl, const char *title)
{
	struct flame_svg o = { .title = title, .unit = "us" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	flame_write_svg(fl, f, &o);
	fclose(f);
	return buf;
}

static void test_merge(void)
{
	struct flame *fl = flame_new();
	struct flame_frame a[] = { FR("sleep", FLAME_KEY), FR("entry", FLAME_KERNEL),
				   FR("do_nanosleep", FLAME_KERNEL), FR("schedule", FLAME_KERNEL) };
	struct flame_frame b[] = { FR("sleep", FLAME_KEY), FR("entry", FLAME_KERNEL),
				   FR("do_exit", FLAME_KERNEL) };
	struct flame_frame c[] = { FR("bash", FLAME_KEY), FR("main", FLAME_USER) };
	struct flame_frame deep[FLAME_DEPTH_MAX + 1];
	char *out;
	size_t i;

	ok(!flame_add(fl, a, 4, 700) && !flame_add(fl, b, 3, 5) && !flame_add(fl, a, 4, 300) &&
	   !flame_add(fl, c, 2, 1) && !flame_add(fl, a, 2, 2) && !flame_add(fl, c, 2, 0),
	   "stacks added");
	ok(flame_total(fl) == 1008, "the total is every weight");
	out = folded(fl);
	ok(!strcmp(out, "bash;main 1\nsleep;entry 2\nsleep;entry;do_exit 5\n"
			"sleep;entry;do_nanosleep;schedule 1000\n"),
	   "folded: equal stacks summed, sorted by name, zero weights left out");
	free(out);
	for (i = 0; i <= FLAME_DEPTH_MAX; i++)
		deep[i] = (struct flame_frame)FR("f", FLAME_KERNEL);
	errno = 0;
	ok(flame_add(fl, deep, FLAME_DEPTH_MAX + 1, 1) < 0 && errno == EINVAL &&
	   flame_add(fl, deep, 0, 1) < 0 && flame_total(fl) == 1008,
	   "a stack of no frames or too many is refused, the weights unchanged");
	out = svg(fl, "t");
	ok(strstr(out, "<title>all (1008 us, 100.00%)</title>") &&
	   strstr(out, "<title>schedule (1000 us, 99.21%)</title>") &&
	   strstr(out, "<title>entry (1007 us, 99.90%)</title>"),
	   "svg: a frame's title is its name, weight and share");
	ok(strstr(out, "width=\"1180.00\"") != NULL, "svg: the root spans the width");
	free(out);
	flame_free(fl);
}

static void test_names(const char *path)
{
	struct flame *fl = flame_new();
	struct flame_frame h[] = { FR("<svg onload=1>", FLAME_KEY), FR("a;b\nc\r", FLAME_KERNEL),
				   FR("\"q\" & 'r' \x01\xff\xef\xbf\xbe]]>", FLAME_USER) };
	char *out;
	FILE *f;

	flame_add(fl, h, 3, 42);
	out = folded(fl);
	ok(!strcmp(out, "<svg onload=1>;a:b?c?;\"q\" & 'r' ?\xff\xef\xbf\xbe]]> 42\n"),
	   "folded: ';' becomes ':', control bytes '?'");
	free(out);
	out = svg(fl, "tpctl <b>&");
	ok(!strstr(out, "<svg onload=1>") && !strstr(out, "<b>") &&
	   strstr(out, "<title>&lt;svg onload=1&gt; (42 us, 100.00%)</title>") &&
	   strstr(out, "tpctl &lt;b&gt;&amp;</text>"), "svg: markup in names and the title escaped");
	ok(strstr(out, "&quot;q&quot; &amp; &apos;r&apos; ?\xef\xbf\xbd\xef\xbf\xbd]]&gt;") != NULL,
	   "svg: control bytes '?', bytes that are not XML characters U+FFFD");
	if (path) {
		f = fopen(path, "w");
		fputs(out, f);
		fclose(f);
	}
	free(out);
	flame_free(fl);
}

static void test_file(void)
{
	char dir[] = "/tmp/flame-unit-XXXXXX", path[64], cmd[128];
	struct flame_file ff;
	FILE *f;
	int n;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/out.svg", dir);
	ok(flame_file_open(&ff, path) == 0 && access(path, F_OK) < 0,
	   "file: nothing at the path while it is written");
	fputs("half", ff.f);
	flame_file_abort(&ff);
	snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", dir);
	f = popen(cmd, "r");
	n = fscanf(f, "%d", &n) == 1 ? n : -1;
	pclose(f);
	ok(n == 0, "file: an abort leaves nothing behind");
	ok(flame_file_open(&ff, path) == 0 && fputs("whole\n", ff.f) >= 0 &&
	   flame_file_commit(&ff) == 0 && access(path, R_OK) == 0, "file: a commit puts it there");
	unlink(path);
	rmdir(dir);
	ok(flame_file_open(&ff, "/nonexistent-dir/x.svg") == 1 && !ff.f && !ff.tmp,
	   "file: an unwritable place fails at once");
}

/* Random stacks: the folded weights add up to the total, every line "frames weight". */
static void test_random(void)
{
	static const char *names[] = { "a", "b", "c", "d" };
	struct flame *fl = flame_new();
	struct flame_frame fr[8];
	unsigned long long sum = 0, w;
	char *out, *line, *sp, *save;
	bool good = true;
	int i, k, n;

	for (i = 0; i < 500; i++) {
		n = 1 + rnd() % 8;
		for (k = 0; k < n; k++)
			fr[k] = (struct flame_frame)FR(names[rnd() % 4], (enum flame_kind)(rnd() % 3));
		flame_add(fl, fr, n, rnd() % 1000);
	}
	out = folded(fl);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		sp = strrchr(line, ' ');
		good &= sp && sp > line && sscanf(sp + 1, "%llu", &w) == 1 && w > 0;
		sum += sp ? w : 0;
	}
	ok(good && sum == flame_total(fl), "random stacks: the folded weights add up to the total");
	free(out);
	flame_free(fl);
}

int main(int argc, char **argv)
{
	printf("1..14\n");
	test_random();
	test_merge();
	test_names(argc > 1 ? argv[1] : NULL);
	test_file();
	return 0;
}
