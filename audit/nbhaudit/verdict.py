# SPDX-License-Identifier: GPL-2.0
"""Accesses grouped per datum (split per member when the members are
protected differently) and one verdict per group."""

import collections
import re

from . import checkact, knowledge as K, whole

BH_CONTEXTS = ("bh-disabled", "softirq")
WEAK = ("not-bh", "unknown")


# Directories whose subdirectories are subsystems of their own: the
# first two directories of a path name its subsystem (net/core,
# kernel/bpf, drivers/md), one more below each of these
# (drivers/net/ethernet/intel, drivers/net/can, arch/x86/kvm).
DEEPER = ("arch/x86", "drivers/net", "drivers/net/ethernet", "drivers/net/wireless",
          "drivers/gpu/drm", "drivers/infiniband/hw", "drivers/infiniband/ulp",
          "drivers/media/pci", "drivers/media/usb", "sound/soc", "sound/pci")


def subsystem(path):
    dirs = path.split("/")[:-1]
    if not dirs:
        return path
    n = 2
    while len(dirs) > n and "/".join(dirs[:n]) in DEEPER:
        n += 1
    return "/".join(dirs[:n])


def _member_key(chain, struct):
    if not chain:
        return ""
    if struct and len(chain) > 1 and isinstance(struct["members"].get(chain[0]), list):
        return chain[0] + "." + chain[1]
    return chain[0]


def judge(accs, rt_note):
    """(verdict, reason) for one group of accesses."""
    live = [a for a in accs if a["context"] not in ("remote", "init")]
    bh = [a for a in live if a["context"] in BH_CONTEXTS]
    bad = [a for a in bh if _bad(a)]
    # A load of a member nothing writes after init (a watermark, a
    # configuration value) races with nothing; a load that is written
    # elsewhere is exposed only when its value is used after a point where
    # the task can be preempted (stale_use): a test where it is read, or a
    # value handed straight on, is not.
    written = {_mkey(a) for a in live if a.get("rw") != "read"}
    bad = [a for a in bad if a.get("rw") != "read" or
           (_mkey(a) in written and a.get("stale_use"))]
    if bad:
        cta = [x for x in bad if x.get("check_then_act")]
        plain = [x for x in bad if not x.get("check_then_act")]
        a = plain[0] if plain else cta[0]
        pre = [x for x in bad if x["protection"] == "preempt-only"]
        if a.get("check_then_act"):
            why = "check-then-act in %s context: %s" % (a["context"], _cta_reason(a))
        else:
            why = ("accessed in %s context in %s() (%s:%d) with no per-datum lock"
                   % (a["context"], a["function"], a["file"], a["line"]))
            if cta:
                why += "; check-then-act: " + _cta_reason(cta[0])
        if pre:
            why += ("; %d access(es) under preempt_disable() with a lock that sleeps on "
                    "PREEMPT_RT inside" % len(pre))
        return "needs-lock", why
    nested = [a for a in accs if a["protection"] == "nested-bh"]
    if nested:
        return "converted", "every BH-context access holds local_lock_nested_bh() (%s)" % nested[0]["protection_detail"]
    if bh:
        kinds = sorted({a["protection"] for a in bh})
        if "preempt-only" in kinds:
            a = [x for x in bh if x["protection"] == "preempt-only"][0]
            return "preempt-only", ("BH-context accesses rely on preempt_disable() (or "
                                    "get_cpu*()) with no lock that sleeps on PREEMPT_RT inside, "
                                    "e.g. in %s() (%s:%d); protections: %s"
                                    % (a["function"], a["file"], a["line"], ", ".join(kinds)))
        kinds = [k if k != "none" else "none (reads whose value is not used after a "
                 "preemption point)" for k in kinds]
        return "safe", "BH-context accesses are protected: %s" % ", ".join(kinds)
    if not live:
        if rt_note:
            return "converted", rt_note
        if accs:
            return "not-bh", "only accessed at init or for other CPUs (per_cpu(x, cpu))"
        return "unknown", "no access found in the audited files"
    esc = [a for a in live if a.get("escapes")]
    if esc:
        return "unknown", "pointer %s; its users were not followed" % esc[0]["escapes"]
    orphan = [a for a in live if a["context"] == "unknown"]
    if orphan:
        r = orphan[0]["evidence"]["rootless"]
        return "unknown", ("no known context for %s(): a chain of its callers starts in %s() "
                           "(%s:%d): %s" % (orphan[0]["function"], r["function"], r["file"],
                                            r["line"], r["why"]))
    n = sum(a["evidence"].get("n_roots", 0) for a in live)
    return "not-bh", ("every chain of callers to its accesses starts in process context "
                      "(%d root chain%s)" % (n, "" if n == 1 else "s"))


def _cta_reason(a):
    """One line of a check-then-act (checkact.py): the read, the install,
    the conflict branch."""
    c = a["check_then_act"]
    r, i, k = c["read"], c["install"], c["conflict"]
    return ("the slot is read in %s() (%s:%d), then installed by %s in %s() (%s:%d), and the "
            "conflict branch (%s:%d: %s) assumes no other task of the CPU ran in between"
            % (r["function"], r["file"], r["line"],
               "a store" if i["op"] == "store" else i["op"] + "()", i["function"], i["file"],
               i["line"], k["file"], k["line"], k["what"]))


def _cover(accs):
    """A nested-BH lock of another datum held at every BH-context access
    of this one that needs a lock (the datum's own nested-BH sections
    included) covers it: hmac_ring's lock around the per-CPU tfms of the
    HMAC algorithm, can_rcv_lock around raw_rcv()'s per-CPU state.  Those
    accesses then count as nested-bh, the detail naming the lock and
    where it is taken.  One lock for all of them: two accesses under
    different locks exclude nothing."""
    live = [a for a in accs if a["context"] in BH_CONTEXTS]
    written = {_mkey(a) for a in accs if a["context"] not in ("remote", "init")
               and a.get("rw") != "read"}
    bare = [a for a in live if _bad(a) and (a.get("rw") != "read" or
                                             (_mkey(a) in written and a.get("stale_use")))]
    if not bare:
        return
    need = bare + [a for a in live if a["protection"] == "nested-bh"]
    common = None
    for a in need:
        keys = set(a.get("_held") or ())
        common = keys if common is None else common & keys
        if not common:
            return
    key = sorted(common)[0]
    for a in bare:
        a["protection"] = "nested-bh"
        a["protection_detail"] = ("%s; %s is held at each of the %d BH-context accesses that "
                                  "need a lock: it covers this datum"
                                  % (a["_held"][key], key.lstrip("~"), len(need)))


def _drop_held(accs):
    for a in accs:
        a.pop("_held", None)


def _mkey(a):
    return tuple(a.get("member") or ())


# Protections that leave a BH-context access exposed; preempt-only is,
# when a lock that sleeps on PREEMPT_RT is taken inside the section.
def _bad(a):
    return a["protection"] == "none" or (a["protection"] == "preempt-only"
                                         and a.get("sleeping_lock"))


def findings(audit, accesses):
    out = []
    lock_members = _lock_members(audit)
    for (kind, name), accs in sorted(accesses.items()):
        _protect(audit, name, accs, lock_members.get(name, set()))
        checkact.mark(audit, name, accs)
        for a in accs:
            a.pop("_target", None)
            a.pop("_var", None)
    keys = set(accesses)
    for name in audit.datums:
        keys.add(("static", name))
    for key in sorted(keys):
        kind, name = key
        accs = accesses.get(key, [])
        out.extend(_datum_findings(audit, kind, name, accs))
    for f in out:
        if f["verdict"] == "not-bh":
            _root_chains(audit, f)
    return out


def _root_chains(audit, f):
    """A not-bh verdict rests on where each access runs: the root chains
    of a process-context access are in its evidence already; an access at
    init or to another CPU's copy gets those of its function too, when
    every chain of its callers starts at a process-context root.  The
    finding counts the accesses with a chain ("rooted") and says what the
    others rest on ("basis": process, init, remote)."""
    basis = collections.Counter()
    rooted = 0
    for a in f["accesses"]:
        ev = a["evidence"]
        if a["context"] in ("init", "remote") and "roots" not in ev:
            fn = audit._fn_of(a)
            got = audit.prove_process(fn) if fn is not None else None
            if got and got[0] == "process":
                ev["roots"] = got[1][:K.MAX_ROOT_CHAINS]
                ev["n_roots"] = got[2]
        if ev.get("roots"):
            rooted += 1
        basis[a["context"]] += 1
    f["basis"] = dict(sorted(basis.items()))
    f["rooted"] = rooted


def _lock_members(audit):
    """datum -> names of its members passed to local_lock_nested_bh()."""
    out = collections.defaultdict(set)
    for fn in audit.fns:
        for c in fn.calls:
            if c["f"] == "local_lock_nested_bh" and c["args"]:
                ids = re.findall(r"\w+", c["args"][0])
                if ids:
                    out[ids[0]].add(ids[-1])
                    for d in audit.datums:
                        if d in ids:
                            out[d].add(ids[-1])
    return out


def _protect(audit, name, accs, lock_members):
    for a in accs:
        if isinstance(a["protection"], tuple):
            kind, detail = audit.protection(name, a, lock_members or {"bh_lock"})
            a["protection"] = kind
            a["protection_detail"] = detail


def _definition(audit, kind, name):
    if kind == "static":
        d = audit.datums[name]
        return d["file"], d["line"], d["type"], d.get("rt_dead", False), name
    if kind == "ptrvar":
        d = audit.ptr_vars[name]
        return d["file"], d["line"], d["type"] + " __percpu *", False, name
    struct, field = name.split(":")
    s = audit.structs[struct]
    return (s.get("file", "?"), s.get("line", 0), s["percpu"][field] + " __percpu *",
            False, "%s.%s" % (struct, field))


def _datum_findings(audit, kind, name, accs):
    if kind == "static" and name not in audit.datums:
        return []
    file, line, typ, def_dead, label = _definition(audit, kind, name)
    struct = audit._struct_of(name) if kind == "static" else None
    sub = subsystem(file)
    users = [subsystem(a["file"]) for a in accs if not a["file"].startswith("include/")]
    if file.startswith("include/") and users:
        # a struct declared in a header: the subsystem that uses it
        sub = collections.Counter(users).most_common(1)[0][0]
    base = {"kind": "static" if kind == "static" else "dynamic", "file": file,
            "line": line, "type": typ, "subsystem": sub}
    if kind == "static" and audit.datums[name].get("cpu_indexed"):
        base["cpu_indexed"] = audit.datums[name]["cpu_indexed"]     # cpuarray.py
    if def_dead:
        _drop_held(accs)
        return [dict(base, datum=label, verdict="converted",
                     reason="defined only without CONFIG_PREEMPT_RT: not per-CPU data on PREEMPT_RT",
                     config="PREEMPT_RT verdict", accesses=accs)]
    groups = collections.defaultdict(list)
    for a in accs:
        groups[_member_key(a.get("member") or [], struct)].append(a)
    whole.spread(groups)
    dead_members = set(struct["rt_dead"]) if struct else set()
    verdicts = {}
    for mk, g in groups.items():
        note = None
        if mk and (mk in dead_members or mk.split(".")[0] in dead_members):
            note = ("member exists only without CONFIG_PREEMPT_RT: PREEMPT_RT uses a "
                    "per-task replacement (verdict for PREEMPT_RT)")
            g[:] = [dict(a, context="rt-excluded") if a["context"] not in ("remote", "init") else a
                    for a in g]
            for a in g:
                if a["context"] == "rt-excluded":
                    a["context"] = "init"
                    a["evidence"] = {"note": "code exists only without CONFIG_PREEMPT_RT"}
        elif audit.rt_excluded.get(label + ("." + mk if mk else "")):
            note = ("accessed only in code compiled without CONFIG_PREEMPT_RT "
                    "(verdict for PREEMPT_RT)")
        _cover(g)
        verdicts[mk] = judge(g, note) + (note,)
    # members whose only accesses are in !PREEMPT_RT code
    for key, n in audit.rt_excluded.items():
        if key.startswith(label + ".") and key[len(label) + 1:] not in verdicts:
            mk = key[len(label) + 1:]
            note = ("accessed only in code compiled without CONFIG_PREEMPT_RT: "
                    "PREEMPT_RT uses a per-task replacement (verdict for PREEMPT_RT)")
            verdicts[mk] = ("converted", note, note)
            groups[mk] = []
    strong = {v[0] for v in verdicts.values() if v[0] not in WEAK}
    if struct and len(strong) > 1:
        out = []
        for mk in sorted(verdicts):
            v, why, note = verdicts[mk]
            _drop_held(groups[mk])
            f = dict(base, datum=label + ("." + mk if mk else ""), verdict=v, reason=why,
                     accesses=groups[mk])
            if note:
                f["config"] = note
            out.append(f)
        return out
    rt_note = None
    if not [a for a in accs if a["context"] not in ("remote", "init")] and audit.rt_excluded.get(label):
        rt_note = ("accessed only in code compiled without CONFIG_PREEMPT_RT "
                   "(verdict for PREEMPT_RT)")
    if len(groups) > 1:
        _cover(accs)
    v, why = judge(accs, rt_note)
    _drop_held(accs)
    f = dict(base, datum=label, verdict=v, reason=why, accesses=accs)
    if rt_note:
        f["config"] = rt_note
    return [f]
