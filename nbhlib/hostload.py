# SPDX-License-Identifier: GPL-2.0
"""Other work on the host that would disturb a benchmark boot.

Under TCG a guest's latencies are those of its vCPU threads on the
host: another guest, a kernel build or a Coccinelle run beside a
benchmark raises its noise floor several times over, and so does any
program that computes (an audit in Python, a test run). Watch samples
the host's processes while a boot runs and keeps what it saw: the
heavy ones by name, and every other process that is not ours by the
CPU time it used (more than BUSY_CPU_S, or BUSY_SHARE of the block's
wall time, whichever is more); idle() waits for the host to be free of
both before a boot starts.
"""
import os
import threading
import time

# Process names (/proc/PID/comm) of the work that disturbs a benchmark:
# other guests (by prefix), the compilers and linker of a build, spatch.
GUESTS = "qemu-system"
HEAVY = {"cc1", "cc1plus", "ld", "ld.bfd", "spatch"}
# CPU time of the other processes that disturbs a boot: over a block,
# BUSY_CPU_S seconds or BUSY_SHARE of its wall time (the machine's own
# daemons use well under one percent); before a boot, IDLE_SHARE of one
# CPU over IDLE_SAMPLE_S.
BUSY_CPU_S = 5.0
BUSY_SHARE = 0.02
IDLE_SHARE = 0.10
IDLE_SAMPLE_S = 5.0
CLK_TCK = os.sysconf("SC_CLK_TCK")


def heavy(comm):
    return comm.startswith(GUESTS) or comm in HEAVY


def _stat(pid):
    """(state, parent) of PID, or (None, None) once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            # The command name may hold spaces and parentheses: the
            # fields that follow start after the last ')'.
            state, ppid = f.read().rsplit(")", 1)[1].split()[:2]
            return state, int(ppid)
    except (OSError, ValueError):
        return None, None


def _ours(pid, me):
    while pid and pid > 1:
        if pid == me:
            return True
        pid = _stat(pid)[1]
    return False


def processes():
    """(pid, name) of the heavy processes running now that are not this
    process's descendants (its own guest is not disturbing it)."""
    me, found = os.getpid(), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/comm") as f:
                comm = f.read().strip()
        except OSError:
            continue
        # A zombie does no work; it waits for its parent.
        if heavy(comm) and _stat(entry)[0] not in ("Z", None) and not _ours(int(entry), me):
            found.append((int(entry), comm))
    return found


def activity():
    """Sorted names of processes()."""
    return sorted(name for _, name in processes())


def cpu_times():
    """{pid: (name, CPU seconds so far)} of the processes that are not
    this process or its descendants."""
    me, out = os.getpid(), {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                head, rest = f.read().rsplit(")", 1)
        except (OSError, ValueError):
            continue
        fields = rest.split()
        pid = int(entry)
        if len(fields) < 13 or _ours(pid, me):
            continue
        # utime and stime: fields 14 and 15 of stat, 12th and 13th after
        # the name
        out[pid] = (head.split("(", 1)[1], (int(fields[11]) + int(fields[12])) / CLK_TCK)
    return out


def cpu_used(before, after):
    """{name: CPU seconds} the processes of AFTER used since BEFORE (a
    process that started in between: all its time)."""
    used = {}
    for pid, (name, t) in after.items():
        prev = before.get(pid)
        # by pid: a kernel worker's name changes with its work item
        d = t - (prev[1] if prev else 0.0)
        if d > 0:
            used[name] = used.get(name, 0.0) + d
    return used


def busy_cpu(used, limit):
    """'NAME (N s of CPU)' for the names of USED over LIMIT seconds in
    all, the largest first (a make of many short compilers counts as one
    name each)."""
    if sum(used.values()) <= limit:
        return []
    top = sorted(used.items(), key=lambda kv: -kv[1])
    return [f"{n} ({t:.0f} s of CPU)" for n, t in top[:3] if t >= 0.5] or \
        [f"other processes ({sum(used.values()):.0f} s of CPU)"]


def computing(sample_s=IDLE_SAMPLE_S):
    """What other processes computed over SAMPLE_S seconds when it was
    more than IDLE_SHARE of one CPU (else [])."""
    before = cpu_times()
    time.sleep(sample_s)
    return busy_cpu(cpu_used(before, cpu_times()), IDLE_SHARE * sample_s)


def idle(limit_s, log=None, poll_s=10):
    """Wait until activity() is empty and no other process computes
    (computing()), at most LIMIT_S seconds (logging what runs once a
    minute); what still runs at the end ([] when idle)."""
    deadline, said = time.monotonic() + limit_s, 0.0
    while True:
        busy = activity() or computing()
        if not busy or time.monotonic() >= deadline:
            return busy
        if log and time.monotonic() - said >= 60:
            log(f"waiting for an idle host: {', '.join(sorted(set(busy)))} running")
            said = time.monotonic()
        time.sleep(poll_s)


class Watch:
    """with Watch() as w: ... then w.seen: the names of the heavy
    processes activity() found at any sample while the block ran, and of
    the other processes whose CPU time over the block was too much
    (busy_cpu(), BUSY_CPU_S or BUSY_SHARE of the wall time)."""

    def __init__(self, period_s=2.0, busy_cpu_s=BUSY_CPU_S):
        self.period_s, self.seen = period_s, set()
        self.busy_cpu_s = busy_cpu_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while True:
            self.seen.update(activity())
            if self._stop.wait(self.period_s):
                return

    def __enter__(self):
        self._start, self._t0 = cpu_times(), time.monotonic()
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.seen.update(activity())
        wall = time.monotonic() - self._t0
        self.used = cpu_used(self._start, cpu_times())
        self.seen.update(busy_cpu(self.used, max(self.busy_cpu_s, BUSY_SHARE * wall)))
        return False
