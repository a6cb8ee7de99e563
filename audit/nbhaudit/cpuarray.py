# SPDX-License-Identifier: GPL-2.0
"""Per-CPU data not declared per-CPU: file-scope arrays and buffers
indexed by the current CPU.

static struct foo bufs[NR_CPUS], or a buffer allocated for nr_cpu_ids
and kept in a global pointer, indexed by smp_processor_id() /
raw_smp_processor_id() (directly, or through a local assigned one of
them or get_cpu() and never anything else) is per-CPU data: in BH
context its entry of this CPU is protected by disabled BH alone, as a
DEFINE_PER_CPU one is.  Each such file-scope name used so in BH context
becomes a datum (audit.datums, with "cpu_indexed" saying how it is
declared) and each use an access judged by the same rules: the member
uses of a pointer taken from the entry (p = &bufs[cpu]; p->m), those of
the entry itself (bufs[cpu].m), whole-object writes through such a
pointer (whole.py), else the entry as a whole.

Not reported: an entry of another CPU (bufs[cpu] in for_each_cpu()), a
const array, a local array, a name used so only outside BH context."""

import bisect
import re

from . import cfacts, whole

CURRENT = ("smp_processor_id", "raw_smp_processor_id")
BH_CONTEXTS = ("bh-disabled", "softirq")
_ACCESSOR = "[smp_processor_id()]"
_DIRECT = r"(?:raw_)?smp_processor_id\s*\(\s*\)"
_CHAIN = re.compile(r"\s*((?:(?:\.|->)\s*\w+\s*)+)")
_LOOP = re.compile(r"\bfor_each_\w*cpu\w*\s*\(\s*(\w+)\b")


def _cpu_vars(t, fn, f):
    """The locals of fn that hold the current CPU number: every store is
    smp_processor_id(), raw_smp_processor_id() or get_cpu(); none is a
    loop variable or changed otherwise."""
    out = set()
    body = t.code[f["body"]:f["end_off"]]
    loops = set(_LOOP.findall(body))
    for v in fn.local_cpu:
        if v in loops or v in fn.params:
            continue
        ok = True
        for m in re.finditer(r"\b%s\s*(=(?!=)|\+\+|--|[-+*/|&^]=)" % re.escape(v), body):
            if m.group(1) != "=" or not re.match(r"\s*(?:\(\s*\w+\s*\)\s*)?(?:raw_)?"
                                                   r"(?:smp_processor_id|get_cpu)\s*\(",
                                                   body[m.end():]):
                ok = False
                break
        if ok and not re.search(r"(?:\+\+|--)\s*%s\b|&\s*%s\b" % (re.escape(v), re.escape(v)),
                                body):
            out.add(v)
    return out


def _bodies(funcs):
    return sorted((x["body"], x["end_off"]) for x in funcs.values())


def _inside(bodies, off):
    i = bisect.bisect_right(bodies, (off, 1 << 62)) - 1
    return i >= 0 and bodies[i][0] <= off <= bodies[i][1]


def _definition(t, funcs, name):
    """{"type", "line", "cpu_indexed"} for the file-scope definition of
    name in t: an array or a pointer, not const, not per-CPU, not
    extern; else None."""
    bodies = _bodies(funcs)
    code = t.code
    for m in re.finditer(r"\b%s\b" % re.escape(name), code):
        if _inside(bodies, m.start()):
            continue
        start = max(code.rfind(";", 0, m.start()), code.rfind("}", 0, m.start()),
                    code.rfind("{", 0, m.start()), code.rfind("\n#", 0, m.start())) + 1
        if code[start - 1:start] == "#":
            continue
        decl = code[start:m.start()]
        if code[start - 1:start] == "\n" and code[start - 2:start] != "\n":
            # after a preprocessor line: from the end of that line
            decl = decl[decl.find("\n") + 1:]
        decl = " ".join(decl.split())
        after = re.match(r"\s*((?:\[[^\]]*\]\s*)*)(?:__\w+(?:\([^)]*\))?\s*)*([;=,])",
                         code[m.end():m.end() + 200])
        if not after or not decl or "(" in decl or ")" in decl or "=" in decl:
            continue
        words = decl.replace("*", " * ").split()
        if any(w in ("extern", "typedef", "return", "__percpu") for w in words) or \
                "DEFINE_PER_CPU" in decl or "DECLARE_PER_CPU" in decl:
            continue
        array = bool(after.group(1))
        ptr = decl.endswith("*")
        if not array and not ptr:
            continue
        if "const" in words and not (ptr and not decl.rstrip("* ").endswith("const")
                                     and array):
            continue        # a read-only table
        typ = " ".join(w for w in words if w not in ("static", "const", "volatile") and
                       not w.startswith("__"))
        if not array:
            typ = typ[:-1].rstrip()     # the buffer a pointer points to
        decl = decl.replace(" *", "*").replace("*", " *")
        how = ("%s%s%s" % (decl + ("" if ptr else " "), name, after.group(1).strip())) if array \
            else "%s%s, a buffer" % (decl, name)
        return {"type": typ.replace(" *", "*").replace("*", " *").strip(),
                "line": t.line(m.start()),
                "cpu_indexed": "not per-CPU data: %s indexed by the current CPU" % how}
    return None


def _sites(t, f, cpu_vars):
    """(name, start, end) of each name[current CPU] in the function body."""
    idx = _DIRECT if not cpu_vars else r"(?:%s|%s)" % (
        _DIRECT, "|".join(re.escape(v) for v in sorted(cpu_vars)))
    pat = re.compile(r"(?<![\w.>\]])([A-Za-z_]\w*)\s*\[\s*%s\s*\]" % idx)
    code = t.code
    for m in pat.finditer(code, f["body"], f["end_off"]):
        if code[max(0, m.start() - 2):m.start()].endswith("->"):
            continue
        yield m.group(1), m.start(), m.end()


def accesses(audit, out, reach):
    """Add the datums (audit.datums) and their accesses (out, keyed as
    Audit.accesses() keys them) of the file-scope names indexed by the
    current CPU and used in BH context."""
    found = {}          # name -> (rel, definition)
    per = {}            # name -> [access]
    for fn in audit.fns:
        if fn.dead or fn.init or audit.facts[fn.file].get("graph_only"):
            continue
        if fn.names.isdisjoint(CURRENT) and not fn.local_cpu:
            continue
        t, funcs = audit.text(fn.file)
        f = funcs.get(fn.name)
        if not f:
            continue
        for name, s, e in _sites(t, f, _cpu_vars(t, fn, f)):
            if name in audit.datums and name not in found:
                continue        # a DEFINE_PER_CPU datum of that name
            key = (fn.file, name)
            if key not in found:
                found[key] = _definition(t, funcs, name) if name not in fn.params else None
            d = found[key]
            if d is None:
                continue
            per.setdefault(key, []).extend(_uses(audit, fn, t, f, name, s, e, reach))
    names = {}
    for (rel, name), accs in sorted(per.items()):
        if not any(a["context"] in BH_CONTEXTS for a in accs):
            continue
        if name in audit.datums or name in names:
            continue        # the same name defined per-CPU, or in two files
        d = found[(rel, name)]
        names[name] = rel
        audit.datums[name] = {"name": name, "type": d["type"], "kind": "define",
                              "variant": "", "line": d["line"], "col": 0, "file": rel,
                              "static": True, "rt_dead": False,
                              "cpu_indexed": d["cpu_indexed"]}
        out[("static", name)].extend(accs)


def _uses(audit, fn, t, f, name, s, e, reach):
    """The accesses of one name[cpu] at [s, e) of the text."""
    line, col = t.line(s), s - t.offset(t.line(s))
    base = {"file": fn.file, "function": fn.name, "accessor": _ACCESSOR, "op": "plain",
            "remote": False}
    code = t.code
    out = []
    chain = _CHAIN.match(code, e)
    if chain and not code[max(0, s - 3):s].rstrip().endswith("&"):
        members = cfacts.split_chain(chain.group(1))
        out.append(audit._access(fn, dict(base, line=line, col=col, member=members),
                                 {name}, reach))
        return out
    var = cfacts.assign_target(t, line, col - (1 if code[s - 1:s] == "&" else 0))
    if var is None:
        pre = code[max(0, s - 40):s]
        m = re.search(r"(\w+)\s*=\s*&\s*$", pre)
        var = m.group(1) if m and not re.search(r"[=!<>]=\s*&\s*$", pre) else None
    if var == name:
        var = None
    if var:
        uses = cfacts.member_uses(t, var, s, f["end_off"])
        for ch, ln in uses:
            out.append(audit._access(fn, dict(base, line=ln, col=0, member=ch, _var=var),
                                     {var, name}, reach))
        wr = whole.writes(t, var, s, f["end_off"])
        for ln, cl, what in wr if uses else ():
            out.append(audit._access(fn, dict(base, line=ln, col=cl, member=[], whole=what),
                                     {var, name}, reach))
        if uses:
            return out
        acc = dict(base, line=line, col=col, member=[], _target=var)
        if wr:
            acc["whole"] = wr[0][2]
        out.append(audit._access(fn, acc, {var, name}, reach))
        return out
    out.append(audit._access(fn, dict(base, line=line, col=col, member=[]), {name}, reach))
    return out
