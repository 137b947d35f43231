// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * flame - stacks with weights as folded text or an SVG flame graph (flame.h).
 *
 * The stacks are kept as a tree of frames: a node per distinct path from the
 * root, its total weight (its own and its children's) and its own (the
 * stacks that end there).  Children are sorted by name when written, so the
 * output does not depend on the order the stacks came in.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flame.h"
#include "json.h"
#include "util.h"

struct flame_node {
	char *name;
	enum flame_kind kind;
	uint64_t total, self;
	struct flame_node **kids;
	size_t nkids, akids;
	bool sorted;
};

struct flame {
	struct flame_node root;
	size_t depth;		/* the deepest stack's frames */
};

struct flame *flame_new(void)
{
	return calloc(1, sizeof(struct flame));
}

static void node_free(struct flame_node *n)
{
	size_t i;

	for (i = 0; i < n->nkids; i++) {
		node_free(n->kids[i]);
		free(n->kids[i]);
	}
	free(n->kids);
	free(n->name);
}

void flame_free(struct flame *fl)
{
	if (!fl)
		return;
	node_free(&fl->root);
	free(fl);
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static struct flame_node *node_child(struct flame_node *n, const struct flame_frame *fr)
{
	struct flame_node *c;
	size_t i;

	for (i = 0; i < n->nkids; i++) {
		c = n->kids[i];
		if (c->kind == fr->kind && !strcmp(c->name, *fr->name ? fr->name : "[unknown]"))
			return c;
	}
	if (n->nkids == n->akids) {
		size_t a = n->akids ? n->akids * 2 : 4;
		struct flame_node **k = realloc(n->kids, a * sizeof(*k));

		if (!k)
			return NULL;
		n->kids = k;
		n->akids = a;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->name = strdup(*fr->name ? fr->name : "[unknown]");
	if (!c->name) {
		free(c);
		return NULL;
	}
	c->kind = fr->kind;
	n->kids[n->nkids++] = c;
	n->sorted = false;
	return c;
}

int flame_add(struct flame *fl, const struct flame_frame *frames, size_t n, uint64_t weight)
{
	struct flame_node *path[FLAME_DEPTH_MAX + 1];
	size_t i;

	if (!n || n > FLAME_DEPTH_MAX) {
		errno = EINVAL;
		return -1;
	}
	path[0] = &fl->root;
	/* the nodes first, so that a failure leaves the weights as they were */
	for (i = 0; i < n; i++) {
		path[i + 1] = node_child(path[i], &frames[i]);
		if (!path[i + 1]) {
			errno = ENOMEM;
			return -1;
		}
	}
	for (i = 0; i <= n; i++)
		path[i]->total = add_sat(path[i]->total, weight);
	path[n]->self = add_sat(path[n]->self, weight);
	if (n > fl->depth)
		fl->depth = n;
	return 0;
}

uint64_t flame_total(const struct flame *fl)
{
	return fl->root.total;
}

static int node_cmp(const void *a, const void *b)
{
	const struct flame_node *x = *(struct flame_node *const *)a;
	const struct flame_node *y = *(struct flame_node *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : (int)x->kind - (int)y->kind;
}

static void node_sort(struct flame_node *n)
{
	size_t i;

	if (!n->sorted && n->nkids > 1)
		qsort(n->kids, n->nkids, sizeof(*n->kids), node_cmp);
	n->sorted = true;
	for (i = 0; i < n->nkids; i++)
		node_sort(n->kids[i]);
}

/* ---- folded ---- */

static void folded_name(FILE *f, const char *s)
{
	unsigned char c;

	for (; (c = *s); s++)
		putc(c == ';' ? ':' : c < 0x20 || c == 0x7f ? '?' : c, f);
}

static void folded_node(FILE *f, const struct flame_node *n, const struct flame_node **path,
			size_t depth)
{
	size_t i;

	if (n->self) {
		for (i = 0; i < depth; i++) {
			if (i)
				putc(';', f);
			folded_name(f, path[i]->name);
		}
		fprintf(f, " %llu\n", (unsigned long long)n->self);
	}
	for (i = 0; i < n->nkids; i++) {
		path[depth] = n->kids[i];
		folded_node(f, n->kids[i], path, depth + 1);
	}
}

int flame_write_folded(struct flame *fl, FILE *f)
{
	const struct flame_node *path[FLAME_DEPTH_MAX];

	node_sort(&fl->root);
	folded_node(f, &fl->root, path, 0);
	return ferror(f) ? -1 : 0;
}

/* ---- SVG ---- */

#define SVG_W 1200		/* the image's width */
#define SVG_PAD 10		/* left and right of the frames */
#define SVG_ROW 16		/* a frame's height with the gap above it */
#define SVG_TOP 48		/* the heading and the buttons */
#define SVG_BOTTOM 32		/* the line of details */
#define SVG_CHAR 7.2		/* a character of 12px monospace */
#define SVG_MIN_W 0.1		/* narrower frames are left out */

/*
 * Up to max characters of s as XML text (f NULL: only counted): entities
 * for the five XML specials, '?' for control bytes, U+FFFD for a byte that
 * does not start valid UTF-8 and for the two non-characters XML refuses.
 * Returns the characters written.
 */
static size_t xml_text(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s), n = 0, len;
	bool bad;

	while (left && n < max) {
		len = json_utf8_len(p, left);
		/* U+FFFE and U+FFFF: one U+FFFD for the three bytes */
		bad = !len || (len == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe);
		if (f && bad)
			fputs("\xef\xbf\xbd", f);
		else if (f && len > 1)
			fwrite(p, 1, len, f);
		else if (f && (*p < 0x20 || *p == 0x7f))
			putc('?', f);
		else if (f && (*p == '&' || *p == '<' || *p == '>' || *p == '"' || *p == '\''))
			fputs(*p == '&' ? "&amp;" : *p == '<' ? "&lt;" : *p == '>' ? "&gt;" :
			      *p == '"' ? "&quot;" : "&apos;", f);
		else if (f)
			putc(*p, f);
		if (!len)
			len = 1;
		p += len;
		left -= len;
		n++;
	}
	return n;
}

/* A colour of the frame's kind, varied by its name so that neighbours differ. */
static void svg_fill(FILE *f, const struct flame_node *n, bool root)
{
	unsigned h = 2166136261u;
	const char *s;
	double v;

	for (s = n->name ? n->name : ""; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	v = (h % 1000) / 1000.0;
	if (root)
		fputs("rgb(190,190,190)", f);
	else if (n->kind == FLAME_KERNEL)
		fprintf(f, "rgb(%d,%d,%d)", 220 + (int)(v * 35), 90 + (int)(v * 110), 50);
	else if (n->kind == FLAME_USER)
		fprintf(f, "rgb(%d,%d,%d)", 70 + (int)(v * 60), 170 + (int)(v * 60), 90 + (int)(v * 50));
	else
		fprintf(f, "rgb(%d,%d,%d)", 120 + (int)(v * 50), 140 + (int)(v * 50), 230);
}

struct svg_ctx {
	FILE *f;
	const struct flame_svg *o;
	double scale;		/* pixels per unit of weight */
	uint64_t total;
	size_t depth;		/* rows above the root */
};

static void svg_frame(const struct svg_ctx *c, const struct flame_node *n, const char *name,
		      double x, double w, size_t depth)
{
	double y = SVG_TOP + (double)(c->depth - depth) * SVG_ROW;
	double share = c->total ? 100.0 * (double)n->total / (double)c->total : 0;
	long fit = (long)((w - 6) / SVG_CHAR);
	size_t len = xml_text(NULL, name, SIZE_MAX);

	fputs("<g class=\"f\"><title>", c->f);
	xml_text(c->f, name, SIZE_MAX);
	fprintf(c->f, " (%llu %s, %.2f%%)</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
		"height=\"%d\" rx=\"2\" fill=\"", (unsigned long long)n->total, c->o->unit, share,
		x, y, w, SVG_ROW - 1);
	svg_fill(c->f, n, depth == 0);
	fprintf(c->f, "\"/><text x=\"%.2f\" y=\"%.1f\">", x + 3, y + SVG_ROW - 4.5);
	if (fit >= 3 && len <= (size_t)fit) {
		xml_text(c->f, name, SIZE_MAX);
	} else if (fit >= 3) {
		xml_text(c->f, name, fit - 2);
		fputs("..", c->f);
	}
	fputs("</text></g>\n", c->f);
}

static void svg_node(const struct svg_ctx *c, const struct flame_node *n, double x, size_t depth)
{
	double w = (double)n->total * c->scale;
	size_t i;

	if (w < SVG_MIN_W)
		return;
	svg_frame(c, n, depth ? n->name : "all", x, w, depth);
	for (i = 0; i < n->nkids; i++) {
		svg_node(c, n->kids[i], x, depth + 1);
		x += (double)n->kids[i]->total * c->scale;
	}
}

/*
 * The script: click a frame to zoom into it (its ancestors span the width,
 * what is not under it hides), "Reset zoom" or the root to undo; "Search"
 * asks for a regular expression, colours the frames whose names match and
 * says what share of the width they cover.  Frame names come from the
 * titles (all before the last " ("), so no name is ever written into code.
 */
static const char svg_script[] =
	"var W=%d,P=%d,CW=%.1f,fr=[],det,mt,rz;\n"
	"function lab(f,w){var n=Math.floor((w-6)/CW);if(n<3)return \"\";"
	"return f.name.length<=n?f.name:f.name.substring(0,n-2)+\"..\";}\n"
	"function put(f,x,w){f.r.setAttribute(\"x\",x.toFixed(2));"
	"f.r.setAttribute(\"width\",w.toFixed(2));f.t.setAttribute(\"x\",(x+3).toFixed(2));"
	"f.t.textContent=lab(f,w);f.g.style.display=\"\";}\n"
	"function reset(){fr.forEach(function(f){put(f,f.x,f.w);f.g.style.opacity=\"\";});"
	"rz.style.opacity=\"0\";}\n"
	"function zoom(z){if(z.y==fr[0].y){reset();return;}var s=(W-2*P)/z.w,e=1e-6;"
	"fr.forEach(function(f){if(f.y>z.y&&f.x<=z.x+e&&f.x+f.w>=z.x+z.w-e){"
	"put(f,P,W-2*P);f.g.style.opacity=\"0.6\";}"
	"else if(f.y<=z.y&&f.x>=z.x-e&&f.x+f.w<=z.x+z.w+e){put(f,P+(f.x-z.x)*s,f.w*s);"
	"f.g.style.opacity=\"\";}else f.g.style.display=\"none\";});rz.style.opacity=\"1\";}\n"
	"function search(){var q=mt.textContent?null:prompt(\"Search (regular expression)\",\"\");"
	"var re=null;try{if(q)re=new RegExp(q);}catch(x){re=null;}var iv=[];"
	"fr.forEach(function(f){var m=re&&re.test(f.name);f.r.setAttribute(\"fill\",m?"
	"\"rgb(225,0,225)\":f.fill);if(m)iv.push([f.x,f.x+f.w]);});"
	"iv.sort(function(a,b){return a[0]-b[0];});var cov=0,end=-1;"
	"iv.forEach(function(i){if(i[0]>=end){cov+=i[1]-i[0];end=i[1];}"
	"else if(i[1]>end){cov+=i[1]-end;end=i[1];}});"
	"mt.textContent=re?\"Matched: \"+(100*cov/(W-2*P)).toFixed(2)+\"%%\":\"\";}\n"
	"function init(){det=document.getElementById(\"details\");"
	"mt=document.getElementById(\"matched\");rz=document.getElementById(\"unzoom\");"
	"var gs=document.querySelectorAll(\"g.f\");for(var i=0;i<gs.length;i++){"
	"var g=gs[i],r=g.querySelector(\"rect\"),t=g.querySelector(\"title\").textContent;"
	"var f={g:g,r:r,t:g.querySelector(\"text\"),x:+r.getAttribute(\"x\"),"
	"w:+r.getAttribute(\"width\"),y:+r.getAttribute(\"y\"),fill:r.getAttribute(\"fill\"),"
	"name:t.substring(0,t.lastIndexOf(\" (\")),info:t};fr.push(f);"
	"g.onclick=zoom.bind(null,f);g.onmouseover=function(){det.textContent=this.info;}"
	".bind(f);g.onmouseout=function(){det.textContent=\"\";};}"
	"rz.onclick=reset;document.getElementById(\"search\").onclick=search;}\n";

static void svg_head(const struct svg_ctx *c, int height)
{
	FILE *f = c->f;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" onload=\"init()\">\n", SVG_W, height, SVG_W,
		height);
	fputs("<style>text{font-family:monospace;font-size:12px;fill:#000}"
	      "g.f text{pointer-events:none}g.f:hover rect{stroke:#000;stroke-width:0.5}"
	      "#unzoom,#search{cursor:pointer}#unzoom{opacity:0}</style>\n<script><![CDATA[\n", f);
	fprintf(f, svg_script, SVG_W, SVG_PAD, SVG_CHAR);
	fputs("]]></script>\n", f);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#f8f8f4\"/>\n",
		SVG_W, height);
	fprintf(f, "<text x=\"%d\" y=\"20\" text-anchor=\"middle\" style=\"font-size:15px\">",
		SVG_W / 2);
	xml_text(f, c->o->title ? c->o->title : "", SIZE_MAX);
	fprintf(f, "</text>\n<text id=\"unzoom\" x=\"%d\" y=\"36\">Reset zoom</text>\n"
		"<text id=\"search\" x=\"%d\" y=\"36\" text-anchor=\"end\">Search</text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"></text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%d\"></text>\n", SVG_PAD, SVG_W - SVG_PAD,
		SVG_W - SVG_PAD, height - 10, SVG_PAD, height - 10);
}

int flame_write_svg(struct flame *fl, FILE *f, const struct flame_svg *o)
{
	struct svg_ctx c = { .f = f, .o = o, .total = fl->root.total, .depth = fl->depth };
	int height = SVG_TOP + (int)(fl->depth + 1) * SVG_ROW + SVG_BOTTOM;

	node_sort(&fl->root);
	c.scale = c.total ? (double)(SVG_W - 2 * SVG_PAD) / (double)c.total : 0;
	svg_head(&c, height);
	if (c.total)
		svg_node(&c, &fl->root, SVG_PAD, 0);
	fputs("</svg>\n", f);
	return ferror(f) ? -1 : 0;
}

/* ---- a file written whole or not at all ---- */

int flame_file_open(struct flame_file *ff, const char *path)
{
	const char *base = strrchr(path, '/');
	mode_t mask;
	int fd;

	memset(ff, 0, sizeof(*ff));
	base = base ? base + 1 : path;
	if (!*base) {
		tp_error("'%s': not a file name", path);
		return TP_FAIL;
	}
	ff->path = strdup(path);
	if (!ff->path || asprintf(&ff->tmp, "%.*s.%s.XXXXXX", (int)(base - path), path, base) < 0) {
		ff->tmp = NULL;
		flame_file_abort(ff);
		return tp_oom();
	}
	fd = mkstemp(ff->tmp);
	if (fd < 0) {
		tp_error("cannot write '%s': %s", path, strerror(errno));
		free(ff->tmp);
		ff->tmp = NULL;
		flame_file_abort(ff);
		return TP_FAIL;
	}
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) < 0 || !(ff->f = fdopen(fd, "w"))) {
		tp_error("cannot write '%s': %s", path, strerror(errno));
		close(fd);
		flame_file_abort(ff);
		return TP_FAIL;
	}
	return TP_OK;
}

int flame_file_commit(struct flame_file *ff)
{
	int err = 0;

	if (fflush(ff->f) || ferror(ff->f))
		err = errno ? errno : EIO;
	if (fclose(ff->f) && !err)
		err = errno;
	ff->f = NULL;
	if (!err && rename(ff->tmp, ff->path) < 0)
		err = errno;
	if (err) {
		tp_error("cannot write '%s': %s", ff->path, strerror(err));
		flame_file_abort(ff);
		return TP_FAIL;
	}
	free(ff->tmp);
	ff->tmp = NULL;
	flame_file_abort(ff);
	return TP_OK;
}

void flame_file_abort(struct flame_file *ff)
{
	if (ff->f)
		fclose(ff->f);
	if (ff->tmp)
		unlink(ff->tmp);
	free(ff->tmp);
	free(ff->path);
	memset(ff, 0, sizeof(*ff));
}
