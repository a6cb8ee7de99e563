# SPDX-License-Identifier: GPL-2.0
"""A kernel of the toolkit: one tree, one variant, with or without a
series. `build()` applies the series on a worktree (once per content),
then runs scripts/build-kernel (the low-level configure-and-make step)
and returns a Kernel naming the source, build directory and image.
scripts/kernel is its command-line launcher."""
import contextlib
import dataclasses
import fcntl
import os
import shutil
import tempfile

from . import paths, proc, series as ser

SERIES_STAMP = ".nbh-series"


@dataclasses.dataclass(frozen=True)
class Kernel:
    tree: str            # 6.1 | 6.12
    variant: str         # nort | nort-debug | rt | rt-debug
    series: str          # "none" or the series directory
    source: str          # the tree or worktree built
    build: str           # build directory
    branch: str | None   # the worktree's branch (None without a series)
    flavour: str = ""    # "" or one of paths.FLAVOURS

    @property
    def image(self):
        return paths.image(self.build)

    @property
    def vmlinux(self):
        return paths.vmlinux(self.build)

    @property
    def name(self):
        return os.path.basename(self.build)

    def as_dict(self):
        return dict(dataclasses.asdict(self), image=self.image, name=self.name)


def check_args(tree, variant, flavour=""):
    if flavour and flavour not in paths.FLAVOURS:
        raise proc.BadInput(f"unknown flavour '{flavour}' ({', '.join(paths.FLAVOURS)})")
    if variant not in paths.VARIANTS:
        raise proc.BadInput(f"unknown variant '{variant}' ({', '.join(paths.VARIANTS)})")
    if tree not in paths.TREES:
        raise proc.BadInput(f"unknown tree '{tree}' ({' or '.join(paths.TREES)})")


def locate(tree, variant, series="none", flavour=""):
    """The Kernel these arguments name, without applying or building."""
    check_args(tree, variant, flavour)
    series = "none" if series in (None, "none") else os.path.abspath(series)
    src, base = paths.base_of(tree, variant)
    branch = None
    if series != "none":
        only = ser.read(series).only
        if only == "rt" and not variant.startswith("rt"):
            raise proc.BadInput(f"series {paths.series_name(series)} is for the "
                                f"rt variants only, not {tree} {variant}")
        src = paths.worktree(tree, base, series)
        branch = f"nbh/{tree}-{base}-{paths.series_name(series)}"
    return Kernel(tree, variant, series, src, paths.build_dir(tree, variant, series, flavour),
                  branch, flavour)


def prepare(tree, variant, series="none", log=None, flavour=""):
    """The source of the kernel, with SERIES applied: a worktree made
    from a snapshot of the patches (the directory may be re-exported
    while we run) and re-made whenever base or patches change. A worktree
    left on another commit or with local changes (a killed check-series
    or mutant run) is returned to the series head. Returns the Kernel."""
    log = log or proc.Log("kernel")
    k = locate(tree, variant, series, flavour)
    src, base = paths.base_of(tree, variant)
    if not os.path.exists(os.path.join(src, ".git")):
        raise proc.BadInput(f"tree {tree} ({base}) not prepared (run: make tree"
                            + (f"; scripts/prepare-rt-tree {tree})" if base == "rt" else ")"))
    if k.branch is None:
        return k
    s = ser.read(series)
    repo = proc.git(["rev-parse", "--path-format=absolute", "--git-common-dir"], repo=src)
    want = f"{proc.git(['rev-parse', base], repo=src)} {s.digest()}"
    wt = k.source
    stamp = os.path.join(wt, SERIES_STAMP)
    have = open(stamp).read().strip() if os.path.isfile(stamp) else None
    if have != want:
        log(f"applying {len(s.patches)} patches of {s.directory} on {tree} ({base}) in {wt}")
        with tempfile.TemporaryDirectory(prefix="nbh-series.") as snap:
            # A flat copy of the whole stack, numbered: the patches of a
            # base and of the series on top of it may share names.
            names = [f"{i:03d}-{p.name}" for i, p in enumerate(s.patches, 1)]
            for p, name in zip(s.patches, names):
                shutil.copy(p.path, os.path.join(snap, name))
            ser.write_listing(snap, names)
            snapshot = ser.read(snap)
            if snapshot.digest() != s.digest():
                raise proc.Failure(f"{s.directory} changed while it was read")
            if proc.git(["worktree", "remove", "--force", wt], repo=repo, check=False).rc:
                shutil.rmtree(wt, ignore_errors=True)
            proc.git(["worktree", "prune"], repo=repo)
            proc.git(["worktree", "add", "-q", "-B", k.branch, wt, base], repo=repo)
            ser.apply(snapshot, wt)
        proc.write_atomic(stamp, want + "\n")
        proc.git(["update-index", "--refresh"], repo=wt, check=False)
    elif proc.git(["rev-parse", "HEAD"], repo=wt) != proc.git(["rev-parse", k.branch], repo=wt):
        log(f"returning {wt} to the head of the series")
        proc.git(["checkout", "-q", "-f", k.branch], repo=wt)
    else:
        dirty = proc.git(["status", "--porcelain", "--untracked-files=no"], repo=wt)
        if dirty:
            log(f"discarding local changes in {wt}: {' '.join(l.split()[-1] for l in dirty.splitlines())}")
            proc.git(["checkout", "-q", "-f", "HEAD"], repo=wt)
    return k


@contextlib.contextmanager
def locked(k, log=None):
    """Hold the lock of K's source: one program at a time re-makes a
    worktree or builds from it (two builds in one directory, or a
    worktree re-made under a running build, leave objects compiled from
    the wrong sources). Others wait, and say so."""
    os.makedirs(paths.work(), exist_ok=True)
    name = os.path.basename(k.source.rstrip("/")) or "tree"
    with open(os.path.join(paths.work(), f".{name}.lock"), "w") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            (log or proc.Log("kernel"))(f"waiting for another build of {k.source}")
            fcntl.flock(f, fcntl.LOCK_EX)
        yield


def build(tree, variant, series="none", targets=(), flavour="", log=None):
    """Prepare and build; TARGETS empty = the whole kernel (bzImage);
    FLAVOUR adds its fragment and builds in a directory of its own.
    The build's output goes to the user's stderr (minutes of progress).
    Under the source's lock (locked()). Returns the Kernel; Failure when
    the build fails."""
    with locked(locate(tree, variant, series, flavour), log):
        return _build(tree, variant, series, targets, flavour, log)


def fragments(series="none", flavour=""):
    """The config fragments of a kernel beyond its variant's: those of
    SERIES (its `config` directives), then FLAVOUR's."""
    found = list(ser.read(series).configs) if series not in (None, "none") else []
    return found + ([paths.flavour_fragment(flavour)] if flavour else [])


def build_command(variant, src, out, series="none", flavour="", targets=()):
    """The scripts/build-kernel command that builds TARGETS of SRC in OUT
    as a kernel of SERIES and FLAVOUR is built: every program that
    builds from a series' worktree uses it, so that a build in the same
    directory keeps the same configuration."""
    cmd = [os.path.join(paths.REPO, "scripts", "build-kernel"), "--variant", variant,
           "--src", src, "--out", out]
    for f in fragments(series, flavour):
        cmd += ["--fragment", f]
    return cmd + list(targets)


def _build(tree, variant, series, targets, flavour, log):
    k = prepare(tree, variant, series, log, flavour)
    r = proc.run(build_command(variant, k.source, k.build, k.series, flavour, targets),
                 capture="stderr")
    if not r.ok:
        raise proc.Failure(f"build of {k.name} {' '.join(targets) or 'bzImage'} failed (rc {r.rc})")
    return k
