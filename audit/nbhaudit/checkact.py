# SPDX-License-Identifier: GPL-2.0
"""Check-then-act over individually atomic operations on a per-CPU slot.

Each access alone may be atomic (this_cpu_read(), a load of *p,
cmpxchg(), xchg(), this_cpu_write()), the sequence is not: code that
reads a per-CPU slot, finds it empty and installs an object relies on
disabled BH to keep every other task of the CPU out between the read and
the install.  On PREEMPT_RT without the softirq lock another task of the
CPU can install in between.  That is a bug when the install's conflict
branch assumes it cannot happen:

- BUG*()/WARN*() on the value found (prev = cmpxchg(p, NULL, new);
  BUG_ON(prev)),
- an unconditional overwrite (xchg() whose old value is dropped, a store
  of an object just obtained),
- the loser's object neither freed nor returned (a cmpxchg() whose
  failure is ignored, or tested with a branch that does neither).

A conflict branch that frees the loser or takes the winner (if (prev) {
free(new); new = prev; }) tolerates it.  The read and the install are
looked for in one function: its own accesses and those of the functions
it calls, up to DEPTH calls deep, in the order of the calls (the caller
reads, a callee installs; one helper reads, another installs).  A pair
turns the install access, when it was judged protected by being one
atomic operation, into an exposed one ("none") with the read, the
install and the conflict branch in its evidence (check_then_act).

The slot is the datum and its member chain; for data behind a __percpu
pointer the object the pointer is read from is not compared."""

import re

from . import knowledge as K

# Calls of a function that calls them more deeply are not followed.
DEPTH = 3
# Protections that only say "one atomic operation": a check-then-act
# over them is not covered.  Locks, IRQs off, preemption off and nested-BH
# locks are judged as they are; an install exposed already ("none") is.
ATOMIC = ("cmpxchg", "irq-safe-op", "read-only")

_ASSERT = re.compile(r"\b(BUG_ON|BUG|WARN_ON_ONCE|WARN_ON|WARN_ONCE|WARN)\s*\(")
_RELEASE = re.compile(r"(?:free|release|put|destroy|drop|dealloc|unref|dispose|recycle|"
                      r"consume|kill)", re.I)
_CONST = re.compile(r"^(?:NULL|0|0UL|0L|false|true|-?\d+\w*|[A-Z_][A-Z0-9_]*)$")
_TAS = re.compile(r"^test_and_set_bit(?:_lock)?$|^__test_and_set_bit$")
_OP = re.compile(r"^(?:this_cpu|__this_cpu|raw_cpu)_(read|write|cmpxchg|try_cmpxchg|xchg)$")


class Event:
    __slots__ = ("kind", "op", "slot", "fn", "line", "col", "off", "acc", "new", "call",
                 "conflict")

    def __init__(self, kind, op, slot, fn, line, col, off, acc, new=None, call=None):
        self.kind = kind        # "read" or "install"
        self.op = op            # cmpxchg, xchg, test_and_set, store, the accessor of a read
        self.slot = slot
        self.fn = fn
        self.line = line
        self.col = col
        self.off = off          # offset of the operation in the file's text
        self.acc = acc
        self.new = new          # the value installed
        self.call = call        # the call doing it, when one does
        self.conflict = None    # (line, what) of a conflict branch that assumes no interleaving

    def where(self):
        return "%s:%d" % (self.fn.file, self.line)


def mark(audit, name, accs):
    """Mark the install accesses of accs (datum name) that end a
    check-then-act with a conflict branch that assumes no interleaving."""
    own = {}
    same = {}       # the accesses of one site (one per caller passing the pointer)
    for a in accs:
        fn = audit._fn_of(a)
        if fn is None:
            continue
        for ev in _events(audit, fn, a):
            key = (ev.line, ev.col, ev.kind)
            own.setdefault(fn.id, {}).setdefault(key, ev)
            same.setdefault((fn.id,) + key, []).append(a)
    installs = [ev for evs in own.values() for ev in evs.values() if ev.kind == "install"]
    if not installs or not any(ev.kind == "read" for evs in own.values() for ev in evs.values()):
        return
    for ev in installs:
        if ev.acc["protection"] in ATOMIC and (ev.op != "store" or
                                               _pointer_slot(audit, name, ev.slot)):
            ev.conflict = _conflict(audit, ev)
    if not any(ev.conflict for ev in installs):
        return
    fns = {}
    for evs in own.values():
        for ev in evs.values():
            fns[ev.fn.id] = ev.fn
    # the functions that may hold a sequence: those with events and
    # their callers, DEPTH levels up, nearest first
    level = {fid: 0 for fid in fns}
    todo = list(fns.values())
    for depth in range(1, DEPTH + 1):
        nxt = []
        for fn in todo:
            for caller, _ in audit.callers(fn):
                if caller.id not in level:
                    level[caller.id] = depth
                    fns[caller.id] = caller
                    nxt.append(caller)
        todo = nxt
    memo = {}
    done = set()
    for fid in sorted(level, key=lambda x: (level[x], x)):
        seq = _sequence(audit, fns[fid], DEPTH, own, level, memo, ())
        for j, (chain, ev) in enumerate(seq):
            if ev.kind != "install" or not ev.conflict or id(ev) in done:
                continue
            reads = [(ch, r) for ch, r in seq[:j] if r.kind == "read" and r.slot == ev.slot]
            if not reads:
                continue
            done.add(id(ev))
            _flag(ev, reads[-1], chain, fns[fid])
            for other in same[(ev.fn.id, ev.line, ev.col, ev.kind)]:
                if other is not ev.acc and other["protection"] in ATOMIC:
                    for k in ("check_then_act", "protection", "protection_detail"):
                        other[k] = ev.acc[k]


def _pointer_slot(audit, name, slot):
    """The slot holds a pointer (a store there installs an object): the
    datum's type, the __percpu field's, or the member's."""
    if ":" in name:
        struct, field = name.split(":")
        typ = audit.structs.get(struct, {}).get("percpu", {}).get(field, "")
        return not slot and "*" in typ
    d = audit.datums.get(name) or audit.ptr_vars.get(name)
    if d is None:
        return False
    if not slot:
        return "*" in d["type"]
    s = audit._struct_of(name)
    return bool(s and ".".join(slot) in s.get("pointers", []))


def _sequence(audit, fn, depth, own, level, memo, stack):
    """[(calls, event)] in the order fn runs them: its own events and
    those of the functions it calls (calls: the call sites on the way)."""
    key = (fn.id, depth)
    if key in memo:
        return memo[key]
    items = [((ev.line, ev.col, 0), (), ev) for ev in own.get(fn.id, {}).values()]
    if depth > 0:
        for g, c in audit.callees(fn):
            if g.id not in level or g.id in stack or g.id == fn.id:
                continue
            sub = _sequence(audit, g, depth - 1, own, level, memo, stack + (fn.id,))
            for i, (chain, ev) in enumerate(sub):
                items.append(((c["line"], c["col"], 1 + i),
                              (("%s() at %s:%d" % (g.name, fn.file, c["line"])),) + chain, ev))
    items.sort(key=lambda x: x[0])
    out = memo[key] = [(chain, ev) for _, chain, ev in items]
    return out


def _site(ev):
    return {"file": ev.fn.file, "line": ev.line, "function": ev.fn.name}


def _flag(ev, read, chain, top):
    rchain, r = read
    cline, what = ev.conflict
    a = ev.acc
    install = "%s()" % ev.op if ev.op != "store" else "a store"
    a["check_then_act"] = {
        "read": dict(_site(r), op=r.op),
        "install": dict(_site(ev), op=ev.op),
        "conflict": {"file": ev.fn.file, "line": cline, "what": what},
        "sequence": {"function": top.name, "file": top.file, "line": top.line,
                     "read_via": list(rchain), "install_via": list(chain)}}
    a["protection"] = "none"
    a["protection_detail"] = (
        "check-then-act: the slot is read in %s() at %s (%s), then %s installs in %s() at %s, "
        "in %s(); conflict branch at %s:%d: %s. Each operation is atomic, the sequence is not: "
        "another task of the CPU can install in between on PREEMPT_RT"
        % (r.fn.name, r.where(), r.op, install, ev.fn.name, ev.where(), top.name,
           ev.fn.file, cline, what))


# --- the events of one access ------------------------------------------------

def _call_at(fn, line, col, name=None):
    for c in fn.calls:
        if c["line"] == line and c["col"] == col and (name is None or c["f"] == name):
            return c
    return None


def _body(audit, fn):
    t, funcs = audit.text(fn.file)
    f = funcs.get(fn.name)
    return t, f


def _pos(t, off):
    line = t.line(off)
    return line, off - t.offset(line)


def _events(audit, fn, a):
    t, f = _body(audit, fn)
    if not f:
        return []
    slot = tuple(a.get("member") or ())
    accessor = a["accessor"]
    out = []
    if slot:
        var = a.get("_var")
        if not var or not re.fullmatch(r"\w+", var):
            return []
        op = _OP.match(accessor)
        if op:
            # a pointer read out of the slot (v = this_cpu_read(*pp)) whose
            # members are used: the read of the slot is the accessor call;
            # the members are those of the object it points to
            if op.group(1) != "read":
                return []
            calls = [c for c in fn.calls if c["f"] == accessor and c["line"] <= a["line"]
                     and _assigned(t, t.offset(c["line"], c["col"])) == var]
            if not calls:
                return []
            c = calls[-1]
            return [Event("read", accessor + "()", (), fn, c["line"], c["col"],
                          t.offset(c["line"], c["col"]), a)]
        start = t.offset(a["line"])
        end = t.code.find("\n", start)
        pat = re.compile(r"\b%s\s*->\s*%s\b" % (re.escape(var), r"\s*(?:\.|->)\s*".join(
            map(re.escape, slot))))
        for m in pat.finditer(t.code, start, end if end >= 0 else len(t.code)):
            out.extend(_slot_use(fn, t, a, slot, m.start(), m.end()))
        return out
    op = _OP.match(accessor)
    call = _call_at(fn, a["line"], a["col"], accessor)
    off = t.offset(a["line"], a["col"])
    if op:
        kind = op.group(1)
        args = call["args"] if call else []
        if kind == "read":
            out.append(Event("read", accessor + "()", slot, fn, a["line"], a["col"], off, a))
        elif kind == "write" and len(args) > 1:
            out.append(Event("install", "store", slot, fn, a["line"], a["col"], off, a,
                             new=args[1].strip(), call=call))
        elif kind in ("cmpxchg", "try_cmpxchg") and len(args) > 2:
            out.append(Event("install", accessor, slot, fn, a["line"], a["col"], off, a,
                             new=args[2].strip(), call=call))
        elif kind == "xchg" and len(args) > 1:
            out.append(Event("install", accessor, slot, fn, a["line"], a["col"], off, a,
                             new=args[1].strip(), call=call))
        return out
    if a["op"] != "ptr":
        return []
    target = a.get("_target")
    if target and re.fullmatch(r"\w+", target):
        # p = this_cpu_ptr(..): what is done through p, up to its next assignment
        stop = re.compile(r"\b%s\s*=[^=]" % re.escape(target)).search(t.code, off + 1,
                                                                      f["end_off"])
        end = stop.start() if stop else f["end_off"]
        for c in fn.calls:
            co = t.offset(c["line"], c["col"])
            if not off < co < end:
                continue
            got = _atomic_install(c, target)
            if got:
                out.append(Event("install", c["f"], slot, fn, c["line"], c["col"], co, a,
                                 new=got, call=c))
        for m in re.finditer(r"(?<![\w&])\*\s*%s\b" % re.escape(target), t.code[off:end]):
            s = off + m.start()
            out.extend(_slot_use(fn, t, a, slot, s, off + m.end(), what="*" + target))
        return out
    # the accessor handed straight on: cmpxchg(this_cpu_ptr(&x), ..), *this_cpu_ptr(&x)
    for c in fn.calls:
        if c["line"] != a["line"] or c is call or not c["args"]:
            continue
        if (K.CMPXCHG.match(c["f"]) and c["args"][0].lstrip("&( ").startswith(accessor)) or \
                (_TAS.match(c["f"]) and len(c["args"]) > 1 and
                 c["args"][1].lstrip("&( ").startswith(accessor)):
            new = _new_value(c)
            if new is not None:
                out.append(Event("install", c["f"], slot, fn, c["line"], c["col"],
                                 t.offset(c["line"], c["col"]), a, new=new, call=c))
    before = t.code[max(0, off - 4):off]
    if re.search(r"(?<![\w)\]])\*\s*$", before):
        out.extend(_slot_use(fn, t, a, slot, off - len(before) + before.rfind("*"),
                             t.match(t.code.find("(", off), "(", ")") + 1, what=accessor + "()"))
    return out


def _new_value(c):
    if K.CMPXCHG.match(c["f"]):
        if c["f"].startswith("xchg"):
            return c["args"][1].strip() if len(c["args"]) > 1 else None
        return c["args"][2].strip() if len(c["args"]) > 2 else None
    return ""       # test_and_set_bit(): a bit, no object


def _atomic_install(c, var):
    """The value an atomic call installs in the slot var points to, or None."""
    if not c["args"]:
        return None
    slot = r"\(?\s*%s\s*\)?" % re.escape(var)
    if K.CMPXCHG.match(c["f"]) and re.fullmatch(slot, c["args"][0].strip()):
        return _new_value(c)
    if _TAS.match(c["f"]) and len(c["args"]) > 1 and re.fullmatch(slot, c["args"][1].strip()):
        return ""
    return None


def _slot_use(fn, t, a, slot, start, end, what=None):
    """The event of one use of the slot at [start, end) of the text: a
    store (slot = v), an atomic install (&slot given to cmpxchg()) or a
    load."""
    line, col = _pos(t, start)
    what = what or "->".join(slot)
    pre = t.code[max(0, start - 3):start]
    if re.search(r"&\s*\(?\s*$", pre):
        # its address: an install when an atomic call of the line takes it
        for c in fn.calls:
            if c["line"] != line or not c["args"]:
                continue
            arg = c["args"][0] if K.CMPXCHG.match(c["f"]) else (
                c["args"][1] if _TAS.match(c["f"]) and len(c["args"]) > 1 else None)
            if arg and re.sub(r"\s+", "", arg).endswith(re.sub(r"\s+", "", t.code[start:end])):
                new = _new_value(c)
                if new is not None:
                    return [Event("install", c["f"], slot, fn, line, c["col"],
                                  t.offset(line, c["col"]), a, new=new, call=c)]
        return []
    m = re.compile(r"\)?\s*=(?!=)([^;]*);").match(t.code, end)
    if m:
        return [Event("install", "store", slot, fn, line, col, start, a, new=m.group(1).strip())]
    if re.compile(r"\)?\s*(?:\+\+|--|[-+*/|&^%]=|<<=|>>=)").match(t.code, end) or \
            re.search(r"(?:\+\+|--)\s*$", t.code[max(0, start - 3):start]):
        return []
    return [Event("read", "load of %s" % what, slot, fn, line, col, start, a)]


# --- the conflict branch -----------------------------------------------------

def _owned(t, f, new):
    """new names an object the function obtained itself (assigned the
    result of a call): the loser's object of a lost race."""
    if not new or not re.fullmatch(r"[A-Za-z_]\w*", new) or _CONST.match(new):
        return False
    return re.search(r"\b%s\s*=(?!=)\s*(?:\([^;()]*\)\s*)?[A-Za-z_]\w*\s*\(" % re.escape(new),
                     t.code[f["body"]:f["end_off"]]) is not None


def _stmt_start(t, f, off):
    i = max(t.code.rfind(";", f["body"], off), t.code.rfind("{", f["body"], off),
            t.code.rfind("}", f["body"], off))
    return i + 1


def _stmt_end(t, f, off):
    """Offset after the statement that starts at or holds off."""
    i = off
    code = t.code
    while i < f["end_off"]:
        ch = code[i]
        if ch == "(":
            j = t.match(i, "(", ")")
            if j < 0:
                return f["end_off"]
            i = j + 1
            continue
        if ch == ";":
            return i + 1
        if ch == "{":
            j = t.match(i)
            return j + 1 if j >= 0 else f["end_off"]
        i += 1
    return f["end_off"]


def _branches(t, f, cond_open):
    """(start, end) of the then-statement and else part of the if whose
    condition opens at cond_open."""
    close = t.match(cond_open, "(", ")")
    if close < 0:
        return None
    a = close + 1
    end = _stmt_end(t, f, a)
    m = re.compile(r"\s*else\b").match(t.code, end)
    if m:
        end = _stmt_end(t, f, m.end())
    return a, end


def _enclosing_if(t, f, start, off):
    """Offset of the '(' of the if/while condition holding off, the
    statement starting at start, or None."""
    m = re.compile(r"\s*(?:else\s+)?(if|while)\s*\(").match(t.code, start)
    if not m:
        return None
    op = m.end() - 1
    close = t.match(op, "(", ")")
    return op if close > off else None


def _conflict(audit, ev):
    """(line, what) of the conflict branch of an install that assumes no
    other task of the CPU ran since the read, or None when it tolerates
    that (or there is nothing to judge)."""
    fn = ev.fn
    t, f = _body(audit, fn)
    if not f:
        return None
    code = t.code
    new = ev.new
    owned = _owned(t, f, new)
    if ev.op == "store":
        if owned:
            return ev.line, ("an unconditional overwrite: %s is stored whatever another task "
                             "installed since the read" % new)
        return None
    xchg = "xchg" in ev.op and "cmpxchg" not in ev.op
    tas = bool(_TAS.match(ev.op))
    off = ev.off
    start = _stmt_start(t, f, off)
    pre = code[start:off]
    m = None
    for m in _ASSERT.finditer(pre):
        pass
    if m and t.match(start + m.end() - 1, "(", ")") > off:
        return ev.line, "%s() on the result of %s()" % (m.group(1), ev.op)
    cond = _enclosing_if(t, f, start, off)
    result = None
    if cond is None:
        result = _assigned(t, ev.off)
    if cond is None and result:
        send = _stmt_end(t, f, off)
        use = re.compile(r"\b%s\b" % re.escape(result)).search(code, send, f["end_off"])
        if use is None:
            cond = None
        else:
            ustart = _stmt_start(t, f, use.start())
            upre = code[ustart:use.start()]
            am = None
            for am in _ASSERT.finditer(upre):
                pass
            if am and t.match(ustart + am.end() - 1, "(", ")") > use.start():
                return t.line(use.start()), "%s(%s)" % (am.group(1), result)
            cond = _enclosing_if(t, f, ustart, use.start())
            if cond is None:
                return None     # the value found is used (returned, kept): handled
    if cond is None:
        # the result is dropped
        if tas:
            return None
        if xchg:
            return ev.line, ("an unconditional overwrite: the value %s() returns is dropped, "
                             "and with it whatever another task installed since the read" % ev.op)
        if owned:
            return ev.line, ("the result of %s() is not tested: on a lost race %s is neither "
                             "freed nor returned (leaked)" % (ev.op, new))
        return None
    got = _branches(t, f, cond)
    if not got:
        return None
    a, b = got
    region = code[a:b]
    line = t.line(cond)
    if _handles(region, new if (owned or not xchg) else None, result, xchg or tas):
        return None
    asserts = [x.group(1) for x in _ASSERT.finditer(region)]
    if asserts:
        return line, "it only asserts (%s())" % asserts[0]
    if tas:
        return None
    if xchg:
        return line, "it neither releases nor keeps the value %s() returns" % ev.op
    if not owned:
        return None
    return line, ("it neither frees %s nor returns the winner%s: %s is leaked"
                  % (new, " " + result if result else "", new))


def _assigned(t, off):
    """The variable assigned the value of the expression at off, or None."""
    pre = t.code[max(0, off - 120):off]
    m = re.search(r"(\w+)\s*=\s*(?:\(\s*[\w\s\*]+\)\s*)?$", pre)
    if m and not re.search(r"[=!<>]=\s*$", pre[:m.end()]):
        return m.group(1)
    return None


def _handles(region, new, result, takes_old):
    """The conflict branch frees the loser's object (new) or takes the
    winner (the result returned, stored or handed on)."""
    calls = [(m.group(1), region[m.end():]) for m in re.finditer(r"\b(\w+)\s*\(", region)]
    for name, rest in calls:
        if _ASSERT.match(name + "(") or name in ("if", "while", "unlikely", "likely"):
            continue
        args = rest[:rest.find(";")] if ";" in rest else rest
        if new and re.search(r"\b%s\b" % re.escape(new), args) and _RELEASE.search(name):
            return True
        if takes_old and result and re.search(r"\b%s\b" % re.escape(result), args):
            return True
    if result and re.search(r"(?:\breturn\s+|=\s*)\(?\s*%s\s*\)?\s*;" % re.escape(result), region):
        return True
    return False
