# SPDX-License-Identifier: GPL-2.0
"""Validation boots of 6.1 and 6.12 kernels: what run-validation,
run-mutants, run-selftests and run-bench-xdp share.

A kernel is named KIND-VARIANT[+FLAVOUR] (a Label, which also knows its
tree: 6.1 unless said): KIND pristine (the tree as imported, or for rt
variants its rt branch: the tree and Debian's PREEMPT_RT queue) or
patched (the same plus a series), VARIANT one of nort, nort-debug, rt, rt-debug,
FLAVOUR a configuration flavour (paths.FLAVOURS: "up" is uniprocessor,
booted on one vCPU). A validation
boot gives the guest the two hub NICs and the validation directory
(test programs, coverage lists) as the 9p share nbhval, and leaves
OUTDIR/NAME.json (the BootResult) and OUTDIR/NAME.ktap (nbh-boot's KTAP).
"""
import dataclasses
import hashlib
import os
import re

from . import boot, coverage, hostload, kernel, locksites, paths, proc
from . import series as ser

TESTS = ("napi-alloc-cache", "tcp-md5sig", "ipv4-tcp-sk", "brnf-frag", "xmit-recursion",
         "backlog", "seg6-bpf", "bpf-csum", "bpf-redirect", "qdisc-redirect", "failslab", "bh-lock",
         # the second series (generated-patches/linux-6.1-beyond)
         "tc-stats", "tc-frag-mirred", "nfcan", "vxlan", "seg6-hmac", "ipcomp", "ovs",
         "mptcp",
         # outside net/: cryptd's per-CPU request queue (linux-6.1-beyond)
         "cryptd",
         # IPv6 per-CPU route copies: a check-then-act the audit took as atomic
         "ipv6-pcpu-route")
KINDS = ("pristine", "patched")
# Where the guest mounts the validation directory, and what it finds there.
GUEST_VALDIR = "/tmp/nbh-val"


def _of_tree(name, tree):
    """NAME for 6.1, whose files came first, else NAME-TREE: what two
    trees' boots keep apart."""
    return name if tree == "6.1" else f"{name}-{tree}"


def covlist(tree):
    """The name of TREE's coverage list in the validation directory (one
    per tree: boots of both trees may share the directory at once)."""
    return _of_tree("converted-functions", tree)


def valdir():
    """The default validation directory: progs/ and the coverage lists."""
    return os.path.join(paths.work(), "val")


def outdir(tree="6.1"):
    """Where a tree's validation boots leave their results."""
    return paths.out(_of_tree("validation", tree))


@dataclasses.dataclass(frozen=True)
class Label:
    kind: str            # pristine | patched
    variant: str         # nort | nort-debug | rt | rt-debug
    flavour: str = ""    # "" or one of paths.FLAVOURS
    tree: str = "6.1"    # one of paths.TREES

    @classmethod
    def parse(cls, text, tree="6.1"):
        name, _, flavour = text.partition("+")
        kind, _, variant = name.partition("-")
        if kind not in KINDS or variant not in paths.VARIANTS or \
                (flavour and flavour not in paths.FLAVOURS):
            raise proc.BadInput(f"bad kernel {text!r} (pristine|patched)-(nort|rt)[-debug]"
                                f"[+{'|'.join(paths.FLAVOURS)}]")
        if tree not in paths.TREES:
            raise proc.BadInput(f"unknown tree {tree!r} ({' or '.join(paths.TREES)})")
        return cls(kind, variant, flavour, tree)

    def __str__(self):
        return f"{self.kind}-{self.variant}" + (f"+{self.flavour}" if self.flavour else "")

    @property
    def patched(self):
        return self.kind == "patched"

    @property
    def rt(self):
        return self.variant.startswith("rt")

    @property
    def cpus(self):
        return 1 if self.flavour == "up" else 2

    def series(self, series):
        return series if self.patched else "none"

    def locate(self, series):
        return kernel.locate(self.tree, self.variant, self.series(series), self.flavour)

    def build(self, series, log=None):
        """The Kernel, built (nbhlib.kernel); Failure when the build fails."""
        (log or proc.Log("validation"))(f"building {self}")
        return kernel.build(self.tree, self.variant, self.series(series), flavour=self.flavour,
                            log=log)


@dataclasses.dataclass(frozen=True)
class Settings:
    """Where validation boots read and write, and how long they may take."""
    outdir: str
    valdir: str
    # Both series' 22 tests with stress phases take 25 to 40 minutes in
    # rt-debug on a loaded two-core host (2026-12-05).
    timeout: int = 3600          # seconds per boot
    test_timeout: int = 900      # seconds per guest test
    stress: int = 0              # seconds per stress phase of a test (nbh.stress=)
    rcu_boost: bool = True       # stress boots raise RCU's boost priority (RCU_BOOST)


def image_id(path):
    """The first 16 hex digits of a kernel image's SHA-256: which build
    a record was measured on."""
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def check_progs(valdir, prog="udp-check"):
    progs = os.path.join(valdir, "progs")
    if not os.access(os.path.join(progs, prog), os.X_OK):
        raise proc.BadInput(f"no test programs in {progs} (run: make progs)")


def write_coverage_list(series, valdir, tree="6.1"):
    coverage.write_list(series, os.path.join(valdir, covlist(tree)))


# With coverage, TESTS run between these: which converted functions ran,
# and whether the stress phases contended every nested-BH lock.
OPENING = ("cov-start", "contention-start")
CLOSING = ("contention-check", "cov-check")
# With lock sites, last of all: every lock site of the kernel's series
# ran (a kernel of boot-tests/series/lock-sites*, which counts them).
LOCK_SITES = "lock-sites"
LOCK_SITES_OPTION = "CONFIG_DEBUG_NESTED_BH_SITES=y"


def write_lock_sites(series, valdir):
    """Write the lock-site list of SERIES (boot-tests/make-lock-sites)
    into VALDIR; return its path as the guest sees it. BadInput when the
    series' kernels do not count their lock sites (no config fragment of
    the stack sets CONFIG_DEBUG_NESTED_BH_SITES)."""
    s = ser.read(series)
    if not any(LOCK_SITES_OPTION in open(c).read().split() for c in s.configs):
        raise proc.BadInput(f"series {s.name} does not count its lock sites (no {LOCK_SITES_OPTION}"
                            " in its config fragments): use boot-tests/series/lock-sites*")
    name = f"{s.name}.list"
    proc.write_atomic(os.path.join(valdir, name), locksites.to_text(locksites.sites(s)))
    return f"{GUEST_VALDIR}/{name}"


# The stress phases run SCHED_FIFO tasks up to priority 30 on CPU 0 (the
# preempting task 10, its controller 20, a rival NAPI thread 30). Without
# the softirq lock a BH-disabled section is an RCU read-side section that
# they can preempt; RCU boosts a reader preempted for 500 ms, but only to
# its kthreads' priority (1 by default), below them: the SCHED_OTHER task
# of a stress phase, preempted inside ip_do_fragment(), stalled a grace
# period for 26 s (an RCU stall report). Above them, as an RT system is
# set up, the boost lets the reader finish.
RCU_BOOST = ("rcutree.kthread_prio=40",)


def run(name, label, image, tests, settings, coverage=True, append=(), log=None,
        lock_sites=None):
    """Boot IMAGE of kernel LABEL through TESTS (between OPENING and
    CLOSING with COVERAGE, then LOCK_SITES with LOCK_SITES, the guest's
    path of the kernel's lock-site list) as run validation-NAME; return
    its BootResult, also in OUTDIR/NAME.json, its KTAP in OUTDIR/NAME.ktap."""
    log = log or proc.Log("validation")
    tests = (OPENING if coverage else ()) + tuple(tests) + (CLOSING if coverage else ())
    if lock_sites:
        tests += (LOCK_SITES,)
        append = tuple(append) + boot.params(locksites=lock_sites)
    guest = boot.Guest(image, tests, expect_rt=label.rt, cpus=label.cpus,
                       timeout=settings.timeout,
                       test_timeout=settings.test_timeout,
                       append=boot.params(progs=f"{GUEST_VALDIR}/progs",
                                          covlist=f"{GUEST_VALDIR}/{covlist(label.tree)}")
                       + tuple(append) + boot.params(patched=int(label.patched),
                                                     stress=settings.stress)
                       + (RCU_BOOST if settings.stress and settings.rcu_boost else ()),
                       shares=(boot.Share("nbhval", settings.valdir),), nics=boot.HUB_NICS)
    res = boot.run(guest, f"validation-{name}", label=f"{label.kind}-{label.variant}",
                   echo=None, log=log)
    os.makedirs(settings.outdir, exist_ok=True)
    proc.write_atomic(os.path.join(settings.outdir, f"{name}.json"), res.to_json())
    proc.Output(os.path.join(settings.outdir, f"{name}.ktap")).write(
        lambda f: boot.report(res, f, guest))
    for s in res.known_splats:
        log(f"{name}: known pre-existing splat ({s.known}): {s.title}")
    return res


def result(settings, name):
    """The BootResult a validation boot NAME left in OUTDIR."""
    return boot.BootResult.load(os.path.join(settings.outdir, f"{name}.json"))


def coverage_of(res):
    """{function: hits} of cov-check's "coverage FUNCTION HITS" lines."""
    return dict(ln.split()[:2] for ln in res.diag("coverage") if len(ln.split()) >= 2)


def lock_sites_of(res):
    """{site: hits} of lock-sites' "lock-site ID HITS" lines ("-": not
    compiled in)."""
    return dict(ln.split()[:2] for ln in res.diag("lock-site") if len(ln.split()) >= 2)


def make_selftests(valdir, tree="6.1"):
    """Build the tree's selftests the guest test selftests runs into
    VALDIR/selftests-TREE (boot-tests/make-selftests)."""
    proc.run([os.path.join(paths.REPO, "boot-tests", "make-selftests"), paths.tree_dir(tree),
              os.path.join(valdir, f"selftests-{tree}")], capture="stderr", check=True)


SELFTESTS_FAIL_EVERYWHERE = os.path.join(paths.REPO, "boot-tests", "selftests-fail-everywhere")
SELFTESTS_DIFFER = os.path.join(paths.REPO, "boot-tests", "selftests-differ")


def selftests_fail_everywhere():
    """{selftest: reason}: the selftests that fail on every kernel."""
    return dict(row for _, row in proc.tab_table(SELFTESTS_FAIL_EVERYWHERE, ("SCRIPT", "reason")))


def selftests_differ():
    """{(selftest, series): (outcome, reason)}: the outcome a kernel
    patched with SERIES (its directory name) must give where it differs
    from the pristine kernel's by design (a feature the series leaves
    out of that kernel)."""
    out = {}
    for _, (name, series, outcome, reason) in proc.tab_table(
            SELFTESTS_DIFFER, ("SCRIPT", "SERIES", "OUTCOME", "reason")):
        if outcome not in ("pass", "fail", "skip"):
            raise proc.BadInput(f"{SELFTESTS_DIFFER}: {name}: bad outcome {outcome!r}")
        out[(name, series)] = (outcome, reason)
    return out


def selftests_mismatches(outcome, variants, series_of, allowed):
    """[(selftest, variant, pristine, patched, wanted)] where the patched
    kernel of a variant does not give the wanted outcome: the pristine
    kernel's, or the one ALLOWED (selftests_differ()) names for the
    series it was patched with (SERIES_OF: {variant: series name}).
    OUTCOME: {Label: selftests_of()}."""
    names = sorted({n for k in outcome for n in outcome[k]})
    bad = []
    for n in names:
        for v in variants:
            pristine, patched = (outcome[Label(kind, v)].get(n, ("none",))[0] for kind in KINDS)
            want = allowed.get((n, series_of[v]), (pristine, ""))[0]
            if patched != want:
                bad.append((n, v, pristine, patched, want))
    return bad


def selftests_of(res):
    """{selftest: (outcome, reason)} of selftests.sh's lines."""
    out = {}
    for ln in res.diag("selftest"):
        m = re.match(r"^(\S+) (\w+) rc=\d+(?: # (.*))?$", ln)
        if m:
            out[m.group(1)] = (m.group(2), m.group(3) or "")
    return out


def bench_rates(res):
    """The frames/s of bench-xdp.sh's "bench-xdp rate N" lines."""
    return [float(m.group(1)) for ln in res.diag("bench-xdp")
            for m in [re.match(r"rate (\d+(?:\.\d+)?)$", ln)] if m]


def latency_figures(res):
    """{"op"|"wakeup"|"response"|"cyclictest"|"load-section": {"n", "median", "p99",
    "max"}} (nanoseconds) of bench-latency.sh's "bh-latency KIND k=v ...",
    "cyclictest k=v ..." and "load-section k=v ..." lines."""
    out = {}
    for prefix in ("bh-latency", "cyclictest", "load-section"):
        for ln in res.diag(prefix):
            words = ln.split()
            kind = words.pop(0) if prefix == "bh-latency" and words else prefix
            vals = dict(w.split("=", 1) for w in words if "=" in w)
            if vals and all(v.isdigit() for v in vals.values()):
                out[kind] = {k: int(v) for k, v in vals.items()}
    return out


# Benchmarks time with the TSC: tsc=reliable keeps the clocksource
# watchdog from dropping it under TCG. A guest whose TSC calibration
# against the PIT fails (a busy TCG host) still marks it unstable and
# keeps jiffies as its clock: 4 ms steps at HZ=250, which no latency
# figure survives. Such boots are made again, and so are boots beside
# which another guest, a build or spatch ran (hostload): their figures
# would be the host's. A benchmark waits up to IDLE_WAIT_S for an idle
# host before each boot.
ATTEMPTS = 3
IDLE_WAIT_S = 900
CLOCKSOURCE = re.compile(r"clocksource: Switched to clocksource (\S+)")


def clocksource(lines):
    """The clocksource a guest's console says it ended on ('' if none)."""
    found = [m.group(1) for m in map(CLOCKSOURCE.search, lines) if m]
    return found[-1] if found else ""


def alternate(labels, images, test, rounds, settings, append=(), log=None):
    """Boot the IMAGES of LABELS in turn, ROUNDS times each, through TEST
    alone (no coverage): kernels compared in one run share the machine's
    load. A boot whose clock is not the TSC, or beside which other heavy
    work ran on the host, is made again (ATTEMPTS in all); each boot
    waits for an idle host first. Yields (label, round, BootResult);
    Failure when TEST fails, the kernel splats (beyond
    boot-tests/known-splats), the host stays busy or no boot was clean."""
    for r in range(rounds):
        for k in labels:
            name = f"bench-{test}-{k}-{r}"
            for attempt in range(ATTEMPTS):
                busy = hostload.idle(IDLE_WAIT_S, log)
                if busy:
                    raise proc.Failure(f"{name}: the host is not idle after {IDLE_WAIT_S} s "
                                       f"({', '.join(sorted(set(busy)))} running)")
                with hostload.Watch() as beside:
                    res = run(name, k, images[k], [test], settings, coverage=False,
                              append=tuple(append) + ("tsc=reliable",), log=log)
                source = clocksource(res.console_lines())
                if beside.seen:
                    why = f"{', '.join(sorted(beside.seen))} ran beside it"
                elif not source.startswith("tsc"):
                    why = f"clocksource {source}, not the TSC"
                else:
                    break
                if log:
                    log(f"{name}: {why}: booting again")
            else:
                raise proc.Failure(f"{name}: {why} in each of {ATTEMPTS} boots "
                                   f"(console {res.console})")
            if res.outcomes.get(test) != "ok" or res.unknown_splats:
                raise proc.Failure(f"{name}: {test} {res.outcomes.get(test, 'no result')}, "
                                   f"{len(res.unknown_splats)} splat(s) (console {res.console})")
            yield k, r, res
