# SPDX-License-Identifier: GPL-2.0
"""Where things live: the repository, the work directory and everything
the toolkit names in it. Nothing else builds these paths.

    $WORK/trees/linux-6.1        pristine 6.1 (branches pristine, rt)
    $WORK/trees/linux-6.1-rt     worktree of it on branch rt
    $WORK/trees/linux-6.12       pristine 6.12
    $WORK/worktrees/TREE-BASE-NAME   a series applied (NAME: the series
                                 directory's base name)
    $WORK/build/TREE-VARIANT-NAME    its build directory (NAME "none":
                                 the tree without a series)
    $WORK/build/TREE-VARIANT-NAME+FLAVOUR   the same with a configuration
                                 flavour (scripts/configs/flavour-FLAVOUR.config)
    $OUT (default $WORK/out)     reports
"""
import os

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TREES = ("6.1", "6.12")
VARIANTS = ("nort", "nort-debug", "rt", "rt-debug")
SERIES_61 = os.path.join(REPO, "generated-patches", "linux-6.1")
# The conversions beyond upstream's, stacked on SERIES_61: the series of
# the patched kernels the boot tests build.
SERIES_BEYOND = os.path.join(REPO, "generated-patches", "linux-6.1-beyond")
# The stack on top of it that drops the softirq lock (6.1-rt only).
SERIES_NO_BH_LOCK = os.path.join(REPO, "generated-patches", "linux-6.1-rt-no-bh-lock")
# The same two for Debian's 6.12, which has upstream's first series: the
# conversions 6.12 still lacks, and on top of them (rt only) the stack
# that drops the softirq lock.
SERIES_612_BEYOND = os.path.join(REPO, "generated-patches", "linux-6.12-beyond")
SERIES_612_NO_BH_LOCK = os.path.join(REPO, "generated-patches", "linux-6.12-rt-no-bh-lock")
# The nested-BH series of a tree's patched kernels, and of its kernels
# without the softirq lock.
PATCHED_SERIES = {"6.1": SERIES_BEYOND, "6.12": SERIES_612_BEYOND}
NO_BH_LOCK_SERIES = {"6.1": SERIES_NO_BH_LOCK, "6.12": SERIES_612_NO_BH_LOCK}
# Configuration flavours: one further fragment each, merged after the
# variant's (uniprocessor, ...).
FLAVOURS = ("up", "hrt")


def work():
    return os.environ.get("WORK", "/var/tmp/nbh-work")


def out(*parts):
    return os.path.join(os.environ.get("OUT", os.path.join(work(), "out")), *parts)


def tree_dir(name):
    """The git tree of NAME: 6.1, 6.1-rt, 6.12 or 6.12-rt."""
    return os.path.join(work(), "trees", "linux-" + name)


def base_of(tree, variant):
    """(tree directory, branch) a variant of TREE builds from: the rt
    variants build the rt branch (the tree and Debian's RT queue, as
    Debian's RT kernel is built: 6.1 cannot select PREEMPT_RT without
    it, and Debian's 6.12 carries one too)."""
    if variant.startswith("rt"):
        return tree_dir(f"{tree}-rt"), "rt"
    return tree_dir(tree), "pristine"


def series_name(series):
    """'none', or the base name of a series directory."""
    return "none" if series in (None, "none") else os.path.basename(os.path.abspath(series))


def worktree(tree, base, series):
    return os.path.join(work(), "worktrees", f"{tree}-{base}-{series_name(series)}")


def build_dir(tree, variant, series, flavour=""):
    name = f"{tree}-{variant}-{series_name(series)}" + (f"+{flavour}" if flavour else "")
    return os.path.join(work(), "build", name)


def flavour_fragment(flavour):
    return os.path.join(REPO, "scripts", "configs", f"flavour-{flavour}.config")


def image(build):
    return os.path.join(build, "arch", "x86", "boot", "bzImage")


def vmlinux(build):
    return os.path.join(build, "vmlinux")
