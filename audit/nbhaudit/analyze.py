# SPDX-License-Identifier: GPL-2.0
"""From per-file facts to verdicts: call graph, softirq reachability,
lexical sections at every access, protection, verdict per datum."""

import bisect
import collections
import os
import re

from . import cfacts, cpuarray, irqctx, knowledge as K, whole

VERDICTS = ("needs-lock", "converted", "safe", "preempt-only", "not-bh", "unknown")


class Fn:
    __slots__ = ("file", "name", "line", "end", "static", "init", "params",
                 "calls", "field_calls", "protos", "local_cpu", "dead",
                 "snaps", "lexical", "id", "irq_blocks", "edges", "has_effect",
                 "unmatched", "names", "d", "bh_drop")

    def __init__(self, rel, d, dead):
        self.d = d              # the facts of the function, as extracted
        self.file = rel
        self.name = d["name"]
        self.line = d["line"]
        self.end = d["end"]
        self.static = d.get("static", False)
        self.init = d.get("init", False)
        self.params = d["params"]
        self.calls = [c for c in d["calls"] if c["line"] not in dead] if dead else d["calls"]
        self.names = {c["f"] for c in self.calls}      # the names called
        fcalls = d.get("field_calls", ())
        self.field_calls = [c for c in fcalls if c["line"] not in dead] if dead else fcalls
        self.protos = d.get("protos", ())
        self.local_cpu = set(d.get("local_cpu", ()))
        self.dead = d["line"] in dead
        self.lexical = d.get("lexical_calls", False)
        self.id = "%s:%s" % (rel, d["name"])
        self.irq_blocks = d.get("irq_blocks", [])
        self.snaps = None
        self.unmatched = ()
        self.bh_drop = None

    def where(self):
        return "%s:%d" % (self.file, self.line)


_WORD = re.compile(r"\w+")


def function_arg(arg, by_name):
    """The function an argument names (`fn` or `&fn`), or None."""
    if arg in by_name:
        return arg
    # function names hold no '&': skip lstrip() for most
    if arg[:1] == "&" and arg.lstrip("&") in by_name:
        return arg.lstrip("&")
    return None


def _lockless_head(c, j, p):
    """Is argument j of call c the list head of a lock-free llist
    operation (knowledge.LOCKLESS_HEAD_OPS), the bare p when p is given?"""
    if K.LOCKLESS_HEAD_OPS.get(c["f"]) != j:
        return False
    return p is None or c["args"][j].strip("&() ") == p


def _words(s):
    return set(re.findall(r"\w+", s))


KINDS = ("bh", "irq", "preempt", "nested", "local", "locks")
# Open sections before a call: per kind, a tuple of (call, line, argument).
Snapshot = collections.namedtuple("Snapshot", KINDS)
EMPTY = Snapshot((), (), (), (), (), ())
_EFFECTS = {}
# Lock/unlock helpers of the audited tree (a function that returns with a
# section open, one that closes a section it did not open): name ->
# effects, set by Audit for its own functions.
_HELPERS = {}
# Lock helpers that return with a nested-BH lock held (sd_flow_limit_lock(),
# ovs_pcpu_lock()): name -> (lock call, its argument, where), so that the
# section their call opens names the lock they take.
_HELPER_LOCKS = {}


def _effect(f):
    """[(kind, 'push' | 'pop' | 'pop-arg')] for a call name, memoized."""
    if f in _HELPERS:
        return _HELPERS[f]
    eff = _EFFECTS.get(f)
    if eff is None:
        eff = []
        if f in K.RAW_IRQ_LOCK:
            eff.append(("irq", "push"))
        elif f in K.RAW_IRQ_UNLOCK:
            eff.append(("irq", "pop"))
        if K.bh_on(f):
            eff.append(("bh", "push"))
        elif K.bh_off(f):
            eff.append(("bh", "pop"))
        if f in K.IRQ_ON:
            eff.append(("irq", "push"))
        elif f in K.IRQ_OFF:
            eff.append(("irq", "pop"))
        if f in K.PREEMPT_ON:
            eff.append(("preempt", "push"))
        elif f in K.PREEMPT_OFF:
            eff.append(("preempt", "pop"))
        if f in K.NESTED_ON:
            eff.append(("nested", "push"))
        elif f in K.NESTED_OFF:
            eff.append(("nested", "pop-arg"))
        elif f in K.LOCAL_ON:
            eff.append(("local", "push"))
        elif f in K.LOCAL_OFF:
            eff.append(("local", "pop-arg"))
        elif K.lock_on(f) or K.trylock(f):
            eff.append(("locks", "push"))
        elif K.lock_off(f):
            eff.append(("locks", "pop-arg"))
        _EFFECTS[f] = eff
    return eff


def _released(lst, op, arg):
    """Index in lst of the section a release call ends, or None."""
    if not lst:
        return None
    if op == "pop-arg" and any(it[2] == arg for it in lst):
        return max(i for i, it in enumerate(lst) if it[2] == arg)
    return len(lst) - 1


def _push_pop(snap, c, pending, unmatched=None):
    """The snapshot after call c. An early-exit release (its block left
    by return or goto after it) ends its section for the rest of that
    block, the path that takes the exit; the code after the block is
    reached without it, with the section open when it was opened before
    the block. Such sections go to pending as (last line of the block,
    kind, item, index), to be opened again after it. A release of a
    section the function did not open (an unlock helper) goes to
    unmatched as (kind, call)."""
    eff = _effect(c["f"])
    if not eff:
        return snap
    arg = c["args"][0] if c["args"] else ""
    for kind, op in eff:
        lst = getattr(snap, kind)
        if op == "push":
            inner = _HELPER_LOCKS.get(c["f"]) if kind == "nested" else None
            if inner:
                lst = lst + (("%s() -> %s" % (c["f"], inner[0]), c["line"], inner[1]),)
            else:
                lst = lst + ((c["f"], c["line"], arg),)
        else:
            i = _released(lst, op, arg)
            if i is None:
                if unmatched is not None and not c.get("exits"):
                    unmatched.append((kind, c))
                continue
            if c.get("exits"):
                block = c.get("block")
                if not block:
                    continue        # where the exit path ends is not known
                if lst[i][1] < block[0]:
                    pending.append((block[1], kind, lst[i], i))
            lst = lst[:i] + lst[i + 1:]
        snap = snap._replace(**{kind: lst})
    return snap


def _close_blocks(snap, pending, line):
    """Open again, where it was in its list, each section an early-exit
    release ended in a block that ended before line."""
    for p in sorted((p for p in pending if p[0] < line), key=lambda p: p[3]):
        pending.remove(p)
        _, kind, item, i = p
        lst = getattr(snap, kind)
        snap = snap._replace(**{kind: lst[:i] + (item,) + lst[i:]})
    return snap


def merge(a, b):
    return Snapshot(*(x + y for x, y in zip(a, b)))


def snapshots(fn):
    """(keys, snapshots): the sections open before every call of fn.
    A section an unlock helper closes without opening it was open from
    the start of the function (held by the caller, taken by the paired
    lock helper): it is added to the snapshots before its release."""
    if fn.snaps is None:
        snap = EMPTY
        keys, snaps = [], []
        pending, unmatched = [], []
        for c in fn.calls:
            snap = _close_blocks(snap, pending, c["line"])
            keys.append((c["line"], c["col"]))
            snaps.append(snap)
            snap = _push_pop(snap, c, pending, unmatched)
        snap = _close_blocks(snap, pending, 10 ** 9)
        keys.append((10 ** 9, 0))
        snaps.append(snap)
        pushed = {k for x in fn.calls for k, op in _effect(x["f"]) if op == "push"}
        # an unlock helper opens none of what it closes; a function that
        # does (a lock dropped in a loop) is unbalanced, not entered locked
        unmatched = [(kind, c) for kind, c in unmatched if kind not in pushed]
        for kind, c in unmatched:
            item = ("%s() closes it; opened before %s" % (c["f"], fn.name), c["line"],
                    c["args"][0] if c["args"] else "")
            for i, k in enumerate(keys):
                if k <= (c["line"], c["col"]):
                    snaps[i] = snaps[i]._replace(**{kind: (item,) + getattr(snaps[i], kind)})
        fn.snaps = (keys, snaps)
        fn.unmatched = unmatched
    return fn.snaps


def bh_dropped(fn):
    """Spans ((line, col) of an unlock, of the next lock or None) where
    fn runs with its caller's BH section dropped: a release of a section
    fn did not take, made before fn takes any itself or again after such
    a span, up to the BH lock call that takes it again (__lock_sock()
    drops sk_lock.slock around schedule(); an unlock helper to its end).
    A release after fn took a section of its own is that section's (one
    per branch); an early-exit release of its caller's section leaves no
    span (where the exit path ends is not followed).  reachability() does
    not apply the spans in a function a softirq entry reaches by direct
    calls, unless the function sleeps in one (sleeps_dropped())."""
    if fn.bh_drop is not None:
        return fn.bh_drop
    spans, start, depth, own = [], None, 0, False
    for c in fn.calls:
        for kind, op in _effect(c["f"]):
            if kind != "bh":
                continue
            key = (c["line"], c.get("col", 0))
            if op == "push":
                if start is not None:
                    spans.append((start, key))
                    start = None
                else:
                    depth += 1
                    own = True
            elif c.get("exits"):
                if not depth and start is None and (spans or not own):
                    fn.bh_drop = []
                    return fn.bh_drop
            elif depth:
                depth -= 1
            elif start is None and (spans or not own):
                start = key
    if start is not None:
        spans.append((start, None))
    fn.bh_drop = spans
    return spans


def sleeps_dropped(fn):
    """Does fn sleep (knowledge.SLEEPING_CALLS) inside a span where its
    caller's BH section is dropped (bh_dropped())?  Then it never runs
    in softirq."""
    spans = bh_dropped(fn)
    return bool(spans) and any(c["f"] in K.SLEEPING_CALLS and _in_spans(spans, c)
                               for c in fn.calls)


def _in_spans(spans, c):
    key = (c["line"], c.get("col", 0))
    return any(a < key and (b is None or key < b) for a, b in spans)


def state_at(fn, line, col=0):
    """Sections open at (line, col): the effect of every call before it."""
    keys, snaps = snapshots(fn)
    i = bisect.bisect_left(keys, (line, col))
    return snaps[min(i, len(snaps) - 1)]


_LOOP = re.compile(r"[ \t]*(?:\}\s*)?(while|for)\s*\(")


def included_headers(tree, facts):
    """Headers the files include directly (under include/, or next to the
    file), as paths relative to the tree."""
    out = set()
    found = {}          # (directory, include) -> header or None
    for rel, f in facts.items():
        d = os.path.dirname(rel)
        for inc in f["includes"]:
            key = (d, inc)
            if key not in found:
                found[key] = None
                for cand in (os.path.join("include", inc), os.path.join(d, inc)):
                    cand = os.path.normpath(cand)
                    if cand.endswith(".h") and os.path.isfile(os.path.join(tree, cand)):
                        found[key] = cand
                        break
            if found[key]:
                out.add(found[key])
    return sorted(out)


class Audit:
    def __init__(self, tree, facts, header_structs, paths):
        self.tree = tree
        self.facts = facts
        self.paths = paths
        # the source files read, for memo.put(): {relpath: "functions"
        # (only the text of its functions, offsets from its start) or "file"}
        self.read = {}
        self.fns = []
        self.graph = None
        self.by_name = collections.defaultdict(list)
        self._resolved = {}
        self.dead = {}
        for rel, f in sorted(facts.items()):
            dead = set(f["rt_dead"])
            self.dead[rel] = dead
            for d in f["functions"]:
                fn = Fn(rel, d, dead)
                if fn.dead:
                    continue
                self.fns.append(fn)
                self.by_name[fn.name].append(fn)
        self.structs = dict(header_structs)
        for rel, f in sorted(facts.items()):
            for name, s in f["structs"].items():
                s = dict(s, file=rel)
                if name not in self.structs or self.structs[name].get("header"):
                    self.structs[name] = s
        self._texts = {}
        self._raw_lines = {}
        self._helpers()
        self._index_percpu()
        self._index_fnptrs()

    def _helpers(self):
        """Lock and unlock helpers: a function that returns with sections
        open (htab_lock_bucket(): preempt_disable(), local_irq_save(),
        raw_spin_lock()) opens them in its callers; one that releases
        sections it did not open (htab_unlock_bucket()) closes them."""
        _HELPERS.clear()
        _HELPER_LOCKS.clear()
        found = {}
        inner = {}
        self.names_called = set()
        for fn in self.fns:
            self.names_called |= fn.names
        active = {f for f in self.names_called if _effect(f)}
        for fn in self.fns:
            if fn.names.isdisjoint(active):
                continue
            _, snaps = snapshots(fn)
            eff = []
            for kind in KINDS:
                if kind != "bh" and getattr(snaps[-1], kind):
                    eff.append((kind, "push"))
            for kind in sorted({k for k, _ in fn.unmatched}):
                if kind != "bh" and (kind, "push") not in eff:
                    eff.append((kind, "pop"))
            if eff:
                found.setdefault(fn.name, []).append(eff)
                if snaps[-1].nested:
                    it = snaps[-1].nested[-1]
                    inner.setdefault(fn.name, []).append(
                        (it[0], it[2], "%s() at %s:%d" % (fn.name, fn.file, it[1]), fn))
        for name, effs in found.items():
            if len(effs) == len(self.by_name[name]) and all(e == effs[0] for e in effs):
                _HELPERS[name] = effs[0]
                locks = inner.get(name, ())
                if len(locks) == 1 and locks[0][1]:
                    _HELPER_LOCKS[name] = locks[0]
        self._helper_items = {"%s() -> %s" % (name, it[0]): it
                              for name, it in _HELPER_LOCKS.items()}
        # the snapshots of a function that calls no helper stay right
        for fn in self.fns:
            if fn.snaps is not None and not fn.names.isdisjoint(_HELPERS):
                fn.snaps = None
                fn.unmatched = ()

    # --- indexes ----------------------------------------------------------

    def _index_percpu(self):
        self.datums = {}
        for rel, f in sorted(self.facts.items()):
            for d in f["percpu_defs"]:
                old = self.datums.get(d["name"])
                if d["kind"] == "define" and old is None:
                    self.datums[d["name"]] = dict(d, file=rel)
        self.ptr_vars = {}
        for rel, f in sorted(self.facts.items()):
            for d in f["percpu_ptr_vars"]:
                self.ptr_vars.setdefault(d["name"], dict(d, file=rel))
        self.percpu_fields = collections.defaultdict(list)
        for name, s in sorted(self.structs.items()):
            for field, typ in s.get("percpu", {}).items():
                self.percpu_fields[field].append((name, s, typ))

    def _index_fnptrs(self):
        self.field_targets = collections.defaultdict(list)
        self.entries = {}
        for rel, f in sorted(self.facts.items()):
            dead = self.dead[rel]
            for p in f["fnptrs"]:
                if p["line"] in dead:
                    continue
                for fn in self.resolve(p["fn"], rel):
                    self.field_targets[p["field"]].append((fn, p, rel))
            for r in f["top_registrations"]:
                reason = K.TOP_REGISTRATIONS[r["macro"]]
                for fn in self.resolve(r["fn"], rel):
                    self._entry(fn, reason, rel, r["line"])
        # hrtimer callbacks run where their timer's mode says (irqctx.py):
        # hard-IRQ ones are no softirq entry, but roots with IRQs off
        self.hard_irq = {}
        timers = irqctx.Timers(self)
        for field, typ, how, reason in K.ENTRY_FIELDS:
            for fn, p, rel in self.field_targets.get(field, ()):
                if (typ is None or p["type"] == typ) and (how is None or p["how"] == how):
                    got = timers.of_assign(rel, p["line"]) if field == "function" else None
                    if got and got[0] == "hard":
                        self.hard_irq.setdefault(fn.id, (fn, got[1], rel, p["line"]))
                        continue
                    self._entry(fn, got[1] if got else reason, rel, p["line"])
        for g, c, cb, kind, why in timers.setups():
            for fn in self.resolve(cb, g.file):
                if kind == "hard":
                    self.hard_irq.setdefault(fn.id, (fn, why, g.file, c["line"]))
                else:
                    self._entry(fn, why, g.file, c["line"])
        for fn in self.fns:
            if fn.names.isdisjoint(K.REGISTRATIONS):
                continue
            for c in fn.calls:
                reg = K.REGISTRATIONS.get(c["f"])
                if reg and len(c["args"]) > reg[0]:
                    for cb in self.resolve(c["args"][reg[0]].lstrip("&"), fn.file):
                        self._entry(cb, reg[1], fn.file, c["line"])
        for name, reason in K.NAPI_APIS.items():
            for fn in self.by_name.get(name, ()):
                self._entry(fn, reason, fn.file, fn.line)
        self._bpf_helpers()
        self._index_process_roots()

    def _index_process_roots(self):
        """Functions that start a chain of calls in process context (or
        with IRQs off, never in BH context): system calls and the
        operations they dispatch to, work items, kthreads, netlink and
        sysctl handlers, init and exit code, notifiers of process-context
        chains (knowledge.PROCESS_*)."""
        self.proc_roots = {}

        def root(fn, reason, rel, line):
            self.proc_roots.setdefault(fn.id, {"kind": "root", "reason": reason,
                                               "file": rel, "line": line})
        notifier_vars = collections.defaultdict(list)
        process_calls = set(K.PROCESS_REGISTRATIONS) | set(K.PROCESS_NOTIFIERS)
        for rel, f in sorted(self.facts.items()):
            dead = self.dead[rel]
            for p in f["fnptrs"]:
                if p["line"] in dead:
                    continue
                why = (K.PROCESS_FIELDS.get((p["type"], p["field"]))
                       or K.PROCESS_FIELDS.get((p["type"], None)))
                if why:
                    for fn in self.resolve(p["fn"], rel):
                        root(fn, "%s: %s.%s" % (why, p["type"], p["field"]), rel, p["line"])
                if p["field"] == "notifier_call" and p["var"]:
                    notifier_vars[(rel, p["var"])].append(p)
            for r in f.get("top_process", ()):
                why = K.TOP_PROCESS_REASON.get(r["macro"], "%s() function" % r["macro"])
                for fn in self.resolve(r["fn"], rel):
                    root(fn, why, rel, r["line"])
        for fid, (fn, why, rel, line) in sorted(self.hard_irq.items()):
            if fid not in self.entries:
                root(fn, why, rel, line)
        irqctx.chain_roots(self, notifier_vars, root)
        for fn in self.fns:
            if K.SYSCALL.match(fn.name):
                root(fn, "system call %s" % (fn.params[0] if fn.params else ""),
                     fn.file, fn.line)
            elif fn.init:
                root(fn, "__init/__exit code", fn.file, fn.line)
            if fn.names.isdisjoint(process_calls):
                continue
            for c in fn.calls:
                reg = K.PROCESS_REGISTRATIONS.get(c["f"])
                if reg:
                    for i in reg[0]:
                        if i < len(c["args"]):
                            for cb in self.resolve(c["args"][i].lstrip("&"), fn.file):
                                root(cb, "%s: %s()" % (reg[1], c["f"]), fn.file, c["line"])
                i = K.PROCESS_NOTIFIERS.get(c["f"])
                if i is not None and i < len(c["args"]):
                    for p in notifier_vars.get((fn.file, c["args"][i].lstrip("&")), ()):
                        for cb in self.resolve(p["fn"], fn.file):
                            root(cb, "notifier of a process-context chain: %s()" % c["f"],
                                 fn.file, c["line"])

    def _bpf_helpers(self):
        """Helpers reachable from XDP, tc and lwt programs."""
        proto_fn = {}
        for fn, p, rel in self.field_targets.get("func", ()):
            if p["type"] == "bpf_func_proto" and p["var"]:
                proto_fn.setdefault(p["var"], []).append(fn)
        roots = [fn for fn in self.fns if K.BPF_PROTO_ROOTS.match(fn.name)]
        seen, todo = set(), list(roots)
        while todo:
            fn = todo.pop()
            if fn.id in seen:
                continue
            seen.add(fn.id)
            for c in fn.calls:
                if K.BPF_PROTO_FUNCS.match(c["f"]):
                    todo.extend(self.resolve(c["f"], fn.file))
                else:
                    # an intermediate function that returns protos
                    # (bpf_get_skb_set_tunnel_proto()): its helpers are
                    # those of the program type that returns them
                    todo.extend(t for t in self.resolve(c["f"], fn.file) if t.protos)
            for proto in fn.protos:
                for helper in proto_fn.get(proto, ()):
                    self._entry(helper, "BPF helper %s returned by %s() (XDP/tc/lwt programs run in softirq)"
                                % (proto, fn.name), fn.file, fn.line)

    def _entry(self, fn, reason, rel, line):
        self.entries.setdefault(fn.id, (fn, {"kind": "entry", "reason": reason,
                                             "file": rel, "line": line}))

    def fns_of(self, rel):
        """The functions of file rel, in order."""
        got = self.__dict__.get("_fns_of")
        if got is None:
            got = self._fns_of = collections.defaultdict(list)
            for fn in self.fns:
                got[fn.file].append(fn)
        return got.get(rel, ())

    def resolve(self, name, rel):
        """The functions a call of name in file rel reaches (a list the
        callers only read, memoized)."""
        key = (name, rel)
        got = self._resolved.get(key)
        if got is None:
            got = self._resolved[key] = self._resolve(name, rel)
        return got

    def _resolve(self, name, rel):
        fns = self.by_name.get(name)
        if not fns:
            return []
        if len(fns) == 1 and (not fns[0].static or fns[0].file == rel
                              or fns[0].file.endswith(".h")):
            return fns
        same = [f for f in fns if f.file == rel]
        if same:
            return same
        glob = [f for f in fns if not f.static]
        if glob:
            return glob
        return [f for f in fns if f.file.endswith(".h")]

    # --- call graph and softirq reachability -------------------------------

    def _index_sites(self):
        """Call sites by callee name, by function-name argument and by
        field, so that the callers of one function are cheap to find.
        One pass over every call also keeps, per function, its outgoing
        edges for callees() (name to resolve or field, call) and whether
        any call opens or closes a section."""
        direct_sites = self.direct_sites = collections.defaultdict(list)
        arg_sites = self.arg_sites = collections.defaultdict(list)
        field_sites = self.field_sites = collections.defaultdict(list)
        by_name, fields = self.by_name, self.field_targets
        deferral, effects = K.DEFERRAL, _EFFECTS
        for fn in self.fns:
            edges = []
            has_effect = False
            for c in fn.calls:
                f = c["f"]
                eff = effects.get(f)
                if eff is None:
                    eff = _effect(f)
                if eff:
                    has_effect = True
                if f in by_name:
                    direct_sites[f].append((fn, c))
                    edges.append((f, c, True))
                elif f in fields:
                    field_sites[f].append((fn, c))
                    edges.append((f, c, False))
                args = c["args"]
                if args:
                    if f.startswith("INDIRECT_CALL") and K.INDIRECT_CALL.match(f):
                        last = _WORD.findall(args[0])
                        if last:
                            field_sites[last[-1]].append((fn, c))
                            edges.append((last[-1], c, False))
                    if f not in deferral:
                        for a in args:
                            a = function_arg(a, by_name)
                            if a is not None and a != f:
                                arg_sites[a].append((fn, c))
                                edges.append((a, c, True))
            for fc in fn.field_calls:
                call = {"f": "->" + fc["field"], "line": fc["line"], "col": 0, "args": []}
                field_sites[fc["field"]].append((fn, call))
                edges.append((fc["field"], call, False))
            fn.edges = edges
            fn.has_effect = has_effect
        self.fields_of = collections.defaultdict(set)
        self.stored_generic = collections.defaultdict(set)
        for field, targets in fields.items():
            for t, _, _ in targets:
                if len(targets) <= K.MAX_FIELD_TARGETS:
                    self.fields_of[t.id].add(field)
                else:
                    self.stored_generic[t.id].add(field)

    def callers(self, t):
        if self.graph is not None:
            return [(fn, c) for fn, c, _ in self.graph.callers.get(t, ())]
        out = []
        for sites in (self.direct_sites.get(t.name, ()), self.arg_sites.get(t.name, ())):
            for fn, c in sites:
                if t in self.resolve(t.name, fn.file):
                    out.append((fn, c))
        for field in self.fields_of.get(t.id, ()):
            out.extend(self.field_sites.get(field, ()))
        return out

    def callees(self, fn):
        """(callee, call) pairs, including calls through function pointers."""
        cached = self._callees.get(fn.id)
        if cached is not None:
            return cached
        out = []
        if self.graph is not None:
            out = self._graph_callees.get(fn, [])
            if not fn.names.isdisjoint(self.chains.calls):
                out = self._chain_callees(out)
        else:
            for name, c, direct in fn.edges:
                targets = self.resolve(name, fn.file) if direct else self._field(name)
                out.extend((t, c) for t in targets)
        self._callees[fn.id] = out
        return out

    def _chain_callees(self, out):
        """A call of a notifier chain whose head is known reaches the
        callbacks registered on it, not the notifier core, whose
        nb->notifier_call() reaches every notifier (irqctx.Chains)."""
        new = []
        for t, c in out:
            got = self.chains.targets(c) if t.name == c["f"] else None
            if got is None:
                new.append((t, c))
            else:
                new.extend((cb, c) for cb in got)
        return new

    def _build_graph(self):
        """The typed call graph of context.Graph on this audit's functions
        (calls through function pointers by struct type and field,
        registration APIs that store a parameter, static inlines of the
        headers read, BPF helpers where programs of their types run),
        when the facts carry what it needs (cfacts.typed_facts())."""
        self.graph = None
        if not self.fns or not all("members" in f for f in self.facts.values()):
            return
        from . import context
        self.graph = context.Graph(self.tree, self.facts, None, audit=self)
        # the graph's targets come from sets: one order for every run, by
        # (file, line, name) of the function (rank: equal keys, equal rank)
        rank = {}
        for k in sorted({(fn.file, fn.line, fn.name) for fn in self.fns}):
            rank[k] = len(rank)
        order = {fn: rank[(fn.file, fn.line, fn.name)] for fn in self.fns}
        for t, cs in self.graph.callers.items():
            if len(cs) > 1:
                # the caller, the call's line and column, how
                cs.sort(key=lambda x: (order[x[0]], x[1]["line"], x[1].get("col", 0), x[2]))
        self._graph_callees = collections.defaultdict(list)
        for t in sorted(self.graph.callers, key=order.__getitem__):
            for fn, c, _ in self.graph.callers[t]:
                self._graph_callees[fn].append((t, c))
        stored_in = self.graph.stored_in
        for fn in self.fns:
            if fn not in stored_in:
                continue
            for key in sorted(stored_in[fn], key=str):
                why = K.PROCESS_FIELDS.get(key) or K.PROCESS_FIELDS.get((key[0], None))
                if why and key[0]:
                    self.proc_roots.setdefault(fn.id, {
                        "kind": "root", "reason": "%s: %s.%s" % (why, key[0], key[1]),
                        "file": fn.file, "line": fn.line})

    def _field(self, field):
        targets = self.field_targets.get(field, ())
        if len(targets) > K.MAX_FIELD_TARGETS:
            return []
        return [t for t, _, _ in targets]

    def reachability(self):
        """fn.id -> (parent fn or None, reason) for functions that run with
        BH disabled: softirq entries, their callees, and functions called
        inside a BH-disabled section."""
        self._callees = {}
        self._build_graph()
        self.chains = irqctx.Chains(self)
        if self.graph is None:
            self._index_sites()
        else:
            active = {f for f in self.names_called if _effect(f)}
            for fn in self.fns:
                fn.has_effect = not fn.names.isdisjoint(active)
        primary = self.graph.stored.get(irqctx.PRIMARY, ()) if self.graph is not None else ()

        def no_edge(t, c):
            # a chain of known context, or a primary interrupt handler
            # called through irqaction.handler: IRQs off (irqctx.py); or
            # a call that sleeps, direct or resolved to a sleeping
            # function: what runs beneath it (the context switch, a
            # lock's slow path) runs because the caller sleeps, which
            # softirq and BH-disabled code never do
            return irqctx.chain_head(c) or (c["f"] == irqctx.PRIMARY_CALL and t in primary) \
                or c["f"] in K.SLEEPING_CALLS or t.name in K.SLEEPING_CALLS
        parent = {}
        queue = collections.deque()
        for fid, (fn, reason) in sorted(self.entries.items()):
            parent[fid] = (None, reason)
            queue.append(fn)
        # what the softirq entries reach by direct calls: there an unlock
        # of the caller's BH lock leaves BH disabled (in_softirq()).  Not
        # through function pointers, whose targets are over-approximated
        # (clip_start_xmit() -> vcc->send() reached sigd_send() ->
        # lock_sock() -> __lock_sock())
        softirq = set(parent)
        todo = list(queue)
        while todo:
            for t, c in self.callees(todo.pop()):
                if t.id not in softirq and c["f"] == t.name and not no_edge(t, c):
                    softirq.add(t.id)
                    todo.append(t)
        seeds = []
        for fn in self.fns:
            if not fn.has_effect:
                continue
            if self.graph is not None:
                calls = [(t, c) for t, c in self.callees(fn)]
            else:
                calls = [(t, c) for c in fn.calls for t, _ in self._direct(fn, c)]
            for t, c in calls:
                if no_edge(t, c):
                    continue
                snap = state_at(fn, c["line"], c.get("col", 0))
                if snap.bh:
                    sec = snap.bh[-1]
                    seeds.append((t, {"kind": "bh-section", "reason":
                                      "called under %s() in %s()" % (sec[0], fn.name),
                                      "file": fn.file, "line": c["line"],
                                      "function": fn.name}))
        for t, reason in seeds:
            if t.id not in parent:
                parent[t.id] = (None, reason)
                queue.append(t)
        while queue:
            fn = queue.popleft()
            drop = bh_dropped(fn) if fn.id not in softirq or sleeps_dropped(fn) else ()
            for t, c in self.callees(fn):
                if t.id not in parent and not no_edge(t, c) and \
                        not (drop and _in_spans(drop, c)):
                    parent[t.id] = ((fn, c), None)
                    queue.append(t)
        self.parent = parent
        self._inherit()
        return parent

    def n_callers(self, fn):
        return len(self.callers(fn))

    # --- process context, by evidence ----------------------------------------

    def _runs_param(self, g, i, depth=3):
        """Does g call its parameter i, itself or through the functions
        it passes it to?  A function passed to g is only called where g
        is when it does; a registration API stores it instead."""
        key = (g.id, i)
        memo = self.__dict__.setdefault("_runs_memo", {})
        if key in memo:
            return memo[key]
        memo[key] = False
        p = g.params[i] if i < len(g.params) else ""
        got = False
        if p:
            for c in g.calls:
                if c["f"] == p:
                    got = True
                    break
                if depth and p in c["args"]:
                    j = c["args"].index(p)
                    if c["f"].startswith("INDIRECT_CALL") or c["f"] in K.SYNC_CALLBACKS:
                        got = True
                        break
                    if any(self._runs_param(h, j, depth - 1)
                           for h in self.resolve(c["f"], g.file)):
                        got = True
                        break
        memo[key] = got
        return got

    def proof_callers(self, t):
        """(callers, ends) of t for a process-context proof: callers as
        (fn, call, how); ends name what calls t from outside what the
        audit sees (a callback handed to code outside the audited files
        or stored by a registration API, a field nothing resolvable
        calls)."""
        if self.graph is not None:
            return self._graph_proof_callers(t)
        out, ends = [], []
        for fn, c in self.direct_sites.get(t.name, ()):
            if t in self.resolve(t.name, fn.file):
                out.append((fn, c, "direct"))
        for fn, c in self.arg_sites.get(t.name, ()):
            if t not in self.resolve(t.name, fn.file):
                continue
            f = c["f"]
            if f.startswith("INDIRECT_CALL") or f in K.SYNC_CALLBACKS:
                out.append((fn, c, "passed to %s()" % f))
                continue
            i = c["args"].index(t.name) if t.name in c["args"] else c["args"].index("&" + t.name)
            callees = self.resolve(f, fn.file)
            if not callees:
                ends.append("passed to %s() in %s() (%s:%d), outside the audited files"
                            % (f, fn.name, fn.file, c["line"]))
            elif any(self._runs_param(g, i) for g in callees):
                out.append((fn, c, "passed to %s()" % f))
            else:
                ends.append("passed to %s() in %s() (%s:%d), which stores it"
                            % (f, fn.name, fn.file, c["line"]))
        for field in self.fields_of.get(t.id, ()):
            out.extend((fn, c, "->%s" % field) for fn, c in self.field_sites.get(field, ()))
        for field in self.stored_generic.get(t.id, ()):
            ends.append("stored in .%s, a field too generic to resolve by name" % field)
        return out, ends

    def _not_called_by(self, t, fn, c):
        """T is handed to the call C in FN (a registration that stores it):
        true when that callee does not run it (not an INDIRECT_CALL or
        a synchronous callback taker, and no resolved callee runs the
        parameter T is passed as)."""
        f = c["f"]
        if f.startswith("INDIRECT_CALL") or f in K.SYNC_CALLBACKS:
            return False
        i = next((k for k, a in enumerate(c["args"]) if a.lstrip("&") == t.name), None)
        return i is None or not any(self._runs_param(h, i) for h in self.resolve(f, fn.file))

    def _graph_proof_callers(self, t):
        g = self.graph
        out, ends = [], []
        for fn, c, how in g.callers.get(t, ()):
            if how.startswith("passed to "):
                f = c["f"]
                if self._not_called_by(t, fn, c):
                    ends.append("passed to %s() in %s() (%s:%d), which does not call it"
                                % (f, fn.name, fn.file, c["line"]))
                    continue
            out.append((fn, c, how))
        why = g.roots.get(t)
        if why and (why.startswith(("callback", "exported", "no caller"))):
            ends.append(why)
        if g.unknown_runs and ("bpf_func_proto", "func") in g.stored_in.get(t, ()):
            r = g.unknown_runs[0]
            ends.append("a BPF helper, and %d site(s) run programs of a type the audit does "
                        "not know (%s() in %s() at %s:%d)" % (
                            len(g.unknown_runs), r["call"], r["function"], r["file"], r["line"]))
        elif not out and not ends:
            keys = sorted(g.stored_in.get(t, ()), key=str)
            if keys:
                ends.append("stored in %s.%s, called nowhere the audit resolves"
                            % (keys[0][0] or "?", keys[0][1]))
        return out, ends

    def prove_process(self, fn):
        """Every chain of callers up to fn, by evidence: ("process",
        [root chains]) when each starts in a process-context root, else
        ("unknown", the first function without a known caller, why, its
        chain down to fn)."""
        memo = self.__dict__.setdefault("_proofs", {})
        if fn.id in memo:
            return memo[fn.id]
        nxt = {fn.id: None}             # id -> (callee Fn, call, how)
        byid = {fn.id: fn}
        queue = collections.deque([fn])
        roots, ends = [], []
        callers_in = collections.defaultdict(list)
        while queue:
            u = queue.popleft()
            if u.id in self.proc_roots:
                roots.append(u)
                continue
            cs, why = self.proof_callers(u)
            for w in why:
                ends.append((u, w))
            if not cs and not why:
                ends.append((u, "no caller in the audited files"))
            for caller, c, how in cs:
                callers_in[u.id].append(caller.id)
                if caller.id not in nxt:
                    nxt[caller.id] = (u, c, how)
                    byid[caller.id] = caller
                    queue.append(caller)
            if len(nxt) > K.MAX_ROOT_REGION:
                ends.append((u, "more than %d functions call it, directly or not"
                             % K.MAX_ROOT_REGION))
                break
        if not ends:
            # a cycle of callers that no root reaches is a chain without a start
            good = {r.id for r in roots}
            todo = list(good)
            callees_in = collections.defaultdict(list)
            for callee, cls in callers_in.items():
                for c in cls:
                    callees_in[c].append(callee)
            while todo:
                x = todo.pop()
                for y in callees_in.get(x, ()):
                    if y not in good:
                        good.add(y)
                        todo.append(y)
            stuck = sorted(i for i in nxt if i not in good)
            if stuck:
                ends.append((byid[stuck[0]], "only called in a cycle of callers no root reaches"))
        if ends:
            u, why = ends[0]
            res = ("unknown", u, why, self._proof_chain(u, nxt, byid), len(ends))
        else:
            chains = [self._proof_chain(r, nxt, byid) for r in
                      sorted(roots, key=lambda r: (len(self._proof_chain(r, nxt, byid)), r.id))]
            res = ("process", chains, len(roots))
        memo[fn.id] = res
        return res

    def _proof_chain(self, top, nxt, byid):
        """[{function, file, line, root|called_at}] from top down to the
        function the search started from."""
        chain = []
        cur = top
        while cur is not None:
            step = {"function": cur.name, "file": cur.file, "line": cur.line}
            hop = nxt[cur.id]
            if not chain and cur.id in self.proc_roots:
                step["root"] = self.proc_roots[cur.id]
            if chain:
                pass
            chain.append(step)
            if hop is None:
                break
            callee, c, how = hop
            step["calls"] = "%s:%d" % (cur.file, c["line"])
            if how != "direct":
                step["via"] = how
            cur = callee
        return chain

    # --- nested-BH locks: which lock, held where ----------------------------

    _PTR_WRAP = re.compile(r"^(?:this_cpu_ptr|raw_cpu_ptr|__this_cpu_ptr)\((.*)\)$")

    def lock_key(self, fn, arg):
        """(datum, key) naming the lock an argument of fn designates, the
        same in every function: the per-CPU object it belongs to, resolved
        through a member chain (&gcells->cells->bh_lock: gro_cells.cells),
        this_cpu_ptr() (&this_cpu_ptr(p)->bh_lock) or a local pointer taken
        from the datum (idst = this_cpu_ptr(..); &idst->bh_lock), then the
        lock member; a per-CPU local_lock_t of its own is its own datum.
        (None, text) when the object is not a known per-CPU datum."""
        cache = self.__dict__.setdefault("_lock_keys", {})
        ck = (fn.id, arg)
        if ck in cache:
            return cache[ck]
        s = re.sub(r"\s+", "", arg).lstrip("&")
        m = self._PTR_WRAP.match(s)
        if m:
            s = m.group(1).lstrip("&")
        while s.startswith("(") and s.endswith(")") and s.count("(") == 1:
            s = s[1:-1]
        m = re.match(r"^(.*)(?:->|\.)(\w+)$", s)
        base, member = (m.group(1), m.group(2)) if m else (s, "")
        d = None
        w = self._PTR_WRAP.match(base)
        if w:
            d = self.datum_of(w.group(1), fn.file, fn)
        elif re.fullmatch(r"\w+", base) and base not in self.datums and \
                base not in self.ptr_vars:
            for a in fn.calls:
                if a.get("target") == base and a["f"] in K.PTR_ACCESSORS and a["args"]:
                    d = self.datum_of(a["args"][0], fn.file, fn)
                    break
        elif base:
            d = self.datum_of(base, fn.file, fn)
        if d:
            res = (d[1], d[1] + "".join("." + x for x in d[2]) + ("." + member if member else ""))
        else:
            res = (None, "~" + s)
        cache[ck] = res
        return res

    def _keyed(self, fn, it):
        """A nested-BH section (call, line, argument) of fn with the lock it
        holds: + (key, datum, description)."""
        if len(it) > 3:
            return it
        inner = self._helper_items.get(it[0])
        if inner:
            datum, key = self.lock_key(inner[3], it[2])
            desc = "%s() at %s:%d, which takes %s(%s) (%s)" % (
                it[0].split("()")[0], fn.file, it[1], inner[0], it[2], inner[2])
        else:
            datum, key = self.lock_key(fn, it[2])
            desc = "%s(%s) in %s() at %s:%d" % (it[0], it[2], fn.name, fn.file, it[1])
        return it + (key, datum, desc)

    def _site_locks(self, caller, c):
        """{key: (description, datum)}: the nested-BH locks held at call c
        of caller (taken there, or asserted by lockdep_assert_held())."""
        memo = self.__dict__.setdefault("_site_memo", {})
        mk = (caller.id, c["line"], c.get("col", 0))
        if mk in memo:
            return memo[mk]
        out = memo[mk] = {}
        for it in state_at(caller, c["line"], c.get("col", 0)).nested:
            it = self._keyed(caller, it)
            out.setdefault(it[3], (it[5], it[4]))
        for key, v in self._asserted(caller).items():
            out.setdefault(key, v)
        return out

    def _lock_callers(self, t):
        """The callers of t for inherited locks: a function passed to one
        that only stores it (can_rx_register()) is not called there."""
        if self.graph is None:
            return self.callers(t)
        out = []
        for fn, c, how in self.graph.callers.get(t, ()):
            if how.startswith("passed to ") and self._not_called_by(t, fn, c):
                continue
            out.append((fn, c))
        return out

    def _inherit(self):
        """Nested-BH locks held around every call of a function (for
        callbacks invoked inside the caller's locked section, such as
        br_nf_push_frag_xmit() under br_nf_dev_queue_xmit()'s lock):
        fn.id -> {lock key: (where it is taken, datum)}.  The greatest
        solution: a cycle of callers (do_execute_actions() ->
        clone_execute() -> do_execute_actions()) keeps what the calls
        into it hold; one that nothing outside calls inherits nothing."""
        cand = {}
        locking = K.NESTED_ON | K.ASSERT_HELD | set(_HELPER_LOCKS)
        for fn in self.fns:
            if fn.names.isdisjoint(locking):
                continue
            for t, c in self.callees(fn):
                if self._site_locks(fn, c):
                    cand[t.id] = t
        # and what they call, transitively: a caller outside cand holds
        # what its call site holds; one in cand and not computed yet
        # holds every lock (the greatest solution: a cycle of calls keeps
        # what the calls into it hold)
        todo = list(cand.values())
        while todo:
            for t, _ in self.callees(todo.pop()):
                if t.id not in cand:
                    cand[t.id] = t
                    todo.append(t)
        top = None              # not known yet: every lock
        held = {}
        last = {}
        sites = {}
        for fid, t in cand.items():
            if fid not in self.entries:
                sites[fid] = [(caller, c, self._site_locks(caller, c), caller.id in cand
                               and caller.id not in self.entries)
                              for caller, c in self._lock_callers(t)]
        for _ in range(60):
            new = {}
            for fid, cs in sites.items():
                if fid in held and held[fid] == {}:
                    new[fid] = {}       # it only shrinks: nothing, for good
                    continue
                acc = top
                for caller, c, here, inside in cs:
                    if inside:
                        h = held.get(caller.id, top)
                        if h is top:
                            continue
                        if h:
                            # where a lock is taken names it better than an assertion
                            here = dict(here, **{k: v for k, v in h.items() if k not in here
                                                 or here[k][0].startswith("lockdep_assert")})
                    acc = dict(here) if acc is top else {k: v for k, v in acc.items()
                                                         if k in here}
                    if not acc:
                        break
                new[fid] = acc if cs else {}
            same = {f: None if v is top else sorted(v) for f, v in new.items()} == \
                {f: None if v is top else sorted(v) for f, v in held.items()}
            if same:
                break
            last, held = held, new
        else:
            # not settled: keep what the last two rounds agree on
            held = {fid: v for fid, v in held.items()
                    if v is not top and last.get(fid) is not top and
                    sorted(v) == sorted(last.get(fid) or ())}
        held = {fid: v for fid, v in held.items() if v}
        self.inherited = held
        self.inherited_irq = self._inherit_kind("irq")
        self.inherited_preempt = self._inherit_kind("preempt")
        self.inherited_local = self._inherit_kind("local")

    def _inherit_kind(self, kind):
        """Functions every caller of which calls them with IRQs off (or
        preemption off, or a local_lock() held): fn.id -> the section of
        one caller (for a local lock, (that, the lock's argument), the
        same argument in every caller). A function with a caller the
        audit cannot see (an entry point, exported, passed or stored
        beyond the audited files) inherits nothing."""
        cand = {}
        for fn in self.fns:
            if not fn.has_effect:
                continue
            for t, c in self.callees(fn):
                if getattr(state_at(fn, c["line"], c.get("col", 0)), kind):
                    cand[t.id] = t
        held = {}
        for _ in range(6):
            new = {}
            for fid, t in cand.items():
                if fid in self.entries or fid in self.proc_roots:
                    continue
                cs, ends = self.proof_callers(t)
                if ends or not cs:
                    continue
                got = None
                for caller, c, _ in cs:
                    sec = getattr(state_at(caller, c["line"], c.get("col", 0)), kind)
                    if sec:
                        item = ("%s() in %s() at %s:%d" % (sec[-1][0], caller.name,
                                                           caller.file, c["line"]), sec[-1][2])
                    elif caller.id in held:
                        item = held[caller.id]
                    else:
                        got = None
                        break
                    if kind == "local" and got and got[1] != item[1]:
                        got = None
                        break
                    got = got or item
                if got:
                    new[fid] = got
            if new == held:
                break
            held = new
            for fid in list(held):
                for t, _ in self.callees(cand[fid]):
                    cand.setdefault(t.id, t)
        if kind != "local":
            held = {fid: v[0] for fid, v in held.items()}
        return held

    def _direct(self, fn, c):
        return [(t, c) for t in self.resolve(c["f"], fn.file)]

    def path(self, fn):
        """Call path from the softirq entry point (or BH section) to fn."""
        chain = []
        cur = fn
        seen = set()
        while cur is not None and cur.id not in seen:
            seen.add(cur.id)
            link, reason = self.parent[cur.id]
            if link is None:
                chain.append({"function": cur.name, "file": cur.file, "line": cur.line,
                              "entry": reason})
                break
            caller, c = link
            chain.append({"function": cur.name, "file": cur.file, "line": cur.line,
                          "called_at": "%s:%d" % (caller.file, c["line"])})
            cur = caller
        return list(reversed(chain))

    # --- accesses ---------------------------------------------------------

    def text(self, rel):
        if rel not in self._texts:
            self.read.setdefault(rel, "functions")
            with open(os.path.join(self.tree, rel), errors="replace") as f:
                t = cfacts.Text(f.read())
            extents = self.facts[rel].get("extents")
            if extents is not None:
                funcs = {x[0]: {"body": x[-2], "end_off": x[-1]} for x in extents}
            else:
                funcs = {fn["name"]: fn for fn in cfacts.functions(t)}
            self._texts[rel] = (t, funcs)
        return self._texts[rel]

    def datum_of(self, arg, rel=None, fn=None):
        """(kind, name, member chain) for the accessor argument, or None.
        A __percpu field is named by the struct type of the expression it
        is read from (a->cpu_qstats with a a struct tc_action *), when the
        declarations of fn tell it, else by the structs declaring a field
        of that name that the file can see."""
        expr = arg.strip().lstrip("&").strip("()")
        m = re.match(r"^(\w+)((?:\.\w+)*)$", expr)
        if m and m.group(1) in self.datums:
            return ("static", m.group(1), [x for x in m.group(2).split(".") if x])
        if m and m.group(1) in self.ptr_vars and not m.group(2):
            return ("ptrvar", m.group(1), [])
        ids = re.findall(r"(?:->|\.)(\w+)", expr)
        for k in range(len(ids) - 1, -1, -1):
            if ids[k] not in self.percpu_fields:
                continue
            # a->cpu_qstats, or (mdev)->stats->stats.rx_packets after a
            # macro: the field, then the members of the per-CPU object
            head = re.match(r"^(.*?(?:->|\.)\s*%s)\b" % re.escape(ids[k]),
                            expr.replace("(", "").replace(")", ""))
            typ = self._base_type(head.group(1) if head else expr, fn)
            if typ and any(c[0] == typ for c in self.percpu_fields[ids[k]]):
                return ("field", "%s:%s" % (typ, ids[k]), [])
            return ("field", self._field_owner(ids[k], rel), [])
        return None

    def _base_type(self, expr, fn):
        """Struct type of the expression the last member of expr is read
        from: 'a->cpu_qstats' -> the declared type of a; deeper chains
        through the member types of the structs read."""
        if fn is None or self.graph is None:
            return None
        m = re.match(r"^\s*([A-Za-z_]\w*)((?:\s*(?:->|\.)\s*\w+)+)\s*$",
                     expr.lstrip("*( ").rstrip(") "))
        if not m:
            return None
        chain = [m.group(1)] + re.findall(r"\w+", m.group(2))
        return self.graph.rtype(fn, chain[:-1])

    def _field_owner(self, field, rel):
        """'struct:field' key: the struct declaring this __percpu field that
        the accessing file can see (same directory or included header)."""
        cands = self.percpu_fields[field]
        if len(cands) > 1 and rel:
            incs = {"include/" + i for i in self.facts.get(rel, {}).get("includes", ())}
            d = os.path.dirname(rel)
            near = [c for c in cands if c[1].get("file") in incs or
                    os.path.dirname(c[1].get("file", "")) == d or c[1].get("file") == rel]
            cands = near or cands
        return "%s:%s" % (cands[0][0], field)

    def accesses(self):
        reach = self.reachability()
        out = collections.defaultdict(list)
        macros = collections.defaultdict(list)
        for rel in sorted(self.facts):
            for name, defs in self.facts[rel].get("percpu_macros", {}).items():
                macros[name].extend(defs)
        for name, defs in self._op_helpers().items():
            if name not in macros:
                macros[name] = defs
        macro_names = set(macros)
        kinds = {}          # call name -> "ptr", an op_accessor() kind or None
        for fn in self.fns:
            if self.facts[fn.file].get("graph_only"):
                continue
            expand = not fn.names.isdisjoint(macro_names)
            if not expand and "container_of" not in fn.names:
                for f in fn.names:
                    if f not in kinds:
                        kinds[f] = "ptr" if f in K.PTR_ACCESSORS else K.op_accessor(f)
                    if kinds[f]:
                        break
                else:
                    continue        # no accessor called here
            calls = self._expanded(fn, macros) if expand else fn.calls
            for c in calls:
                if c["f"] == "container_of":
                    datum = self._local_container(c)
                    if datum:
                        self._record(out, fn, self._container_call(fn, c), ("static", datum, []),
                                     "ptr", reach)
                    continue
                kind = None
                if c["f"] in K.PTR_ACCESSORS:
                    kind = "ptr"
                elif K.op_accessor(c["f"]):
                    kind = K.op_accessor(c["f"])
                if not kind or not c["args"]:
                    continue
                d = self.datum_of(c["args"][0], fn.file, fn)
                if not d:
                    continue
                self._record(out, fn, c, d, kind, reach)
        cpuarray.accesses(self, out, reach)
        self.rt_excluded = collections.Counter()
        for rel, f in self.facts.items():
            dead = self.dead[rel]
            if not dead or f.get("graph_only"):
                continue        # nothing below can be in !PREEMPT_RT code
            for d in f["functions"]:
                for c in d["calls"]:
                    if (c["line"] in dead or d["line"] in dead) and (
                            c["f"] in K.PTR_ACCESSORS or K.op_accessor(c["f"])) and c["args"]:
                        dd = self.datum_of(c["args"][0], rel)
                        if dd:
                            key = dd[1] + "".join("." + x for x in dd[2][:2])
                            self.rt_excluded[key] += 1
                            self.rt_excluded[dd[1]] += 1
        return out

    def _op_helpers(self):
        """Small static functions that are only IRQ-safe per-CPU operations
        on their __percpu pointer parameters (qstats_cpu_drop_inc(q):
        this_cpu_inc(q->drops)): {name: [{"params", "calls", "where"}]},
        expanded at their call sites as the macros are, the call site
        being the access.  A name defined more than once, or differently,
        is not expanded."""
        out = {}
        for name, fns in self.by_name.items():
            if len(fns) != 1:
                continue
            fn = fns[0]
            if not fn.static or not fn.calls or len(fn.calls) > 3 or not fn.params:
                continue
            ok = True
            for c in fn.calls:
                if K.op_accessor(c["f"]) != "irq-safe" or c["f"].endswith("_read") or \
                        not c["args"]:
                    ok = False
                    break
                m = re.match(r"^[&(\s]*(\w+)\s*(?:->|\.|\)|$)", c["args"][0])
                if not m or m.group(1) not in fn.params:
                    ok = False
                    break
            if ok:
                out[name] = [{"params": list(fn.params), "where": fn.where(),
                              "calls": [{"f": c["f"], "args": list(c["args"])}
                                        for c in fn.calls]}]
        return out

    @staticmethod
    def _expanded(fn, macros):
        """fn's calls, an invocation of a macro that does per-CPU
        operations replaced by those operations (its arguments put in
        for its parameters), at the invocation's place."""
        for c in fn.calls:
            defs = macros.get(c["f"])
            if not defs:
                yield c
                continue
            for d in defs:
                if len(d["params"]) != len(c["args"]):
                    continue
                for mc in d["calls"]:
                    args = []
                    for a in mc["args"]:
                        for p, v in zip(d["params"], c["args"]):
                            a = re.sub(r"\b%s\b" % re.escape(p), lambda m: v, a)
                        args.append(re.sub(r"\(\s*(\w+(?:\s*(?:->|\.)\s*\w+)*)\s*\)", r"\1", a))
                    yield dict(c, f=mc["f"], args=args, macro=c["f"],
                               **({"inline": "%s() (%s)" % (c["f"], d["where"])}
                                  if "where" in d else {}))

    def _local_container(self, c):
        """The per-CPU datum whose local copy container_of() reaches
        (the backlog NAPI of softnet_data is only polled on its CPU)."""
        if len(c["args"]) != 3 or c["args"][2].strip() not in K.LOCAL_CONTAINER_MEMBERS:
            return None
        typ = " ".join(c["args"][1].split())
        m = re.fullmatch(r"struct (\w+)", typ)
        datum = K.LOCAL_CONTAINERS.get((m.group(1), c["args"][2].strip())) if m else None
        return datum if datum in self.datums else None

    def _container_call(self, fn, c):
        t, funcs = self.text(fn.file)
        f = funcs.get(fn.name)
        var = cfacts.assign_target(t, c["line"], c["col"])
        uses = []
        if var and f:
            uses = cfacts.member_uses(t, var, t.offset(c["line"], c["col"]), f["end_off"])
        return dict(c, target=var, uses=uses, returned=False)

    def _record(self, out, fn, c, d, kind, reach):
        dkind, name, chain = d
        key = (dkind, name)
        remote = False
        if c["f"] in K.CPU_ARG:
            cpu = c["args"][1] if len(c["args"]) > 1 else ""
            local = re.fullmatch(r"(raw_)?smp_processor_id\(\)|get_cpu\(\)", cpu)
            remote = not (local or cpu in fn.local_cpu)
        base = {"file": fn.file, "function": fn.name, "accessor": c["f"],
                "op": kind, "remote": remote}
        if c.get("inline"):
            base["inline"] = c["inline"]
        uses = c.get("uses") or []
        target = c.get("target")
        if not chain:
            # follow the pointer: member uses here, then into callees
            n = len(out[key])
            for ch, line in (uses if target else []):
                if ch[-1] in K.SYNC_MEMBERS:
                    continue
                out[key].append(self._access(fn, dict(base, line=line, col=0,
                                                      member=ch, _var=target), {target}, reach))
            if len(out[key]) > n:
                whole.record(self, out, key, fn, c, target, base, reach)
            text = "%s(%s)" % (c["f"], ",".join(c["args"]))
            self._callee_uses(out, key, fn, c, target or text, base, reach)
            if len(out[key]) > n:
                if c.get("returned"):
                    out[key][-1]["escapes"] = "returned by %s()" % fn.name
                return
        out[key].append(self._access(fn, dict(base, line=c["line"], col=c["col"],
                                              member=chain, _target=target),
                                     {target} - {None}, reach))
        if not chain:
            whole.mark(self, fn, c, out[key][-1])
        if c.get("returned"):
            out[key][-1]["escapes"] = "returned by %s()" % fn.name

    def _callee_uses(self, out, key, fn, c, var, base, reach):
        """Pointer passed on to a callee: follow its member uses there,
        with the sections the caller holds around the call."""
        for cc in fn.calls:
            if cc is c or ((cc["line"], cc["col"]) < (c["line"], c["col"])
                           and not (cc["line"] == c["line"] and var in cc["args"])):
                continue
            for i, a in enumerate(cc["args"]):
                if a != var:
                    continue
                outer = state_at(fn, cc["line"], cc["col"])
                outer = outer._replace(nested=tuple(self._keyed(fn, it) for it in outer.nested))
                for callee in self.resolve(cc["f"], fn.file):
                    if i >= len(callee.params) or not callee.params[i]:
                        continue
                    if self.facts[callee.file].get("graph_only"):
                        continue    # a library inline: the call site is the access
                    t, funcs = self.text(callee.file)
                    cf = funcs.get(callee.name)
                    if not cf:
                        continue
                    for ch, line in cfacts.member_uses(t, callee.params[i], cf["body"],
                                                       cf["end_off"]):
                        if ch[-1] in K.SYNC_MEMBERS:
                            continue
                        acc = dict(base, file=callee.file, function=callee.name,
                                   line=line, col=0, member=ch, _var=callee.params[i],
                                   via="%s() passes it at %s:%d" % (fn.name, fn.file, cc["line"]))
                        out[key].append(self._access(callee, acc, {var, callee.params[i]},
                                                     reach, outer))
                    whole.record_callee(self, out, key, callee, callee.params[i],
                                        dict(base, via="%s() passes it at %s:%d"
                                             % (fn.name, fn.file, cc["line"])),
                                        {var, callee.params[i]}, reach, outer)

    def _reads_pointer(self, name, acc):
        """The access reads a pointer (the datum or the member) and keeps
        it: one IRQ-safe read, but what it points to is shared per CPU.
        A pointer written, or read only to be compared, is one IRQ-safe
        operation."""
        if "_read" not in acc["accessor"] or not (acc.get("_target") or acc.get("member")):
            return False
        if "*" in self.datums.get(name, {}).get("type", ""):
            return True
        s = self._struct_of(name)
        return bool(s and ".".join(acc.get("member") or []) in s.get("pointers", []))

    def _struct_of(self, name):
        d = self.datums.get(name)
        if not d or "*" in d["type"]:
            return None
        m = re.match(r"(?:struct|union)\s+(\w+)$", d["type"])
        return self.structs.get(m.group(1)) if m else None

    def _nested_members(self):
        """Last names of the locks passed to local_lock_nested_bh()."""
        got = self.__dict__.get("_nested_names")
        if got is None:
            got = self._nested_names = set()
            for fn in self.fns:
                if fn.names.isdisjoint(K.NESTED_ON):
                    continue
                for c in fn.calls:
                    if c["f"] in K.NESTED_ON and c["args"]:
                        w = re.findall(r"\w+", c["args"][0])
                        if w:
                            got.add(w[-1])
        return got

    def _asserted(self, fn):
        """lockdep_assert_held() of a nested-BH lock in fn whose object
        resolves to a per-CPU datum (&p->lock with p taken from it,
        &this_cpu_ptr(d)->lock, this_cpu_ptr(&d.lock)): {key: (where, datum)}."""
        cache = self.__dict__.setdefault("_asserted_cache", {})
        if fn.id in cache:
            return cache[fn.id]
        out = {}
        for c in fn.calls:
            if c["f"] not in K.ASSERT_HELD or not c["args"]:
                continue
            datum, key = self.lock_key(fn, c["args"][0])
            if datum and key.split(".")[-1] in self._nested_members():
                out.setdefault(key, ("%s(%s) in %s() at %s:%d" % (
                    c["f"], c["args"][0], fn.name, fn.file, c["line"]), datum))
        cache[fn.id] = out
        return out

    def _access(self, fn, acc, names, reach, outer=None):
        snap = state_at(fn, acc["line"], acc["col"])
        snap = snap._replace(nested=tuple(self._keyed(fn, it) for it in snap.nested))
        if fn.id in self.inherited:
            snap = snap._replace(nested=snap.nested + tuple(
                ("local_lock_nested_bh", 0, "%s (held by every caller)" % key, key, datum,
                 "held by every caller of %s(): %s" % (fn.name, where))
                for key, (where, datum) in sorted(self.inherited[fn.id].items())))
        for key, (where, datum) in sorted(self._asserted(fn).items()):
            snap = snap._replace(nested=snap.nested + (
                ("lockdep_assert_held", 0, key, key, datum, where),))
        for kind, held in (("irq", self.inherited_irq), ("preempt", self.inherited_preempt)):
            if fn.id in held and not getattr(snap, kind):
                snap = snap._replace(**{kind: (("held by every caller: " + held[fn.id], 0, ""),)})
        if fn.id in self.inherited_local and not snap.local:
            where, arg = self.inherited_local[fn.id]
            snap = snap._replace(local=(("held by every caller: " + where, 0, arg),))
        for a, b in fn.irq_blocks:
            if a <= acc["line"] <= b:
                snap = snap._replace(irq=snap.irq + (("irqs_disabled", a, ""),))
        if fn.id in self.hard_irq and fn.id not in reach and not snap.irq:
            snap = snap._replace(irq=(("hard-IRQ hrtimer callback", 0, ""),))
        snap = self._loop_header(fn, acc["line"], snap)
        # the sections open at the call that passed the pointer are open
        # for the whole callee, its loop conditions included
        if outer is not None:
            snap = merge(outer, snap)
        if acc["remote"]:
            ctx, ev = "remote", {"note": "per_cpu() of a CPU that may not be the local one"}
        elif fn.init:
            ctx, ev = "init", {"note": "__init/__exit function"}
        elif snap.bh:
            s = snap.bh[-1]
            ctx, ev = "bh-disabled", {"section": "%s()" % s[0],
                                      "at": "%s:%d" % (fn.file, s[1])}
        elif fn.id in reach:
            ctx, ev = "softirq", {"path": self.path(fn)}
        else:
            ctx, ev = self._process_evidence(fn)
        acc["context"] = ctx
        acc["evidence"] = ev
        acc["protection"] = (snap, {n for n in names if n and re.fullmatch(r"\w+", n)})
        return acc

    def _process_evidence(self, fn):
        """("process", evidence with every root chain) when all chains of
        callers start in a process-context root, else ("unknown", the
        function where a chain starts without one)."""
        got = self.prove_process(fn)
        if got[0] == "process":
            chains, n = got[1], got[2]
            first = chains[0]
            return "process", {
                "note": "every chain of callers starts in process context (%d root%s, "
                        "e.g. %s: %s)" % (n, "" if n == 1 else "s", first[0]["root"]["reason"],
                                         " -> ".join(x["function"] + "()" for x in first)),
                "roots": chains[:K.MAX_ROOT_CHAINS], "n_roots": n}
        _, u, why, chain, n = got
        return "unknown", {
            "note": "no known context: %s() (%s:%d): %s" % (u.name, u.file, u.line, why),
            "rootless": {"function": u.name, "file": u.file, "line": u.line, "why": why},
            "chain": chain, "n_rootless": n}

    def access_kind(self, acc, names):
        """'read' when the access only loads the member or the value
        (x = p->m, __this_cpu_read(), a test), else 'write' (stores,
        increments, an address handed on, anything not known)."""
        member = acc.get("member") or []
        if not member:
            a = acc["accessor"]
            return "read" if re.search(r"_read$", a) else "write"
        vars_ = sorted(n for n in names if n and re.fullmatch(r"\w+", n))
        if not vars_:
            return "write"
        pat = re.compile(r"\b(?:%s)\s*->\s*%s\b" % ("|".join(map(re.escape, vars_)),
                                                    r"\s*(?:\.|->)\s*".join(map(re.escape, member))))
        text = self._line(acc["file"], acc["line"])
        uses = list(pat.finditer(text))
        if not uses:
            return "write"
        for m in uses:
            # only a value compared where it is read: a pointer or an
            # array handed on, an assignment, anything else may write
            before = text[:m.start()].rstrip()
            after = text[m.end():]
            if not (re.match(r"\s*(?:[<>]=?|[=!]=)", after) or
                    re.search(r"(?:[<>]=?|[=!]=)$", before)) or \
                    re.match(r"\s*(?:\.|->|\[)", after):
                return "write"
        return "read"

    def _loop_header(self, fn, line, snap):
        """An access in the condition of a while or for loop runs again
        after the loop body: only the sections open both before the loop
        and at the end of its body (the same call on the same argument,
        taken again at the end of the body as process_backlog() does)
        cover it."""
        if not _LOOP.match(self._raw_line(fn.file, line)):
            return snap
        t, funcs = self.text(fn.file)
        f = funcs.get(fn.name)
        if not f:
            return snap
        a = t.offset(line)
        m = _LOOP.match(t.code, a)
        if not m or a < f["body"]:
            return snap
        close = t.match(m.end() - 1, "(", ")")
        if close < 0:
            return snap
        b = re.compile(r"\s*\{").match(t.code, close + 1)
        if not b:
            return snap
        end = t.match(b.end() - 1)
        if end < 0 or end > f["end_off"]:
            return snap
        at_end = state_at(fn, t.line(end), 0)
        keep = {}
        for kind in KINDS:
            again = {(it[0], it[2]) for it in getattr(at_end, kind)}
            keep[kind] = tuple(it for it in getattr(snap, kind)
                               if (it[0], it[2]) in again or it[1] == 0)
        return snap._replace(**keep)

    def _lock_covers(self, it, acc, names):
        """Does the lock of section it protect the accessed member?  A
        lock of one member (&sd->input_pkt_queue.lock, or a helper that
        takes one: rps_lock_irq_disable(sd)) protects that member only;
        the object's own lock member (&l->lock) protects all of it."""
        member = (acc.get("member") or [None])[0]
        if member is None:
            return True
        arg = it[2]
        m = re.match(r"^&?\(?\s*(\w+)\s*(?:->|\.)\s*(\w+)", arg)
        if m and m.group(1) in names:
            return "lock" in m.group(2) or m.group(2) == member
        if re.fullmatch(r"\w+", arg.strip()) and arg.strip() in names:
            for g in self.by_name.get(it[0], ()):
                for c in g.calls:
                    if not (K.lock_on(c["f"]) or K.trylock(c["f"])) or not c["args"]:
                        continue
                    mm = re.match(r"^&?\(?\s*(\w+)\s*(?:->|\.)\s*(\w+)", c["args"][0])
                    if mm and mm.group(1) in g.params:
                        return "lock" in mm.group(2) or mm.group(2) == member
        return True

    def protection(self, name, acc, lock_members):
        """Name the protection in force at the access."""
        snap, names = acc["protection"]
        acc["rw"] = self.access_kind(acc, set(names) | {name})
        names = set(names) | {name}
        kind, detail = self._protection(name, acc, snap, names, lock_members)
        if kind == "none" and acc["rw"] == "read":
            used = self._used_after_preemption(acc, names)
            if used:
                acc["stale_use"] = used
        return kind, detail

    _ASSIGNED = re.compile(r"^\s*(?:[\w\s\*]*?\b)?(\w+)\s*(?:\[[^\]]*\])?\s*=[^=]")

    def _used_after_preemption(self, acc, names):
        """A read whose value is kept in a variable and used after a point
        where the task can be preempted (the end of a BH-disabled,
        preempt-disabled or IRQs-off section, a lock that sleeps on
        PREEMPT_RT, a call that sleeps): where, else None.  A value
        only tested or used where it is read, or handed straight on, is
        no stale use."""
        fn = self._fn_of(acc)
        if fn is None:
            return None
        var = None
        if not acc.get("member") and acc.get("_target"):
            var = acc["_target"]
        else:
            m = self._ASSIGNED.match(self._line(acc["file"], acc["line"]))
            if m and m.group(1) not in names:
                var = m.group(1)
        if not var:
            return None
        point = None
        use = re.compile(r"\b%s\b" % re.escape(var))
        for c in fn.calls:
            if (c["line"], c["col"]) <= (acc["line"], acc.get("col", 0)) or c["line"] == acc["line"]:
                continue
            if point is None:
                if K.preemption_point(c["f"]):
                    point = c
                continue
            if any(use.search(a) for a in c["args"]):
                return "%s used at line %d, after %s() at line %d" % (
                    var, c["line"], point["f"], point["line"])
        if point is None:
            return None
        t, funcs = self.text(fn.file)
        f = funcs.get(fn.name)
        if not f:
            return None
        for ln in range(point["line"] + 1, t.line(f["end_off"]) + 1):
            if use.search(self._line(fn.file, ln)):
                return "%s used at line %d, after %s() at line %d" % (
                    var, ln, point["f"], point["line"])
        return None

    def _protection(self, name, acc, snap, names, lock_members):

        def related(items):
            return [it for it in items if _words(it[2]) & names]

        # every nested-BH lock held here, by key: a lock of another datum
        # held around each BH access of this one covers it (verdict.py)
        acc["_held"] = {}
        for it in snap.nested:
            if len(it) > 5:
                acc["_held"].setdefault(it[3], it[5])
        own = [it for it in snap.nested if len(it) > 5 and it[4] == name] or \
            related(snap.nested)
        if own:
            it = own[-1]
            if len(it) > 5 and (it[1] == 0 or " -> " in it[0]):
                return "nested-bh", it[5]
            if len(it) > 5 and it[4] == name and not (_words(it[2]) & names):
                return "nested-bh", it[5]
            return "nested-bh", "%s(%s) at line %d" % (it[0], it[2], it[1])
        fn_asserts = self._asserts(acc, names)
        if fn_asserts:
            arg = fn_asserts[0]
            if any(re.search(r"\b%s\b" % re.escape(m), arg) for m in lock_members):
                return "nested-bh", "lockdep_assert_held(%s)" % arg
        if related(snap.local):
            it = related(snap.local)[-1]
            if not it[1]:
                return "local-lock", "%s (%s)" % (it[0], it[2])
            return "local-lock", "%s(%s) at line %d" % (it[0], it[2], it[1])
        locks = [it for it in related(snap.locks) if self._lock_covers(it, acc, names)]
        if locks:
            it = locks[-1]
            return "lock", "%s(%s) at line %d" % (it[0], it[2], it[1])
        if snap.irq:
            it = snap.irq[-1]
            return "irq-disabled", "%s() at line %d" % (it[0], it[1])
        if acc["op"] == "irq-safe" and not self._reads_pointer(name, acc):
            if acc.get("inline"):
                return "irq-safe-op", "%s() in %s is a single IRQ-safe operation" % (
                    acc["accessor"], acc["inline"])
            return "irq-safe-op", "%s() is a single IRQ-safe operation" % acc["accessor"]
        got = self._finer(acc, names)
        if got:
            return got
        if snap.preempt or acc["accessor"] in K.PREEMPT_ACCESSORS:
            it = snap.preempt[-1] if snap.preempt else (acc["accessor"], acc["line"], "")
            sleeps = self._sleeps_in_section(acc, it)
            if sleeps:
                acc["sleeping_lock"] = sleeps
                return "preempt-only", ("%s() at line %d, and %s inside the section: a lock "
                                        "that sleeps on PREEMPT_RT" % (it[0], it[1], sleeps))
            return "preempt-only", ("%s() at line %d: preemption off excludes softirq "
                                    "processing on this CPU, on PREEMPT_RT too" % (it[0], it[1]))
        return "none", ""

    # --- finer protection: what one access does ----------------------------------

    def _fn_of(self, acc):
        for f in self.by_name.get(acc["function"], ()):
            if f.file == acc["file"]:
                return f
        return None

    def _raw_line(self, rel, line):
        """The source line as it is (a cheap first test before the
        blanked text of the file is needed)."""
        lines = self._raw_lines.get(rel)
        if lines is None:
            self.read.setdefault(rel, "functions")
            with open(os.path.join(self.tree, rel), errors="replace") as f:
                lines = self._raw_lines[rel] = f.read().split("\n")
        return lines[line - 1] if 0 < line <= len(lines) else ""

    def _line(self, rel, line):
        t, _ = self.text(rel)
        a = t.offset(line)
        b = t.raw.find("\n", a)
        return t.code[a:b if b >= 0 else len(t.raw)]

    def _finer(self, acc, names):
        """(protection, detail) from what the access itself does, or None:
        a single atomic operation on the member (u64_stats_inc(),
        local64, atomics), a pointer slot written by cmpxchg()/xchg(), an
        address taken, a peek re-read under protection, a per-CPU
        pointer whose object is then locked (spin_trylock() of the
        socket's own lock)."""
        fn = self._fn_of(acc)
        if fn is None:
            return None
        vars_ = {n for n in names if n and re.fullmatch(r"\w+", n)}
        member = acc.get("member") or []
        here = [c for c in fn.calls if c["line"] == acc["line"]]
        if member:
            pat = re.compile(r"\b(?:%s)\s*->\s*%s\b" % (
                "|".join(map(re.escape, sorted(vars_))) or "$^",
                r"\s*(?:\.|->)\s*".join(map(re.escape, member))))
            for c in here:
                if K.ATOMIC_OPS.match(c["f"]) and c["args"] and pat.search(c["args"][0]):
                    return "irq-safe-op", ("%s() on the member: one IRQ-safe operation "
                                           "(u64_stats_t and local64 ops are local64 on 64-bit; "
                                           "on 32-bit PREEMPT_RT u64_stats_update_begin() "
                                           "disables preemption)" % c["f"])
            text = self._line(acc["file"], acc["line"])
            uses = list(pat.finditer(text))
            if uses and all(self._address_only(text, m) for m in uses):
                got = self._address_protected(fn, acc, pat, here, text)
                if got:
                    return got
            if uses and self._peek(text, uses):
                later = self._reread(fn, acc, member)
                if later:
                    return "peek", ("a read tested or taken with READ_ONCE(), read again under %s"
                                    % later)
        if not member and not acc.get("_target") and acc["op"] == "ptr":
            # this_cpu_ptr(x) handed straight to a function
            for c in fn.calls:
                if c["line"] != acc["line"] or c["f"] == acc["accessor"]:
                    continue
                for i, a in enumerate(c["args"]):
                    if a.startswith(acc["accessor"] + "(") and _lockless_head(c, i, None):
                        return "irq-safe-op", "the list head of %s(), a lock-free llist operation" % (
                            c["f"])
                    if a.startswith(acc["accessor"] + "("):
                        for g in self.resolve(c["f"], fn.file):
                            why = self._param_protected(g, i, 3)
                            if why:
                                return "irq-safe-op", "passed to %s(), which uses it only through %s" % (
                                    c["f"], why)
        target = acc.get("_target")
        if target and not member:
            uses = [c for c in fn.calls if (c["line"], c["col"]) > (acc["line"], acc["col"])
                    and any(re.search(r"\b%s\b" % re.escape(target), a) for a in c["args"])]
            if uses and all(c["f"] in K.SYNC_MEMBER_CALLS for c in uses) and \
                    not self._reads_only(fn, acc, target):
                return "irq-safe-op", ("a u64_stats_sync used only by %s(): nothing on 64-bit, "
                                       "preemption off on 32-bit PREEMPT_RT" % uses[0]["f"])
            if uses and all(any(_lockless_head(c, j, target) for j in range(len(c["args"])))
                            for c in uses):
                return "irq-safe-op", ("%s used only as the list head of %s(): lock-free llist "
                                       "operations" % (target, ", ".join(sorted({c["f"] for c in uses}))))
            for c in fn.calls:
                if K.CMPXCHG.match(c["f"]) and c["args"] and \
                        re.fullmatch(r"&?\(?\s*%s\s*\)?" % re.escape(target), c["args"][0]):
                    return "cmpxchg", "%s(%s) at line %d: the slot is updated atomically" % (
                        c["f"], target, c["line"])
            if self._reads_only(fn, acc, target):
                return "read-only", "one load of the pointer slot (*%s); it is never written here" % target
        if target and acc["op"] in ("irq-safe", "plain") and not member:
            for c in fn.calls:
                if c["line"] >= acc["line"] and (K.lock_on(c["f"]) or K.trylock(c["f"])) \
                        and c["args"] and re.search(r"\b%s\b" % re.escape(target), c["args"][0]):
                    return "lock", "%s(%s) at line %d: the object it points to has its own lock" % (
                        c["f"], c["args"][0], c["line"])
        return None

    def _address_protected(self, fn, acc, pat, here, text):
        """The member's address only is taken at the access: where the
        member is then used decides.  Passed to a function of the audited
        files that uses it only under IRQs off or a lock (on PREEMPT_RT
        __napi_schedule_irqoff() is __napi_schedule(), local_irq_save()
        around it), or stored in a variable used only under the member's
        own lock (xfrm_dev_backlog(): spin_lock(&xfrm_backlog->lock))."""
        for c in here:
            for i, a in enumerate(c["args"]):
                if not pat.search(a):
                    continue
                if c["f"] in K.SELF_SYNCED:
                    return "address-only", "&...%s passed to %s(), which synchronizes it itself" % (
                        ".".join(acc["member"]), c["f"])
                for g in self.resolve(c["f"], fn.file):
                    why = self._param_protected(g, i, 3)
                    if why:
                        return "address-only", "&...%s passed to %s(), which uses it under %s" % (
                            ".".join(acc["member"]), c["f"], why)
                return None
        m = re.match(r"\s*(?:[\w\s\*]*?\b)?(\w+)\s*=\s*&", text)
        if not m:
            return None
        var = m.group(1)
        used, locked = False, None
        for c in fn.calls:
            if c["line"] <= acc["line"] or not any(re.search(r"\b%s\b" % re.escape(var), a)
                                                     for a in c["args"]):
                continue
            if K.lock_on(c["f"]) or K.lock_off(c["f"]) or K.trylock(c["f"]):
                locked = locked or "%s(%s) at line %d" % (c["f"], c["args"][0], c["line"])
                continue
            if c["f"] in K.PEEK_CALLS and not locked:
                continue        # a test before the lock: re-read under it
            used = True
            snap = state_at(fn, c["line"], c["col"])
            if not any(re.search(r"\b%s\b" % re.escape(var), it[2]) for it in snap.locks):
                return None
        if used and locked:
            return "lock", "&...%s kept in %s, used only under its own lock (%s)" % (
                ".".join(acc["member"]), var, locked)
        return None

    def _param_protected(self, g, i, depth):
        """Every use of g's parameter i is under IRQs off or a lock:
        what protects it, else None."""
        p = g.params[i] if i < len(g.params) else ""
        if not p:
            return None
        why = None
        judged = set()          # lines of calls judged here
        inner = {(c["line"], c["f"]) for c in g.calls}
        for c in g.calls:
            for j, a in enumerate(c["args"]):
                if not re.search(r"\b%s\b" % re.escape(p), a):
                    continue
                if K.lock_on(c["f"]) or K.lock_off(c["f"]) or K.trylock(c["f"]):
                    continue
                if _lockless_head(c, j, p):
                    why = why or "%s() in %s(), a lock-free llist operation" % (c["f"], g.name)
                    judged.add(c["line"])
                    continue
                m = re.match(r"\s*(\w+)\s*\((.*)\)\s*$", a)
                if m and (c["line"], m.group(1)) in inner and \
                        not re.search(r"\b%s\b" % re.escape(p), a[:m.start(2)]):
                    continue    # f(g(p)): the result of g() is handed on; g() is judged
                if c["f"] in K.SYNC_MEMBER_CALLS or (
                        K.ATOMIC_OPS.match(c["f"]) and j == 0 and
                        re.match(r"&?\(?\s*%s\s*(?:->|\.)" % re.escape(p), a)):
                    why = why or "%s() in %s()" % (c["f"], g.name)
                    judged.add(c["line"])
                    continue
                snap = state_at(g, c["line"], c["col"])
                if snap.irq or snap.locks:
                    it = (snap.locks or snap.irq)[-1]
                    why = why or "%s() in %s()" % (it[0], g.name)
                    continue
                sub = None
                if depth and a.strip("&() ") == p:
                    for h in self.resolve(c["f"], g.file):
                        sub = self._param_protected(h, j, depth - 1)
                if not sub:
                    return None
                why = why or sub
        t, funcs = self.text(g.file)
        f = funcs.get(g.name)
        for _, line in (cfacts.member_uses(t, p, f["body"], f["end_off"]) if f else ()):
            if line in judged:
                continue
            snap = state_at(g, line, 0)
            if not (snap.irq or snap.locks):
                return None     # p->x outside IRQs off or a lock
            it = (snap.locks or snap.irq)[-1]
            why = why or "%s() in %s()" % (it[0], g.name)
        return why

    @staticmethod
    def _address_only(text, m):
        before = text[:m.start()].rstrip()
        after = text[m.end():].lstrip()
        return before.endswith("&") and not before.endswith("&&") and \
            not after.startswith((".", "->", "["))

    @staticmethod
    def _peek(text, uses):
        for m in uses:
            # an address handed to a call: a peek only for a test
            # (skb_queue_empty()), not for __skb_dequeue()
            call = re.search(r"(\w+)\s*\(\s*&\s*$", text[:m.start()])
            if call and call.group(1) not in K.PEEK_CALLS:
                return False
        if re.search(r"\bREAD_ONCE\s*\(", text):
            return True
        head = text.lstrip()
        if re.match(r"(?:if|while)\s*\(", head) or head.startswith(("&&", "||")):
            # tested, not assigned
            return not re.search(r"[^=!<>]=[^=]", text[uses[-1].end():])
        return False

    def _reread(self, fn, acc, member):
        """A later access to the same member in fn under IRQs off or a lock."""
        for c in fn.calls:
            if c["line"] <= acc["line"]:
                continue
            snap = state_at(fn, c["line"], c["col"])
            if snap.irq or snap.locks or snap.nested:
                it = (snap.nested or snap.locks or snap.irq)[-1]
                text = self._line(fn.file, c["line"])
                if re.search(r"->\s*%s\b" % re.escape(member[0]), text):
                    return "%s() at line %d" % (it[0], it[1])
        t, funcs = self.text(fn.file)
        f = funcs.get(fn.name)
        if not f:
            return None
        var = acc.get("_var") or acc.get("_target")
        start = max(f["body"], t.offset(acc["line"]))
        for ch, line in cfacts.member_uses(t, var, start, f["end_off"]) if var else ():
            if line > acc["line"] and ch[:1] == member[:1]:
                snap = state_at(fn, line, 0)
                if snap.irq or snap.locks or snap.nested:
                    it = (snap.nested or snap.locks or snap.irq)[-1]
                    return "%s() at line %d" % (it[0], it[1])
        return None

    def _reads_only(self, fn, acc, target):
        """The pointer slot is only loaded: '= *p' or 'if (*p)', never
        '*p =', passed on or returned."""
        t, funcs = self.text(fn.file)
        f = funcs.get(fn.name)
        if not f:
            return False
        body = t.code[t.offset(acc["line"]):f["end_off"]]
        v = re.escape(target)
        uses = list(re.finditer(r"\b%s\b" % v, body))[1:]
        if not uses:
            return False
        for m in uses:
            before = body[max(0, m.start() - 6):m.start()]
            after = body[m.end():m.end() + 8]
            if not before.endswith("*") or re.search(r"(?:\+\+|--)\s*\(?\s*\*$", before) or \
                    re.match(r"\)?\s*(?:\+\+|--|(?:[-+*/|&^]|<<|>>)?=(?!=))", after) or \
                    re.match(r"\)?\s*(?:->|\.|\[)", after):
                return False
        return True

    def _sleeps_in_section(self, acc, it):
        """A lock that sleeps on PREEMPT_RT taken in the preempt section
        opened by it, in the function or in a function it calls there."""
        fn = self._fn_of(acc)
        if fn is None:
            return None
        start = it[1]
        for c in fn.calls:
            if c["line"] < start:
                continue
            if c["f"] in K.PREEMPT_OFF:
                break
            if K.sleeping_lock(c["f"]):
                return "%s() at line %d" % (c["f"], c["line"])
            for g in self.resolve(c["f"], fn.file):
                for d in g.calls:
                    if K.sleeping_lock(d["f"]):
                        return "%s() in %s() at line %d" % (d["f"], g.name, c["line"])
        return None

    def _asserts(self, acc, names):
        fn = None
        for f in self.by_name.get(acc["function"], ()):
            if f.file == acc["file"]:
                fn = f
        if not fn:
            return []
        return [c["args"][0] for c in fn.calls if c["f"] in K.ASSERT_HELD and c["args"]
                and _words(c["args"][0]) & names]
