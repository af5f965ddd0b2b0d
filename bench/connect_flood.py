#!/usr/bin/env python3
"""A reconnect flood against a running offer-signer, and how long a new client waits meanwhile
(issue 25, item 6): ADDRESSES × PER_ADDRESS idle connections from 127.0.1.x, each opened again
the instant the server closes it; while they are up, a probe client from 127.0.2.y connects
every half second, asks GET /healthz and times the answer.

    python3 bench/connect_flood.py PORT [--addresses 50] [--per-address 100] [--probes 20]

Prints the flood's connects per second and the probes' median and slowest answer. Needs
`ulimit -n` above ADDRESSES × PER_ADDRESS + 100 (the script raises its own soft limit)."""
import argparse, errno, resource, selectors, socket, statistics, threading, time


def flood(port, addresses, per_address, stop, counters):
    selector = selectors.DefaultSelector()

    def open_one(address):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.bind((address, 0))
        code = s.connect_ex(("127.0.0.1", port))
        if code not in (0, errno.EINPROGRESS):
            s.close()
            counters["failed"] += 1
            return
        counters["connects"] += 1
        selector.register(s, selectors.EVENT_READ, address)

    for index in range(addresses * per_address):
        open_one("127.0.1.%d" % (1 + index % addresses))
    while not stop.is_set():
        for key, _ in selector.select(timeout=0.1):
            s, address = key.fileobj, key.data
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            if data:
                continue  # a 503 or 408 on its way; the close follows
            selector.unregister(s)
            s.close()
            counters["closed"] += 1
            open_one(address)
    for key in list(selector.get_map().values()):
        key.fileobj.close()


def probe(port, address, timeout=15.0):
    started = time.monotonic()
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.bind((address, 0))
    try:
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        answer = s.recv(64)
    except OSError as error:
        answer = ("error %s" % error).encode()
    finally:
        s.close()
    return time.monotonic() - started, answer.split(b"\r\n")[0].decode(errors="replace")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--addresses", type=int, default=50)
    parser.add_argument("--per-address", type=int, default=100)
    parser.add_argument("--probes", type=int, default=20)
    parser.add_argument("--settle", type=float, default=3.0)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, args.addresses * args.per_address + 1000)), hard))
    counters = {"connects": 0, "closed": 0, "failed": 0}
    stop = threading.Event()
    thread = threading.Thread(target=flood, args=(args.port, args.addresses, args.per_address, stop, counters))
    thread.start()
    time.sleep(args.settle)
    began, connects_before = time.monotonic(), counters["connects"]
    results = []
    for index in range(args.probes):
        results.append(probe(args.port, "127.0.2.%d" % (1 + index % 200)))
        time.sleep(0.5)
    elapsed = time.monotonic() - began
    rate = (counters["connects"] - connects_before) / elapsed
    stop.set()
    thread.join()
    seconds = [r[0] for r in results]
    statuses = sorted(set(r[1] for r in results))
    print("flood: %d addresses x %d, %.0f connects/s while probing (%d connects, %d closed by the server, %d failed in all)"
          % (args.addresses, args.per_address, rate, counters["connects"], counters["closed"], counters["failed"]))
    print("probes: %d, answers %s; median %.3f s, slowest %.3f s, %d over 1 s"
          % (len(results), statuses, statistics.median(seconds), max(seconds), sum(1 for s in seconds if s > 1)))


if __name__ == "__main__":
    main()
