# SPDX-License-Identifier: GPL-2.0
"""Whole-object writes through a per-CPU pointer.

The accesses of a per-CPU object are its member uses (p->m); a write of
the whole object writes every member: a struct assignment through the
pointer (*p = v, *this_cpu_ptr(&x) = v), memset(), memcpy() or
memmove() into it, also through a pointer handed to a callee.  Each such
write is one access with an empty member chain and "whole" saying what
writes it; verdict.py copies it into the group of every member when the
datum is split per member.  The object as the source of a copy (memcpy(d,
p, ..)) or a load (v = *p) is not written."""

import re

from . import cfacts

# calls whose first argument is the object they overwrite
FILLS = ("memset", "memcpy", "memmove", "memzero_explicit", "bpf_long_memcpy")
_FILL = re.compile(r"\b(%s)\s*\(\s*" % "|".join(FILLS))


def _scope(t, start_off, end_off, var):
    """End of the scope of var after start_off: its block, up to the next
    assignment of var (as cfacts.member_uses() bounds its uses)."""
    end_off = cfacts.block_end(t, start_off, end_off)
    for m in re.compile(r"\b%s\s*=[^=]" % re.escape(var)).finditer(t.code, start_off + 1,
                                                                    end_off):
        before = t.code[max(0, m.start() - 8):m.start()].rstrip()
        if not before.endswith(("*", ".", "->", "(")):
            return m.start()        # not *p = v, nor a member or a cast
    return end_off


def writes(t, var, start_off, end_off):
    """[(line, col, what)] of the whole-object writes through the pointer
    variable var in [start_off, end_off) of the text (bounded as its
    member uses are)."""
    if not var or not re.fullmatch(r"[A-Za-z_]\w*", var):
        return []
    end = _scope(t, start_off, end_off, var)
    code = t.code
    out = []
    v = re.escape(var)
    # *p = v (not *p == v, not **p, not a * b =)
    for m in re.finditer(r"(?<![\w)\]*])\*\s*\(?\s*%s\s*\)?\s*=(?!=)" % v,
                         code[start_off:end]):
        off = start_off + m.start()
        out.append((t.line(off), off - t.offset(t.line(off)), "*%s = ..." % var))
    for m in _FILL.finditer(code, start_off, end):
        arg = re.match(r"\(?\s*%s\s*\)?\s*," % v, code[m.end():m.end() + len(var) + 8])
        if arg:
            off = m.start()
            out.append((t.line(off), off - t.offset(t.line(off)), "%s(%s, ...)" % (m.group(1), var)))
    return out


def direct(t, c, off):
    """What writes the whole object when the accessor call c at offset off
    is itself the object written: *this_cpu_ptr(&x) = v, or the first
    argument of memset()/memcpy(); else None."""
    code = t.code
    close = t.match(code.find("(", off), "(", ")")
    if close < 0:
        return None
    before = code[max(0, off - 24):off]
    if re.search(r"(?<![\w)\]*])\*\s*\(?\s*$", before) and \
            re.match(r"\s*\)?\s*=(?!=)", code[close + 1:close + 8]):
        return "*%s() = ..." % c["f"]
    m = re.search(r"\b(%s)\s*\(\s*\(?\s*$" % "|".join(FILLS), before)
    if m:
        return "%s(%s(), ...)" % (m.group(1), c["f"])
    return None


def record(audit, out, key, fn, c, target, base, reach):
    """The whole-object writes through target (the variable the accessor
    call c was stored in) in fn: accesses with an empty member chain."""
    t, funcs = audit.text(fn.file)
    f = funcs.get(fn.name)
    if not f or not target:
        return
    off = t.offset(c["line"], c["col"])
    for line, col, what in writes(t, target, off, f["end_off"]):
        acc = dict(base, line=line, col=col, member=[], whole=what)
        out[key].append(audit._access(fn, acc, {target}, reach))


def record_callee(audit, out, key, callee, param, acc_base, names, reach, outer):
    """The same in a callee that was handed the pointer as param."""
    t, funcs = audit.text(callee.file)
    f = funcs.get(callee.name)
    if not f:
        return
    for line, col, what in writes(t, param, f["body"], f["end_off"]):
        acc = dict(acc_base, file=callee.file, function=callee.name, line=line, col=col,
                   member=[], whole=what)
        out[key].append(audit._access(callee, acc, names, reach, outer))


def mark(audit, fn, c, acc):
    """An access that stands for the whole object (the accessor handed on,
    its result kept in a variable without member uses) is a whole-object
    write when the object is written so: say what writes it."""
    t, funcs = audit.text(fn.file)
    f = funcs.get(fn.name)
    if not f:
        return
    off = t.offset(c["line"], c["col"])
    target = acc.get("_target")
    if target:
        got = writes(t, target, off, f["end_off"])
        if got:
            acc["whole"] = got[0][2]
        return
    what = direct(t, c, off)
    if what:
        acc["whole"] = what


def spread(groups):
    """Copy the whole-object writes of groups[""] into the group of every
    member (verdict.py groups a datum's accesses by member); the "" group
    goes when nothing else is left in it."""
    members = [mk for mk in groups if mk]
    if not members or "" not in groups:
        return
    wholes = [a for a in groups[""] if a.get("whole")]
    if not wholes:
        return
    for mk in members:
        for a in wholes:
            groups[mk].append(dict(a, member=mk.split(".")))
    rest = [a for a in groups[""] if not a.get("whole")]
    if rest:
        groups[""] = rest
    else:
        del groups[""]
