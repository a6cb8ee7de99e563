# SPDX-License-Identifier: GPL-2.0
"""Boot a kernel under QEMU, run guest tests, find the kernel's splats.

    g = boot.Guest(image, tests=("smoke",), nics=boot.HUB_NICS)
    res = boot.run(g, "my-run")      # a BootResult, also in its result.json
    res.outcomes["smoke"]            # "ok", "not ok", "skip" or "no result"
    res.unknown_splats               # splats boot-tests/known-splats does not list

The guest root is the host's / shared read-only over 9p (the virtme-ng
design) with tmpfs for writable places; boot-tests/guest-init is PID 1.
Results come back through a second, writable 9p share: the guest's KTAP
and its exit status. The console log is kept in the run directory
($WORK/boot/runs/NAME). The QEMU command is made of small objects:
Shares (9p), NICs, kernel parameters.

A splat is a kernel report found on the console by one rule (find_splats):
it starts at a timestamped kernel message matching one of KINDS and runs
to its "---[ end trace" (or "---[ end Kernel panic") line, stopping
before the next report's first line and after SPLAT_LINES lines at
most; a report line within MERGE lines of a splat's first line belongs
to that splat (DEBUG_LOCKS_WARN_ON() then its WARNING, for one).
"""
import collections
import dataclasses
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time

from . import ktap, paths, proc

BOOT_TESTS = os.path.join(paths.REPO, "boot-tests")
TEST_DIR = os.path.join(BOOT_TESTS, "tests")
GUEST_INIT = os.path.join(BOOT_TESTS, "guest-init")
KNOWN_SPLATS = os.path.join(BOOT_TESTS, "known-splats")

# Exit status of a boot (nbh-boot's): pass, test failure or splat,
# timeout or two stalled boots, guest died without reporting.
PASS, FAILED, TIMEOUT, DIED = 0, 1, 3, 255

# A kernel message carries a printk timestamp (CONFIG_PRINTK_TIME), which
# tells it from guest test output ("# ..." lines) on the shared console.
TIMESTAMP = r"\[\s*\d+\.\d+\]\s"
KINDS = [
    ("WARNING", r"WARNING:"),                   # WARN(), lockdep, suspicious RCU usage
    ("BUG", r"BUG:"),                           # sleeping in atomic, soft lockup, bad page...
    ("kernel BUG", r"kernel BUG at"),
    ("Oops", r"Oops"),
    ("general protection fault", r"general protection fault"),
    ("Kernel panic", r"Kernel panic"),
    ("Unable to handle", r"Unable to handle kernel"),
    ("hung task", r"INFO: task \S+ blocked for more than"),
    ("RCU stall", r"rcu: INFO: \S+ detected stalls"),
    ("RCU stall", r"INFO: \S+ self-detected stall"),
    ("hard LOCKUP", r"Watchdog detected hard LOCKUP"),
    ("DEBUG_LOCKS_WARN_ON", r"DEBUG_LOCKS_WARN_ON"),
    ("UBSAN", r"UBSAN:"),
    ("KASAN", r"KASAN:"),
]
# The kind is the pattern found leftmost on the line (the first listed
# on a tie): "BUG: KASAN: ..." is a BUG.
SPLAT_RE = re.compile(TIMESTAMP + r".*?(?:" + "|".join(
    f"(?P<k{i}>{p})" for i, (_, p) in enumerate(KINDS)) + ")")
END_RE = re.compile(r"---\[ end (trace|Kernel panic)")
SPLAT_LINES = 60
MERGE = 3


# A kernel built with O= names its sources relative to the build
# directory ("kernel BUG at ../../worktrees/6.1-rt-x/net/ipv6/route.c:1492!"):
# the part up to the tree's top is the build's, not the kernel's.
BUILD_PREFIX = re.compile(r"(?<![\w/])(?:\.\./)+(?:[^\s/:]+/)*?(?=(?:arch|block|crypto|drivers|fs"
                          r"|include|init|io_uring|ipc|kernel|lib|mm|net|security|sound|virt)/)")


def source_paths(title):
    """TITLE with source paths from the tree's top (see BUILD_PREFIX)."""
    return BUILD_PREFIX.sub("", title)


@dataclasses.dataclass
class Splat:
    kind: str            # one of KINDS
    first: int           # console line numbers, from 1, inclusive
    last: int
    title: str           # the first line, stripped
    known: str | None = None    # the reason boot-tests/known-splats gives


def splat_kind(line):
    """The kind of kernel report LINE starts, or None."""
    m = SPLAT_RE.search(line)
    return KINDS[int(m.lastgroup[1:])][0] if m else None


def find_splats(lines):
    """The Splats of a console (a list of lines), by the rule above."""
    starts = [i for i, ln in enumerate(lines) if SPLAT_RE.search(ln)]
    splats = []
    for n, i in enumerate(starts):
        if splats and i < splats[-1].last:      # (0-based here) inside the last one
            continue
        limit = min(i + SPLAT_LINES, len(lines)) - 1
        later = next((s for s in starts[n + 1:] if s - i >= MERGE), None)
        if later is not None:
            limit = min(limit, later - 1)
        end = next((j for j in range(i, limit + 1) if END_RE.search(lines[j])), limit)
        splats.append(Splat(splat_kind(lines[i]), i + 1, end + 1, source_paths(lines[i].strip())))
    return splats


@dataclasses.dataclass(frozen=True)
class KnownSplat:
    kernels: tuple       # KIND-VARIANT labels: pristine-rt-debug, ...
    function: str        # in the splat's first line
    frame: str           # in its call trace, "-" for none
    reason: str

    def matches(self, kernel, text):
        first = text.splitlines()[0] if text else ""
        if kernel not in self.kernels or \
                not re.search(rf"\b{re.escape(self.function)}\+0x", first):
            return False
        return self.frame == "-" or bool(re.search(
            rf"^(\[[^]]*\])?\s+(\? )?{re.escape(self.frame)}\+0x", text, re.M))


KERNEL_LABEL = re.compile(rf"^(pristine|patched)-({'|'.join(map(re.escape, paths.VARIANTS))})$")


@functools.lru_cache(maxsize=None)
def known_splats(path=KNOWN_SPLATS):
    """The entries of boot-tests/known-splats; BadInput when malformed."""
    known = []
    for n, fields in proc.tab_table(path, ("KERNELS", "FUNCTION", "FRAME", "reason")):
        kernels = tuple(fields[0].split(","))
        bad = [k for k in kernels if not KERNEL_LABEL.match(k)]
        if bad:
            raise proc.BadInput(f"{path}:{n}: kernel '{bad[0]}' is not KIND-VARIANT "
                                f"(pristine or patched, then {'|'.join(paths.VARIANTS)})")
        known.append(KnownSplat(kernels, *fields[1:]))
    return tuple(known)


def classify(splats, lines, kernel):
    """Set each splat's `known` reason for KERNEL, a KIND-VARIANT label
    (pristine-rt-debug): an entry for the pristine kernel forgives
    nothing on a patched one."""
    for s in splats:
        text = "\n".join(lines[s.first - 1:s.last])
        s.known = next((k.reason for k in known_splats() if k.matches(kernel, text)), None)
    return splats


# -- The QEMU command --------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Share:
    """A host directory the guest mounts over 9p by TAG."""
    tag: str
    path: str
    readonly: bool = True
    remap: bool = False      # multidevs=remap: the share spans filesystems

    def args(self):
        opts = f"local,id={self.tag},path={self.path},security_model=none"
        opts += ",readonly=on" if self.readonly else ""
        opts += ",multidevs=remap" if self.remap else ""
        return ["-fsdev", opts, "-device", f"virtio-9p-pci,fsdev={self.tag},mount_tag={self.tag}"]


@dataclasses.dataclass(frozen=True)
class HubNic:
    """A virtio-net NIC on port PORT of QEMU hub HUB: NICs on one hub see
    each other's frames (a wire between them)."""
    port: int
    mac: str
    hub: int = 0

    def args(self):
        return ["-netdev", f"hubport,id=hp{self.port},hubid={self.hub}",
                "-device", f"virtio-net-pci,netdev=hp{self.port},mac={self.mac}"]


# The two NICs of the validation tests, wired to each other.
HUB_NICS = (HubNic(0, "52:54:00:12:34:01"), HubNic(1, "52:54:00:12:34:02"))
ROOT_SHARE = Share("nbhroot", "/", remap=True)
# Kernel parameters of a boot that must end soon when a lock stays held:
# panic on an RCU stall or a hung task instead of waiting for the timeout.
PANIC_ON_HANG = ("sysctl.kernel.panic_on_rcu_stall=1", "sysctl.kernel.hung_task_panic=1")


def params(**kw):
    """Kernel parameters nbh.KEY=VALUE, for the guest tests."""
    return tuple(f"nbh.{k}={v}" for k, v in kw.items())


# Seconds without console output before userspace that make a stalled
# boot. The longest silence of a normal boot before /init is about 6 s of
# guest time (debug configs, TCG, another guest beside it); the stalls
# seen stop for good in 6.1-rt's RCU-tasks self test, vCPUs idle.
BOOT_STALL = 90


@dataclasses.dataclass(frozen=True)
class Guest:
    """What one boot runs: the image, the guest tests and the machine."""
    image: str
    tests: tuple
    expect_rt: bool = False
    cpus: int = 2
    mem: int = 1024              # MiB
    timeout: int = 600           # seconds before the guest is killed
    test_timeout: int = 300      # seconds per guest test
    boot_stall: int = BOOT_STALL  # seconds without output before userspace
    append: tuple = ()           # further kernel parameters
    shares: tuple = ()           # further Shares
    nics: tuple = ()
    qemu_args: tuple = ()        # further raw QEMU arguments

    def cmdline(self):
        return " ".join([
            "console=ttyS0", "panic=-1", "ro",
            f"root={ROOT_SHARE.tag}", "rootfstype=9p",
            "rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose",
            f"init={GUEST_INIT}",
            *params(tests=",".join(self.tests), testdir=TEST_DIR,
                    timeout=self.test_timeout, rt=int(self.expect_rt)),
            "sysctl.kernel.hung_task_timeout_secs=30",
            # An emulated CPU on a loaded host fails the IO-APIC timer check
            # ("IO-APIC + timer doesn't work!" panic): skip that check.
            "no_timer_check",
            # Seed the CRNG from RDRAND (TCG's -cpu max has it): getrandom()
            # callers must not wait minutes for entropy in a starved guest.
            "random.trust_cpu=on",
            *self.append])

    def command(self, accel, outdir):
        cmd = ["qemu-system-x86_64", "-machine", f"pc,accel={accel}",
               "-cpu", "host" if accel == "kvm" else "max",
               # One socket per vCPU: the kernel has no ACPI, and SeaBIOS's
               # MP table lists only the first logical CPU of each package.
               "-smp", f"{self.cpus},sockets={self.cpus},cores=1,threads=1",
               "-m", str(self.mem),
               "-nodefaults", "-no-user-config", "-display", "none",
               "-serial", "stdio", "-no-reboot",
               "-kernel", self.image, "-append", self.cmdline()]
        # A human monitor socket beside the run's output, to look into a
        # guest that stops reporting (info registers -a: where its vCPUs
        # spin); left out when the path is too long for a socket.
        monitor = os.path.join(os.path.dirname(os.path.abspath(outdir)), "monitor")
        if len(monitor) < 100:
            cmd += ["-monitor", f"unix:{monitor},server=on,wait=off"]
        for obj in (ROOT_SHARE, Share("nbhout", outdir, readonly=False)) + \
                tuple(self.shares) + tuple(self.nics):
            cmd += obj.args()
        return cmd + list(self.qemu_args)


def check_tests(tests):
    """BadInput unless every name is a guest test of boot-tests/tests."""
    if not tests:
        raise proc.BadInput("no tests given")
    for t in tests:
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", t):
            raise proc.BadInput(f"bad test name {t!r}")
        if not any(os.access(os.path.join(TEST_DIR, t + s), os.X_OK) for s in ("", ".sh")):
            raise proc.BadInput(f"no guest test {t} in {TEST_DIR}")


# -- Where a kernel image comes from -------------------------------------

def build_of(image):
    """The build directory IMAGE lies in (paths.image() of it), or None."""
    rel = os.path.relpath(paths.image("/"), "/")
    image = os.path.abspath(image)
    return image[:-len(rel) - 1] if image.endswith(os.sep + rel) else None


def label_of(image):
    """The KIND-VARIANT label of IMAGE: VARIANT (nort, nort-debug, rt or
    rt-debug) from the .config it was built with (PREEMPT_RT,
    PROVE_LOCKING), KIND pristine when its build directory is that of a
    kernel without a series (paths.build_dir()), else patched; None
    without a .config."""
    build = build_of(image)
    cfg = os.path.join(build, ".config") if build else None
    if not cfg or not os.path.isfile(cfg):
        return None
    text = open(cfg, errors="replace").read()
    rt = re.search(r"^CONFIG_PREEMPT_RT=y$", text, re.M)
    debug = re.search(r"^CONFIG_PROVE_LOCKING=y$", text, re.M)
    variant = ("rt" if rt else "nort") + ("-debug" if debug else "")
    pristine = any(os.path.basename(build) == os.path.basename(paths.build_dir(t, variant, "none"))
                   for t in paths.TREES)
    return ("pristine-" if pristine else "patched-") + variant


def run_dir(name):
    return os.path.join(paths.work(), "boot", "runs", name)


# -- The result ----------------------------------------------------------

# A guest test's skipped check, in the diagnostics before its result.
SKIPPED_CHECK = re.compile(r"^#\s*ok - (.*?)\s+#\s*SKIP\s*(.*)$")

@dataclasses.dataclass
class BootResult:
    kernel: str                  # the image booted
    label: str | None            # KIND-VARIANT, for known-splats (None: every splat unknown)
    accel: str
    cpus: int
    tests: list
    outcomes: dict               # test -> "ok" | "not ok" | "skip" | "no result"
    splats: list                 # Splats, in console order
    rc: int                      # PASS, FAILED, TIMEOUT or DIED
    boot_s: float | None         # seconds to the guest's KTAP header
    total_s: float
    console: str                 # console.log of the run
    guest_ktap: str              # the guest's KTAP, its tests' output as diagnostics
    guest_rc: int | None
    qemu_rc: int | None
    timed_out: bool = False
    stalled: bool = False        # no output before userspace, twice
    retried_after_stall: bool = False

    @property
    def rundir(self):
        return os.path.dirname(self.console)

    @property
    def unknown_splats(self):
        return [s for s in self.splats if not s.known]

    @property
    def known_splats(self):
        return [s for s in self.splats if s.known]

    def skipped(self):
        """{test: [check skipped, with its reason]}: the checks a guest
        test reported as "ok - WHAT # SKIP WHY" (a skipped check is not a
        pass: tables count and show them)."""
        out, pending = {}, []
        results = iter(self.tests)
        for ln in self.guest_ktap.splitlines():
            m = SKIPPED_CHECK.match(ln)
            if m:
                pending.append(f"{m.group(1)} ({m.group(2) or 'no reason'})")
            elif ktap.parse(ln):
                t = next(results, None)
                if t is not None and pending:
                    out[t] = pending
                pending = []
        return out

    def diag(self, key):
        """What the guest tests printed as "KEY ..." lines: the rest of
        each line (coverage, selftest, bench-xdp)."""
        return re.findall(rf"^# {re.escape(key)} (.*)$", self.guest_ktap, re.M)

    def to_json(self):
        return json.dumps(dataclasses.asdict(self), indent=1) + "\n"

    @classmethod
    def from_json(cls, text):
        d = json.loads(text)
        d["splats"] = [Splat(**s) for s in d["splats"]]
        return cls(**d)

    @classmethod
    def load(cls, path):
        """The result saved at PATH; BadInput when there is none."""
        try:
            return cls.from_json(open(path).read())
        except (OSError, ValueError, TypeError, KeyError) as e:
            raise proc.BadInput(f"{path}: no boot result ({e})")

    def console_lines(self):
        """The console's lines (empty when the console is gone)."""
        if not os.path.isfile(self.console):
            return []
        return open(self.console, errors="replace").read().splitlines()


def outcomes_of(tests, guest_ktap):
    """{test: outcome}: the guest's results in the order of TESTS."""
    results = ktap.parse(guest_ktap)
    out = {}
    for i, t in enumerate(tests):
        if i < len(results):
            ok, _, _, directive = results[i]
            out[t] = "skip" if ok and directive.startswith("SKIP") else "ok" if ok else "not ok"
        else:
            out[t] = "no result"
    return out


# -- Booting ---------------------------------------------------------------

def boot_once(guest, accel, rundir, echo=None, verbose=False):
    """Run one guest in RUNDIR; (qemu rc, guest rc, guest KTAP, boot s,
    total s, timed out, stalled, console lines)."""
    outdir = os.path.join(rundir, "out")
    shutil.rmtree(rundir, ignore_errors=True)
    os.makedirs(outdir)
    cmd = guest.command(accel, outdir)
    proc.write_atomic(os.path.join(rundir, "qemu-cmd"), " ".join(cmd) + "\n")
    start = time.monotonic()
    boot_s = None
    lines = []
    console = open(os.path.join(rundir, "console.log"), "w")
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, errors="replace")
    timer = threading.Timer(guest.timeout, p.kill)
    timer.start()
    # Early-boot stall: under TCG on a busy host a guest sometimes stops
    # before userspace with idle vCPUs (seen once in 6.1-rt's RCU-tasks
    # self test). No console output for boot_stall seconds before the
    # guest's KTAP header means that, not a test result.
    last = [time.monotonic()]
    stalled = threading.Event()

    def watch():
        while p.poll() is None:
            if boot_s is None and time.monotonic() - last[0] > guest.boot_stall:
                stalled.set()
                p.kill()
                return
            time.sleep(1)
    threading.Thread(target=watch, daemon=True).start()
    try:
        for line in p.stdout:
            last[0] = time.monotonic()
            console.write(line)
            lines.append(line.rstrip("\n"))
            if boot_s is None and line.startswith("KTAP version"):
                boot_s = time.monotonic() - start
            if echo and (verbose or re.match(r"(not )?ok \d", line) or SPLAT_RE.search(line)):
                echo.write("  | " + line)
                echo.flush()
        p.wait()
    finally:
        timed_out = not timer.is_alive() and p.returncode != 0 and \
            time.monotonic() - start >= guest.timeout
        timer.cancel()
        console.close()
    total_s = time.monotonic() - start
    rcfile, ktapfile = os.path.join(outdir, "rc"), os.path.join(outdir, "ktap")
    guest_rc = int(open(rcfile).read().strip() or DIED) if os.path.exists(rcfile) else None
    guest_ktap = open(ktapfile, errors="replace").read() if os.path.exists(ktapfile) else ""
    return (p.returncode, guest_rc, guest_ktap, round(boot_s, 2) if boot_s else None,
            round(total_s, 2), timed_out and not stalled.is_set(), stalled.is_set(), lines)


def choose_accel(image, want="auto", log=None):
    """KVM only if a guest booting IMAGE really runs with it here; the
    answer is cached per host."""
    if want != "auto":
        return want
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "tcg"
    log = log or proc.Log("boot")
    qver = proc.run(["qemu-system-x86_64", "--version"]).out.splitlines()[0]
    key = f"{os.uname().release} {qver}"
    cache = os.path.join(paths.work(), "boot", "kvm-probe")
    if os.path.exists(cache):
        saved = open(cache).read().split("\n", 1)
        if saved[0] == key and len(saved) > 1:
            return saved[1].strip()
    log("probing whether KVM guests boot on this host (30 s at most) ...")
    probe = Guest(image, ("probe",), timeout=30)
    guest_rc = boot_once(probe, "kvm", run_dir("kvm-probe"))[1]
    accel = "kvm" if guest_rc == 0 else "tcg"
    log(f"KVM probe: {'works' if accel == 'kvm' else 'guest did not boot, using TCG'}")
    proc.write_atomic(cache, f"{key}\n{accel}\n")
    return accel


def run(guest, name, accel="auto", label=None, echo=sys.stderr, verbose=False, log=None):
    """Boot GUEST as run NAME (a stalled early boot is retried once) and
    return its BootResult, also saved as result.json in the run
    directory. LABEL, the kernel's KIND-VARIANT (default: label_of()
    the image), selects the known-splats entries."""
    log = log or proc.Log("boot")
    if shutil.which("qemu-system-x86_64") is None:
        raise proc.BadInput("qemu-system-x86_64 not found (run: make deps)")
    check_tests(guest.tests)
    if not os.path.isfile(guest.image):
        raise proc.BadInput(f"kernel image {guest.image} not found")
    accel = choose_accel(guest.image, accel, log)
    rundir = run_dir(name)
    log(f"booting {name}: {guest.image} ({accel}, {guest.cpus} vCPUs), "
        f"tests: {','.join(guest.tests)}")
    got = boot_once(guest, accel, rundir, echo, verbose)
    retried = False
    if got[6]:
        # Keep the stalled console for a look; one retry, then report it.
        stalled_log = rundir + ".stalled-console.log"
        shutil.copy(os.path.join(rundir, "console.log"), stalled_log)
        log(f"guest stalled before userspace (no console output for {guest.boot_stall} s; "
            f"console kept in {stalled_log}); booting again once")
        got = boot_once(guest, accel, rundir, echo, verbose)
        retried = True
    qemu_rc, guest_rc, guest_ktap, boot_s, total_s, timed_out, stalled, lines = got
    label = label or label_of(guest.image)
    splats = classify(find_splats(lines), lines, label)
    if stalled or timed_out:
        rc = TIMEOUT
    elif guest_rc is None:
        rc = DIED
    elif guest_rc != 0 or splats:
        rc = FAILED
    else:
        rc = PASS
    res = BootResult(kernel=guest.image, label=label, accel=accel, cpus=guest.cpus,
                     tests=list(guest.tests), outcomes=outcomes_of(guest.tests, guest_ktap),
                     splats=splats, rc=rc, boot_s=boot_s, total_s=total_s,
                     console=os.path.join(rundir, "console.log"), guest_ktap=guest_ktap,
                     guest_rc=guest_rc, qemu_rc=qemu_rc, timed_out=timed_out,
                     stalled=stalled, retried_after_stall=retried)
    proc.write_atomic(os.path.join(rundir, "result.json"), res.to_json())
    return res


SPLATS_SHOWN = 10                # splats a report shows whole


def report(res, out=None, guest=None):
    """RES as KTAP on OUT: one result per guest test and one for the
    splat check, each splat's lines as diagnostics."""
    t = ktap.Writer(out)
    t.plan(len(res.tests) + 1)
    t.diag(f"kernel {res.kernel}, {res.accel}, {res.cpus} vCPUs, boot {res.boot_s} s, "
           f"total {res.total_s} s, console {res.console}")
    for test in res.tests:
        st = res.outcomes[test]
        if st == "skip":
            t.result(None, test, skip="")
        elif st == "no result":
            t.result(False, test, comment="ERROR no result (guest died or timed out)")
        else:
            t.result(st == "ok", test)
    lines = res.console_lines() if res.splats else []
    for s in res.splats[:SPLATS_SHOWN]:
        known = f", known: {s.known}" if s.known else ""
        t.diag(f"splat: {s.title} ({s.kind}, console lines {s.first}-{s.last}{known})")
        for ln in lines[s.first - 1:s.last]:
            t.diag(f"  {ln}")
    # A storm (a WARN on every packet) is summed up by title.
    more = collections.Counter(re.sub(r"^\[[ \d.]*\] *|CPU: \d+ PID: \d+ ", "", s.title)
                               for s in res.splats[SPLATS_SHOWN:])
    for title, count in more.most_common():
        t.diag(f"splat, {count} more like it: {title}")
    n = len(res.splats)
    t.result(not n, "no kernel splats", comment=f"{n} splat(s)" if n else None)
    if res.stalled:
        t.diag("guest stalled before userspace twice (no console output before the "
               f"boot-stall limit{f' of {guest.boot_stall} s' if guest else ''})")
    elif res.timed_out:
        t.diag(f"guest killed after {guest.timeout if guest else res.total_s} s")
    elif res.guest_rc is None:
        t.diag(f"guest died without reporting (qemu exit {res.qemu_rc})")
    return t
