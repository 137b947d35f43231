#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""tpctl serve for a long time on a host where processes come and go.

serve with a count, a hist and a latency metric, all by comm; a scrape a
second; bench/churn making short-lived processes with changing names (50 of
them) at a steady rate.  Every 10 s one line: the processes made so far, the
RSS of serve (now, and the highest of the last 10 s, read every second), its
gauges summed over the metrics (tasks tracked, latency STARTs open), the
series a scrape has, and the scrape's time (median and max of the last 10 s).  What
must hold: RSS and the gauges flat once the names' series exist, whatever
the number of processes.

    bench/soak.py [--seconds S] [--rate R] [--tpctl PATH]
    make bench-soak SOAK_S=3600 SOAK_RATE=500
"""
import argparse
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
METRICS = [
    "count raw_syscalls:sys_enter --by comm",
    "hist syscalls:sys_enter_read --field count --by comm",
    "latency syscall --by comm",
]


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def gauge(text, name):
    return sum(int(v) for v in re.findall(rf"^{name}{{[^}}]*}} (\d+)$", text, re.M))


def series(text):
    """Series of the metrics themselves: counters and histograms' _count."""
    return len(re.findall(r"^tpctl_(?:events_total|\w+_count)\{", text, re.M))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=float(os.environ.get("SOAK_S", 600)))
    ap.add_argument("--rate", type=float, default=float(os.environ.get("SOAK_RATE", 500)))
    ap.add_argument("--tpctl", default=os.path.join(TOP, "tpctl"))
    ap.add_argument("--churn", default=os.path.join(TOP, "bench", "churn"))
    a = ap.parse_args()

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    serve = subprocess.Popen([a.tpctl, "serve", "--listen", f"127.0.0.1:{port}"] + METRICS,
                             stdout=subprocess.DEVNULL)
    churn = None
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(url + "/healthz", timeout=2).read()
                break
            except OSError:
                if serve.poll() is not None:
                    sys.exit("serve ended: %s" % serve.returncode)
                time.sleep(0.1)
        print(f"# serve pid {serve.pid}, {a.rate:g} processes/s for {a.seconds:g} s; "
              f"metrics: {' | '.join(METRICS)}", flush=True)
        print(f"{'t_s':>6} {'procs':>9} {'rss_kb':>7} {'rss_max':>7} {'tracked':>8} {'open':>6} "
              f"{'series':>7} {'scrape_med_ms':>13} {'scrape_max_ms':>13}", flush=True)
        churn = subprocess.Popen([a.churn, "-r", str(a.rate), "0"], stderr=subprocess.DEVNULL)
        t0 = time.monotonic()
        times, rss = [], []
        next_line = t0 + 10
        while True:
            t = time.monotonic()
            s0 = time.monotonic()
            text = urllib.request.urlopen(url + "/metrics", timeout=30).read().decode(
                "utf-8", "replace")
            times.append(time.monotonic() - s0)
            rss.append(rss_kb(serve.pid))
            if t >= next_line or t - t0 >= a.seconds:
                el = t - t0
                print(f"{el:6.0f} {int(el * a.rate):9d} {rss[-1]:7d} {max(rss):7d} "
                      f"{gauge(text, 'tpctl_tasks_tracked'):8d} "
                      f"{gauge(text, 'tpctl_latency_open_starts'):6d} {series(text):7d} "
                      f"{statistics.median(times) * 1e3:13.1f} {max(times) * 1e3:13.1f}",
                      flush=True)
                times, rss = [], []
                next_line += 10
                if el >= a.seconds:
                    break
            if serve.poll() is not None:
                sys.exit("serve ended: %s" % serve.returncode)
            time.sleep(max(0, 1 - (time.monotonic() - t)))
    finally:
        if churn:
            churn.send_signal(signal.SIGTERM)
            churn.wait()
        serve.send_signal(signal.SIGTERM)
        serve.wait()


if __name__ == "__main__":
    main()
