# SPDX-License-Identifier: GPL-2.0
"""The translation units a configured kernel build directory compiles.

--build DIR: when DIR holds objects under the audited paths (a build
that ran), the .c files whose .o it holds; else (a configured tree that
was not built) the .c files its Kbuild makefiles select with DIR/.config:
obj-y / obj-m / obj-$(CONFIG_X), composite objects (foo-y, foo-objs,
foo-$(CONFIG_X)), subdirectories, ifdef/ifndef/ifeq/ifneq on CONFIG_
symbols.  The tree is only read."""

import os
import re

from . import AuditError

_ASSIGN = re.compile(r"^([\w\-.$(){}]+)\s*(\+=|:=|\?=|=)\s*(.*)$")
_COND = re.compile(r"^(ifdef|ifndef|ifeq|ifneq|else|endif)\b\s*(.*)$")


def read_config(build):
    path = os.path.join(build, ".config")
    if not os.path.isfile(path):
        raise AuditError("--build %s: no .config (not a configured build directory)" % build)
    conf = {}
    for line in open(path, errors="replace"):
        m = re.match(r"^(CONFIG_\w+)=(.*)$", line.strip())
        if m:
            conf[m.group(1)] = m.group(2).strip('"')
    return conf


def _expand(text, conf, local):
    def sub(m):
        name = m.group(1)
        return conf.get(name, "") if name.startswith("CONFIG_") else local.get(name, "")
    for _ in range(3):
        text = re.sub(r"\$[({](\w+)[)}]", sub, text)
    return text


def _cond_true(kind, arg, conf, local):
    if kind in ("ifdef", "ifndef"):
        val = conf.get(arg.strip(), "") if arg.strip().startswith("CONFIG_") else \
            local.get(arg.strip(), "")
        return bool(val) == (kind == "ifdef")
    m = re.match(r"^\((.*),(.*)\)$", arg.strip()) or \
        re.match(r"""^['"](.*)['"]\s+['"](.*)['"]$""", arg.strip())
    if not m:
        return True             # not understood: both branches count
    a, b = (_expand(x, conf, local).strip() for x in m.groups())
    return (a == b) == (kind == "ifeq")


def _makefile_vars(path, conf):
    """{variable: [words]} of one Kbuild makefile, conditionals evaluated."""
    local = {}
    try:
        lines = open(path, errors="replace").read().replace("\\\n", " ").splitlines()
    except OSError:
        return local
    stack = []
    for line in lines:
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        c = _COND.match(line)
        if c:
            kind, arg = c.groups()
            if kind in ("ifdef", "ifndef", "ifeq", "ifneq"):
                stack.append(_cond_true(kind, arg, conf, local))
            elif kind == "else" and stack:
                rest = arg.strip()
                if rest:        # else ifeq (...)
                    k2 = rest.split(None, 1)
                    stack[-1] = (not stack[-1]) and _cond_true(
                        k2[0], k2[1] if len(k2) > 1 else "", conf, local)
                else:
                    stack[-1] = not stack[-1]
            elif kind == "endif" and stack:
                stack.pop()
            continue
        if not all(stack):
            continue
        m = _ASSIGN.match(line)
        if not m:
            continue
        name = _expand(m.group(1), conf, local).strip()
        words = _expand(m.group(3), conf, local).split()
        if m.group(2) == "+=":
            local[name] = local.get(name, "") + " " + " ".join(words)
        else:
            local[name] = " ".join(words)
    return {k: v.split() for k, v in local.items()}


def _objects(tree, d, conf, out, depth=0):
    """Add to out the .c files (relative to tree) that directory d builds."""
    if depth > 12:
        return
    mk = None
    for name in ("Kbuild", "Makefile"):
        if os.path.isfile(os.path.join(tree, d, name)):
            mk = os.path.join(tree, d, name)
            break
    if mk is None:
        return
    v = _makefile_vars(mk, conf)
    objs = v.get("obj-y", []) + v.get("obj-m", [])

    def units(o, seen):
        base = o[:-2]
        parts = []
        for suffix in ("-y", "-objs", "-m"):
            parts += v.get(base + suffix, [])
        if parts and base not in seen:
            for p in parts:
                if p.endswith(".o"):
                    units(p, seen | {base})
            return
        src = os.path.normpath(os.path.join(d, base + ".c"))
        if os.path.isfile(os.path.join(tree, src)):
            out.add(src)

    for o in objs:
        if o.endswith("/"):
            _objects(tree, os.path.normpath(os.path.join(d, o)), conf, out, depth + 1)
        elif o.endswith(".o"):
            units(o, frozenset())


# make's ARCH (the .config header's "Linux/ARCH") to the arch/ directory.
_SRCARCH = {"x86_64": "x86", "i386": "x86", "sparc64": "sparc", "sh64": "sh"}


def top_dirs(tree, build):
    """The top-level directories the build descends into (sorted,
    relative to tree): the obj-y/obj-m of the tree's top Kbuild, its
    arch's core-y/libs-y/drivers-y (arch/x86/Makefile's arch/x86/lib/,
    arch/x86/pci/, ...) and lib/ (the top Makefile's `libs-y := lib/`,
    set there unconditionally, in conditionals this reader does not
    follow), with DIR/.config.
    (Kbuild of 6.1 and later; an older tree has no top Kbuild listing
    them: nothing.)"""
    conf = read_config(build)
    m = re.search(r"^# Linux/(\S+) ", open(os.path.join(build, ".config"),
                                           errors="replace").read(4096), re.M)
    arch = m.group(1) if m else "x86_64"
    srcarch = _SRCARCH.get(arch, arch)
    archmk = _makefile_vars(os.path.join(tree, "arch", srcarch, "Makefile"), conf)
    v = _makefile_vars(os.path.join(tree, "Kbuild"), dict(conf))
    words = []
    for o in v.get("obj-y", []) + v.get("obj-m", []):
        o = o.replace("arch//", "arch/%s/" % srcarch)
        words.append(o)
    words += archmk.get("core-y", []) + archmk.get("libs-y", []) + \
        archmk.get("drivers-y", []) + ["lib/"]
    out = set()
    for w in words:
        if w.endswith("/"):
            d = os.path.normpath(w)
            if os.path.isdir(os.path.join(tree, d)):
                out.add(d)
    return sorted(out)


def units(tree, build, paths):
    """(sorted .c files relative to tree that build compiles under paths,
    'objects' | 'kbuild')."""
    if not os.path.isdir(build):
        raise AuditError("--build %s: no such directory" % build)
    built = set()
    for p in paths:
        top = os.path.join(build, p)
        if os.path.isfile(top[:-2] + ".o") if p.endswith(".c") else False:
            built.add(p)
        for dirpath, _, names in os.walk(top):
            for n in names:
                if n.endswith(".o") and not n.endswith((".mod.o", ".lto.o")):
                    rel = os.path.relpath(os.path.join(dirpath, n[:-2] + ".c"), build)
                    if os.path.isfile(os.path.join(tree, rel)):
                        built.add(rel)
    if built:
        return sorted(built), "objects"
    conf = read_config(build)
    out = set()
    for p in paths:
        if p.endswith(".c"):
            out.add(os.path.normpath(p))
        else:
            _objects(tree, os.path.normpath(p), conf, out)
    return sorted(out), "kbuild"
