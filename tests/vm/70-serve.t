#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# tpctl serve on the VM's kernel engine (tests/vm/guest/parts/70-serve.sh):
# every metric is the kernel's (hist triggers, a synthetic event for the
# latency) and serve reads no ring buffer; the generator's getpid() counter
# grows by exactly the calls it made, the latency histogram by at least as
# many, the read(2) sizes by their sum; keys holding a quote, a backslash,
# bytes that are not UTF-8 and a newline come out escaped as the format says;
# promtool (and, for OpenMetrics, Debian's python3-prometheus-client: hence
# /usr/bin/python3) finds nothing wrong; no counter goes back from one scrape
# to the next; TERM during scrapes exits 0 and leaves no instance, trigger or
# synthetic event.
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtap as v

t = v.Tap()
v.results_or_fail(t)

S = "serve/"
if v.text(S + "available").strip() != "yes":
    t.skip("serve", "tpctl serve not built")
    t.done()

NSYS, NODD = (int(x) for x in v.text(S + "n").split())
SCRAPES = ["before", "after", "odd_before", "odd_after", "again"]
OM = ["before_om", "after_om", "odd_after_om"]
METRICS = ["tpctl_events", "tpctl_latency_seconds", "tpctl_read_bytes", "tpctl_renames"]

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)')


def unescape(s):
    return re.sub(r'\\(.)', lambda m: "\n" if m.group(1) == "n" else m.group(1), s)


def samples(name):
    """{(metric, ((label, value), ...)): value} of a saved answer, label values unescaped."""
    out = {}
    for line in v.read(S + name + ".prom").decode("utf-8", "replace").splitlines():
        if line.startswith("#") or not line:
            continue
        m = SAMPLE.match(line)
        if not m:
            out[("unparsed", line)] = None
            continue
        labels = []
        if m.group(3):
            pos = 0
            while pos < len(m.group(3)):
                lm = LABEL.match(m.group(3), pos)
                if not lm:
                    labels.append(("unparsed", m.group(3)[pos:]))
                    break
                labels.append((lm.group(1), unescape(lm.group(2))))
                pos = lm.end()
        out[(m.group(1), tuple(labels))] = float(m.group(4))
    return out


def get(smp, metric, **labels):
    want = tuple(sorted(labels.items()))
    for (m, lab), val in smp.items():
        if m == metric and tuple(sorted(lab)) == want:
            return val
    return 0.0


steps_ok = all(v.rc(S + n) == 0 for n in SCRAPES + OM)
t.ok(steps_ok and v.text(S + "sys.rc").strip() == "0" and v.text(S + "oddname.rc").strip() == "0",
     "serve answered every scrape (busybox wget), the generators ran",
     "\n".join("%s: %s %s" % (n, v.rc(S + n), v.text(S + n + ".err")[:200])
               for n in SCRAPES + OM) + "\n" + v.text(S + "serve.err")[-1500:])

after = samples("after")
info = {dict(lab).get("metric"): dict(lab).get("engine")
        for (m, lab) in after if m == "tpctl_metric_info"}
t.ok(info == {m: "kernel" for m in METRICS},
     "tpctl_metric_info: every metric on the kernel engine", repr(info))
err = v.text(S + "serve.err")
t.ok(err.count("debug: kernel engine") == 4 and "user engine" not in err and
     "tpctl_lat_" in v.text(S + "synth_during"),
     "-v: four kernel engine jobs, a synthetic event for the latency", err[-2000:])

# serve itself does nothing per event: no ring buffer open, no CPU while the load runs
fds = v.text(S + "fds")
t.ok("trace_pipe" not in fds and "per_cpu" not in fds and "socket:" in fds,
     "serve holds no ring buffer (trace_pipe_raw) open, only its sockets", fds)
c0, c1, t0, t1 = v.text(S + "cpu").split()
ticks, secs = int(c1) - int(c0), float(t1) - float(t0)
t.ok(ticks <= 3 and secs > 0,
     "serve's CPU time while %d syscalls ran for %.2f s: %d ticks of 10 ms (at most 3)" %
     (2 * NSYS, secs, ticks), v.text(S + "cpu"))

before = samples("before")
grew = get(after, "tpctl_events_total", comm="aggload") - get(before, "tpctl_events_total",
                                                               comm="aggload")
t.ok(grew == NSYS, "the generator's getpid counter grew by exactly %d (%d)" % (NSYS, grew),
     "before %s after %s" % (get(before, "tpctl_events_total", comm="aggload"),
                             get(after, "tpctl_events_total", comm="aggload")))

def total(smp, metric):
    return sum(val for (m, lab), val in smp.items() if m == metric)


# every syscall of the generator is a pair (the kernel names a task as it was when its
# entry was made, so some may sit under the name it had before its exec)
lat = total(after, "tpctl_latency_seconds_count") - total(before, "tpctl_latency_seconds_count")
t.ok(lat >= 2 * NSYS, "the latency histograms' _count grew by %d, at least the generator's %d "
     "calls" % (lat, 2 * NSYS))

def hist_ok(smp, metric):
    """Buckets cumulative, ascending le, +Inf equal to _count, per series."""
    series = {}
    for (m, lab), val in smp.items():
        if m == metric + "_bucket":
            d = dict(lab)
            le = d.pop("le")
            series.setdefault(tuple(sorted(d.items())), []).append((float(le), val))
    bad = []
    for key, bs in series.items():
        bs.sort()
        vals = [b[1] for b in bs]
        if vals != sorted(vals) or bs[-1][0] != float("inf") or \
                bs[-1][1] != get(smp, metric + "_count", **dict(key)):
            bad.append("%s: %s" % (key, bs))
    return series, bad


for metric in ("tpctl_latency_seconds", "tpctl_read_bytes"):
    series, bad = hist_ok(after, metric)
    t.ok(series and not bad, "%s: %d series, buckets cumulative, +Inf = _count" %
         (metric, len(series)), "\n".join(bad[:5]))

want_sum = sum((i * 7919) % 1500 + 1 for i in range(NSYS))
rc_ = get(after, "tpctl_read_bytes_count") - get(before, "tpctl_read_bytes_count")
rs = get(after, "tpctl_read_bytes_sum") - get(before, "tpctl_read_bytes_sum")
t.ok(rc_ >= NSYS and rs >= want_sum,
     "read(2) sizes: _count grew by %d (>= %d), _sum by %d (>= %d)" % (rc_, NSYS, rs, want_sum))

# the odd names: each of the four NODD / 4 times, its label text exactly so
ob, oa = samples("odd_before"), samples("odd_after")
names = {"agg\"q": r'agg\"q', "agg\\b": r'agg\\b', "agg\udcff\udcfe": r'agg\\xff\\xfe',
         "agg\nnl": r'agg\nnl'}
raw = v.read(S + "odd_after.prom")
for name, label in names.items():
    key = name if "\udcff" not in name else "agg\\xff\\xfe"
    d = get(oa, "tpctl_renames_total", newcomm=key) - get(ob, "tpctl_renames_total", newcomm=key)
    line = ('tpctl_renames_total{newcomm="%s"} %d' % (label, get(oa, "tpctl_renames_total",
                                                                  newcomm=key))).encode()
    t.ok(d == NODD // 4 and line in raw.split(b"\n"),
         "task named %r: %d renames (%d), label text %s" % (name.encode("utf-8", "surrogateescape"),
                                                           NODD // 4, d, label),
         "looked for %r" % line)
t.ok(all(b < 0x80 for b in raw), "the answer is ASCII here: bytes that are not UTF-8 as \\xNN")

for name in ("before", "after", "odd_after", "again"):
    p = subprocess.run(["promtool", "check", "metrics"], input=v.read(S + name + ".prom"),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    t.ok(p.returncode == 0, "promtool check metrics: nothing wrong in the %s answer" % name,
         p.stdout.decode("utf-8", "replace"))
try:
    from prometheus_client.openmetrics.parser import text_string_to_metric_families
except ImportError:
    text_string_to_metric_families = None
for name in OM:
    body = v.read(S + name + ".prom").decode("utf-8", "replace")
    if text_string_to_metric_families is None:
        t.skip("OpenMetrics %s" % name, "python3-prometheus-client is not installed")
        continue
    try:
        fams = {f.name: f.type for f in text_string_to_metric_families(body)}
        why = ""
    except ValueError as e:
        fams, why = {}, str(e)
    t.ok(fams.get("tpctl_events") == "counter" and fams.get("tpctl_renames") == "counter" and
         fams.get("tpctl_latency_seconds") == "histogram" and body.endswith("# EOF\n"),
         "OpenMetrics %s: parsed by prometheus_client's strict parser" % name,
         why + "\n" + repr(fams))

# no counter, bucket or _count moves back from one scrape to the next
back = []
for a_, b_ in zip(SCRAPES, SCRAPES[1:]):
    x, y = samples(a_), samples(b_)
    for key, val in x.items():
        m = key[0]
        if m.endswith(("_total", "_bucket", "_count", "_sum")) and key in y and y[key] < val:
            back.append("%s -> %s: %s %s -> %s" % (a_, b_, key, val, y[key]))
        elif m.endswith(("_total", "_bucket", "_count")) and key not in y:
            back.append("%s -> %s: %s gone" % (a_, b_, key))
t.ok(not back, "no series goes back or away over %d scrapes" % len(SCRAPES), "\n".join(back[:10]))

# two metrics on one event: the count keeps the kernel engine, the hist (whose
# trigger's table would sit in the same hist file) goes to the user engine
sb, sa = samples("shared_before"), samples("shared_after")
info = {dict(lab).get("metric"): dict(lab).get("engine")
        for (m, lab) in sa if m == "tpctl_metric_info"}
serr = v.text(S + "shared.err")
t.ok(info == {"tpctl_events": "kernel", "tpctl_rename_pid": "user"} and
     "another metric has a hist trigger on this event" in serr and
     v.text(S + "shared.rc").strip() == "0",
     "two metrics on task:task_rename: the first the kernel's, the second the user engine's",
     repr(info) + "\n" + serr[-1500:])
diffs = []
for name in ("agg\"q", "agg\\b", "agg\\xff\\xfe", "agg\nnl"):
    dc = get(sa, "tpctl_events_total", newcomm=name) - get(sb, "tpctl_events_total", newcomm=name)
    dh = (get(sa, "tpctl_rename_pid_count", newcomm=name) -
          get(sb, "tpctl_rename_pid_count", newcomm=name))
    diffs.append((name, dc, dh))
t.ok(all(dc == NODD // 4 and dh == NODD // 4 for _, dc, dh in diffs),
     "both count each odd name's %d renames" % (NODD // 4), repr(diffs))

# TERM during scrapes
t.ok(v.text(S + "term.rc").strip() == "0" and v.text(S + "tpctl_left").strip() == "0",
     "TERM during scrapes: exit 0 (tpctl-serve(1)), no tpctl left running",
     v.text(S + "term.rc") + v.text(S + "tpctl_left"))
trig = [l for l in v.text(S + "triggers_after").splitlines() if l and not l.startswith("==")]
t.ok(v.text(S + "instances_after").strip() == "" and
     "tpctl" not in v.text(S + "synth_after") and not trig,
     "after TERM: no instance, no synthetic event, no trigger left",
     v.text(S + "instances_after") + v.text(S + "synth_after") + "\n".join(trig))
t.done()
