# SPDX-License-Identifier: GPL-2.0
"""Other work on the host that would disturb a benchmark boot.

Under TCG a guest's latencies are those of its vCPU threads on the
host: another guest, a kernel build or a Coccinelle run beside a
benchmark raises its noise floor several times over. Watch samples the
host's processes while a boot runs and keeps what it saw; idle() waits
for the host to be free of such work before a boot starts.
"""
import os
import threading
import time

# Process names (/proc/PID/comm) of the work that disturbs a benchmark:
# other guests (by prefix), the compilers and linker of a build, spatch.
GUESTS = "qemu-system"
HEAVY = {"cc1", "cc1plus", "ld", "ld.bfd", "spatch"}


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


def idle(limit_s, log=None, poll_s=10):
    """Wait until activity() is empty, at most LIMIT_S seconds (logging
    what runs once a minute); what still runs at the end ([] when idle)."""
    deadline, said = time.monotonic() + limit_s, 0.0
    while True:
        busy = activity()
        if not busy or time.monotonic() >= deadline:
            return busy
        if log and time.monotonic() - said >= 60:
            log(f"waiting for an idle host: {', '.join(sorted(set(busy)))} running")
            said = time.monotonic()
        time.sleep(poll_s)


class Watch:
    """with Watch() as w: ... then w.seen: the names of the heavy
    processes activity() found at any sample while the block ran."""

    def __init__(self, period_s=2.0):
        self.period_s, self.seen = period_s, set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while True:
            self.seen.update(activity())
            if self._stop.wait(self.period_s):
                return

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.seen.update(activity())
        return False
