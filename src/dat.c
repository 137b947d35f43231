// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * dat - trace.dat (version 6) writer; the layout and why it survives
 * truncation are described in dat.h.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dat.h"

/* Option ids of trace-cmd.dat(5). */
enum {
	OPT_DONE = 0,
	OPT_CPUSTAT = 2,
	OPT_TRACECLOCK = 4,
	OPT_UNAME = 5,
	OPT_CPUCOUNT = 8,
	OPT_VERSION = 9,
};

/* Room reserved for one per_cpu/cpuN/stats text (about 300 bytes in practice). */
#define CPUSTAT_ROOM 1024
/* Option id (2 bytes) and size (4 bytes). */
#define OPT_HDR 6
/* Room for saved_cmdlines growing during the recording, beyond its size at start. */
#define CMDLINES_SLACK (64 * 1024)
/* Per-CPU region: large enough never to fill, small enough for any file system. */
#define REGION_MAX (64ULL << 30)
#define REGION_TOTAL (8ULL << 40)

struct dat_cpu {
	int fd;			/* own file position: the end of this CPU's data */
	uint64_t start;		/* offset of the region (while recording) */
	uint64_t size;		/* committed bytes */
};

struct dat_writer {
	int fd;
	int ncpus;
	unsigned int page_size;
	uint64_t region;		/* distance between CPU regions */
	uint64_t cmdlines_off;		/* offset of the cmdlines text */
	uint64_t cmdlines_room;
	uint64_t *cpustat_off;		/* offset of each CPU's CPUSTAT room */
	char *uname;			/* filler option text */
	uint64_t table_off;		/* offset of the flyrecord (offset, size) table */
	struct dat_cpu *cpu;
};

/* A growable buffer for the header, written with one pwrite. */
struct buf {
	char *p;
	size_t len, alloc;
	bool oom;
};

static void buf_add(struct buf *b, const void *data, size_t len)
{
	if (b->oom)
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

static void build_header(struct dat_writer *w, const struct dat_info *in, struct buf *b)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	uint8_t endian = __BYTE_ORDER == __BIG_ENDIAN;
	uint8_t lsize = sizeof(long);
	size_t i, j;

	buf_add(b, magic, sizeof(magic));
	buf_str(b, "6");
	buf_add(b, &endian, 1);
	buf_add(b, &lsize, 1);
	buf_u32(b, in->page_size);

	buf_str(b, "header_page");
	buf_u64(b, in->header_page_len);
	buf_add(b, in->header_page, in->header_page_len);
	buf_str(b, "header_event");
	buf_u64(b, in->header_event_len);
	buf_add(b, in->header_event, in->header_event_len);

	buf_u32(b, in->nftrace);
	for (i = 0; i < in->nftrace; i++) {
		buf_u64(b, in->ftrace[i].len);
		buf_add(b, in->ftrace[i].text, in->ftrace[i].len);
	}

	/* Systems: runs of adjacent formats with the same system name. */
	{
		uint32_t nsys = 0;

		for (i = 0; i < in->nevents; i++)
			if (!i || strcmp(in->events[i].system, in->events[i - 1].system))
				nsys++;
		buf_u32(b, nsys);
	}
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
	if (in->clock)
		buf_option_str(b, OPT_TRACECLOCK, in->clock);
	if (in->uname)
		buf_option_str(b, OPT_UNAME, in->uname);
	if (in->version)
		buf_option_str(b, OPT_VERSION, in->version);
	buf_u16(b, OPT_CPUCOUNT);
	buf_u32(b, 4);
	buf_u32(b, in->ncpus);
	/*
	 * Room for each CPU's stats, known only at the end.  The reader
	 * concatenates CPUSTAT texts including any NUL padding, so the room
	 * is a filler option (UNAME again, same string, NUL padded) that
	 * dat_set_cpustat() splits into an exact CPUSTAT plus a shorter filler.
	 */
	w->uname = strdup(in->uname ? in->uname : "");
	if (!w->uname || strlen(w->uname) + 1 + 2 * OPT_HDR > CPUSTAT_ROOM / 2) {
		b->oom = true;
		return;
	}
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
	uint64_t off = w->table_off + 16 * (uint64_t)cpu;

	if (offset && pwrite_all(w->fd, &w->cpu[cpu].start, 8, off) < 0)
		return -1;
	if (size && pwrite_all(w->fd, &w->cpu[cpu].size, 8, off + 8) < 0)
		return -1;
	return 0;
}

static void writer_free(struct dat_writer *w)
{
	if (!w)
		return;
	for (int c = 0; w->cpu && c < w->ncpus; c++)
		if (w->cpu[c].fd >= 0)
			close(w->cpu[c].fd);
	if (w->fd >= 0)
		close(w->fd);
	free(w->cpu);
	free(w->cpustat_off);
	free(w->uname);
	free(w);
}

struct dat_writer *dat_create(const char *path, const struct dat_info *in)
{
	struct dat_writer *w;
	struct buf b = { 0 };
	uint64_t align, base;
	long sys_page = sysconf(_SC_PAGESIZE);
	int err;

	if (in->ncpus <= 0 || in->page_size < 64 || (in->page_size & (in->page_size - 1))) {
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->fd = -1;
	w->ncpus = in->ncpus;
	w->page_size = in->page_size;
	w->cpu = calloc(in->ncpus, sizeof(*w->cpu));
	w->cpustat_off = calloc(in->ncpus, sizeof(*w->cpustat_off));
	if (!w->cpu || !w->cpustat_off)
		goto fail;
	for (int c = 0; c < in->ncpus; c++)
		w->cpu[c].fd = -1;

	build_header(w, in, &b);
	if (b.oom) {
		errno = ENOMEM;
		goto fail;
	}

	/* CPU data starts page aligned: trace-cmd maps it page by page. */
	align = in->page_size;
	if (sys_page > 0 && (uint64_t)sys_page > align)
		align = sys_page;
	base = (b.len + align - 1) / align * align;
	w->region = REGION_TOTAL / in->ncpus;
	if (w->region > REGION_MAX)
		w->region = REGION_MAX;
	w->region = w->region / align * align;
	for (int c = 0; c < in->ncpus; c++) {
		w->cpu[c].start = base + c * w->region;
		memcpy(b.p + w->table_off + 16 * c, &w->cpu[c].start, 8);
	}

	w->fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0)
		goto fail;
	if (pwrite_all(w->fd, b.p, b.len, 0) < 0)
		goto fail;
	for (int c = 0; c < in->ncpus; c++) {
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

int dat_cpu_fd(struct dat_writer *w, int cpu)
{
	return w->cpu[cpu].fd;
}

uint64_t dat_cpu_size(struct dat_writer *w, int cpu)
{
	return w->cpu[cpu].size;
}

int dat_cpu_commit(struct dat_writer *w, int cpu)
{
	struct dat_cpu *c = &w->cpu[cpu];
	off_t pos = lseek(c->fd, 0, SEEK_CUR);
	uint64_t size;

	if (pos < 0)
		return -1;
	size = ((uint64_t)pos - c->start) / w->page_size * w->page_size;
	if (size > w->region) {
		errno = EFBIG;
		return -1;
	}
	if (size == c->size)
		return 0;
	c->size = size;
	return write_table_entry(w, cpu, false, true);
}

int dat_cpu_write(struct dat_writer *w, int cpu, const void *pages, size_t len)
{
	struct dat_cpu *c = &w->cpu[cpu];

	if (len % w->page_size) {
		errno = EINVAL;
		return -1;
	}
	if (pwrite_all(c->fd, pages, len, c->start + c->size) < 0)
		return -1;
	if (lseek(c->fd, c->start + c->size + len, SEEK_SET) < 0)
		return -1;
	return dat_cpu_commit(w, cpu);
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

int dat_finish(struct dat_writer *w)
{
	uint64_t end = w->cpu[0].start + w->cpu[0].size;
	int ret = 0, err = 0;

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
	if (ret)
		err = errno;
	for (int c = 0; c < w->ncpus; c++) {
		if (close(w->cpu[c].fd) < 0 && !ret) {
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
