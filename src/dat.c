// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dat - trace.dat writers (version 6 and 7); the layouts and why they
 * survive truncation are described in dat.h.  The checks a file passes
 * before it is read are in dat_read.c.
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

/* Option id (2 bytes) and size (4 bytes). */
#define OPT_HDR 6

/* Room reserved for one per_cpu/cpuN/stats text (about 300 bytes in practice). */
#define CPUSTAT_ROOM 1024
/* Room for saved_cmdlines growing during the recording, beyond its size at start. */
#define CMDLINES_SLACK (64 * 1024)
/* Per-CPU region: large enough never to fill, small enough for any file system. */
#define REGION_MAX (64ULL << 30)
#define REGION_TOTAL (8ULL << 40)

/*
 * Version 7 pages are compressed in chunks of up to this many bytes, each on
 * its own (a reader decompresses a whole chunk to get one page of it).
 * zstd level 1 on 256 KiB of ring-buffer pages: about 1 GB/s on the
 * development machine and within 3 % of level 3's size (bench/record.py).
 */
#define CHUNK_BYTES (256 * 1024)
#define ZSTD_LEVEL_PAGES 1
#define ZSTD_LEVEL_META 3

struct dat_cpu {
	int fd;			/* v6: own file position: the end of this CPU's data */
	uint64_t start;		/* offset of the region (while recording) */
	uint64_t size;		/* committed bytes */
	uint64_t pages;		/* committed bytes of pages, before compression */
	char *pend;		/* v7: pages not compressed yet */
	size_t pend_len;
	uint32_t nchunks;	/* v7: chunks committed */
	/* v7: its own compressor, so that each CPU can be written from its own thread */
	ZSTD_CCtx *zc;
	char *zbuf;
};

struct dat_writer {
	int version;
	int fd;
	int ncpus;
	unsigned int page_size;
	uint64_t region;		/* distance between CPU regions */
	char *uname;			/* filler option text */
	struct dat_cpu *cpu;
	/* version 6 */
	uint64_t cmdlines_off;		/* offset of the cmdlines text */
	uint64_t cmdlines_room;
	uint64_t *cpustat_off;		/* offset of each CPU's CPUSTAT room */
	uint64_t table_off;		/* offset of the flyrecord (offset, size) table */
	/* version 7 */
	ZSTD_CCtx *zc;			/* the metadata's sections */
	size_t zbuf_size;		/* count, chunk header and one compressed chunk */
	uint64_t entries_off;		/* the BUFFER option's first (cpu, offset, size) */
	uint64_t fly_off;		/* the flyrecord section's header */
	uint64_t done_off;		/* the next-options offset of the first DONE option */
	char **cpustat;			/* texts for dat_finish */
	char *cmdlines;
	size_t cmdlines_len;
	bool have_cmdlines;
};

/* A growable buffer for the header, written with one pwrite. */
struct buf {
	char *p;
	size_t len, alloc;
	bool oom;
};

static void buf_add(struct buf *b, const void *data, size_t len)
{
	if (b->oom || !len)
		return;
	if (b->len + len > b->alloc) {
		size_t n = b->alloc ? b->alloc : 65536;
		char *p;

		while (n < b->len + len)
			n *= 2;
		p = realloc(b->p, n);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->alloc = n;
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
}

static void buf_fill(struct buf *b, int c, size_t len)
{
	char chunk[256];

	memset(chunk, c, sizeof(chunk));
	while (len) {
		size_t n = len < sizeof(chunk) ? len : sizeof(chunk);

		buf_add(b, chunk, n);
		len -= n;
	}
}

/* Numbers are written in host order; the header's endian byte says which. */
static void buf_u16(struct buf *b, uint16_t v)
{
	buf_add(b, &v, sizeof(v));
}

static void buf_u32(struct buf *b, uint32_t v)
{
	buf_add(b, &v, sizeof(v));
}

static void buf_u64(struct buf *b, uint64_t v)
{
	buf_add(b, &v, sizeof(v));
}

static void buf_str(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s) + 1);
}

static void buf_option_str(struct buf *b, uint16_t id, const char *s)
{
	buf_u16(b, id);
	buf_u32(b, strlen(s) + 1);
	buf_str(b, s);
}

static void buf_option_u64(struct buf *b, uint16_t id, uint64_t v)
{
	buf_u16(b, id);
	buf_u32(b, 8);
	buf_u64(b, v);
}

/* The options both versions of the file carry: clock, uname, version, CPU count. */
static void buf_options_common(struct buf *b, const struct dat_info *in)
{
	if (in->clock)
		buf_option_str(b, OPT_TRACECLOCK, in->clock);
	if (in->uname)
		buf_option_str(b, OPT_UNAME, in->uname);
	if (in->version_text)
		buf_option_str(b, OPT_VERSION, in->version_text);
	buf_u16(b, OPT_CPUCOUNT);
	buf_u32(b, 4);
	buf_u32(b, in->ncpus);
}

/* Overwrite a number already in the buffer. */
static void buf_put_u64(struct buf *b, size_t off, uint64_t v)
{
	if (!b->oom)
		memcpy(b->p + off, &v, 8);
}

static int pwrite_all(int fd, const void *data, size_t len, uint64_t off)
{
	const char *p = data;

	while (len) {
		ssize_t n = pwrite(fd, p, len, off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}

static int pwrite_u32(int fd, uint32_t v, uint64_t off)
{
	return pwrite_all(fd, &v, 4, off);
}

static int pwrite_u64(int fd, uint64_t v, uint64_t off)
{
	return pwrite_all(fd, &v, 8, off);
}

/* ------------------------------------------------ metadata shared by both versions */

static void put_header_info(struct buf *b, const struct dat_info *in)
{
	buf_str(b, "header_page");
	buf_u64(b, in->header_page_len);
	buf_add(b, in->header_page, in->header_page_len);
	buf_str(b, "header_event");
	buf_u64(b, in->header_event_len);
	buf_add(b, in->header_event, in->header_event_len);
}

static void put_ftrace_formats(struct buf *b, const struct dat_info *in)
{
	buf_u32(b, in->nftrace);
	for (size_t i = 0; i < in->nftrace; i++) {
		buf_u64(b, in->ftrace[i].len);
		buf_add(b, in->ftrace[i].text, in->ftrace[i].len);
	}
}

static void put_event_formats(struct buf *b, const struct dat_info *in)
{
	uint32_t nsys = 0;
	size_t i, j;

	/* Systems: runs of adjacent formats with the same system name. */
	for (i = 0; i < in->nevents; i++)
		if (!i || strcmp(in->events[i].system, in->events[i - 1].system))
			nsys++;
	buf_u32(b, nsys);
	for (i = 0; i < in->nevents; i = j) {
		for (j = i; j < in->nevents && !strcmp(in->events[j].system,
						      in->events[i].system); j++)
			;
		buf_str(b, in->events[i].system);
		buf_u32(b, j - i);
		for (size_t k = i; k < j; k++) {
			buf_u64(b, in->events[k].len);
			buf_add(b, in->events[k].text, in->events[k].len);
		}
	}
}

static void put_magic(struct buf *b, const char *version, unsigned int page_size)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	uint8_t endian = __BYTE_ORDER == __BIG_ENDIAN;
	uint8_t lsize = sizeof(long);

	buf_add(b, magic, sizeof(magic));
	buf_str(b, version);
	buf_add(b, &endian, 1);
	buf_add(b, &lsize, 1);
	buf_u32(b, page_size);
}

/* ------------------------------------------------ version 6 */

static void build_header_v6(struct dat_writer *w, const struct dat_info *in, struct buf *b)
{
	put_magic(b, "6", in->page_size);
	put_header_info(b, in);
	put_ftrace_formats(b, in);
	put_event_formats(b, in);

	buf_u32(b, in->kallsyms ? in->kallsyms_len : 0);
	if (in->kallsyms)
		buf_add(b, in->kallsyms, in->kallsyms_len);
	buf_u32(b, in->printk ? in->printk_len : 0);
	if (in->printk)
		buf_add(b, in->printk, in->printk_len);

	/*
	 * The reader splits saved_cmdlines at newlines and skips empty lines,
	 * so newline padding reserves room to rewrite it at the end.
	 */
	w->cmdlines_room = (in->cmdlines ? in->cmdlines_len : 0) + CMDLINES_SLACK;
	buf_u64(b, w->cmdlines_room);
	w->cmdlines_off = b->len;
	if (in->cmdlines)
		buf_add(b, in->cmdlines, in->cmdlines_len);
	buf_fill(b, '\n', CMDLINES_SLACK);

	buf_u32(b, in->ncpus);
	buf_add(b, "options  ", 10);
	buf_options_common(b, in);
	/*
	 * Room for each CPU's stats, known only at the end.  The reader
	 * concatenates CPUSTAT texts including any NUL padding, so the room
	 * is a filler option (UNAME again, same string, NUL padded) that
	 * dat_set_cpustat() splits into an exact CPUSTAT plus a shorter filler.
	 */
	for (int c = 0; c < in->ncpus; c++) {
		w->cpustat_off[c] = b->len;
		buf_u16(b, OPT_UNAME);
		buf_u32(b, CPUSTAT_ROOM - OPT_HDR);
		buf_str(b, w->uname);
		buf_fill(b, 0, CPUSTAT_ROOM - OPT_HDR - strlen(w->uname) - 1);
	}
	buf_u16(b, OPT_DONE);

	buf_add(b, "flyrecord", 10);
	w->table_off = b->len;
	/* Filled in by dat_create() once the regions are placed. */
	buf_fill(b, 0, 16 * (size_t)in->ncpus);
}

static int write_table_entry(struct dat_writer *w, int cpu, bool offset, bool size)
{
	uint64_t off;

	if (w->version == 7) {
		/* as trace-cmd writes it: the size of the chunks, without their count */
		uint64_t chunks = w->cpu[cpu].size ? w->cpu[cpu].size - 4 : 0;

		off = w->entries_off + 20 * (uint64_t)cpu + 4;
		if (offset && pwrite_u64(w->fd, w->cpu[cpu].start, off) < 0)
			return -1;
		return size ? pwrite_u64(w->fd, chunks, off + 8) : 0;
	}
	off = w->table_off + 16 * (uint64_t)cpu;
	if (offset && pwrite_u64(w->fd, w->cpu[cpu].start, off) < 0)
		return -1;
	if (size && pwrite_u64(w->fd, w->cpu[cpu].size, off + 8) < 0)
		return -1;
	return 0;
}

/* ------------------------------------------------ version 7 */

/* The descriptions of the sections, in the strings section; ids are offsets. */
static const char v7_strings[] =
	"options\0headers\0ftrace events\0events format\0kallsyms\0printk\0"
	"command lines\0buffer flyrecord\0strings";

static uint32_t v7_string_id(const char *s)
{
	const char *p = v7_strings;

	while (p < v7_strings + sizeof(v7_strings)) {
		if (!strcmp(p, s))
			return p - v7_strings;
		p += strlen(p) + 1;
	}
	return 0;
}

static void buf_section_header(struct buf *b, uint16_t id, uint16_t flags, const char *desc,
			       uint64_t size)
{
	buf_u16(b, id);
	buf_u16(b, flags);
	buf_u32(b, v7_string_id(desc));
	buf_u64(b, size);
}

/* A compressed section holding content: header, sizes, zstd frame. */
static void buf_section_z(struct buf *b, ZSTD_CCtx *zc, uint16_t id, const char *desc,
			  const struct buf *content)
{
	size_t cap = ZSTD_compressBound(content->len), n;
	char *z;

	if (b->oom || content->oom || content->len > UINT32_MAX) {
		b->oom = true;
		return;
	}
	z = malloc(cap ? cap : 1);
	if (!z) {
		b->oom = true;
		return;
	}
	n = ZSTD_compressCCtx(zc, z, cap, content->p ? content->p : "", content->len,
			      ZSTD_LEVEL_META);
	if (ZSTD_isError(n)) {
		free(z);
		b->oom = true;
		return;
	}
	buf_section_header(b, id, SEC_COMPRESSED, desc, 8 + n);
	buf_u32(b, n);
	buf_u32(b, content->len);
	buf_add(b, z, n);
	free(z);
}

/* A section of one blob behind its size (width 4 or 8 bytes), compressed. */
static void buf_section_blob(struct buf *b, ZSTD_CCtx *zc, uint16_t id, const char *desc,
			     const char *data, size_t len, int width)
{
	struct buf c = { 0 };

	if (width == 4)
		buf_u32(&c, len);
	else
		buf_u64(&c, len);
	buf_add(&c, data, len);
	buf_section_z(b, zc, id, desc, &c);
	free(c.p);
}

/* "[local] global counter" -> "local": the clock a BUFFER option names. */
static char *clock_name(const char *clock)
{
	const char *open = clock ? strchr(clock, '[') : NULL;
	const char *close = open ? strchr(open, ']') : NULL;

	if (!close)
		return strdup("local");
	return strndup(open + 1, close - open - 1);
}

static void build_header_v7(struct dat_writer *w, const struct dat_info *in, struct buf *b)
{
	uint64_t off[SEC_CMDLINES + 1] = { 0 }, opts_ptr, opts, sizeoff, bufoff;
	struct buf c = { 0 };
	char *clk = clock_name(in->clock);

	if (!clk) {
		b->oom = true;
		return;
	}
	put_magic(b, "7", in->page_size);
	buf_str(b, "zstd");
	buf_str(b, ZSTD_versionString());
	opts_ptr = b->len;
	buf_u64(b, 0);

	/* libtracecmd looks for the strings while scanning the sections from the start */
	buf_section_header(b, SEC_STRINGS, 0, "strings", sizeof(v7_strings));
	buf_add(b, v7_strings, sizeof(v7_strings));

	off[SEC_HEADER_INFO] = b->len;
	put_header_info(&c, in);
	buf_section_z(b, w->zc, SEC_HEADER_INFO, "headers", &c);
	c.len = 0;
	off[SEC_FTRACE] = b->len;
	put_ftrace_formats(&c, in);
	buf_section_z(b, w->zc, SEC_FTRACE, "ftrace events", &c);
	c.len = 0;
	off[SEC_EVENTS] = b->len;
	put_event_formats(&c, in);
	buf_section_z(b, w->zc, SEC_EVENTS, "events format", &c);
	if (c.oom)
		b->oom = true;
	free(c.p);
	if (in->kallsyms) {
		off[SEC_KALLSYMS] = b->len;
		buf_section_blob(b, w->zc, SEC_KALLSYMS, "kallsyms", in->kallsyms,
				 in->kallsyms_len, 4);
	}
	off[SEC_PRINTK] = b->len;
	buf_section_blob(b, w->zc, SEC_PRINTK, "printk", in->printk ? in->printk : "",
			 in->printk ? in->printk_len : 0, 4);
	off[SEC_CMDLINES] = b->len;
	buf_section_blob(b, w->zc, SEC_CMDLINES, "command lines",
			 in->cmdlines ? in->cmdlines : "", in->cmdlines ? in->cmdlines_len : 0, 8);

	opts = b->len;
	buf_put_u64(b, opts_ptr, opts);
	buf_section_header(b, OPT_DONE, 0, "options", 0);
	sizeoff = b->len - 8;
	for (int id = SEC_HEADER_INFO; id <= SEC_CMDLINES; id++)
		if (off[id])
			buf_option_u64(b, id, off[id]);
	buf_options_common(b, in);
	/* BUFFER: the top instance's flyrecord data, its table filled in by dat_create() */
	buf_u16(b, OPT_BUFFER);
	buf_u32(b, 8 + 1 + strlen(clk) + 1 + 4 + 4 + 20 * (size_t)in->ncpus);
	bufoff = b->len;
	buf_u64(b, 0);
	buf_str(b, "");
	buf_str(b, clk);
	buf_u32(b, in->page_size);
	buf_u32(b, in->ncpus);
	w->entries_off = b->len;
	for (int cpu = 0; cpu < in->ncpus; cpu++) {
		buf_u32(b, cpu);
		buf_u64(b, 0);
		buf_u64(b, 0);
	}
	buf_u16(b, OPT_DONE);
	buf_u32(b, 8);
	w->done_off = b->len;
	buf_u64(b, 0);
	buf_put_u64(b, sizeoff, b->len - sizeoff - 8);

	w->fly_off = b->len;
	/* the BUFFER option points at the section header */
	buf_put_u64(b, bufoff, w->fly_off);
	/* its size: set by dat_create() to span every region until dat_finish() */
	buf_section_header(b, OPT_BUFFER, SEC_COMPRESSED, "buffer flyrecord", 0);
	free(clk);
}

/* ------------------------------------------------ creating */

static void writer_free(struct dat_writer *w)
{
	if (!w)
		return;
	for (int c = 0; w->cpu && c < w->ncpus; c++) {
		if (w->cpu[c].fd >= 0)
			close(w->cpu[c].fd);
		free(w->cpu[c].pend);
		ZSTD_freeCCtx(w->cpu[c].zc);
		free(w->cpu[c].zbuf);
		if (w->cpustat)
			free(w->cpustat[c]);
	}
	if (w->fd >= 0)
		close(w->fd);
	ZSTD_freeCCtx(w->zc);
	free(w->cpustat);
	free(w->cmdlines);
	free(w->cpu);
	free(w->cpustat_off);
	free(w->uname);
	free(w);
}

/* The file's header up to its CPU data, in the version w is written in; -1 with errno. */
static int build_header(struct dat_writer *w, const struct dat_info *in, struct buf *b)
{
	if (w->version == 6) {
		if (strlen(w->uname) + 1 + 2 * OPT_HDR > CPUSTAT_ROOM / 2) {
			errno = EINVAL;
			return -1;
		}
		build_header_v6(w, in, b);
	} else {
		/* a chunk is at least one page; its sizes are 32-bit numbers */
		w->zbuf_size = 12 + ZSTD_compressBound(CHUNK_BYTES > in->page_size ?
						      CHUNK_BYTES : in->page_size);
		w->zc = ZSTD_createCCtx();
		if (!w->zc)
			return -1;
		build_header_v7(w, in, b);
	}
	if (b->oom) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/*
 * Where each CPU's data goes, written into the header b.  Version 6 CPU
 * data starts page aligned: trace-cmd maps it page by page.  Version 7
 * chunks are read, not mapped: CPU 0 starts right after the section header,
 * the other regions are aligned so that the holes between them take no room.
 */
static void place_regions(struct dat_writer *w, struct buf *b)
{
	long sys_page = sysconf(_SC_PAGESIZE);
	uint64_t align = w->page_size, base;

	if (sys_page > 0 && (uint64_t)sys_page > align)
		align = sys_page;
	base = (b->len + align - 1) / align * align;
	w->region = REGION_TOTAL / w->ncpus;
	if (w->region > REGION_MAX)
		w->region = REGION_MAX;
	w->region = w->region / align * align;
	for (int c = 0; c < w->ncpus; c++) {
		w->cpu[c].start = base + c * w->region;
		if (w->version == 7 && c == 0)
			w->cpu[c].start = b->len;
		if (w->version == 6)
			memcpy(b->p + w->table_off + 16 * c, &w->cpu[c].start, 8);
		else
			memcpy(b->p + w->entries_off + 20 * c + 4, &w->cpu[c].start, 8);
	}
	if (w->version == 7) {
		/*
		 * libtracecmd walks the sections by their sizes from the start
		 * of the file to its end: until dat_finish() the flyrecord
		 * section reaches past every region, so that walk ends there
		 * and never reads the holes between them as sections.
		 */
		buf_put_u64(b, w->fly_off + 8, base + w->ncpus * w->region -
			    (w->fly_off + SEC_HDR));
	}
}

struct dat_writer *dat_create(const char *path, const struct dat_info *in)
{
	struct dat_writer *w;
	struct buf b = { 0 };
	int err, version = in->version ? in->version : DAT_VERSION_DEFAULT;

	if (in->ncpus <= 0 || in->page_size < 64 || (in->page_size & (in->page_size - 1)) ||
	    (version != 6 && version != 7)) {
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->version = version;
	w->fd = -1;
	w->ncpus = in->ncpus;
	w->page_size = in->page_size;
	w->cpu = calloc(in->ncpus, sizeof(*w->cpu));
	w->cpustat_off = calloc(in->ncpus, sizeof(*w->cpustat_off));
	w->cpustat = calloc(in->ncpus, sizeof(*w->cpustat));
	w->uname = strdup(in->uname ? in->uname : "");
	if (!w->cpu || !w->cpustat_off || !w->cpustat || !w->uname)
		goto fail;
	for (int c = 0; c < in->ncpus; c++)
		w->cpu[c].fd = -1;
	if (build_header(w, in, &b) < 0)
		goto fail;
	place_regions(w, &b);
	w->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0)
		goto fail;
	if (pwrite_all(w->fd, b.p, b.len, 0) < 0)
		goto fail;
	for (int c = 0; c < in->ncpus && version == 6; c++) {
		w->cpu[c].fd = open(path, O_WRONLY | O_CLOEXEC);
		if (w->cpu[c].fd < 0)
			goto fail;
		if (lseek(w->cpu[c].fd, w->cpu[c].start, SEEK_SET) < 0)
			goto fail;
	}
	free(b.p);
	return w;
fail:
	err = errno;
	free(b.p);
	writer_free(w);
	errno = err;
	return NULL;
}

int dat_version(const struct dat_writer *w)
{
	return w->version;
}

int dat_cpu_fd(struct dat_writer *w, int cpu)
{
	return w->cpu[cpu].fd;
}

uint64_t dat_cpu_size(struct dat_writer *w, int cpu)
{
	/* its writer may be another thread */
	return __atomic_load_n(&w->cpu[cpu].size, __ATOMIC_RELAXED);
}

uint64_t dat_cpu_pages_size(struct dat_writer *w, int cpu)
{
	return w->cpu[cpu].pages;
}

int dat_cpu_commit(struct dat_writer *w, int cpu)
{
	struct dat_cpu *c = &w->cpu[cpu];
	off_t pos;
	uint64_t size;

	if (w->version != 6) {
		errno = EINVAL;
		return -1;
	}
	pos = lseek(c->fd, 0, SEEK_CUR);
	if (pos < 0)
		return -1;
	size = ((uint64_t)pos - c->start) / w->page_size * w->page_size;
	if (size > w->region) {
		errno = EFBIG;
		return -1;
	}
	if (size == c->size)
		return 0;
	/* (atomic: record_rotate.c sums the CPUs' sizes from other threads) */
	__atomic_store_n(&c->size, size, __ATOMIC_RELAXED);
	c->pages = size;
	return write_table_entry(w, cpu, false, true);
}

/*
 * One chunk of pages into cpu's region: the chunk, then the size that covers
 * it, then the count that counts it (see dat.h).  The count of the first
 * chunk goes with it: the CPU is empty (size 0) until its size is patched.
 */
static int chunk_write(struct dat_writer *w, int cpu, const char *pages, size_t len)
{
	struct dat_cpu *c = &w->cpu[cpu];
	size_t n, head = c->nchunks ? 0 : 4;
	uint32_t count = c->nchunks + 1;
	char *z;

	if (!c->zc) {
		c->zc = ZSTD_createCCtx();
		c->zbuf = malloc(w->zbuf_size);
		if (!c->zc || !c->zbuf) {
			errno = ENOMEM;
			return -1;
		}
	}
	z = c->zbuf + 4;
	n = ZSTD_compressCCtx(c->zc, z + 8, w->zbuf_size - 12, pages, len, ZSTD_LEVEL_PAGES);
	if (ZSTD_isError(n)) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(z, &(uint32_t){ n }, 4);
	memcpy(z + 4, &(uint32_t){ len }, 4);
	if (head)
		memcpy(c->zbuf, &count, 4);
	if (c->size + head + 8 + n > w->region) {
		errno = EFBIG;
		return -1;
	}
	if (pwrite_all(w->fd, z - head, head + 8 + n, c->start + c->size) < 0)
		return -1;
	__atomic_store_n(&c->size, c->size + head + 8 + n, __ATOMIC_RELAXED);
	if (write_table_entry(w, cpu, false, true) < 0)
		return -1;
	if (!head && pwrite_u32(w->fd, count, c->start) < 0)
		return -1;
	c->nchunks = count;
	c->pages += len;
	return 0;
}

int dat_cpu_flush(struct dat_writer *w, int cpu)
{
	struct dat_cpu *c = &w->cpu[cpu];
	int ret;

	if (w->version != 7 || !c->pend_len)
		return 0;
	ret = chunk_write(w, cpu, c->pend, c->pend_len);
	if (!ret)
		c->pend_len = 0;
	return ret;
}

int dat_cpu_write(struct dat_writer *w, int cpu, const void *pages, size_t len)
{
	struct dat_cpu *c = &w->cpu[cpu];
	size_t chunk = CHUNK_BYTES / w->page_size * w->page_size;
	const char *p = pages;

	if (len % w->page_size) {
		errno = EINVAL;
		return -1;
	}
	if (w->version == 6) {
		if (pwrite_all(c->fd, pages, len, c->start + c->size) < 0)
			return -1;
		if (lseek(c->fd, c->start + c->size + len, SEEK_SET) < 0)
			return -1;
		return dat_cpu_commit(w, cpu);
	}
	if (!chunk)
		chunk = w->page_size;
	/* whole chunks straight from the caller's pages, the rest kept back */
	while (len) {
		size_t n;

		if (!c->pend_len && len >= chunk) {
			if (chunk_write(w, cpu, p, chunk) < 0)
				return -1;
			p += chunk;
			len -= chunk;
			continue;
		}
		if (!c->pend) {
			c->pend = malloc(chunk);
			if (!c->pend)
				return -1;
		}
		n = chunk - c->pend_len < len ? chunk - c->pend_len : len;
		memcpy(c->pend + c->pend_len, p, n);
		c->pend_len += n;
		p += n;
		len -= n;
		if (c->pend_len == chunk && dat_cpu_flush(w, cpu) < 0)
			return -1;
	}
	return 0;
}

int dat_set_cpustat(struct dat_writer *w, int cpu, const char *stats)
{
	char room[CPUSTAT_ROOM] = { 0 };
	size_t ulen = strlen(w->uname) + 1;
	size_t len = strlen(stats) + 1;
	size_t max = CPUSTAT_ROOM - 2 * OPT_HDR - ulen;
	uint16_t id;
	uint32_t size;
	char *p = room;

	if (w->version == 7) {
		free(w->cpustat[cpu]);
		w->cpustat[cpu] = strdup(stats);
		return w->cpustat[cpu] ? 0 : -1;
	}
	if (len > max)
		len = max;
	id = OPT_CPUSTAT;
	size = len;
	memcpy(p, &id, 2);
	memcpy(p + 2, &size, 4);
	memcpy(p + OPT_HDR, stats, len - 1);
	p += OPT_HDR + len;
	id = OPT_UNAME;
	size = CPUSTAT_ROOM - OPT_HDR - len - OPT_HDR;
	memcpy(p, &id, 2);
	memcpy(p + 2, &size, 4);
	memcpy(p + OPT_HDR, w->uname, ulen);
	return pwrite_all(w->fd, room, sizeof(room), w->cpustat_off[cpu]);
}

int dat_set_cmdlines(struct dat_writer *w, const char *text, size_t len)
{
	char *room;
	int ret;

	if (w->version == 7) {
		room = malloc(len ? len : 1);
		if (!room)
			return -1;
		memcpy(room, text, len);
		free(w->cmdlines);
		w->cmdlines = room;
		w->cmdlines_len = len;
		w->have_cmdlines = true;
		return 0;
	}
	/* Keep whole lines only. */
	if (len > w->cmdlines_room) {
		len = w->cmdlines_room;
		while (len && text[len - 1] != '\n')
			len--;
	}
	room = malloc(w->cmdlines_room);
	if (!room)
		return -1;
	memcpy(room, text, len);
	memset(room + len, '\n', w->cmdlines_room - len);
	ret = pwrite_all(w->fd, room, w->cmdlines_room, w->cmdlines_off);
	free(room);
	return ret;
}

/* Copy len bytes from src to dst < src in the same file, front to back. */
static int move_down(int fd, uint64_t dst, uint64_t src, uint64_t len)
{
	static char buf[1 << 20];
	uint64_t chunk_max = src - dst;

	while (len) {
		uint64_t chunk = len < chunk_max ? len : chunk_max;
		loff_t in = src, out = dst;
		ssize_t n;

		if (chunk > (1ULL << 30))
			chunk = 1ULL << 30;
		/* Non-overlapping chunks: copy_file_range may share or copy blocks. */
		n = copy_file_range(fd, &in, fd, &out, chunk, 0);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			/* Fall back to read/write. */
			n = pread(fd, buf, chunk < sizeof(buf) ? chunk : sizeof(buf), src);
			if (n <= 0) {
				if (n == 0)
					errno = EIO;
				return -1;
			}
			if (pwrite_all(fd, buf, n, dst) < 0)
				return -1;
		}
		src += n;
		dst += n;
		len -= n;
	}
	return 0;
}

/*
 * Version 7, after the regions are together at [data, end): the final
 * saved cmdlines and a second options section (CPUSTAT, the new cmdlines)
 * go after them; then the flyrecord section's size is made exact, so that
 * libtracecmd's walk of the sections reaches them; last the first options
 * section's DONE links the second one.  A kill between two of these steps
 * leaves a valid file that lacks only what was not linked yet.
 */
static int finish_v7(struct dat_writer *w, uint64_t end)
{
	struct buf b = { 0 };
	uint64_t cmd_off = 0, opts, sizeoff;
	int ret;

	if (w->have_cmdlines) {
		cmd_off = end;
		buf_section_blob(&b, w->zc, SEC_CMDLINES, "command lines", w->cmdlines,
				 w->cmdlines_len, 8);
	}
	opts = end + b.len;
	buf_section_header(&b, OPT_DONE, 0, "options", 0);
	sizeoff = b.len - 8;
	for (int c = 0; c < w->ncpus; c++)
		if (w->cpustat[c])
			buf_option_str(&b, OPT_CPUSTAT, w->cpustat[c]);
	if (cmd_off)
		buf_option_u64(&b, SEC_CMDLINES, cmd_off);
	buf_option_u64(&b, OPT_DONE, 0);
	buf_put_u64(&b, sizeoff, b.len - sizeoff - 8);
	if (b.oom) {
		free(b.p);
		errno = ENOMEM;
		return -1;
	}
	ret = pwrite_all(w->fd, b.p, b.len, end);
	free(b.p);
	if (!ret)
		ret = pwrite_u64(w->fd, end - (w->fly_off + SEC_HDR), w->fly_off + 8);
	if (!ret)
		ret = pwrite_u64(w->fd, opts, w->done_off);
	return ret;
}

int dat_finish(struct dat_writer *w)
{
	uint64_t end;
	int ret = 0, err = 0;

	for (int c = 0; c < w->ncpus && !ret; c++)
		ret = dat_cpu_flush(w, c);
	end = w->cpu[0].start + w->cpu[0].size;
	for (int c = 1; c < w->ncpus && !ret; c++) {
		struct dat_cpu *cpu = &w->cpu[c];

		if (cpu->start != end) {
			/*
			 * Regions below have been moved already (and their
			 * offsets patched), so overwriting them is safe; the
			 * offset is patched only once the data is in place.
			 */
			ret = move_down(w->fd, end, cpu->start, cpu->size);
			if (!ret) {
				cpu->start = end;
				ret = write_table_entry(w, c, true, false);
			}
		}
		end += cpu->size;
	}
	if (!ret)
		ret = ftruncate(w->fd, end);
	if (!ret && w->version == 7)
		ret = finish_v7(w, end);
	if (ret)
		err = errno;
	for (int c = 0; c < w->ncpus; c++) {
		if (w->cpu[c].fd >= 0 && close(w->cpu[c].fd) < 0 && !ret) {
			ret = -1;
			err = errno;
		}
		w->cpu[c].fd = -1;
	}
	if (close(w->fd) < 0 && !ret) {
		ret = -1;
		err = errno;
	}
	w->fd = -1;
	writer_free(w);
	errno = err;
	return ret;
}

void dat_close(struct dat_writer *w)
{
	writer_free(w);
}
