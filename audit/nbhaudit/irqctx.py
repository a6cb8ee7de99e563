# SPDX-License-Identifier: GPL-2.0
"""Callbacks that the call graph takes for softirq entries (or reaches
from one) although they never run in BH context.

hrtimer callbacks.  A callback stored in hrtimer.function runs where its
timer expires, which the mode given to hrtimer_init() / hrtimer_setup()
(else hrtimer_start*()) decides (kernel/time/hrtimer.c,
__hrtimer_init()):

- a *_HARD mode: hard-IRQ context (hrtimer_interrupt()), IRQs off, on
  PREEMPT_RT too: not BH context;
- a *_SOFT mode: HRTIMER_SOFTIRQ, on both configurations;
- a plain mode (HRTIMER_MODE_REL, _ABS, _PINNED): hard IRQ on
  !PREEMPT_RT, but PREEMPT_RT moves every timer not marked HARD to
  HRTIMER_SOFTIRQ.  The verdicts are for PREEMPT_RT: softirq.

A mode the text does not name (a variable) leaves the callback a
softirq entry, as it was.

Notifier chains of a known context, by head (knowledge.CHAIN_CONTEXTS):
panic() calls atomic_notifier_call_chain(&panic_notifier_list, ..) with
IRQs off and the other CPUs stopped.  That call is no softirq edge
(softirq reachability does not cross it), and the callbacks registered
on the head (*_notifier_chain_register(&head, &nb)) are roots of their
own.  Without it every notifier of every chain (notifier_call_chain()
calls nb->notifier_call) was reached from any softirq entry that can
panic.

Primary interrupt handlers (irqaction.handler, PRIMARY below) run with
IRQs off: a call through irqaction.handler is no softirq edge, though a
tasklet runs the flow handler that makes it (resend_irqs())."""

import re

from . import knowledge as K

# Primary interrupt handlers: the targets of irqaction.handler, called by
# the flow handlers (__handle_irq_event_percpu()) with IRQs off, also when
# a tasklet runs the flow handler (resend_irqs(): local_irq_disable()).
# A call through it is no softirq edge.  A handler that is force-threaded
# runs as irqaction.thread_fn too, under irq_forced_thread_fn()'s
# local_bh_disable(): that edge stays.
PRIMARY = ("irqaction", "handler")
PRIMARY_CALL = "->handler"

# Calls that give a timer its mode: argument index of the mode (-1: the
# last), whether the call decides it (init) or only repeats it (start).
MODE_CALLS = {"hrtimer_init": (2, True), "hrtimer_init_on_stack": (2, True),
              "hrtimer_setup": (3, True), "hrtimer_setup_on_stack": (3, True),
              "hrtimer_start": (-1, False), "hrtimer_start_range_ns": (-1, False),
              "hrtimer_start_expires": (-1, False)}
# Calls that store the callback and give the mode at once: callback index.
SETUP_CALLS = {"hrtimer_setup": 1, "hrtimer_setup_on_stack": 1}

_LHS = re.compile(r"^\s*(.*?)\s*(?:->|\.)\s*function\s*=")


def _norm(expr):
    e = re.sub(r"\s+", "", expr or "")
    while e.startswith("&"):
        e = e[1:]
    while e.startswith("(") and e.endswith(")"):
        e = e[1:-1]
    return e


def _last(expr):
    return re.split(r"->|\.", expr)[-1]


def mode_kind(text):
    """'hard', 'soft', 'plain' for a mode argument, None when the text
    names no HRTIMER_MODE_* constant."""
    if re.search(r"\bHRTIMER_MODE_\w*HARD\b", text):
        return "hard"
    if re.search(r"\bHRTIMER_MODE_\w*SOFT\b", text):
        return "soft"
    if re.search(r"\bHRTIMER_MODE_\w+\b", text):
        return "plain"
    return None


def reason(kind, mode, where):
    if kind == "hard":
        return ("hrtimer callback in hard-IRQ context (%s, %s): IRQs off, not BH, "
                "on PREEMPT_RT too" % (mode, where))
    if kind == "soft":
        return "hrtimer callback (HRTIMER_SOFTIRQ: %s, %s)" % (mode, where)
    if kind == "plain":
        return ("hrtimer callback (%s, %s): hard IRQ on !PREEMPT_RT, HRTIMER_SOFTIRQ on "
                "PREEMPT_RT, which moves every timer not marked HARD there" % (mode, where))
    return ("hrtimer callback (mode '%s' is no HRTIMER_MODE_* constant, %s): taken as "
            "HRTIMER_SOFTIRQ, where PREEMPT_RT runs every timer not marked HARD" % (mode, where))


class Timers:
    """The mode calls of an audit's files, by file."""

    def __init__(self, audit):
        self.audit = audit
        self.by_file = {}
        for fn in audit.fns:
            if fn.names.isdisjoint(MODE_CALLS):
                continue
            for c in fn.calls:
                m = MODE_CALLS.get(c["f"])
                if m is None or len(c["args"]) < 2:
                    continue
                idx, init = m
                mode = c["args"][idx] if -len(c["args"]) <= idx < len(c["args"]) else ""
                self.by_file.setdefault(fn.file, []).append(
                    (fn, c, _norm(c["args"][0]), mode.strip(), init))

    def _classify(self, cands, fn):
        """(kind, reason) from the mode calls of one timer: the calls that
        decide the mode first; any mode that is not HARD wins (the
        callback may then run in softirq)."""
        inits = [x for x in cands if x[4]] or cands
        got = []
        for g, c, _, mode, _ in inits:
            where = "%s() in %s() at %s:%d" % (c["f"], g.name, g.file, c["line"])
            got.append((mode_kind(mode), reason(mode_kind(mode), mode, where)))
        for kind in ("plain", "soft", None):
            for k, r in got:
                if k == kind:
                    return k, r
        return got[0]

    def of_assign(self, rel, line):
        """(kind, reason) of the timer whose .function is assigned at
        rel:line when a mode call names the same timer, else None (a
        timer_list, or an hrtimer whose set-up is not seen).  The same
        expression in the same function, else in the file, else a member
        of the same name in the file."""
        calls = self.by_file.get(rel)
        if not calls:
            return None
        m = _LHS.match(self.audit._raw_line(rel, line))
        if not m:
            return None
        lhs = _norm(m.group(1))
        fn = next((g for g in self.audit.fns_of(rel) if g.line <= line <= g.end), None)
        same = [x for x in calls if x[2] == lhs]
        here = [x for x in same if x[0] is fn]
        if here or same:
            return self._classify(here or same, fn)
        if re.search(r"->|\.", lhs):
            named = [x for x in calls if re.search(r"->|\.", x[2]) and _last(x[2]) == _last(lhs)]
            if named:
                return self._classify(named, fn)
        return None

    def setups(self):
        """(caller, call, callback name, kind, reason) of every
        hrtimer_setup*() call: it stores the callback and its mode."""
        for rel in sorted(self.by_file):
            for g, c, _, mode, _ in self.by_file[rel]:
                i = SETUP_CALLS.get(c["f"])
                if i is None or len(c["args"]) <= i:
                    continue
                where = "%s() in %s() at %s:%d" % (c["f"], g.name, g.file, c["line"])
                kind = mode_kind(mode)
                yield g, c, c["args"][i].strip().lstrip("&"), kind, reason(kind, mode, where)


def chain_head(c):
    """The head of a notifier chain called by c, when its context is
    known (knowledge.CHAIN_CONTEXTS), else None."""
    if not c["args"] or not K.CHAIN_CALLS.match(c["f"]):
        return None
    head = _last(_norm(c["args"][0]))
    return head if head in K.CHAIN_CONTEXTS else None


def chain_roots(audit, notifier_vars, root):
    """Roots for the callbacks registered on a chain of known context:
    *_notifier_chain_register(&head, &nb) with nb's notifier_call known."""
    for fn in audit.fns:
        for c in fn.calls:
            if len(c["args"]) < 2 or not K.CHAIN_REGISTER.match(c["f"]):
                continue
            head = _last(_norm(c["args"][0]))
            why = K.CHAIN_CONTEXTS.get(head)
            if not why:
                continue
            for p in notifier_vars.get((fn.file, _norm(c["args"][1])), ()):
                for cb in audit.resolve(p["fn"], fn.file):
                    root(cb, "%s: %s(&%s)" % (why, c["f"], head), fn.file, c["line"])


class Chains:
    """Notifier chains by head.  The notifier core's nb->notifier_call()
    resolves to every notifier of the audited files, so a call of one
    chain reached the callbacks of all of them (out_of_memory() ->
    blocking_notifier_call_chain(&oom_notify_list, ..) reached the module
    notifiers).  A call *_notifier_call_chain(&head, ..) of a file-scope
    head instead reaches the callbacks registered on that head:
    *_notifier_chain_register(&head, &nb) with nb a notifier_block whose
    .notifier_call is known, directly or through a wrapper that passes
    its parameter (register_module_notifier(nb)), up to two wrappers
    deep, or nb a member of a structure whose notifier_call the file
    registering it stores (&priv->netevent_nb, with
    priv->netevent_nb.notifier_call = f).  The same for a wrapper of the
    call (call_netevent_notifiers() -> atomic_notifier_call_chain(
    &netevent_notif_chain, ..)): the call in the wrapper is resolved.
    A head with one registration not resolved so (an array, a member
    the file does not store, a caller passing something else) keeps
    every notifier."""

    DEPTH = 2

    def __init__(self, audit):
        self.audit = audit
        self.blocks = {}
        for rel, f in sorted(audit.facts.items()):
            for p in f["fnptrs"]:
                if p["field"] == "notifier_call" and p["var"] and \
                        p["line"] not in audit.dead.get(rel, ()):
                    self.blocks.setdefault(p["var"], []).append((rel, p))
        self.regs = {}
        for fn in audit.fns:
            if not any(K.CHAIN_REGISTER.match(n) for n in fn.names):
                continue
            for c in fn.calls:
                if len(c["args"]) >= 2 and K.CHAIN_REGISTER.match(c["f"]):
                    head = _norm(c["args"][0])
                    if re.fullmatch(r"\w+", head):
                        self.regs.setdefault(head, []).append((fn, c, _norm(c["args"][1])))
        self.memo = {}
        self.members = None     # member name -> file -> callbacks stored there
        # the chain calls made in the audited files
        self.calls = {n for n in audit.names_called if K.CHAIN_CALLS.match(n)}

    def targets(self, c):
        """The callbacks a chain call c reaches, None when it is no such
        call or its head is not resolved."""
        if not c["args"] or not K.CHAIN_CALLS.match(c["f"]):
            return None
        head = _norm(c["args"][0])
        if not re.fullmatch(r"\w+", head):
            return None
        if head not in self.memo:
            out = []
            for fn, _, nb in self.regs.get(head, ()):
                got = self._blocks(fn, nb, self.DEPTH)
                if got is None:
                    out = None
                    break
                out.extend(t for t in got if t not in out)
            self.memo[head] = out
        return self.memo[head]

    def _blocks(self, fn, nb, depth):
        if not re.fullmatch(r"\w+", nb):
            return self._member_blocks(fn, nb)
        if nb in fn.params:
            if not depth:
                return None
            i = fn.params.index(nb)
            out = []
            for caller, c in self.audit.callers(fn):
                if c["f"] != fn.name:
                    continue
                got = self._blocks(caller, _norm(c["args"][i]) if i < len(c["args"]) else "",
                                   depth - 1)
                if got is None:
                    return None
                out.extend(got)
            return out
        cands = self.blocks.get(nb, ())
        ps = [(rel, p) for rel, p in cands if rel == fn.file] or list(cands)
        if not ps:
            return None
        return [t for rel, p in ps for t in self.audit.resolve(p["fn"], rel)]

    def _member_blocks(self, fn, nb):
        """The callbacks of a block that is a member of a structure
        (&mlxsw_sp->router->netevent_nb): those fn's file stores in
        <member>.notifier_call (x->router->netevent_nb.notifier_call =
        f), else None."""
        if not re.fullmatch(r"\w+(?:(?:->|\.)\w+)+", nb):
            return None
        if self.members is None:
            self.members = {}
            for g in self.audit.fns:
                dead = self.audit.dead.get(g.file, ())
                for s in g.d.get("stores", ()):
                    if s["field"] == "notifier_call" and len(s["recv"]) > 1 and \
                            s["line"] not in dead:
                        self.members.setdefault(s["recv"][-1], {}).setdefault(
                            g.file, []).extend(self.audit.resolve(s["value"], g.file))
        out = []
        for t in self.members.get(_last(nb), {}).get(fn.file, ()):
            if t not in out:
                out.append(t)
        return out or None
