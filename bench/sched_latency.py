#!/usr/bin/env python3
"""Issue 38: where a signing load's latency tail comes from, from a `perf record` of scheduler
and fdatasync tracepoints (bench/ceiling.sh, BENCH_CEILING_SCHED=NAME, records it).

usage: perf script -i perf.data -F comm,tid,cpu,time,event,trace | python3 bench/sched_latency.py

Record one server's load at a time (system-wide): threads are told apart by name — libmicrohttpd's
`MHD-connection` threads, the thread that calls fdatasync for the commits (the service's
`signature-log-w`, the C server's writer), wrk's threads — and it prints, in milliseconds (p50 / p90 / p99 / max):
- fdatasync: how long each call took, and the time from one commit's fdatasync returning to
  the next one's (the writer's batch cycle: a request that just missed a batch waits about one);
- run-queue delay: from a thread's wake-up to its running (it was runnable, a core was busy
  with another thread), by kind of thread: the connection threads, the writer, and wrk's
  threads (the load shares the two cores);
- preemptions: how often a thread was switched out while still runnable, and for how long.
"""
import re
import sys
from collections import defaultdict

LINE = re.compile(r"^\s*(?P<comm>.+?)\s+(?P<tid>\d+)\s+\[(?P<cpu>\d+)\]\s+(?P<time>[\d.]+):\s+(?P<event>[\w:]+):\s*(?P<rest>.*)$")
SWITCH = re.compile(r"prev_comm=(?P<pcomm>.+?) prev_pid=(?P<ppid>\d+) prev_prio=\d+ prev_state=(?P<pstate>\S+) ==> "
                    r"next_comm=(?P<ncomm>.+?) next_pid=(?P<npid>\d+)")
WAKEUP = re.compile(r"comm=(?P<comm>.+?) pid=(?P<pid>\d+)")


WRITERS = set()  # the threads that called fdatasync (not the checkpoint thread)


def kind(comm, tid):
    if comm.startswith("MHD-connection"):
        return "connection threads"
    if tid in WRITERS:
        return "group-commit writer"
    if comm.startswith("wrk"):
        return "wrk (the load)"
    return None


def percentiles(values):
    if not values:
        return "n=0"
    v = sorted(values)
    pick = lambda q: v[min(len(v) - 1, int(q * len(v)))]
    return f"n={len(v)}  p50 {pick(0.5):.3f}  p90 {pick(0.9):.3f}  p99 {pick(0.99):.3f}  max {v[-1]:.3f}"


def main():
    woken = {}  # tid -> time of wake-up (runnable)
    preempted = {}  # tid -> time switched out while runnable
    sync_enter = {}
    sync_ms, sync_exits = [], []
    delay = defaultdict(list)
    preempt = defaultdict(list)
    comms = {}
    for line in sys.stdin:
        m = LINE.match(line)
        if not m:
            continue
        t = float(m["time"])
        event, rest, tid = m["event"], m["rest"], int(m["tid"])
        if event == "sched:sched_wakeup":
            w = WAKEUP.search(rest)
            if w:
                wtid = int(w["pid"])
                comms[wtid] = w["comm"]
                woken.setdefault(wtid, t)
        elif event == "sched:sched_switch":
            s = SWITCH.search(rest)
            if not s:
                continue
            ptid, ntid = int(s["ppid"]), int(s["npid"])
            comms[ptid], comms[ntid] = s["pcomm"], s["ncomm"]
            if s["pstate"].startswith("R"):  # switched out while runnable: preempted
                preempted[ptid] = t
            woken.pop(ptid, None)
            if ntid in woken:
                delay[kind(s["ncomm"], ntid)].append((t - woken.pop(ntid)) * 1e3)
            if ntid in preempted:
                preempt[kind(s["ncomm"], ntid)].append((t - preempted.pop(ntid)) * 1e3)
        elif event == "syscalls:sys_enter_fdatasync" and not m["comm"].startswith("wal-checkpoint"):
            WRITERS.add(tid)
            sync_enter[tid] = t
        elif event == "syscalls:sys_exit_fdatasync" and tid in sync_enter:
            sync_ms.append((t - sync_enter.pop(tid)) * 1e3)
            sync_exits.append(t)
    cycle = [(b - a) * 1e3 for a, b in zip(sync_exits, sync_exits[1:])]
    print(f"fdatasync, ms:                 {percentiles(sync_ms)}")
    print(f"commit to commit, ms:          {percentiles(cycle)}")
    for name in ("connection threads", "group-commit writer", "wrk (the load)"):
        print(f"run-queue delay after wake-up, {name}, ms: {percentiles(delay.get(name, []))}")
    for name in ("connection threads", "group-commit writer", "wrk (the load)"):
        print(f"preempted while runnable, {name}, ms: {percentiles(preempt.get(name, []))}")


if __name__ == "__main__":
    main()
