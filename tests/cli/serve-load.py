#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Load and faults for tpctl serve (tests/cli/serve.t), on loopback only.

  serve-load.py PORT load       200 concurrent scrapers (each 5 scrapes) and
                                20 clients sending a request one byte a second,
                                while one normal scrape is timed: prints its
                                seconds and how many scrapes answered 200
  serve-load.py PORT cut        50 clients that send a request, read a few
                                bytes of the answer and reset the connection
  serve-load.py PORT slowread   a scrape read 1 byte a second (SIGTERM meanwhile)
  serve-load.py PORT slow       200 clients sending a request one byte a second,
                                never the whole of it, and one normal scrape
                                timed while they are connected: prints its
                                seconds, its status, how many slow clients the
                                server closed, and the earliest and the latest
                                close (seconds after their connect)
"""
import select
import socket
import struct
import subprocess
import sys
import threading
import time

HOST = "127.0.0.1"
PORT = int(sys.argv[1])
# a sanitizer build serves several times slower: fewer scrapers, longer waits
# (tests/hardening.mk sets ASAN_OPTIONS or TSAN_OPTIONS); what is checked stays the same
SLOW = 6 if {"ASAN_OPTIONS", "TSAN_OPTIONS"} & set(__import__("os").environ) else 1
SCRAPERS = 50 if SLOW > 1 else 200
REQ = b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"


def scrape(timeout=10 * SLOW):
    """One scrape: the status code, or 0 when it failed."""
    try:
        with socket.create_connection((HOST, PORT), timeout=timeout) as s:
            s.sendall(REQ)
            data = b""
            while True:
                b = s.recv(65536)
                if not b:
                    break
                data += b
        return int(data.split(b" ", 2)[1])
    except (OSError, ValueError, IndexError):
        return 0


def slow_client(stop):
    try:
        with socket.create_connection((HOST, PORT), timeout=30) as s:
            for c in REQ[:-2]:
                if stop.is_set():
                    return
                s.send(bytes([c]))
                stop.wait(1)
    except OSError:
        pass


def timed_scrape():
    """One normal scrape from a process of its own: (HTTP status, seconds)."""
    r = subprocess.run(["curl", "-s", "-o", "/dev/null", "--max-time", str(5 * SLOW), "-w",
                        "%{http_code} %{time_total}", f"http://{HOST}:{PORT}/metrics"],
                       stdout=subprocess.PIPE, text=True, check=False)
    try:
        return int(r.stdout.split()[0]), float(r.stdout.split()[1])
    except (ValueError, IndexError):
        return 0, 99.0


def load():
    stop = threading.Event()
    ok = []
    slow = [threading.Thread(target=slow_client, args=(stop,)) for _ in range(20)]
    for t in slow:
        t.start()
    time.sleep(1.5)

    def scraper():
        for _ in range(3):
            ok.append(scrape() == 200)

    many = [threading.Thread(target=scraper) for _ in range(SCRAPERS)]
    for t in many:
        t.start()
    time.sleep(0.2)
    # the normal scrape from a process of its own: this one's 200 threads
    # share one interpreter lock, which would slow its clock, not the server
    st, took = timed_scrape()
    for t in many:
        t.join()
    stop.set()
    for t in slow:
        t.join()
    print(f"{took:.3f} {st} {sum(ok)} {len(ok)}")


def cut():
    for _ in range(50):
        try:
            s = socket.create_connection((HOST, PORT), timeout=5)
            s.sendall(REQ)
            s.recv(10)
            # a reset, not a close: the server's write fails at once
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.close()
        except OSError:
            pass
    print("done")


def slowread():
    try:
        s = socket.create_connection((HOST, PORT), timeout=20)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        s.sendall(REQ)
        for _ in range(8):
            if not s.recv(1):
                break
            time.sleep(0.5)
        s.close()
    except OSError:
        pass
    print("done")


def slow():
    cuts = []
    lock = threading.Lock()

    def client():
        try:
            s = socket.create_connection((HOST, PORT), timeout=5)
        except OSError:
            return
        t0 = time.monotonic()
        try:
            # a request that never ends: one byte a second, for at most 30 s
            for i in range(30):
                s.send(REQ[i % (len(REQ) - 2):][:1])
                r, _, _ = select.select([s], [], [], 1)
                if r and not s.recv(1024):
                    break
            else:
                return
        except OSError:
            pass
        with lock:
            cuts.append(time.monotonic() - t0)
        s.close()

    clients = [threading.Thread(target=client) for _ in range(200)]
    for t in clients:
        t.start()
    time.sleep(1.5)
    st, took = timed_scrape()
    for t in clients:
        t.join()
    print(f"{took:.3f} {st} {len(cuts)} {min(cuts, default=0):.2f} {max(cuts, default=0):.2f}")


{"load": load, "cut": cut, "slowread": slowread, "slow": slow}[sys.argv[2]]()
