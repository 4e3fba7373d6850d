#!/usr/bin/env python3
"""The yardstick of `gridsim bench`: one SWF log replayed on one
machine by a plain Python event loop -- a heap of finishes, a queue, a list
profile -- under FCFS, EASY or conservative backfilling, with the rules of
gridpeer's local scheduler (docs/local-scheduler.md), so that the mean wait it
prints must equal `gridsim replay`'s and the time it takes is a fair baseline.

Conversion as `gridsim replay` does by default: jobs without a submit or run
time, with run time 0 or without processors are dropped; the estimate is the
requested time, at least the run time (the run time when none is given); jobs
wider than the machine are rejected.

Usage (gridsim bench --print-yardstick > y.py): python3 y.py FILE.swf[.gz] fcfs|easy|conservative [NODES] [LIMIT]
Prints one JSON line: jobs, rejected, mean_wait_s, mean_turnaround_s, and the
seconds spent parsing and scheduling.
"""
import bisect
import gzip
import heapq
import json
import sys
import time
from collections import deque


def read_jobs(path, limit):
    opener = gzip.open if path.endswith(".gz") else open
    jobs = []
    with opener(path, "rt") as lines:
        for line in lines:
            if line.startswith(";") or not line.strip():
                continue
            f = line.split()
            submit, run, alloc, req_procs, req_time = int(f[1]), int(f[3]), int(f[4]), int(f[7]), int(f[8])
            procs = alloc if alloc > 0 else req_procs
            if submit < 0 or run <= 0 or procs <= 0:
                continue
            jobs.append((submit, run, max(req_time, run), procs))
    jobs.sort(key=lambda j: j[0])  # stable: log order among equal submits
    return jobs[:limit] if limit else jobs


class Profile:
    """Free nodes as steps: free[i] holds from times[i] until times[i+1]."""

    def __init__(self, now, nodes):
        self.times, self.free = [now], [nodes]

    def _split(self, t):
        i = bisect.bisect_right(self.times, t) - 1
        if self.times[i] != t:
            self.times.insert(i + 1, t)
            self.free.insert(i + 1, self.free[i])
            i += 1
        return i

    def add(self, start, end, delta):
        i, j = self._split(start), self._split(end)
        for k in range(i, j):
            self.free[k] += delta

    def earliest(self, t, nodes, length):
        i = bisect.bisect_right(self.times, t) - 1
        while True:
            start = max(t, self.times[i])
            k = i
            while k < len(self.times) and self.times[k] < start + length:
                if self.free[k] < nodes:
                    break
                k += 1
            else:
                return start
            i = k + 1


def replay(jobs, policy, nodes):
    events = []  # (actual end, sequence, nodes, planned end)
    queue = deque()  # [index, reserved start or None]
    free, seq, waits, turnarounds, rejected = nodes, 0, [], [], 0
    running_planned = {}  # sequence -> (planned end, nodes)
    now = jobs[0][0] if jobs else 0

    def start(k, t):
        nonlocal free, seq
        submit, run, est, n = jobs[k]
        free -= n
        seq += 1
        heapq.heappush(events, (t + run, seq, n))
        running_planned[seq] = (t + est, n)
        waits.append(t - submit)
        turnarounds.append(t + run - submit)

    def profile_at(t):
        p = Profile(t, nodes)
        for end, n in running_planned.values():
            p.add(t, end, -n)
        return p

    def shadow_and_extra():
        """When the blocked head starts (planned ends), and the nodes then free besides its own."""
        need = jobs[queue[0][0]][3]
        available, shadow = free, None
        for end, n in sorted(running_planned.values()):
            if shadow is not None and end > shadow:
                break
            available += n
            if shadow is None and available >= need:
                shadow = end
        return shadow, available - need

    def easy_pass(t):
        while queue and jobs[queue[0][0]][3] <= free:
            start(queue.popleft()[0], t)
        if not queue:
            return
        shadow, extra = shadow_and_extra()
        for entry in list(queue)[1:]:
            submit, run, est, n = jobs[entry[0]]
            if n <= free and (t + est <= shadow or n <= extra):
                if t + est > shadow:
                    extra -= n
                queue.remove(entry)
                start(entry[0], t)

    def conservative_pass(t):
        p = profile_at(t)
        for entry in queue:
            if entry[1] is not None and entry[1] >= t and p.earliest(entry[1], jobs[entry[0]][3], jobs[entry[0]][2]) == entry[1]:
                p.add(entry[1], entry[1] + jobs[entry[0]][2], -jobs[entry[0]][3])
            else:
                entry[1] = None
        waiting = deque()
        for entry in queue:
            k = entry[0]
            est, n = jobs[k][2], jobs[k][3]
            if entry[1] is not None:
                p.add(entry[1], entry[1] + est, n)
            at = p.earliest(t, n, est)
            p.add(at, at + est, -n)
            if at == t:
                start(k, t)
            else:
                entry[1] = at
                waiting.append(entry)
        queue.clear()
        queue.extend(waiting)

    def arrive(k, t):
        n, est = jobs[k][3], jobs[k][2]
        if n > nodes:
            return False
        if policy == "fcfs":
            if not queue and n <= free:
                start(k, t)
            else:
                queue.append([k, None])
        elif policy == "easy":
            queue.append([k, None])
            if len(queue) == 1:
                easy_pass(t)
            else:
                shadow, extra = shadow_and_extra()
                if n <= free and (t + est <= shadow or n <= extra):
                    queue.pop()
                    start(k, t)
        else:
            p = profile_at(t)
            for entry in queue:
                p.add(entry[1], entry[1] + jobs[entry[0]][2], -jobs[entry[0]][3])
            at = p.earliest(t, n, est)
            if at == t:
                start(k, t)
            else:
                queue.append([k, at])
        return True

    def next_reserved():
        if policy != "conservative":
            return float("inf")
        starts = [e[1] for e in queue if e[1] is not None]
        return min(starts) if starts else float("inf")

    i = 0
    while i < len(jobs) or events or queue:
        next_submit = jobs[i][0] if i < len(jobs) else float("inf")
        next_end = events[0][0] if events else float("inf")
        wake = next_reserved()
        t = min(next_end, wake)
        if t <= next_submit:
            while events and events[0][0] == t:
                _, s, n = heapq.heappop(events)
                free += n
                del running_planned[s]
            if policy == "fcfs":
                while queue and jobs[queue[0][0]][3] <= free:
                    start(queue.popleft()[0], t)
            elif policy == "easy":
                easy_pass(t)
            else:
                conservative_pass(t)
        else:
            if not arrive(i, next_submit):
                rejected += 1
            i += 1
    return waits, turnarounds, rejected


def main():
    path, policy = sys.argv[1], sys.argv[2]
    nodes = int(sys.argv[3]) if len(sys.argv) > 3 else 128
    limit = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    began = time.perf_counter()
    jobs = read_jobs(path, limit)
    parsed = time.perf_counter()
    waits, turnarounds, rejected = replay(jobs, policy, nodes)
    done = time.perf_counter()
    count = max(1, len(waits))
    print(json.dumps({"jobs": len(waits), "rejected": rejected, "mean_wait_s": sum(waits) / count,
                      "mean_turnaround_s": sum(turnarounds) / count, "parse_seconds": parsed - began,
                      "schedule_seconds": done - parsed}))


if __name__ == "__main__":
    main()
