# SPDX-License-Identifier: GPL-2.0
"""From per-file facts to verdicts: call graph, softirq reachability,
lexical sections at every access, protection, verdict per datum."""

import bisect
import collections
import os
import re

from . import cfacts, knowledge as K

VERDICTS = ("needs-lock", "converted", "safe", "not-bh", "unknown")


class Fn:
    __slots__ = ("file", "name", "line", "end", "static", "init", "params",
                 "calls", "field_calls", "protos", "local_cpu", "dead",
                 "snaps", "lexical", "id", "irq_blocks", "edges", "has_effect")

    def __init__(self, rel, d, dead):
        self.file = rel
        self.name = d["name"]
        self.line = d["line"]
        self.end = d["end"]
        self.static = d["static"]
        self.init = d["init"]
        self.params = d["params"]
        self.calls = [c for c in d["calls"] if c["line"] not in dead] if dead else d["calls"]
        self.field_calls = ([c for c in d["field_calls"] if c["line"] not in dead]
                            if dead else d["field_calls"])
        self.protos = d["protos"]
        self.local_cpu = set(d["local_cpu"])
        self.dead = d["line"] in dead
        self.lexical = d.get("lexical_calls", False)
        self.id = "%s:%s" % (rel, d["name"])
        self.irq_blocks = d.get("irq_blocks", [])
        self.snaps = None

    def where(self):
        return "%s:%d" % (self.file, self.line)


_WORD = re.compile(r"\w+")


def _words(s):
    return set(re.findall(r"\w+", s))


KINDS = ("bh", "irq", "preempt", "nested", "local", "locks")
# Open sections before a call: per kind, a tuple of (call, line, argument).
Snapshot = collections.namedtuple("Snapshot", KINDS)
EMPTY = Snapshot((), (), (), (), (), ())
_EFFECTS = {}


def _effect(f):
    """[(kind, 'push' | 'pop' | 'pop-arg')] for a call name, memoized."""
    eff = _EFFECTS.get(f)
    if eff is None:
        eff = []
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
        elif K.lock_on(f):
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


def _push_pop(snap, c, pending):
    """The snapshot after call c. An early-exit release keeps its section
    open for the code below, but not past the end of the block the
    section was opened in: that block is only left through the exit.
    Such sections go to pending as (last line of the block, kind, item)."""
    eff = _effect(c["f"])
    if not eff:
        return snap
    arg = c["args"][0] if c["args"] else ""
    for kind, op in eff:
        lst = getattr(snap, kind)
        if op == "push":
            lst = lst + ((c["f"], c["line"], arg),)
        else:
            i = _released(lst, op, arg)
            if i is None:
                continue
            if c.get("exits"):
                block = c.get("block")
                if block and lst[i][1] >= block[0]:
                    pending.append((block[1], kind, lst[i]))
                continue
            lst = lst[:i] + lst[i + 1:]
        snap = snap._replace(**{kind: lst})
    return snap


def _close_blocks(snap, pending, line):
    """Drop the pending sections whose block ended before line."""
    for p in [p for p in pending if p[0] < line]:
        pending.remove(p)
        _, kind, item = p
        lst = getattr(snap, kind)
        if item in lst:
            i = max(i for i, it in enumerate(lst) if it == item)
            snap = snap._replace(**{kind: lst[:i] + lst[i + 1:]})
    return snap


def merge(a, b):
    return Snapshot(*(x + y for x, y in zip(a, b)))


def snapshots(fn):
    """(keys, snapshots): the sections open before every call of fn."""
    if fn.snaps is None:
        snap = EMPTY
        keys, snaps = [], []
        pending = []
        for c in fn.calls:
            snap = _close_blocks(snap, pending, c["line"])
            keys.append((c["line"], c["col"]))
            snaps.append(snap)
            snap = _push_pop(snap, c, pending)
        snap = _close_blocks(snap, pending, 10 ** 9)
        keys.append((10 ** 9, 0))
        snaps.append(snap)
        fn.snaps = (keys, snaps)
    return fn.snaps


def state_at(fn, line, col=0):
    """Sections open at (line, col): the effect of every call before it."""
    keys, snaps = snapshots(fn)
    i = bisect.bisect_left(keys, (line, col))
    return snaps[min(i, len(snaps) - 1)]


class Audit:
    def __init__(self, tree, facts, header_structs, paths):
        self.tree = tree
        self.facts = facts
        self.paths = paths
        self.fns = []
        self.by_name = collections.defaultdict(list)
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
        self._index_percpu()
        self._index_fnptrs()
        self._texts = {}

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
        for field, typ, how, reason in K.ENTRY_FIELDS:
            for fn, p, rel in self.field_targets.get(field, ()):
                if (typ is None or p["type"] == typ) and (how is None or p["how"] == how):
                    self._entry(fn, reason, rel, p["line"])
        for fn in self.fns:
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
        for fn in self.fns:
            if K.SYSCALL.match(fn.name):
                root(fn, "system call %s" % (fn.params[0] if fn.params else ""),
                     fn.file, fn.line)
            elif fn.init:
                root(fn, "__init/__exit code", fn.file, fn.line)
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
            for proto in fn.protos:
                for helper in proto_fn.get(proto, ()):
                    self._entry(helper, "BPF helper %s returned by %s() (XDP/tc/lwt programs run in softirq)"
                                % (proto, fn.name), fn.file, fn.line)

    def _entry(self, fn, reason, rel, line):
        self.entries.setdefault(fn.id, (fn, {"kind": "entry", "reason": reason,
                                             "file": rel, "line": line}))

    def resolve(self, name, rel):
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
                            # function names hold no '&': skip lstrip() for most
                            if a not in by_name:
                                if a[:1] != "&":
                                    continue
                                a = a.lstrip("&")
                                if a not in by_name:
                                    continue
                            if a != f:
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
        for name, c, direct in fn.edges:
            targets = self.resolve(name, fn.file) if direct else self._field(name)
            out.extend((t, c) for t in targets)
        self._callees[fn.id] = out
        return out

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
        self._index_sites()
        parent = {}
        queue = collections.deque()
        for fid, (fn, reason) in sorted(self.entries.items()):
            parent[fid] = (None, reason)
            queue.append(fn)
        seeds = []
        for fn in self.fns:
            if not fn.has_effect:
                continue
            _, snaps = snapshots(fn)
            for snap, c in zip(snaps, fn.calls):
                if snap.bh:
                    sec = snap.bh[-1]
                    for t, _ in self._direct(fn, c):
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
            for t, c in self.callees(fn):
                if t.id not in parent:
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

    def _site_locks(self, caller, c):
        here = {it[2] for it in state_at(caller, c["line"], c.get("col", 0)).nested}
        return here | self._asserted(caller)

    def _inherit(self):
        """Nested-BH locks held around every call of a function (for
        callbacks invoked inside the caller's locked section, such as
        br_nf_push_frag_xmit() under br_nf_dev_queue_xmit()'s lock)."""
        cand = {}
        for fn in self.fns:
            if not any(c["f"] in K.NESTED_ON or c["f"] in K.ASSERT_HELD for c in fn.calls):
                continue
            for t, c in self.callees(fn):
                if self._site_locks(fn, c):
                    cand[t.id] = t
        held = {}
        for _ in range(6):
            new = {}
            for fid, t in cand.items():
                if fid in self.entries:
                    continue
                acc = None
                for caller, c in self.callers(t):
                    here = self._site_locks(caller, c) | held.get(caller.id, set())
                    acc = here if acc is None else acc & here
                    if not acc:
                        break
                if acc:
                    new[fid] = acc
            if new == held:
                break
            held = new
            for fid in list(held):
                for t, _ in self.callees(cand[fid]):
                    cand.setdefault(t.id, t)
        self.inherited = held

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
            with open(os.path.join(self.tree, rel), errors="replace") as f:
                t = cfacts.Text(f.read())
            extents = self.facts[rel].get("extents")
            if extents is not None:
                funcs = {name: {"body": body, "end_off": end} for name, body, end in extents}
            else:
                funcs = {fn["name"]: fn for fn in cfacts.functions(t)}
            self._texts[rel] = (t, funcs)
        return self._texts[rel]

    def datum_of(self, arg, rel=None):
        """(kind, name, member chain) for the accessor argument, or None."""
        expr = arg.strip().lstrip("&").strip("()")
        m = re.match(r"^(\w+)((?:\.\w+)*)$", expr)
        if m and m.group(1) in self.datums:
            return ("static", m.group(1), [x for x in m.group(2).split(".") if x])
        if m and m.group(1) in self.ptr_vars and not m.group(2):
            return ("ptrvar", m.group(1), [])
        ids = re.findall(r"(?:->|\.)(\w+)", expr)
        if ids and ids[-1] in self.percpu_fields:
            return ("field", self._field_owner(ids[-1], rel), [])
        return None

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
        for fn in self.fns:
            for c in fn.calls:
                kind = None
                if c["f"] in K.PTR_ACCESSORS:
                    kind = "ptr"
                elif K.op_accessor(c["f"]):
                    kind = K.op_accessor(c["f"])
                if not kind or not c["args"]:
                    continue
                d = self.datum_of(c["args"][0], fn.file)
                if not d:
                    continue
                self._record(out, fn, c, d, kind, reach)
        self.rt_excluded = collections.Counter()
        for rel, f in self.facts.items():
            dead = self.dead[rel]
            if not dead:
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
        uses = c.get("uses") or []
        target = c.get("target")
        if not chain:
            # follow the pointer: member uses here, then into callees
            n = len(out[key])
            for ch, line in (uses if target else []):
                if ch[-1] in K.SYNC_MEMBERS:
                    continue
                out[key].append(self._access(fn, dict(base, line=line, col=0,
                                                      member=ch), {target}, reach))
            text = "%s(%s)" % (c["f"], ",".join(c["args"]))
            self._callee_uses(out, key, fn, c, target or text, base, reach)
            if len(out[key]) > n:
                if c.get("returned"):
                    out[key][-1]["escapes"] = "returned by %s()" % fn.name
                return
        out[key].append(self._access(fn, dict(base, line=c["line"], col=c["col"],
                                              member=chain), {target} - {None}, reach))
        if c.get("returned"):
            out[key][-1]["escapes"] = "returned by %s()" % fn.name

    def _callee_uses(self, out, key, fn, c, var, base, reach):
        """Pointer passed on to a callee: follow its member uses there,
        with the sections the caller holds around the call."""
        for cc in fn.calls:
            if (cc["line"], cc["col"]) < (c["line"], c["col"]) or cc is c:
                continue
            for i, a in enumerate(cc["args"]):
                if a != var:
                    continue
                outer = state_at(fn, cc["line"], cc["col"])
                for callee in self.resolve(cc["f"], fn.file):
                    if i >= len(callee.params) or not callee.params[i]:
                        continue
                    t, funcs = self.text(callee.file)
                    cf = funcs.get(callee.name)
                    if not cf:
                        continue
                    for ch, line in cfacts.member_uses(t, callee.params[i], cf["body"],
                                                       cf["end_off"]):
                        if ch[-1] in K.SYNC_MEMBERS:
                            continue
                        acc = dict(base, file=callee.file, function=callee.name,
                                   line=line, col=0, member=ch,
                                   via="%s() passes it at %s:%d" % (fn.name, fn.file, cc["line"]))
                        out[key].append(self._access(callee, acc, {var, callee.params[i]},
                                                     reach, outer))

    def _reads_pointer(self, name, acc):
        """The access reads a pointer (the datum or the member): one
        IRQ-safe read, but what it points to is shared per CPU."""
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

    def _asserted(self, fn):
        """lockdep_assert_held(&p->lock) in fn, with p resolved to the
        per-CPU datum it was taken from: '&datum.lock'."""
        cache = self.__dict__.setdefault("_asserted_cache", {})
        if fn.id in cache:
            return cache[fn.id]
        out = set()
        for c in fn.calls:
            if c["f"] not in K.ASSERT_HELD or not c["args"]:
                continue
            words = re.findall(r"\w+", c["args"][0])
            if len(words) < 2:
                continue
            for a in fn.calls:
                if a.get("target") == words[0] and a["args"]:
                    d = self.datum_of(a["args"][0], fn.file)
                    if d:
                        out.add("&%s.%s" % (d[1], words[-1]))
        cache[fn.id] = out
        return out

    def _access(self, fn, acc, names, reach, outer=None):
        snap = state_at(fn, acc["line"], acc["col"])
        if fn.id in self.inherited:
            snap = snap._replace(nested=snap.nested + tuple(
                ("local_lock_nested_bh", 0, a + " (held by every caller)")
                for a in sorted(self.inherited[fn.id])))
        if outer is not None:
            snap = merge(outer, snap)
        for a, b in fn.irq_blocks:
            if a <= acc["line"] <= b:
                snap = snap._replace(irq=snap.irq + (("irqs_disabled", a, ""),))
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

    def protection(self, name, acc, lock_members):
        """Name the protection in force at the access."""
        snap, names = acc["protection"]
        names = set(names) | {name}

        def related(items):
            return [it for it in items if _words(it[2]) & names]

        if related(snap.nested):
            it = related(snap.nested)[-1]
            return "nested-bh", "%s(%s) at line %d" % (it[0], it[2], it[1])
        fn_asserts = self._asserts(acc, names)
        if fn_asserts:
            arg = fn_asserts[0]
            if any(re.search(r"\b%s\b" % re.escape(m), arg) for m in lock_members):
                return "nested-bh", "lockdep_assert_held(%s)" % arg
        if related(snap.local):
            it = related(snap.local)[-1]
            return "local-lock", "%s(%s) at line %d" % (it[0], it[2], it[1])
        if related(snap.locks):
            it = related(snap.locks)[-1]
            return "lock", "%s(%s) at line %d" % (it[0], it[2], it[1])
        if snap.irq:
            it = snap.irq[-1]
            return "irq-disabled", "%s() at line %d" % (it[0], it[1])
        if acc["op"] == "irq-safe" and not self._reads_pointer(name, acc):
            return "irq-safe-op", "%s() is a single IRQ-safe operation" % acc["accessor"]
        if snap.preempt or acc["accessor"] in K.PREEMPT_ACCESSORS:
            it = snap.preempt[-1] if snap.preempt else (acc["accessor"], acc["line"], "")
            return "preempt-only", "%s() at line %d: no exclusion against a preemptible softirq on PREEMPT_RT" % (it[0], it[1])
        return "none", ""

    def _asserts(self, acc, names):
        fn = None
        for f in self.by_name.get(acc["function"], ()):
            if f.file == acc["file"]:
                fn = f
        if not fn:
            return []
        return [c["args"][0] for c in fn.calls if c["f"] in K.ASSERT_HELD and c["args"]
                and _words(c["args"][0]) & names]
