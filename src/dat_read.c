// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dat_read - the checks a trace.dat (version 6 or 7) passes before
 * libtracecmd reads it (dat_open), its uname option, and the libtracecmd
 * handle opened on it; dat.h describes the layouts.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio_ext.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include <event-parse.h>
#include <trace-cmd.h>

#include "dat.h"
#include "dat_local.h"
#include "util.h"

/* A bounded cursor over bytes of the file, for the header checks. */
struct cur {
	const unsigned char *p;
	size_t len, off;
	bool bad;
};

static uint64_t cur_num(struct cur *c, int width)
{
	uint64_t v = 0;

	if (c->bad || c->len - c->off < (size_t)width) {
		c->bad = true;
		return 0;
	}
	/* tpctl and trace-cmd on this host write little-endian files */
	for (int i = width - 1; i >= 0; i--)
		v = v << 8 | c->p[c->off + i];
	c->off += width;
	return v;
}

static void cur_skip(struct cur *c, uint64_t n)
{
	if (c->bad || c->len - c->off < n)
		c->bad = true;
	else
		c->off += n;
}

static const char *cur_str(struct cur *c)
{
	const unsigned char *nul, *s;

	if (c->bad)
		return NULL;
	s = c->p + c->off;
	nul = memchr(s, 0, c->len - c->off);
	if (!nul) {
		c->bad = true;
		return NULL;
	}
	c->off = nul - c->p + 1;
	return (const char *)s;
}

/* A sized blob at the cursor: its size (width bytes) then the bytes. */
static const char *cur_blob(struct cur *c, int width, size_t *len)
{
	uint64_t n = cur_num(c, width);
	const char *p;

	*len = 0;
	/* no pointer arithmetic on a cursor without bytes (a section that failed) */
	if (c->bad)
		return NULL;
	p = (const char *)c->p + c->off;
	cur_skip(c, n);
	if (c->bad)
		return NULL;
	*len = n;
	return p;
}

static void add_fmt(struct dat_file *df, struct cur *c, const char *sys, int width)
{
	struct dat_file_format *f;
	const char *id;
	size_t len;
	const char *text = cur_blob(c, width, &len);
	void *p;

	if (!text)
		return;
	p = realloc(df->fmts, (df->nfmts + 1) * sizeof(*df->fmts));
	if (!p) {
		c->bad = true;
		return;
	}
	df->fmts = p;
	f = &df->fmts[df->nfmts++];
	f->system = sys;
	f->text = text;
	f->len = len;
	f->id = -1;
	id = memmem(text, len, "\nID: ", 5);
	if (id) {
		/* bounded: the text is not NUL-terminated */
		f->id = 0;
		for (id += 5; id < text + len && *id >= '0' && *id <= '9' && f->id < 1000000; id++)
			f->id = f->id * 10 + (*id - '0');
	}
}

static void parse_ftrace_formats(struct dat_file *df, struct cur *c)
{
	uint64_t n = cur_num(c, 4);

	for (uint64_t i = 0; i < n && !c->bad; i++)
		add_fmt(df, c, "ftrace", 8);
}

static void parse_event_formats(struct dat_file *df, struct cur *c)
{
	uint64_t n = cur_num(c, 4);

	for (uint64_t i = 0; i < n && !c->bad; i++) {
		const char *sys = cur_str(c);
		uint64_t nev = cur_num(c, 4);

		for (uint64_t k = 0; k < nev && !c->bad; k++)
			add_fmt(df, c, sys, 8);
	}
}

/*
 * Options that libtracecmd 3.1.6 reads as C strings (strdup, sscanf) without
 * looking at their size: their text must end inside the option.  The ids are
 * those of trace-cmd.dat.v6(5): 3 buffer and 22 text buffer (a name after an
 * 8-byte offset; version 7 adds the clock name after it), 5 uname, 6 hook,
 * 9 version, 10 procmaps, 13 guest.
 */
static bool option_ok(int version, unsigned id, const unsigned char *p, uint64_t size)
{
	const unsigned char *nul;
	uint64_t skip = 0;

	switch (id) {
	case OPT_BUFFER:
	case OPT_BUFFER_TEXT:
		skip = 8;
		break;
	case OPT_UNAME:
	case OPT_HOOK:
	case OPT_VERSION:
	case OPT_PROCMAPS:
	case OPT_GUEST:
		break;
	case OPT_CPUCOUNT:
		/* libtracecmd allocates per CPU for every record it reads */
		return size < 4 || (p[0] | p[1] << 8 | (uint64_t)p[2] << 16 |
				    (uint64_t)p[3] << 24) <= MAX_CPUS;
	default:
		return true;
	}
	if (size <= skip)
		return false;
	nul = memchr(p + skip, 0, size - skip);
	if (!nul)
		return false;
	if (version == 7 && skip)
		return memchr(nul + 1, 0, p + size - nul - 1) != NULL;
	return true;
}

/*
 * Walk a version 6 header (trace-cmd.dat.v6(5)) and check that the CPU data
 * it points at is page aligned and inside the file: libtracecmd maps pages
 * from these offsets without checking them.
 */
static bool v6_ok(struct cur *c, struct dat_file *df)
{
	uint64_t ncpus;

	cur_skip(c, 12);			/* "header_page\0" */
	df->header_page = cur_blob(c, 8, &df->header_page_len);
	cur_skip(c, 13);			/* "header_event\0" */
	cur_skip(c, cur_num(c, 8));
	parse_ftrace_formats(df, c);
	parse_event_formats(df, c);
	df->kallsyms = cur_blob(c, 4, &df->kallsyms_len);
	df->printk = cur_blob(c, 4, &df->printk_len);
	df->cmdlines = cur_blob(c, 8, &df->cmdlines_len);
	ncpus = cur_num(c, 4);
	if (c->bad || ncpus > MAX_CPUS || c->len - c->off < 10)
		return false;
	if (!memcmp(c->p + c->off, "options  ", 10)) {
		c->off += 10;
		while (!c->bad) {
			unsigned id = cur_num(c, 2);
			uint64_t size;
			const unsigned char *opt;

			if (!id)
				break;
			size = cur_num(c, 4);
			opt = c->p + c->off;
			cur_skip(c, size);
			if (!c->bad && !option_ok(6, id, opt, size))
				return false;
			if (!c->bad && id == OPT_UNAME && !df->uname)
				df->uname = (const char *)opt;
		}
	}
	if (c->bad || c->len - c->off < 10)
		return false;
	if (!memcmp(c->p + c->off, "latency  ", 10))
		return true;
	if (memcmp(c->p + c->off, "flyrecord", 10))
		return false;
	c->off += 10;
	for (uint64_t i = 0; i < ncpus && !c->bad; i++) {
		uint64_t off = cur_num(c, 8), size = cur_num(c, 8);

		/* an empty CPU of an unfinished tpctl file points past the end */
		if (size && (off % df->page_size || size > df->file_len ||
			     off > df->file_len - size))
			return false;
	}
	return !c->bad;
}

static bool read_at(int fd, void *buf, size_t len, uint64_t off)
{
	char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= n;
		off += n;
	}
	return true;
}

static uint64_t le(const unsigned char *p, int width)
{
	uint64_t v = 0;

	for (int i = width - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Version 7: the file is read with pread; what is read is kept until close. */
struct v7 {
	int fd;
	struct dat_file *df;
	bool zstd;
	uint64_t sec[SEC_CMDLINES + 1];
	ZSTD_DCtx *dc;
	void *zbuf, *ubuf;		/* one chunk, compressed and not */
	size_t zsize, usize;
};

/* buf holds at least n bytes, grown as needed; false when out of memory. */
static bool grow(void **buf, size_t *size, size_t n)
{
	void *p;

	if (n <= *size)
		return true;
	p = realloc(*buf, n);
	if (!p)
		return false;
	*buf = p;
	*size = n;
	return true;
}

/*
 * A chunk must decompress to its stated size: libtracecmd 3.1.6 stops
 * reading a CPU quietly at a chunk that does not (its messages go to
 * stderr), so a damaged chunk would cut the output short without a word.
 */
static bool v7_chunk_ok(struct v7 *v, uint64_t pos, uint64_t zsize, uint64_t usize)
{
	size_t n;

	if (!v->dc)
		v->dc = ZSTD_createDCtx();
	if (!v->dc || !grow(&v->zbuf, &v->zsize, zsize ? zsize : 1) ||
	    !grow(&v->ubuf, &v->usize, usize) || !read_at(v->fd, v->zbuf, zsize, pos))
		return false;
	n = ZSTD_decompressDCtx(v->dc, v->ubuf, usize, v->zbuf, zsize);
	return !ZSTD_isError(n) && n == usize;
}

static void *df_keep(struct dat_file *df, void *p)
{
	void **v;

	if (!p)
		return NULL;
	v = realloc(df->owned, (df->nowned + 1) * sizeof(*v));
	if (!v) {
		free(p);
		return NULL;
	}
	df->owned = v;
	v[df->nowned++] = p;
	return p;
}

/*
 * The content of the section at off (its id must be id), decompressed;
 * NULL when it is not where and what it should be.
 */
static unsigned char *v7_section(struct v7 *v, uint64_t off, unsigned id, size_t *len)
{
	unsigned char hdr[SEC_HDR], *z = NULL, *out = NULL;
	uint64_t size, csize, usize;
	size_t n;

	if (off > v->df->file_len || v->df->file_len - off < SEC_HDR ||
	    !read_at(v->fd, hdr, SEC_HDR, off) || le(hdr, 2) != id)
		return NULL;
	size = le(hdr + 8, 8);
	off += SEC_HDR;
	if (size > v->df->file_len - off || size > MAX_SECTION)
		return NULL;
	if (!(le(hdr + 2, 2) & SEC_COMPRESSED)) {
		out = malloc(size ? size : 1);
		if (out && !read_at(v->fd, out, size, off)) {
			free(out);
			return NULL;
		}
		*len = size;
		return df_keep(v->df, out);
	}
	if (!v->zstd || size < 8 || !read_at(v->fd, hdr, 8, off))
		return NULL;
	csize = le(hdr, 4);
	usize = le(hdr + 4, 4);
	if (csize > size - 8 || usize > MAX_SECTION)
		return NULL;
	z = malloc(csize ? csize : 1);
	out = malloc(usize ? usize : 1);
	if (!z || !out || !read_at(v->fd, z, csize, off + 8))
		goto fail;
	n = ZSTD_decompress(out, usize, z, csize);
	if (ZSTD_isError(n) || n != usize)
		goto fail;
	free(z);
	*len = usize;
	return df_keep(v->df, out);
fail:
	free(z);
	free(out);
	return NULL;
}

/*
 * The CPU data of a BUFFER option: inside the file, and when compressed,
 * every chunk inside the CPU's data with a whole number of pages (what
 * libtracecmd decompresses and then indexes page by page).
 */
static bool v7_cpu_ok(struct v7 *v, bool compressed, uint64_t off, uint64_t size)
{
	struct dat_file *df = v->df;
	unsigned char h[8];
	uint64_t pos, end, count;

	if (!size)
		return true;
	if (size > df->file_len || off > df->file_len - size)
		return false;
	if (!compressed)
		return off % df->page_size == 0;
	/* the size counts the chunks, not the chunk count before them */
	if (df->file_len - off - size < 4 || !read_at(v->fd, h, 4, off))
		return false;
	end = off + 4 + size;
	count = le(h, 4);
	pos = off + 4;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t zsize, usize;

		if (end - pos < 8 || !read_at(v->fd, h, 8, pos))
			return false;
		zsize = le(h, 4);
		usize = le(h + 4, 4);
		pos += 8;
		if (zsize > end - pos || !usize || usize % df->page_size || usize > MAX_CHUNK ||
		    !v7_chunk_ok(v, pos, zsize, usize))
			return false;
		pos += zsize;
	}
	return true;
}

/* BUFFER (3) and BUFFER_TEXT (22) options of version 7, and their data. */
static bool v7_buffer_ok(struct v7 *v, unsigned id, const unsigned char *p, uint64_t size)
{
	struct cur c = { .p = p, .len = size };
	unsigned char hdr[SEC_HDR];
	uint64_t fly, ncpus;
	bool compressed;

	fly = cur_num(&c, 8);
	cur_str(&c);			/* name */
	cur_str(&c);			/* clock */
	if (c.bad || fly > v->df->file_len || v->df->file_len - fly < SEC_HDR ||
	    !read_at(v->fd, hdr, SEC_HDR, fly))
		return false;
	if (id == OPT_BUFFER_TEXT)
		return true;
	compressed = le(hdr + 2, 2) & SEC_COMPRESSED;
	if (compressed && !v->zstd)
		return false;
	cur_num(&c, 4);			/* page size */
	ncpus = cur_num(&c, 4);
	if (ncpus > MAX_CPUS)
		return false;
	for (uint64_t i = 0; i < ncpus && !c.bad; i++) {
		uint64_t cpu = cur_num(&c, 4), off = cur_num(&c, 8), sz = cur_num(&c, 8);

		if (c.bad || cpu >= MAX_CPUS || !v7_cpu_ok(v, compressed, off, sz))
			return false;
	}
	return !c.bad;
}

/* One options section; *next is where the next one is (0: none). */
static bool v7_options_ok(struct v7 *v, uint64_t off, uint64_t *next)
{
	struct cur c = { 0 };
	size_t len = 0;

	c.p = v7_section(v, off, OPT_DONE, &len);
	c.len = len;
	if (!c.p)
		return false;
	for (;;) {
		unsigned id = cur_num(&c, 2);
		uint64_t size = cur_num(&c, 4);
		const unsigned char *opt = c.p + c.off;

		cur_skip(&c, size);
		if (c.bad)
			return false;
		if (!option_ok(7, id, opt, size))
			return false;
		switch (id) {
		case OPT_DONE:
			if (size < 8)
				return false;
			*next = le(opt, 8);
			return true;
		case OPT_BUFFER:
		case OPT_BUFFER_TEXT:
			if (!v7_buffer_ok(v, id, opt, size))
				return false;
			break;
		case OPT_UNAME:
			if (!v->df->uname)
				v->df->uname = (const char *)opt;
			break;
		case SEC_HEADER_INFO:
		case SEC_FTRACE:
		case SEC_EVENTS:
		case SEC_KALLSYMS:
		case SEC_PRINTK:
		case SEC_CMDLINES:
			/* a later option for the same section replaces it, as in libtracecmd */
			if (size >= 8)
				v->sec[id] = le(opt, 8);
			break;
		default:
			break;
		}
	}
}

/* A cursor over the content of the section id points at; false when it cannot be had. */
static bool v7_cur(struct v7 *v, unsigned id, struct cur *c)
{
	size_t len = 0;

	memset(c, 0, sizeof(*c));
	c->p = v7_section(v, v->sec[id], id, &len);
	c->len = len;
	c->bad = !c->p;
	return c->p != NULL;
}

/* Walk a version 7 file from the first options section (trace-cmd.dat.v7(5)). */
static bool v7_ok(struct v7 *v, uint64_t options)
{
	struct dat_file *df = v->df;
	struct cur c;
	int n = 0;

	while (options) {
		/* a chain of options sections that loops back would never end */
		if (++n > 64 || !v7_options_ok(v, options, &options))
			return false;
	}
	if (v->sec[SEC_HEADER_INFO]) {
		v7_cur(v, SEC_HEADER_INFO, &c);
		cur_skip(&c, 12);		/* "header_page\0" */
		df->header_page = cur_blob(&c, 8, &df->header_page_len);
		if (c.bad)
			return false;
	}
	if (v->sec[SEC_FTRACE]) {
		v7_cur(v, SEC_FTRACE, &c);
		parse_ftrace_formats(df, &c);
		if (c.bad)
			return false;
	}
	if (v->sec[SEC_EVENTS]) {
		v7_cur(v, SEC_EVENTS, &c);
		parse_event_formats(df, &c);
		if (c.bad)
			return false;
	}
	if (v->sec[SEC_KALLSYMS]) {
		v7_cur(v, SEC_KALLSYMS, &c);
		df->kallsyms = cur_blob(&c, 4, &df->kallsyms_len);
		if (c.bad)
			return false;
	}
	if (v->sec[SEC_PRINTK]) {
		v7_cur(v, SEC_PRINTK, &c);
		df->printk = cur_blob(&c, 4, &df->printk_len);
		if (c.bad)
			return false;
	}
	if (v->sec[SEC_CMDLINES]) {
		v7_cur(v, SEC_CMDLINES, &c);
		df->cmdlines = cur_blob(&c, 8, &df->cmdlines_len);
		if (c.bad)
			return false;
	}
	return true;
}

/*
 * libtracecmd 3.1.6 opens a version 7 file by walking every section from the
 * first one, each header's size leading to the next, until a read fails.  A
 * size that leads backwards, or bytes after the last section that read as
 * empty headers (zeros appended to a file), make that walk endless or
 * nearly so: walk it first, with a bound.  (tpctl's unfinished recordings
 * end the walk with a flyrecord section that reaches past the file's end.)
 */
#define MAX_SECTIONS 10000

static bool v7_walk_ok(struct v7 *v, uint64_t pos)
{
	unsigned char hdr[SEC_HDR];
	uint64_t len = v->df->file_len;

	for (int n = 0; n < MAX_SECTIONS; n++) {
		int64_t size;

		if (pos > len || len - pos < SEC_HDR || !read_at(v->fd, hdr, SEC_HDR, pos))
			return true;
		size = (int64_t)le(hdr + 8, 8);
		/* a compressed strings section is read, not skipped: its own sizes count */
		if (le(hdr, 2) == SEC_STRINGS && (le(hdr + 2, 2) & SEC_COMPRESSED)) {
			if (len - pos - SEC_HDR < 4 || !read_at(v->fd, hdr, 4, pos + SEC_HDR))
				return true;
			size = 8 + le(hdr, 4);
		}
		pos += SEC_HDR;
		if (size < 0) {
			/* lseek fails before the start of the file: the walk ends */
			if (0 - (uint64_t)size > pos)
				return true;
			return false;
		}
		if ((uint64_t)size > INT64_MAX - pos)
			return true;
		pos += size;
	}
	return false;
}

/* After the page size: compression name and version, the first options offset. */
static int v7_open(const char *path, int fd, struct dat_file *df)
{
	unsigned char head[18 + 512];
	struct v7 v = { .fd = fd, .df = df };
	struct cur c = { .p = head };
	const char *zname;
	uint64_t options;
	ssize_t n;
	bool ok;

	n = pread(fd, head, sizeof(head), 0);
	if (n < 18) {
		tp_error("cannot read '%s': truncated or corrupt trace.dat", path);
		return TP_FAIL;
	}
	c.len = n;
	c.off = 18;
	zname = cur_str(&c);
	cur_str(&c);
	if (!c.bad && strcmp(zname, "zstd") && strcmp(zname, "none")) {
		tp_error("'%s': unsupported compression '%s'", path, zname);
		return TP_FAIL;
	}
	if (!c.bad) {
		df->compression = df_keep(df, strdup(zname));
		v.zstd = !strcmp(zname, "zstd");
	}
	options = cur_num(&c, 8);
	ok = !c.bad && df->compression && v7_walk_ok(&v, c.off) && v7_ok(&v, options);
	ZSTD_freeDCtx(v.dc);
	free(v.zbuf);
	free(v.ubuf);
	if (!ok) {
		tp_error("cannot read '%s': truncated or corrupt trace.dat", path);
		return TP_FAIL;
	}
	return TP_OK;
}

int dat_open(const char *path, struct dat_file *df)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	unsigned char head[18];
	struct cur c = { 0 };
	struct stat st;
	size_t len;
	void *map;
	int fd, ret;

	memset(df, 0, sizeof(*df));
	/* non-blocking: a FIFO must be refused below, not waited on for a writer */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		tp_error("cannot open '%s': %s", path, strerror(errno));
		return TP_FAIL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		tp_error("'%s' is not a regular file", path);
		return TP_FAIL;
	}
	if (st.st_size < 18 || !read_at(fd, head, sizeof(head), 0) ||
	    memcmp(head, magic, sizeof(magic))) {
		close(fd);
		tp_error("'%s' is not a trace.dat file", path);
		return TP_FAIL;
	}
	if ((head[10] != '6' && head[10] != '7') || head[11] != '\0' || head[12] > 1) {
		close(fd);
		tp_error("'%s': unsupported trace.dat version", path);
		return TP_FAIL;
	}
	if (head[12] != (__BYTE_ORDER == __BIG_ENDIAN)) {
		close(fd);
		tp_error("'%s': byte order differs from this host's", path);
		return TP_FAIL;
	}
	df->file_len = st.st_size;
	df->version = head[10] - '0';
	df->page_size = le(head + 14, 4);
	if (df->page_size < 512 || df->page_size > (1U << 24) ||
	    (df->page_size & (df->page_size - 1))) {
		close(fd);
		tp_error("cannot read '%s': truncated or corrupt trace.dat", path);
		return TP_FAIL;
	}
	if (df->version == 7) {
		ret = v7_open(path, fd, df);
		close(fd);
		return ret;
	}
	/*
	 * Version 6: only the metadata before the CPU data is read through
	 * the mapping; libtracecmd maps the pages itself.  So map at most the
	 * first GiB (formats, kallsyms and printk formats take a few MiB), and
	 * less if the address space is limited (ulimit -v, valgrind), down to
	 * 16 MiB.  An unfinished tpctl recording has an apparent size of many
	 * GiB.
	 */
	len = (uint64_t)st.st_size < (1ULL << 30) ? (size_t)st.st_size : (1U << 30);
	for (;;) {
		map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map != MAP_FAILED || len <= (16U << 20))
			break;
		len /= 4;
	}
	close(fd);
	if (map == MAP_FAILED) {
		tp_error("cannot read '%s': %s", path, strerror(errno));
		return TP_FAIL;
	}
	df->map = c.p = map;
	df->map_len = c.len = len;
	c.off = 18;
	if (!v6_ok(&c, df)) {
		tp_error("cannot read '%s': truncated or corrupt trace.dat", path);
		return TP_FAIL;
	}
	return TP_OK;
}

void dat_file_close(struct dat_file *df)
{
	if (df->map)
		munmap((void *)df->map, df->map_len);
	for (size_t i = 0; i < df->nowned; i++)
		free(df->owned[i]);
	free(df->owned);
	free(df->fmts);
	memset(df, 0, sizeof(*df));
}

/* Copy the n bytes at s into out (size outlen), NUL-terminated, cut if need be. */
static void copy_word(char *out, size_t outlen, const char *s, size_t n)
{
	if (n >= outlen)
		n = outlen - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

static bool is_release(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	return i > 0 && i + 1 < n && s[i] == '.' && s[i + 1] >= '0' && s[i + 1] <= '9';
}

bool dat_uname_parse(const char *text, struct dat_uname *u)
{
	const char *w[64];
	size_t wl[64], n = 0;
	const char *p = text;

	memset(u, 0, sizeof(*u));
	while (p && *p && n < 64) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		w[n] = p;
		while (*p && *p != ' ')
			p++;
		wl[n] = p - w[n];
		n++;
	}
	if (n < 2)
		return false;
	copy_word(u->sysname, sizeof(u->sysname), w[0], wl[0]);
	for (size_t i = 1; i < n; i++) {
		if (!is_release(w[i], wl[i]))
			continue;
		copy_word(u->release, sizeof(u->release), w[i], wl[i]);
		if (i + 1 < n)
			copy_word(u->machine, sizeof(u->machine), w[n - 1], wl[n - 1]);
		/* the version, when there are words between the release and the machine */
		if (i + 2 < n)
			copy_word(u->version, sizeof(u->version), w[i + 1],
				  w[n - 2] + wl[n - 2] - w[i + 1]);
		return true;
	}
	return false;
}

struct tracecmd_input *dat_tracecmd_open(const char *path)
{
	struct tracecmd_input *h;
	int out_fd, null_fd;

	/* Our own one-line errors replace the libraries' messages. */
	if (tp.verbose < 2) {
		tracecmd_set_loglevel(TEP_LOG_NONE);
		tep_set_loglevel(TEP_LOG_NONE);
	}
	/*
	 * libtracecmd 3.1.6 prints some complaints ("File possibly
	 * truncated...") with printf whatever the log level: keep standard
	 * output away from it while it opens the file, so that nothing but
	 * records reaches a --json reader.
	 */
	fflush(stdout);
	out_fd = dup(STDOUT_FILENO);
	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (out_fd >= 0 && null_fd >= 0)
		dup2(null_fd, STDOUT_FILENO);
	/*
	 * tracecmd_open() frees a half-initialised handle when the CPU data
	 * do not fit in the file and crashes doing so (libtracecmd 3.1.6), so
	 * read the headers and init the data separately, and leave a failed
	 * handle alone: the caller exits right after.
	 */
	h = tracecmd_open_head(path, 0);
	if (h && tracecmd_init_data(h) < 0)
		h = NULL;
	fflush(stdout);
	__fpurge(stdout);
	if (out_fd >= 0 && null_fd >= 0)
		dup2(out_fd, STDOUT_FILENO);
	if (out_fd >= 0)
		close(out_fd);
	if (null_fd >= 0)
		close(null_fd);
	if (!h)
		tp_error("cannot read '%s': truncated or corrupt trace.dat", path);
	return h;
}
