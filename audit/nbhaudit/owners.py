# SPDX-License-Identifier: GPL-2.0
"""CPU-keyed owner markers: a member (or file-scope variable) that holds
the number of the CPU running inside a section and is compared with the
current CPU number to ask "am I inside?" (txq->xmit_lock_owner,
q->owner, napi->poll_owner).

With BH disabled (or the softirq lock of PREEMPT_RT) no other task of
the CPU can be inside the section, so "the marker holds my CPU" means "I
am inside"; without the softirq lock a task preempted inside leaves its
CPU in the marker and another task of that CPU takes itself for the
holder.  These are not per-CPU data, and the per-datum audit does not
see them.

From the facts of cfacts.cpu_marks() (stores of the current CPU number
or of -1, comparisons with the current CPU number), a marker is
reported when it is

- set: the current CPU number is stored in it (smp_processor_id(), a
  local assigned it, or a parameter whose name holds "cpu" when a caller
  passes the current CPU number: __netif_tx_lock(txq, cpu)),
- released: one function sets it and stores -1 in it, itself or through
  the functions it calls directly (a section: netif_tx_lock() calls
  __netif_tx_lock() and __netif_tx_unlock()).  A -1 stored only where
  the object is set up (sock_init_data_uid()'s sk_incoming_cpu = -1) is
  no release: sk->sk_incoming_cpu is a hint of the last CPU, never
  released, and is not reported,
- and compared (==, !=) with the current CPU number.

Each comparison is given the context the audit knows for its function
(analyze.Audit._access(): a lexical BH-disabled section, softirq
reachability, process context by root chains, else unknown with where
the chain of callers ends) and whether IRQs are off there.
"""

import collections

from . import cfacts


def _key(audit, fn, chain):
    """(struct or None, member) of a member chain; (None, name) of a
    variable."""
    if len(chain) == 1:
        return (None, chain[0])
    typ = audit.graph.rtype(fn, chain[:-1]) if audit.graph is not None else None
    return (typ or "?", chain[-1])


def _site(fn, m):
    return {"file": fn.file, "line": m["line"], "function": fn.name}


def _param_set(audit, fn, m):
    """Call sites passing the current CPU number for the parameter of a
    set through a parameter: ["caller() at file:line", ...]."""
    i = m["param"]
    return sorted({"%s() at %s:%d" % (caller.name, caller.file, c["line"])
                   for caller, c in audit.callers(fn)
                   if len(c.get("args") or ()) > i and cfacts.current_cpu(c["args"][i], caller.local_cpu)})


def _with_callers(audit, fns):
    """fns and the functions that call one of them directly."""
    return set(fns) | {caller for fn in fns for caller, _ in audit.callers(fn)}


def _irqs_off(snap):
    if not snap.irq:
        return None
    s = snap.irq[-1]
    return "%s()%s" % (s[0], " at line %d" % s[1] if s[1] else "") \
        if not s[0].startswith("held by") else s[0]


def _evidence(ctx, ev):
    """One line: why the comparing function runs in that context."""
    if ctx == "bh-disabled":
        return "under %s at %s" % (ev["section"], ev["at"])
    if ctx == "softirq":
        p = ev["path"]
        entry = p[0].get("entry") or {}
        return "%s: %s" % (entry.get("reason", "softirq entry"),
                           " -> ".join(x["function"] + "()" for x in p))
    return ev.get("note", "")


def _compare(audit, fn, m, reach):
    acc = audit._access(fn, {"line": m["line"], "col": 0, "remote": False}, (), reach)
    snap = acc["protection"][0]
    return dict(_site(fn, m), value=m["value"], context=acc["context"],
                evidence=_evidence(acc["context"], acc["evidence"]), irqs_off=_irqs_off(snap))


def _reason(compares):
    n = collections.Counter(c["context"] + (" with IRQs off" if c["irqs_off"] else "")
                            for c in compares)
    return "compared with the current CPU in %s" % ", ".join(
        "%s %d" % (k, v) for k, v in sorted(n.items()))


def markers(audit, reach):
    """The CPU-keyed owner markers of the audited functions, for the JSON
    key "owners" (sorted by marker)."""
    marks = collections.defaultdict(lambda: {"set": [], "reset": [], "cmp": []})
    for fn in audit.fns:
        for m in fn.d.get("cpu_marks", ()):
            marks[_key(audit, fn, m["chain"])][m["op"]].append((fn, m))
    # a member whose struct is unknown at some site is the marker of the
    # one struct where it is known, if there is one
    known = collections.defaultdict(set)
    for typ, member in marks:
        if typ not in (None, "?"):
            known[member].add(typ)
    for typ, member in [k for k in marks if k[0] == "?" and len(known[k[1]]) == 1]:
        into = marks[(next(iter(known[member])), member)]
        for op, sites in marks.pop((typ, member)).items():
            into[op].extend(sites)
    out = []
    for (typ, member), m in sorted(marks.items(), key=lambda x: (x[0][0] or "", x[0][1])):
        if not m["cmp"]:
            continue
        sets = []
        for fn, s in m["set"]:
            if "param" in s:
                via = _param_set(audit, fn, s)
                if via:
                    sets.append((fn, dict(_site(fn, s), value="parameter " + s["value"],
                                          via=via)))
            else:
                value = s["value"] if "processor_id" in s["value"] else \
                    "%s (the current CPU)" % s["value"]
                sets.append((fn, dict(_site(fn, s), value=value)))
        if not sets or not m["reset"]:
            continue
        setters = {fn for fn, _ in sets}
        resetters = {fn for fn, _ in m["reset"]}
        sections = [{"file": fn.file, "line": fn.line, "function": fn.name}
                    for fn in _with_callers(audit, setters) & _with_callers(audit, resetters)]
        if not sections:
            continue
        compares = [_compare(audit, fn, c, reach) for fn, c in m["cmp"]]
        by_site = lambda x: (x["file"], x["line"], x["function"])   # noqa: E731
        out.append({
            "marker": member if typ is None else "%s.%s" % (typ, member),
            "struct": typ, "member": member,
            "reason": _reason(compares),
            "sets": sorted((s for _, s in sets), key=by_site),
            "resets": sorted((_site(fn, r) for fn, r in m["reset"]), key=by_site),
            "sections": sorted(sections, key=by_site),
            "compares": sorted(compares, key=by_site),
        })
    return out
