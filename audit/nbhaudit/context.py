# SPDX-License-Identifier: GPL-2.0
"""Context coverage: every path from an entry point to a getter of a
per-task pointer that runs without the pointer having been set.

A "context" is a per-task pointer that a caller must publish before the
code below it reads it: patch 14 of the 6.1 series turns the per-CPU
bpf_redirect_info into current->bpf_net_context, set by
bpf_net_ctx_set() at the top of each section that runs BPF programs or
redirects; bpf_net_ctx_get_ri() dereferences it.  A path that reaches a
getter without such a section dereferences NULL.

The check works backwards from every call of a getter over the audit's
call graph (lexical calls, calls through function pointers resolved by
struct type and field, functions passed as arguments, BPF helpers
reached from the sites that run programs of a type whose func_proto
returns them), never crossing a call made while the context is set or
after a NULL test of a getter that may return NULL.  What it reaches is
reported when a root (system call, softirq handler, timer, kthread,
work item, callback or function called from outside the analysed
files) can get there: one path per (entry, getter caller, getter),
the entry being the nearest entry point (a root, or a dispatch point
such as a qdisc enqueue or a NAPI poll) on the way.

The spec of a context is data: one Spec per entry in CONTEXTS."""

import collections
import dataclasses
import hashlib
import html
import json
import os
import re

from nbhlib import proc

from . import AuditError, analyze, cfacts, extract, info, knowledge as K, tables

SCHEMA = 1


@dataclasses.dataclass(frozen=True)
class Spec:
    name: str
    about: str
    # Calls that read the pointer and use it: they need it set.
    getters: tuple
    # Calls that publish the pointer for the code after them ...
    setters: tuple
    # ... until one of these (an early-exit one only ends it for the
    # code of its block, as an early-exit unlock does in the audit).
    clears: tuple
    # Getters that return NULL when the pointer is unset: code after a
    # test of their value for NULL tolerates a missing context.
    nullable: tuple
    # Default PATHs (relative to the tree) of the call graph; the headers
    # the files include are added.
    paths: tuple
    # Expectation file, relative to the audit directory.
    expect: str


CONTEXTS = {s.name: s for s in (
    Spec(name="bpf_net_ctx",
         about="current->bpf_net_context (struct bpf_net_context: bpf_redirect_info "
               "and the XDP flush lists), set around each section that runs BPF "
               "programs or redirects",
         getters=("bpf_net_ctx_get", "bpf_net_ctx_get_ri",
                  "bpf_net_ctx_get_cpu_map_flush_list", "bpf_net_ctx_get_dev_flush_list",
                  "bpf_net_ctx_get_xskmap_flush_list",
                  "bpf_net_ctx_get_all_used_flush_lists"),
         setters=("bpf_net_ctx_set",),
         clears=("bpf_net_ctx_clear",),
         nullable=("bpf_net_ctx_get",),
         paths=("net", "kernel/bpf", "drivers/net/tun.c", "drivers/net/veth.c"),
         expect="context/bpf_net_ctx.paths"),
)}


def spec(name):
    if name not in CONTEXTS:
        raise AuditError("unknown context %s (known: %s)" % (name, ", ".join(sorted(CONTEXTS))))
    return CONTEXTS[name]


# --- what starts execution ------------------------------------------------

# Calls that hand a function to something that runs it later in a context
# of its own: (argument index, kind of root).
REG_ROOTS = {
    "timer_setup": (1, "timer"), "setup_timer": (1, "timer"),
    "hrtimer_setup": (1, "hrtimer"),
    "tasklet_init": (1, "tasklet"), "tasklet_setup": (1, "tasklet"),
    "open_softirq": (1, "softirq handler"),
    "call_rcu": (1, "RCU callback"), "call_rcu_tasks": (1, "RCU callback"),
    "INIT_WORK": (1, "work item"), "INIT_DELAYED_WORK": (1, "work item"),
    "INIT_RCU_WORK": (1, "work item"), "INIT_DEFERRABLE_WORK": (1, "work item"),
    "DECLARE_WORK": (1, "work item"), "DECLARE_DELAYED_WORK": (1, "work item"),
    "kthread_run": (0, "kthread"), "kthread_create": (0, "kthread"),
    "kthread_create_on_node": (0, "kthread"), "kthread_create_on_cpu": (0, "kthread"),
    "kthread_run_on_cpu": (0, "kthread"),
    "module_init": (0, "module init"), "late_initcall": (0, "initcall"),
    "subsys_initcall": (0, "initcall"), "fs_initcall": (0, "initcall"),
    "device_initcall": (0, "initcall"), "core_initcall": (0, "initcall"),
    "pure_initcall": (0, "initcall"), "postcore_initcall": (0, "initcall"),
    "module_exit": (0, "module exit"),
}
_SYSCALL = re.compile(r"^(?:COMPAT_)?SYSCALL_DEFINE\d$")
# Dispatch points: a function stored in one of these fields is shown as
# the entry of a path, whoever calls it.  (struct, field or None for any)
DISPATCH = [
    ("Qdisc_ops", "enqueue", "qdisc enqueue"),
    ("Qdisc_ops", "dequeue", "qdisc dequeue"),
    ("Qdisc_ops", "peek", "qdisc peek"),
    ("napi_struct", "poll", "NAPI poll"),
    ("net_device_ops", None, "driver callback"),
    ("ethtool_ops", None, "driver callback (ethtool)"),
    ("proto_ops", None, "socket call"),
    ("proto", None, "protocol call"),
    ("file_operations", None, "file operation"),
    ("genl_ops", None, "generic netlink request"),
    ("genl_small_ops", None, "generic netlink request"),
    ("notifier_block", "notifier_call", "notifier"),
    ("bpf_map_ops", None, "BPF map operation"),
    ("bpf_prog_ops", "test_run", "BPF_PROG_TEST_RUN"),
    ("timer_list", "function", "timer"),
    ("hrtimer", "function", "hrtimer"),
    ("work_struct", "func", "work item"),
]
# Calls that run a BPF program; calls made inside these wrappers are
# theirs.  The program type comes from RUN_TYPES, else from the
# BPF_PROG_TYPE_* constants named in the calling function, else in its
# file.
RUN = re.compile(r"^(?:_*bpf_prog_run\w*|BPF_PROG_RUN\w*)$")
RUN_TYPES = {"bpf_prog_run_xdp": ("BPF_PROG_TYPE_XDP",),
             "bpf_prog_run_generic_xdp": ("BPF_PROG_TYPE_XDP",)}
MAX_FIELD_TARGETS = 40          # as the audit: a field name with more is too generic
FALSE_ARGS = {"false", "0"}


# --- per-file facts ---------------------------------------------------------

def context_facts(text):
    """The audit's lexical facts of a file plus what typed calls through
    function pointers need (cfacts.typed_facts())."""
    t, facts = extract.python_facts(text)
    facts = extract.finish(t, facts, None, None)
    cfacts.typed_facts(t, facts)
    tables.typed_facts(t, facts)
    facts["extents"] = [[fn["name"], fn["line"], fn["body"], fn["end_off"]]
                        for fn in facts["functions"]]
    for fn in facts["functions"]:
        del fn["body"], fn["end_off"]
    return extract.slim(facts)


class Cache(extract.Cache):
    """The audit's cache, one more layer ("c") for context facts, whose
    version also covers this module."""

    def __init__(self, root):
        super().__init__(root)
        here = os.path.dirname(os.path.abspath(__file__))
        self.versions["c"] = extract._version(
            [os.path.join(here, n) for n in ("cfacts.py", "extract.py", "context.py", "tables.py")])


def _job(job):
    text, cache, digest = job
    facts = context_facts(text)
    cache.put("c", digest, facts)
    return facts


def load(tree, rels, cache):
    """{rel: facts}; files whose content the cache has not seen are
    parsed by two workers."""
    out, todo = {}, []
    for rel in rels:
        with open(os.path.join(tree, rel), "rb") as f:
            data = f.read()
        digest = hashlib.sha1(data).hexdigest()
        got = cache.get("c", digest)
        if got is None:
            todo.append((rel, (data.decode("utf-8", "replace"), cache, digest)))
        else:
            out[rel] = got
    if len(todo) > 8:
        with proc.quiet_pool(extract.JOBS) as pool:
            res = pool.map(_job, [j for _, j in todo], chunksize=8)
    else:
        res = [_job(j) for _, j in todo]
    for (rel, _), f in zip(todo, res):
        out[rel] = f
    return out, len(todo)


def headers_of(tree, facts, sp):
    """Headers the files include directly (under include/ or next to the
    file), and those that define a getter, setter or clear."""
    out = set()
    for rel, f in facts.items():
        for inc in f["includes"]:
            for cand in (os.path.join("include", inc), os.path.join(os.path.dirname(rel), inc)):
                cand = os.path.normpath(cand)
                if cand not in facts and cand.endswith(".h") and \
                        os.path.isfile(os.path.join(tree, cand)):
                    out.add(cand)
                    break
    names = sp.getters + sp.setters + sp.clears
    inc = os.path.join(tree, "include")
    if os.path.isdir(inc):
        pat = re.compile(r"\b(?:%s)\s*\(" % "|".join(map(re.escape, names)))
        for d, _, files in os.walk(inc):
            for n in files:
                if n.endswith(".h"):
                    p = os.path.join(d, n)
                    rel = os.path.relpath(p, tree)
                    if rel in facts or rel in out:
                        continue
                    with open(p, errors="replace") as f:
                        if pat.search(f.read()):
                            out.add(rel)
    return sorted(out)


# --- the graph ----------------------------------------------------------------

_NOTIFIER = ("notifier_block", "notifier_call")
_THREAD_FN = ("irqaction", "thread_fn")   # force-threaded handlers run here
_NONE = {}          # the "vars" of a function that declares none: never written

class Graph:
    """The call graph with typed calls through function pointers and BPF
    program runs.  With audit (an analyze.Audit built on facts that hold
    cfacts.typed_facts()), the graph of that audit's functions: the
    audit's verdicts use it; without, one of its own, both
    configurations."""

    def __init__(self, tree, facts, sp, audit=None):
        self.sp = sp
        self.tree = tree
        self.facts = facts
        if audit is None:
            plain = {rel: dict(f, rt_dead=[]) for rel, f in facts.items()}   # both configs
            audit = analyze.Audit(tree, plain, {}, [])
        self.audit = audit
        self.fns = self.audit.fns
        self._resolved = {}
        self._nb_init = None
        self._extents = {}
        self.members = {}
        for rel in sorted(facts):
            for s, m in facts[rel]["members"].items():
                if s not in self.members or not rel.endswith(".h"):
                    self.members.setdefault(s, {}).update(m)
        self.exported = set()
        for f in facts.values():
            self.exported.update(f["exported"])
        self._texts = {}
        self._stores()
        self._edges()

    def resolve(self, name, rel):
        """The audit's resolution; a static inline stub of a header (the
        !CONFIG_ branch) does not hide the real definition elsewhere.
        Memoized: the callers only read the list."""
        key = (name, rel)
        r = self._resolved.get(key)
        if r is None:
            r = self.audit.resolve(name, rel)
            if r and all(f.file.endswith(".h") for f in r):
                r = r + [f for f in self.audit.by_name[name] if not f.static and f not in r]
            self._resolved[key] = r
        return r

    @staticmethod
    def d(fn):
        return fn.d

    def extent(self, fn):
        ext = self._extents.get(fn.file)
        if ext is None:
            ext = self._extents[fn.file] = {
                (name, line): (b, e) for name, line, b, e in self.facts[fn.file]["extents"]}
        return ext.get((fn.name, fn.line))

    def text(self, rel):
        if rel not in self._texts:
            self.audit.read.setdefault(rel, "functions")
            with open(os.path.join(self.tree, rel), errors="replace") as f:
                self._texts[rel] = cfacts.Text(f.read())
        return self._texts[rel]

    # types of receivers: "q", "tp->ops", "a->ops" ...
    def rtype(self, fn, chain):
        typ = fn.d.get("vars", _NONE).get(chain[0])
        for m in chain[1:]:
            if typ is None:
                return None
            typ = self.members.get(typ, {}).get(m)
        return typ

    def _stores(self):
        """(struct, field) -> functions stored there: designated
        initializers, typed assignments, parameters stored by a callee
        (netif_napi_add(dev, napi, poll) stores poll in napi_struct.poll),
        and copies from one field to another (sch->enqueue = ops->enqueue)."""
        by_name = self.audit.by_name
        stored = collections.defaultdict(set)        # (T, f) -> {Fn}
        untyped = collections.defaultdict(set)       # f -> {Fn}
        where = {}                                   # Fn -> (T, f) first seen
        for rel, f in sorted(self.facts.items()):
            for p in f["fnptrs"]:
                if p["how"] != "init":
                    continue
                for t in self.resolve(p["fn"], rel):
                    if p["type"]:
                        stored[(p["type"], p["field"])].add(t)
                    else:
                        untyped[p["field"]].add(t)
        param_store = collections.defaultdict(list)  # Fn -> [(param index, T, f)]
        copies = []
        for fn in self.fns:
            d = self.d(fn)
            for s in d.get("stores", ()):
                v = s["value"]
                if v in fn.params:
                    typ = self.rtype(fn, s["recv"])
                    if typ:
                        param_store[fn].append((fn.params.index(v), typ, s["field"]))
                    continue
                if v not in by_name or v in d.get("vars", _NONE):
                    continue
                typ = self.rtype(fn, s["recv"])
                for t in self.resolve(v, fn.file):
                    if typ:
                        stored[(typ, s["field"])].add(t)
                    else:
                        untyped[s["field"]].add(t)
            for c in d.get("copies", ()):
                a, b = self.rtype(fn, c["recv"]), self.rtype(fn, c["src"])
                if a and b:
                    copies.append(((a, c["field"]), (b, c["sfield"])))
        self.stores_param = {}
        # parameters passed on to a storing callee, then functions passed
        # in: a worklist over the call sites of each storing function (the
        # sites of a name found when it is first needed, in the order of
        # the functions and of their calls)
        fns_calling = None
        sites = {}
        work = list(param_store)
        while work:
            callee = work.pop()
            got = sites.get(callee.name)
            if got is None:
                if fns_calling is None:
                    fns_calling = collections.defaultdict(list)
                    for fn in self.fns:
                        for name in fn.names:
                            fns_calling[name].append(fn)
                got = sites[callee.name] = [(fn, c) for fn in fns_calling.get(callee.name, ())
                                            for c in fn.calls
                                            if c["f"] == callee.name and c["args"]]
            for fn, c in got:
                if callee not in self.resolve(c["f"], fn.file):
                    continue
                for i, typ, field in list(param_store.get(callee, ())):
                    if i >= len(c["args"]):
                        continue
                    a = c["args"][i].lstrip("&")
                    if a in fn.params:
                        e = (fn.params.index(a), typ, field)
                        if e not in param_store[fn]:
                            param_store[fn].append(e)
                            work.append(fn)
                    elif a in by_name:
                        for t in self.resolve(a, fn.file):
                            stored[(typ, field)].add(t)
                    self.stores_param[(id(c), i)] = (typ, field)
        threaded = set(stored.get(_THREAD_FN, ()))
        for _ in range(3):
            for dst, src in copies:
                stored[dst] |= stored.get(src, set())
        hard = self._hardirq_handlers()
        if hard and _THREAD_FN in stored:
            stored[_THREAD_FN] = (stored[_THREAD_FN] - hard) | threaded
        self.stored, self.untyped = stored, untyped
        self.stored_in = collections.defaultdict(set)
        for key, fns in stored.items():
            for t in fns:
                self.stored_in[t].add(key)
        for field, fns in untyped.items():
            for t in fns:
                self.stored_in[t].add((None, field))
        self.by_field = collections.defaultdict(set)
        for (typ, field), fns in stored.items():
            self.by_field[field] |= fns
        for field, fns in untyped.items():
            self.by_field[field] |= fns
        del where

    def _hardirq_handlers(self):
        """Functions requested only as interrupt handlers that are never
        threaded (knowledge.IRQ_REGISTRATIONS): not force-threaded into
        irqaction.thread_fn. A function that passes its parameters on
        as the handler (and the flags) of one (bind_virq_to_irqhandler())
        becomes a registration too."""
        regs = dict(K.IRQ_REGISTRATIONS)    # name -> (handler, flags | None | -1)
        hard, soft = set(), set()
        seen = set()
        changed = True
        while changed:
            changed = False
            for fn in self.fns:
                if fn.names.isdisjoint(regs):
                    continue
                for c in fn.calls:
                    reg = regs.get(c["f"])
                    if reg is None or (id(c), c["f"]) in seen or len(c["args"]) <= reg[0]:
                        continue
                    h = c["args"][reg[0]].lstrip("&").strip()
                    if reg[1] is None:
                        flags = None
                    elif reg[1] < 0 or reg[1] >= len(c["args"]):
                        flags = -1
                    elif K.HARDIRQ_FLAGS.search(c["args"][reg[1]]) or \
                            self._hardirq_local(fn, c["args"][reg[1]].strip(), c):
                        flags = None
                    else:
                        words = set(re.findall(r"\w+", c["args"][reg[1]]))
                        ps = [i for i, q in enumerate(fn.params) if q in words]
                        flags = ps[0] if ps else -1
                    if h in fn.params:
                        if fn.name not in regs:
                            regs[fn.name] = (fn.params.index(h), flags)
                            changed = True
                        seen.add((id(c), c["f"]))
                        continue
                    if isinstance(flags, int) and flags >= 0:
                        continue        # the flags come from a caller: wait
                    seen.add((id(c), c["f"]))
                    for t in self.resolve(h, fn.file):
                        (hard if flags is None else soft).add(t)
        return hard - soft

    def _hardirq_local(self, fn, arg, c):
        """Is the flags argument arg of call c a local variable of fn
        whose every assignment before c (its initializer included) names
        one of HARDIRQ_FLAGS (x86's setup_default_timer_irq(): flags =
        IRQF_NOBALANCING | IRQF_IRQPOLL | IRQF_TIMER)?  A compound
        assignment other than |=, or the variable's address taken, leaves
        it unknown; |= adds to what an assignment gave."""
        if not re.fullmatch(r"[A-Za-z_]\w*", arg) or arg in fn.params:
            return False
        t, ext = self._body(fn)
        if not ext:
            return False
        code = t.code[ext[0]:min(ext[1], t.offset(c["line"], c.get("col", 0)))]
        v = r"(?<![\w.>])%s\b" % re.escape(arg)      # not a member of the same name
        if re.search(r"[(,=]\s*&\s*%s|%s\s*(?:[-+*/%%^&]|<<|>>)=" % (v, v), code):
            return False
        plain = [m.group(1) for m in re.finditer(r"%s\s*=(?!=)([^;]*);" % v, code)]
        return bool(plain) and all(K.HARDIRQ_FLAGS.search(x) for x in plain)

    def _passed_notifiers(self, fn, i, callers, depth=0):
        """The callbacks of the notifier_blocks fn's callers pass as its
        parameter i (vxlan_fdb_notify_one(nb, ..) calls nb->notifier_call()
        of the block its caller was given), through callers passing their
        own parameter on (three calls up), or None: a call through a
        notifier_block parameter reaches those, not every notifier."""
        if depth > 3:
            return None
        if self._nb_init is None:
            self._nb_init = collections.defaultdict(set)
            for rel, f in self.facts.items():
                for p in f["fnptrs"]:
                    if p["how"] == "init" and p["var"] and p["field"] == _NOTIFIER[1] \
                            and p["type"] in (None, _NOTIFIER[0]):
                        self._nb_init[p["var"]] |= set(self.resolve(p["fn"], rel))
        out = set()
        for caller, c, how in callers.get(fn, ()):
            if how != "direct" or i >= len(c["args"]):
                continue
            a = c["args"][i].strip()
            if a.startswith("&") and a[1:].strip() in self._nb_init:
                out |= self._nb_init[a[1:].strip()]
            elif a in caller.params:
                got = self._passed_notifiers(caller, caller.params.index(a), callers, depth + 1)
                out |= got or set()
        return out

    def field_targets(self, typ, field):
        if typ and self.stored.get((typ, field)):
            return self.stored[(typ, field)], "%s.%s" % (typ, field)
        pool = self.untyped.get(field, set()) if typ else self.by_field.get(field, set())
        if len(pool) > MAX_FIELD_TARGETS:
            return set(), None
        return pool, "->%s (by field name)" % field

    def _bpf(self):
        """Helper Fn -> [(program type)], and program type -> helpers."""
        types = {}
        for rel in ("include/linux/bpf_types.h",):
            self.audit.read[rel] = "file"
            p = os.path.join(self.tree, rel)
            if os.path.isfile(p):
                for m in re.finditer(r"BPF_PROG_TYPE\(\s*(BPF_PROG_TYPE_\w+)\s*,\s*(\w+)\s*,",
                                     open(p, errors="replace").read()):
                    types[m.group(1)] = m.group(2)
        proto_fn = collections.defaultdict(list)       # ops var -> get_func_proto fns
        helper_of = collections.defaultdict(list)      # proto var -> helper fns
        by_ops = collections.defaultdict(list)
        for ptype, name in types.items():
            by_ops[name + "_prog_ops"].append(ptype)
            by_ops[name + "_verifier_ops"].append(ptype)
        self.ops_types = collections.defaultdict(set)  # Fn -> program types of its ops
        for rel, f in self.facts.items():
            for p in f["fnptrs"]:
                if p["var"] in by_ops:
                    for t in self.resolve(p["fn"], rel):
                        self.ops_types[t].update(by_ops[p["var"]])
                if p["field"] == "get_func_proto" and p["var"]:
                    proto_fn[p["var"]].extend(self.resolve(p["fn"], rel))
                elif p["field"] == "func" and p["type"] == "bpf_func_proto" and p["var"]:
                    helper_of[p["var"]].extend(self.resolve(p["fn"], rel))
        self.helpers = {}
        for ptype, name in types.items():
            seen, todo, out = set(), list(proto_fn.get(name + "_verifier_ops", ())), set()
            while todo:
                fn = todo.pop()
                if fn in seen:
                    continue
                seen.add(fn)
                for proto in fn.protos:
                    out.update(helper_of.get(proto, ()))
                for c in fn.calls:
                    if c["f"].endswith("_func_proto"):
                        todo.extend(self.resolve(c["f"], fn.file))
                    else:       # an intermediate function returning protos
                        todo.extend(t for t in self.resolve(c["f"], fn.file) if t.protos)
            self.helpers[ptype] = out

    def run_types(self, fn, c):
        """Program types a run site runs: the run function's own (RUN_TYPES),
        else those named in the calling function, else those of the
        bpf_prog_ops/bpf_verifier_ops that hold the function or a caller
        up to two calls away, else those named in its file when it names
        at most three."""
        if c["f"] in RUN_TYPES:
            return RUN_TYPES[c["f"]]
        if fn.d.get("ptypes"):
            return tuple(fn.d["ptypes"])
        level, seen = [fn], {fn}
        for _ in range(3):
            got = set()
            for f in level:
                got |= self.ops_types.get(f, set())
            if got:
                return tuple(sorted(got))
            nxt = []
            for f in level:
                for caller in [x[0] for x in self.callers.get(f, ())] + self.passed_by.get(f, []):
                    if caller not in seen:
                        seen.add(caller)
                        nxt.append(caller)
            level = nxt
        ftypes = self.facts[fn.file]["ptypes"]
        return tuple(ftypes) if len(ftypes) <= 3 else ()

    def _edges(self):
        """callers[Fn] = [(caller Fn, call, how)]."""
        A = self.audit
        callers = self.callers = collections.defaultdict(list)
        self.passed_by = collections.defaultdict(list)
        self.roots = {}
        runs = []
        skip_args = set(REG_ROOTS) | {"EXPORT_SYMBOL", "EXPORT_SYMBOL_GPL"}
        by_name, resolve, stores_param = A.by_name, self.resolve, self.stores_param
        run_names = {f for f in A.names_called if RUN.match(f)}
        resolved = self._resolved
        notify = []
        for fn in self.fns:
            d = fn.d
            rel = fn.file
            runner = RUN.match(fn.name)
            for c in fn.calls:
                f = c["f"]
                if f in by_name:
                    ts = resolved.get((f, rel))
                    for t in (ts if ts is not None else resolve(f, rel)):
                        callers[t].append((fn, c, "direct"))
                if f in run_names and not runner:
                    runs.append((fn, c))
                args = c["args"]
                if not args:
                    continue
                if f in REG_ROOTS:
                    reg = REG_ROOTS[f]
                    if len(args) > reg[0]:
                        for t in resolve(args[reg[0]].lstrip("&"), rel):
                            self.roots.setdefault(t, "%s (%s() in %s)" % (reg[1], f, fn.name))
                if f in skip_args:
                    continue
                for i, a in enumerate(args):
                    a = analyze.function_arg(a, by_name)
                    if a is None or a == f or a in d.get("vars", _NONE) or a in fn.params:
                        continue
                    if (id(c), i) in stores_param:
                        continue
                    if f not in by_name and tables.macro_runs(self.facts, rel, f, i):
                        # a macro of the file that calls it (tables.py)
                        for t in resolve(a, rel):
                            callers[t].append((fn, c, "called by macro %s()" % f))
                        continue
                    if f not in by_name and not f.startswith("INDIRECT_CALL"):
                        # handed to code outside the analysed files
                        for t in resolve(a, rel):
                            self.roots.setdefault(t, "callback passed to %s() in %s()"
                                                  % (f, fn.name))
                            self.passed_by[t].append(fn)
                        continue
                    for t in resolve(a, rel):
                        callers[t].append((fn, c, "passed to %s()" % f))
            for fc in d.get("fcalls", ()):
                typ = self.rtype(fn, fc["recv"])
                call = {"f": "->" + fc["field"], "line": fc["line"], "col": fc["col"], "args": []}
                if (typ, fc["field"]) == _NOTIFIER and len(fc["recv"]) == 1 \
                        and fc["recv"][0] in fn.params:
                    notify.append((fn, call, fn.params.index(fc["recv"][0])))
                    continue
                targets, how = self.field_targets(typ, fc["field"])
                for t in targets:
                    callers[t].append((fn, call, how))
        tables.extend(self, MAX_FIELD_TARGETS)
        for fn, call, i in notify:
            targets = self._passed_notifiers(fn, i, callers)
            for t in targets or ():
                callers[t].append((fn, call, "notifier_block.notifier_call (passed by the callers)"))
        for rel, f in self.facts.items():
            for r in f["top_registrations"]:
                for t in self.resolve(r["fn"], rel):
                    self.roots.setdefault(t, "%s (%s)" % (r["macro"].lower(), r["name"]))
        self._bpf()
        self.unknown_runs = []
        for fn, c in runs:
            types = self.run_types(fn, c)
            if not types:
                self.unknown_runs.append({"function": fn.name, "file": fn.file, "line": c["line"],
                                          "call": c["f"]})
            for ptype in types:
                for h in self.helpers.get(ptype, ()):
                    callers[h].append((fn, c, "runs a %s program"
                                       % ptype[len("BPF_PROG_TYPE_"):]))
        helpers = set().union(*self.helpers.values()) if self.helpers else set()
        for fn in self.fns:
            if fn in self.roots or fn in helpers or \
                    ("bpf_func_proto", "func") in self.stored_in.get(fn, ()):
                continue        # a BPF helper runs where programs of its types run
            if _SYSCALL.match(fn.name):
                self.roots[fn] = "system call"
            elif fn.init and not callers.get(fn):
                self.roots[fn] = "init code"
            elif not callers.get(fn):
                if fn.name in self.exported:
                    self.roots[fn] = "exported, no caller in the analysed files"
                elif not fn.static and not fn.file.endswith(".h"):
                    self.roots[fn] = "no caller in the analysed files"
                elif self.stored_in.get(fn):
                    typ, field = sorted(self.stored_in[fn], key=str)[0]
                    self.roots[fn] = "callback %s.%s, no caller in the analysed files" % (
                        typ or "?", field)
        self.dispatch = {}
        for fn, keys in self.stored_in.items():
            for typ, field in sorted(keys, key=str):
                for dt, df, what in DISPATCH:
                    if typ == dt and (df is None or df == field):
                        self.dispatch.setdefault(fn, "%s (%s.%s)" % (what, typ, field))

    def name(self, fn):
        return "syscall %s" % fn.params[0] if _SYSCALL.match(fn.name) and fn.params else fn.name

    # --- sections within one function -----------------------------------

    def _body(self, fn):
        t = self.text(fn.file)
        ext = self.extent(fn)
        return t, ext

    def set_before(self, fn, c):
        """Is the context set at call c of fn?  Setters open it, clears
        close it; an early-exit clear only closes it at the end of its
        block, when the setter was called in that block."""
        names = {x["f"] for x in fn.calls}
        if not names & set(self.sp.setters):
            return False
        key = (c["line"], c["col"])
        depth, pending, opened = 0, [], []
        t, ext = self._body(fn)
        for x in fn.calls:
            for p in [p for p in pending if p[0] < x["line"]]:
                pending.remove(p)
                if p[1] in opened:
                    opened.remove(p[1])
            if (x["line"], x["col"]) >= key:
                break
            if x["f"] in self.sp.setters:
                opened.append(x["line"])
            elif x["f"] in self.sp.clears and opened:
                fd = {"body": ext[0], "end_off": ext[1]} if ext else None
                if fd and cfacts.stmt_exits(t, x["line"], x["col"], fd):
                    blk = cfacts.stmt_block(t, x["line"], x["col"])
                    if blk and opened[-1] >= blk[0]:
                        pending.append((blk[1], opened[-1]))
                    continue
                opened.pop()
        del depth
        return bool(opened)

    def null_tests(self, fn):
        """Offsets of NULL tests of a nullable getter's value in fn, and
        offsets of nullable getter calls whose value is tested."""
        nullable = [n for n in self.sp.nullable if any(x["f"] == n for x in fn.calls)]
        if not nullable:
            return [], set()
        t, ext = self._body(fn)
        if not ext:
            return [], set()
        code = t.code[:ext[1]]
        tests, tested_calls = [], set()
        lik = r"(?:(?:un)?likely\s*\(\s*)?"
        for n in nullable:
            call = r"%s\s*\(\s*\)" % re.escape(n)
            for pat in (r"!\s*" + lik + call, call + r"\s*[!=]=\s*NULL",
                        r"NULL\s*[!=]=\s*" + call, r"\bif\s*\(\s*" + lik + call):
                for m in re.finditer(pat, code[ext[0]:]):
                    tests.append(ext[0] + m.start())
                    cm = re.search(call, m.group())
                    tested_calls.add(ext[0] + m.start() + cm.start())
            for m in re.finditer(r"\b(\w+)\s*=\s*(%s)" % call, code[ext[0]:]):
                v = re.escape(m.group(1))
                after = ext[0] + m.end()
                for pat in (r"!\s*" + lik + r"\b%s\b(?!\s*(?:->|\.|\[))" % v,
                            r"\b%s\s*[!=]=\s*NULL" % v, r"\bif\s*\(\s*" + lik + r"%s\s*\)" % v):
                    for mm in re.finditer(pat, code[after:]):
                        tests.append(after + mm.start())
                        tested_calls.add(ext[0] + m.start(2))
        return sorted(tests), tested_calls

    def guarded(self, fn, c):
        """A NULL test of a nullable getter comes before call c."""
        tests, _ = self.null_tests(fn)
        if not tests:
            return None
        t, _ = self._body(fn)
        off = t.offset(c["line"], c["col"])
        before = [x for x in tests if x < off]
        return "%s:%d" % (fn.file, t.line(before[-1])) if before else None

    def tolerant_site(self, fn, c):
        """The getter call c tolerates NULL: it is a nullable getter whose
        value is tested, or a test comes before it."""
        tests, tested = self.null_tests(fn)
        if not tests:
            return None
        t, _ = self._body(fn)
        off = t.offset(c["line"], c["col"])
        if c["f"] in self.sp.nullable:
            near = [x for x in tested if abs(x - off) <= 2]
            if near:
                return "%s:%d" % (fn.file, c["line"])
        return self.guarded(fn, c)

    def param_guard(self, fn, c):
        """Index of the parameter P when call c is only made under
        'P && c(...)' or 'if (P) c(...)': callers passing false skip it."""
        if c["f"].startswith("->") or not fn.params:
            return None
        t, ext = self._body(fn)
        if not ext:
            return None
        off = t.offset(c["line"], c["col"])
        before = t.code[max(ext[0], off - 200):off]
        for i, p in enumerate(fn.params):
            if not p:
                continue
            if re.search(r"\b%s\s*&&[^;{}]*$" % re.escape(p), before) or \
                    re.search(r"\bif\s*\(\s*%s\s*\)\s*$" % re.escape(p), before):
                return i
        return None


# --- the search -----------------------------------------------------------------

def _site_key(g, entry, fn, getter):
    return "%s:%s .. %s:%s -> %s" % (entry.file, g.name(entry).replace(" ", "_"),
                                      fn.file, fn.name, getter)


def check(g):
    sp = g.sp
    internal = set(sp.getters) | set(sp.setters) | set(sp.clears)
    sites, covered, tolerant = [], [], []
    seen = set()
    for fn in g.fns:
        if fn.name in internal:
            continue
        for c in fn.calls:
            if c["f"] not in sp.getters or (fn, c["f"]) in seen:
                continue
            where = {"function": fn.name, "file": fn.file, "line": c["line"], "getter": c["f"]}
            if g.set_before(fn, c):
                covered.append(where)
                continue
            why = g.tolerant_site(fn, c)
            if why:
                tolerant.append(dict(where, test=why))
                continue
            seen.add((fn, c["f"]))
            sites.append((fn, c))
    paths = {}
    for fn, c in sites:
        for p in _search(g, fn, c):
            paths.setdefault(p["key"], p)
    return sorted(paths.values(), key=lambda p: p["key"]), sites, covered, tolerant


def _search(g, site_fn, site_call):
    """Backward from the getter call: region of functions that reach it
    with the context unset; the roots in it; the nearest entries."""
    nxt = {site_fn: None}                # Fn -> (callee Fn, call in Fn, how)
    redges = collections.defaultdict(list)   # caller -> callees inside the region
    queue = collections.deque([site_fn])
    while queue:
        f = queue.popleft()
        hop = nxt[f]
        gi = g.param_guard(f, hop[1]) if hop else None
        for caller, c, how in g.callers.get(f, ()):
            if gi is not None and c["f"] == f.name and gi < len(c["args"]) \
                    and c["args"][gi] in FALSE_ARGS:
                continue
            if g.set_before(caller, c) or g.guarded(caller, c):
                continue
            redges[caller].append(f)
            if caller not in nxt:
                nxt[caller] = (f, c, how)
                queue.append(caller)
    roots = sorted((f for f in nxt if f in g.roots), key=lambda f: (f.file, f.name, f.line))
    if not roots:
        return []
    # Entries: the roots, and the dispatch points a root reaches without
    # passing another dispatch point (one reached only through another
    # is part of that one's path).
    prev = {r: None for r in roots}
    queue = collections.deque(roots)
    while queue:
        f = queue.popleft()
        if f in g.dispatch and f not in g.roots:
            continue
        for t in redges.get(f, ()):
            if t not in prev:
                prev[t] = f
                queue.append(t)
    entries = {f for f in prev if f in g.roots or f in g.dispatch}
    out = []
    for e in sorted(entries, key=lambda f: (f.file, f.name, f.line)):
        chain, f = [], e
        while f is not None:
            if f is not e and f in entries:
                break
            hop = nxt[f]
            chain.append((f, hop))
            f = hop[0] if hop else None
        if f is not None:
            continue            # a nearer entry is on the way
        up, f = [], prev[e]
        while f is not None:
            up.append(f)
            f = prev[f]
        root = up[-1] if up else e
        out.append(_path(g, e, chain, site_fn, site_call, root, list(reversed(up))))
    return out


def _path(g, entry, chain, site_fn, site_call, root, up):
    steps = []
    for f, hop in chain:
        step = {"function": g.name(f), "file": f.file, "line": f.line}
        c = hop[1] if hop else site_call
        step["calls"] = "%s:%d" % (f.file, c["line"])
        if hop and hop[2] != "direct":
            step["via"] = hop[2]
        steps.append(step)
    steps.append({"function": site_call["f"], "getter": True,
                  "file": site_fn.file, "line": site_call["line"]})
    kind = g.roots.get(entry) or g.dispatch.get(entry)
    return {
        "key": _site_key(g, entry, site_fn, site_call["f"]),
        "entry": {"function": g.name(entry), "file": entry.file, "line": entry.line, "kind": kind},
        "getter": site_call["f"],
        "site": {"function": site_fn.name, "file": site_fn.file, "line": site_call["line"]},
        "chain": steps,
        "root": {"function": g.name(root), "file": root.file, "line": root.line,
                 "kind": g.roots.get(root), "via": [g.name(f) for f in up]},
    }


# --- expectations --------------------------------------------------------------

def read_expect(path):
    """{key: reason}: one 'KEY | reason' line per path left on purpose."""
    out = {}
    if not os.path.isfile(path):
        raise AuditError("expectation file %s: not found" % path)
    for no, line in enumerate(open(path), 1):
        line = line.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, sep, reason = line.partition(" | ")
        if not sep or not reason.strip() or "*" in key:
            raise AuditError("%s:%d: expected 'PATH-KEY | reason' (no wildcards)" % (path, no))
        out[key.strip()] = reason.strip()
    return out


def compare(doc, expect):
    keys = {p["key"] for p in doc["paths"]}
    return sorted(keys - set(expect)), sorted(set(expect) - keys)


# --- reports -------------------------------------------------------------------

def chain_text(p):
    parts = []
    for s in p["chain"]:
        parts.append(s["function"] + "()")
        if "calls" in s:
            parts.append(" -[%s]-> " % s["via"] if s.get("via") else " -> ")
    return "".join(parts)


def text(doc, f):
    f.write("# nbh-audit --context %s %s on %s: %d path(s) to a getter without the context\n" % (
        doc["context"], doc["tree_version"], " ".join(doc["paths_analysed"]), len(doc["paths"])))
    for p in doc["paths"]:
        s = p["site"]
        e = p["entry"]
        f.write("%s:%d:0-0: WARNING: %s() reached without %s from %s() [%s]: %s\n" % (
            s["file"], s["line"], p["getter"], doc["context"], e["function"], e["kind"],
            chain_text(p)))
        r = p["root"]
        if r["function"] != e["function"]:
            f.write("%s:%d:0-0: INFO: %s() is reached from %s() [%s] via %s\n" % (
                e["file"], e["line"], e["function"], r["function"], r["kind"],
                " -> ".join(r["via"] + [e["function"]])))
        if p.get("expected"):
            f.write("%s:%d:0-0: INFO: expected: %s\n" % (s["file"], s["line"], p["expected"]))
    for t in doc["tolerant"]:
        f.write("%s:%d:0-0: INFO: %s() in %s() tolerates NULL (test at %s)\n" % (
            t["file"], t["line"], t["getter"], t["function"], t["test"]))
    s = doc["summary"]
    f.write("# getter calls: %d set by the caller, %d NULL-tolerant, %d checked; "
            "%d path(s)\n" % (s["covered_sites"], s["tolerant_sites"], s["checked_sites"],
                              s["paths"]))


def html_report(doc, f):
    e = html.escape
    f.write("<!DOCTYPE html><html><head><meta charset='utf-8'><title>nbh-audit --context %s</title>"
            "<style>body{font-family:sans-serif}td{vertical-align:top;padding:2px 6px}"
            "tr:nth-child(even){background:#eee}code{font-size:90%%}</style></head><body>\n"
            % e(doc["context"]))
    f.write("<h1>%s on %s %s</h1><p>%s</p><p>%d path(s) to a getter without the context.</p>\n"
            % (e(doc["context"]), e(doc["tree_version"]), e(" ".join(doc["paths_analysed"])),
               e(doc["about"]), len(doc["paths"])))
    f.write("<table><tr><th>entry</th><th>chain</th><th>reached from</th><th>expected</th></tr>\n")
    for p in doc["paths"]:
        r = p["root"]
        f.write("<tr><td>%s()<br><small>%s<br>%s:%d</small></td><td><code>%s</code></td>"
                "<td>%s()<br><small>%s</small></td><td>%s</td></tr>\n" % (
                    e(p["entry"]["function"]), e(p["entry"]["kind"] or ""), e(p["entry"]["file"]),
                    p["entry"]["line"], e(chain_text(p)), e(r["function"]), e(r["kind"] or ""),
                    e(p.get("expected", ""))))
    f.write("</table></body></html>\n")


def run(tree, version, paths, files, sp, cache_root, quiet=False):
    cache = Cache(cache_root)
    facts, parsed = load(tree, files, cache)
    hdrs = headers_of(tree, facts, sp)
    more, n = load(tree, hdrs, cache)
    facts.update(more)
    g = Graph(tree, facts, sp)
    found, sites, covered, tolerant = check(g)
    if not quiet:
        info("context %s: %d files + %d headers (%d parsed), %d getter calls checked, %d path(s)" % (
            sp.name, len(files), len(hdrs), parsed + n, len(sites), len(found)))
    return {
        "schema": SCHEMA, "tool": "nbh-audit", "mode": "context", "context": sp.name,
        "about": sp.about, "tree": os.path.abspath(tree), "tree_version": version,
        "paths_analysed": list(paths), "files": len(files), "headers": len(hdrs),
        "spec": {k: list(v) for k, v in dataclasses.asdict(sp).items() if isinstance(v, tuple)},
        "summary": {"paths": len(found), "checked_sites": len(sites),
                    "covered_sites": len(covered), "tolerant_sites": len(tolerant)},
        "paths": found, "tolerant": tolerant, "covered": covered,
    }


def dump(doc, f):
    f.write(json.dumps(doc, indent=1))


def main(args, tree, version, paths, files, outs):
    """nbh-audit --context NAME: run the check, write the reports."""
    sp = spec(args.context)
    work = os.environ.get("WORK", "/var/tmp/nbh-work")
    root = args.cache or os.environ.get("NBH_AUDIT_CACHE") or os.path.join(work, "cache", "audit")
    doc = run(tree, version, paths, files, sp, root, args.quiet)
    writers = {"json": lambda f: dump(doc, f), "text": lambda f: text(doc, f),
               "html": lambda f: html_report(doc, f)}
    for kind, out in outs.items():
        out.write(writers[kind])
    return 0
