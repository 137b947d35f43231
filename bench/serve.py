#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""CPU of `tpctl serve` between scrapes and per scrape, under a full-speed producer.

A producer (perl, pinned to the last CPU) calls lseek(2) on /dev/null as fast
as it can with offsets 0 .. SERIES-1 in turn, so that `count
syscalls:sys_enter_lseek --by offset` has SERIES series.  serve's CPU time
(utime + stime of /proc/PID/stat) is read over a window without scrapes, then
over SCRAPES scrapes 0.3 s apart (more than the 0.25 s within which scrapes
share one text); per scrape is that CPU less the idle rate's share.

  sudo flock /tmp/tpctl-bench.lock flock /tmp/tpctl-tracefs.lock \\
      python3 bench/serve.py [--runs 3] [--engine user] [--series 10000]
"""
import argparse
import os
import socket
import subprocess
import sys
import time
import urllib.request

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HZ = os.sysconf("SC_CLK_TCK")


def cpu_s(pid):
    with open(f"/proc/{pid}/stat") as f:
        v = f.read().rsplit(")", 1)[1].split()
    return (int(v[11]) + int(v[12])) / HZ


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def totals(body):
    """Events counted (all series) and lost, from a scrape."""
    n = lost = 0
    for ln in body.split(b"\n"):
        if ln.startswith(b"tpctl_events_total{"):
            n += int(ln.rsplit(b" ", 1)[1])
        elif ln.startswith(b"tpctl_lost_events_total{"):
            lost += int(ln.rsplit(b" ", 1)[1])
    return n, lost


def scrape(url):
    t0 = time.monotonic()
    with urllib.request.urlopen(url, timeout=10) as r:
        body = r.read()
    return time.monotonic() - t0, body


def run(args):
    port = free_port()
    url = f"http://127.0.0.1:{port}/metrics"
    metric = f"count syscalls:sys_enter_lseek --by offset --engine {args.engine}"
    serve = subprocess.Popen([args.tpctl, "serve", "--listen", f"127.0.0.1:{port}",
                              "--max-series", str(args.series * 2), metric],
                             stderr=subprocess.PIPE)
    ncpu = os.cpu_count()
    prod = subprocess.Popen(["taskset", "-c", str(ncpu - 1), "perl", "-e",
                             'open(F, "<", "/dev/null") or die; $n = $ARGV[0]; '
                             '$i = 0; while (1) { sysseek(F, $i, 0); $i = ($i + 1) % $n }',
                             str(args.series)])
    try:
        for _ in range(200):
            try:
                scrape(url)
                break
            except OSError:
                time.sleep(0.05)
        # every offset seen once before measuring
        time.sleep(2)
        _, body = scrape(url)
        n0, l0 = totals(body)
        time.sleep(0.3)
        c0, t0 = cpu_s(serve.pid), time.monotonic()
        time.sleep(args.idle)
        c1, t1 = cpu_s(serve.pid), time.monotonic()
        idle_rate = (c1 - c0) / (t1 - t0)
        _, body = scrape(url)
        n1, l1 = totals(body)
        # the counted rate over the idle window and the scrape after it
        rate = (n1 - n0) / (time.monotonic() - t0 + 0.3)
        lost = l1 - l0
        c1, t1 = cpu_s(serve.pid), time.monotonic()
        lat = []
        for _ in range(args.scrapes):
            d, body = scrape(url)
            lat.append(d)
            time.sleep(0.3)
        c2, t2 = cpu_s(serve.pid), time.monotonic()
        per_scrape = ((c2 - c1) - idle_rate * (t2 - t1)) / args.scrapes
        series = sum(1 for ln in body.split(b"\n") if ln.startswith(b"tpctl_events_total{"))
        lat.sort()
        return idle_rate, per_scrape, lat[len(lat) // 2], lat[-1], series, len(body), rate, lost
    finally:
        prod.kill()
        prod.wait()
        serve.terminate()
        serve.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--engine", default="user")
    ap.add_argument("--series", type=int, default=10000)
    ap.add_argument("--scrapes", type=int, default=20)
    ap.add_argument("--idle", type=float, default=10)
    ap.add_argument("--tpctl", default=os.path.join(TOP, "tpctl"))
    args = ap.parse_args()
    print(f"engine {args.engine}, {args.series} series, producer on CPU {os.cpu_count() - 1}")
    print("run  cpu-between-scrapes  cpu-per-scrape  scrape-p50  scrape-max  series  bytes"
          "  counted/s  lost")
    for i in range(args.runs):
        idle, per, p50, mx, n, size, rate, lost = run(args)
        print(f"{i + 1:3}  {idle * 100:8.1f}% of a CPU  {per * 1000:10.1f} ms  "
              f"{p50 * 1000:7.1f} ms  {mx * 1000:7.1f} ms  {n:6}  {size}  {rate / 1e6:6.2f}M"
              f"  {lost}")
        sys.stdout.flush()


main()
