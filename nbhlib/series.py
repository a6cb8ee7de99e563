# SPDX-License-Identifier: GPL-2.0
"""The one reader of a series directory, and the one way to apply it.

A series directory holds format-patch files, a cover letter
(0000-cover-letter.patch, never applied) and a `series` file naming the
patches in order, quilt style: one file name per line, `#` starts a
comment. A patch that converts data names them on its line:

    0004-net-Use-nested-BH-locking-for-napi_alloc_cache.patch  # datum: napi_alloc_cache

(several data are separated by commas; a patch without `datum:` converts
none: infrastructure, preparation). A directory without a series file
is read in file-name order, without data.

A series can stack on another: directive lines of its series file

    #: base: ../linux-6.1     the series directory it applies on top of
    #: only: rt               the kernels it is for (rt: the PREEMPT_RT
                              variants, built from the rt branches)
    #: config: no-lock.config a config fragment its kernels are built with

make its patches those of the base, then its own; its config fragments
(paths relative to the series directory, merged after the variant's)
those of the base, then its own.
"""
import dataclasses
import hashlib
import os
import re

from . import proc

COVER = "0000-cover-letter.patch"
DATUM = re.compile(r"\bdatum:\s*([^#]+)")
DIRECTIVE = re.compile(r"^#:\s*(\w+):\s*(\S+)\s*$")
ONLY = ("rt",)


@dataclasses.dataclass(frozen=True)
class Patch:
    path: str
    name: str
    subject: str
    message: str
    files: tuple
    data: tuple

    @property
    def text(self):
        return open(self.path, errors="replace").read()

    @property
    def c_objects(self):
        """The objects of the .c files the patch touches."""
        return tuple(f[:-2] + ".o" for f in self.files if f.endswith(".c"))


@dataclasses.dataclass(frozen=True)
class Series:
    directory: str
    patches: tuple          # the whole stack: the base's, then its own
    only: str | None = None  # "rt": applies to the PREEMPT_RT variants only
    configs: tuple = ()     # config fragments: the base's, then its own

    @property
    def name(self):
        return os.path.basename(self.directory)

    @property
    def data(self):
        """Every datum the series converts, in patch order."""
        return tuple(d for p in self.patches for d in p.data)

    def patch_of(self, datum):
        """The patch that converts DATUM, or None."""
        for p in self.patches:
            if datum in p.data:
                return p
        return None

    def digest(self):
        """A short hash of the patches' bytes, in order."""
        h = hashlib.sha1()
        for p in self.patches:
            with open(p.path, "rb") as f:
                h.update(f.read())
        return h.hexdigest()[:16]

    @property
    def files(self):
        seen = []
        for p in self.patches:
            seen += [f for f in p.files if f not in seen]
        return tuple(seen)


def subject(text):
    """The Subject header of a patch, unfolded, without the [PATCH] tag."""
    head = text.split("\n\n", 1)[0]
    m = re.search(r"^Subject:(.*(?:\n[ \t].*)*)", head, re.M)
    if not m:
        return ""
    return re.sub(r"^\[[^]]*\]\s*", "", " ".join(m.group(1).split()))


def message(text):
    """The commit message body of a format-patch file."""
    body = text.split("\n\n", 1)[1] if "\n\n" in text else ""
    return body.split("\n---\n", 1)[0]


def touched_files(text):
    return tuple(dict.fromkeys(re.findall(r"^\+\+\+ b/(\S+)", text, re.M)))


def read_patch(path, data=()):
    text = open(path, errors="replace").read()
    if not subject(text):
        raise proc.BadInput(f"{path}: not a format-patch file (no Subject)")
    return Patch(path=path, name=os.path.basename(path), subject=subject(text),
                 message=message(text), files=touched_files(text), data=tuple(data))


def read_entries(listing):
    """[(name, data)] of a series file."""
    entries = []
    for n, ln in enumerate(open(listing), 1):
        name, _, comment = ln.partition("#")
        name = name.strip()
        if not name:
            continue
        m = DATUM.search(comment)
        data = [d.strip() for d in m.group(1).split(",") if d.strip()] if m else []
        entries.append((name, data))
    return entries


def read_directives(listing):
    """{key: value} of the `#: key: value` lines of a series file; the
    value of `config`, which may repeat, is the list of its paths made
    absolute."""
    found = {}
    for n, ln in enumerate(open(listing), 1):
        m = DIRECTIVE.match(ln)
        if not m:
            continue
        key, value = m.groups()
        if key == "config":
            path = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(listing)), value))
            if not os.path.isfile(path):
                raise proc.BadInput(f"{listing}:{n}: config: no fragment {value}")
            found.setdefault(key, []).append(path)
            continue
        if key not in ("base", "only") or key in found:
            raise proc.BadInput(f"{listing}:{n}: unknown or repeated directive '{key}'")
        if key == "only" and value not in ONLY:
            raise proc.BadInput(f"{listing}:{n}: only: {value} (expected {' or '.join(ONLY)})")
        found[key] = value
    return found


def read(directory, _stack=()):
    """The Series of DIRECTORY; BadInput when it is not one."""
    directory = os.path.abspath(directory)
    if not os.path.isdir(directory):
        raise proc.BadInput(f"series directory {directory} not found")
    if directory in _stack:
        raise proc.BadInput(f"series {directory} stacks on itself")
    listing = os.path.join(directory, "series")
    directives = read_directives(listing) if os.path.isfile(listing) else {}
    base = None
    if "base" in directives:
        base = read(os.path.join(directory, directives["base"]), _stack + (directory,))
    if os.path.isfile(listing):
        entries = read_entries(listing)
    else:
        entries = [(f, []) for f in sorted(os.listdir(directory))
                   if f.endswith(".patch") and f != COVER]
    if not entries:
        raise proc.BadInput(f"no patches in {directory}")
    patches = []
    for name, data in entries:
        path = os.path.join(directory, name)
        if not os.path.isfile(path):
            raise proc.BadInput(f"{listing}: names missing patch {name}")
        patches.append(read_patch(path, data))
    only = directives.get("only") or (base.only if base else None)
    below = base.patches if base else ()
    configs = (base.configs if base else ()) + tuple(directives.get("config", ()))
    return Series(directory, below + tuple(patches), only, configs)


def write_listing(directory, names, previous=None):
    """Write DIRECTORY/series for the patch NAMES, keeping the header
    (the comment and directive lines before the first patch) of PREVIOUS,
    an older series file, and the datum of a name that it annotates."""
    old, lines = {}, []
    if previous and os.path.isfile(previous):
        old = dict(read_entries(previous))
        for ln in open(previous):
            if not ln.startswith("#"):
                break
            lines.append(ln.rstrip("\n"))
    for n in names:
        data = old.get(n)
        lines.append(f"{n}  # datum: {', '.join(data)}" if data else n)
    proc.write_atomic(os.path.join(directory, "series"), "\n".join(lines) + "\n")


def apply(series, worktree, upto=None):
    """git am the patches of SERIES (the first UPTO) on WORKTREE, one by
    one without three-way merging: a patch that does not apply exactly is
    an error, not a merge. Failure names the patch."""
    for p in series.patches[:upto]:
        r = proc.git(["am", "-q", "--no-3way", p.path], repo=worktree, check=False)
        if not r.ok:
            proc.git(["am", "--abort"], repo=worktree, check=False)
            raise proc.Failure(f"patch {p.name} does not apply in {worktree}:\n    {r.tail(5)}")
