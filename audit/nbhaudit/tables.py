# SPDX-License-Identifier: GPL-2.0
"""Tables of functions filled by static initialisers, and the calls
through them.

cfacts.fnptrs() gives the designated initialisers `.f = fn` with the
struct type of the variable initialised; the call graph resolves
`ops->f()` by it.  What it did not see:

- arrays of function pointers (`static const pfkey_handler
  pfkey_funcs[] = { [SADB_ADD] = pfkey_add, ... }`, `void (*tbl[])(..)`)
  called as `tbl[i](..)`;
- array members of an initialiser (`.hooks = { [NF_INET_LOCAL_IN] =
  nft_do_chain_ipv4, .. }` in a `struct nft_chain_type`), called as
  `type->hooks[n](..)` or copied into a field (`ops->hook =
  hook->type->hooks[ops->hooknum]`);
- the elements of an array of structs designated by index (`[X] = {
  .f = fn }`) more than 200 characters after the array's head (typed
  here by brace depth), and the calls `arr[i]->f()` / `arr[i].f()` on
  such an array (typed by its element type);
- function-like macros of the file that call a parameter (`#define X(e,
  fun) .. fun(expr, regs, pkt)` in 6.1's expr_call_ops_eval()): a
  function handed to one is called where the macro is used, it is no
  callback passed to code outside the audited files.

typed_facts() adds the facts (file: "fn_tables", "struct_arrays",
"call_macros"; function: "tcalls", "tcopies"); extend() adds the edges,
the stores and the entry points to a context.Graph; macro_runs() says
whether a call's argument is run by a macro of the file."""

import bisect
import re

_OPEN = re.compile(r"=\s*\{")
_BRACE = re.compile(r"[{}]")
# an element: [IDX] = fn, fn, &fn, (cast) fn; after '{' or ','
_ELEM = re.compile(r"(?<=[{,])\s*(?:\[[^\]\[=]*\]\s*=\s*)?(?:\(\s*\w[\w\s\*]*\)\s*)?&?\s*"
                   r"([A-Za-z_]\w*)\s*(?=[,}])")
_FIELD_OPEN = re.compile(r"\.\s*(\w+)\s*=\s*\{")
_FIELD = re.compile(r"\.\s*(\w+)\s*=\s*(?:\(\s*\w[\w\s\*]*\)\s*)?&?\s*([A-Za-z_]\w*)\s*(?=[,}\n])")
_FNARRAY = re.compile(r"\(\s*\*\s*(?:const\s+)?(\w+)\s*(?:\[[^\]]*\]\s*)+\)\s*\([^;{}]*\)\s*"
                      r"(?:__\w+\s*)*$")
_STRUCT = re.compile(r"\b(?:struct|union)\s+(\w+)\s+(?:const\s+)?(\*\s*(?:const\s+)?)?(\w+)\s*"
                     r"((?:\[[^\]]*\]\s*)*)(?:__\w+(?:\([^)]*\))?\s*)*$")
_ARRAY = re.compile(r"\b([A-Za-z_]\w*)\s+(?:const\s+)?(\w+)\s*((?:\[[^\]]*\]\s*)+)"
                    r"(?:__\w+(?:\([^)]*\))?\s*)*$")
_NOT = re.compile(r"^(?:[A-Z0-9_]+|\d\w*|true|false|NULL|sizeof)$")
_KEYWORDS = {"if", "while", "for", "switch", "return", "sizeof", "do", "else", "case"}

_CHAIN = r"[A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)*"
# what follows the ']' of a table call or copy: '](', ']->f(', '].f(', '];'
_TAIL = re.compile(r"\]\s*(?:\)\s*)?(?:(?:->|\.)\s*([A-Za-z_]\w*)\s*\)?\s*)?(\(|;)")
_BEFORE = re.compile(r"(?<![\w.>])(?:(%s)\s*(?:->|\.)\s*)?([A-Za-z_]\w*)\s*$" % _CHAIN)
_TCOPY = re.compile(r"(%s)\s*(?:->|\.)\s*([A-Za-z_]\w*)\s*=\s*(%s)\s*(?:->|\.)\s*([A-Za-z_]\w*)"
                    r"\s*\[" % (_CHAIN, _CHAIN))
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)((?:[^\n\\]|\\.|\\\n)*)", re.M)


def _split(chain):
    return [x for x in re.split(r"\s*(?:->|\.)\s*", chain.strip()) if x]


def _head(t, k):
    """The declaration before the '= {' at k: from the end of the previous
    statement or preprocessor line; a struct defined in the declaration
    (static const struct xfrm_link { .. } xfrm_dispatch[] = {) is named
    by its tag."""
    code = t.code
    lo = max(0, k - 400)
    h = code[lo:k]
    cut = max(h.rfind(";"), h.rfind("}"), h.rfind("{"))
    tag = ""
    if cut >= 0 and h[cut] == "}" and re.fullmatch(r"\s*(?:\*\s*)?\w+\s*(?:\[[^\]]*\]\s*)*",
                                                     h[cut + 1:]):
        o = t.match_back(lo + cut, "{", "}")
        if o > 0:
            m = re.search(r"\b((?:struct|union)\s+\w+)\s*$", code[max(0, o - 80):o])
            tag = m.group(1) + " " if m else ""
    h = tag + h[cut + 1:]
    lines = [ln for ln in h.split("\n") if not ln.lstrip().startswith("#")]
    return " ".join(" ".join(lines).split())


def _depths(code, a, b):
    """(positions, depth after each) of the braces in code[a:b]."""
    pos, dep = [], []
    d = 0
    for m in _BRACE.finditer(code, a, b):
        d += 1 if m.group() == "{" else -1
        pos.append(m.start())
        dep.append(d)
    return pos, dep


def _depth_at(pos, dep, off):
    i = bisect.bisect_left(pos, off) - 1
    return dep[i] if i >= 0 else 0


def _elements(code, pos, dep, a, b, depth):
    """The bare identifiers that are elements at brace depth depth in
    code[a:b]."""
    out = []
    for m in _ELEM.finditer(code, a, b):
        if _NOT.match(m.group(1)) or _depth_at(pos, dep, m.start()) != depth:
            continue
        out.append(m.group(1))
    return out


def typed_facts(t, facts):
    """Add the facts of the module doc (functions still holding body and
    end_off).  Keys without a value are left out."""
    code = t.code
    funcs = facts["functions"]
    bodies = sorted((f["body"], f["end_off"]) for f in funcs)
    starts = [x[0] for x in bodies]
    tables, arrays = [], {}
    untyped = {}
    for p in facts.get("fnptrs", ()):
        if p["how"] == "init" and not p["type"]:
            untyped.setdefault((p["line"], p["field"], p["fn"]), []).append(p)
    end = -1
    for m in _OPEN.finditer(code):
        k = m.start()
        if k < end:
            continue        # inside the initialiser seen last
        i = bisect.bisect_right(starts, k) - 1
        if i >= 0 and bodies[i][0] <= k <= bodies[i][1]:
            continue        # in a function
        open_ = m.end() - 1
        close = t.match(open_)
        if close < 0:
            continue
        end = close
        head = _head(t, k)
        fa = _FNARRAY.search(head)
        st = None if fa else _STRUCT.search(head)
        ar = None if fa or st else _ARRAY.search(head)
        if not (fa or st or ar):
            continue
        pos, dep = _depths(code, open_, close + 1)
        if fa or ar:
            var = (fa or ar).group(1) if fa else ar.group(2)
            fns = _elements(code, pos, dep, open_, close + 1, 1)
            if fns:
                tables.append({"var": var, "type": None, "member": None, "fns": fns,
                               "line": t.line(k)})
            continue
        typ, ptr, var, dims = st.group(1), st.group(2), st.group(3), st.group(4)
        if dims:
            arrays[var] = typ
        if ptr:
            continue        # an array of pointers to typed objects
        fd = 2 if dims else 1
        for fm in _FIELD_OPEN.finditer(code, open_, close):
            if _depth_at(pos, dep, fm.start()) != fd:
                continue
            g_open = fm.end() - 1
            g_close = t.match(g_open)
            if g_close < 0:
                continue
            fns = _elements(code, pos, dep, g_open, g_close + 1, fd + 1)
            if fns:
                tables.append({"var": var, "type": typ, "member": fm.group(1), "fns": fns,
                               "line": t.line(fm.start())})
        if untyped:
            for fm in _FIELD.finditer(code, open_, close):
                key = (t.line(fm.start()), fm.group(1), fm.group(2))
                if key in untyped and _depth_at(pos, dep, fm.start()) == fd:
                    for p in untyped.pop(key):
                        p["type"], p["var"] = typ, var
    if tables:
        facts["fn_tables"] = tables
    if arrays:
        facts["struct_arrays"] = arrays
    macros = {}
    raw = t.raw
    if "define" in raw:
        for m in _DEFINE.finditer(raw):
            params = [p.strip() for p in m.group(2).split(",")]
            body = m.group(3)
            called = [i for i, p in enumerate(params)
                      if re.fullmatch(r"[A-Za-z_]\w*", p) and
                      re.search(r"(?<![\w.>])%s\s*\)?\s*\(" % re.escape(p), body)]
            if called:
                macros[m.group(1)] = called
    if macros:
        facts["call_macros"] = macros
    for fn in funcs:
        b, e = fn["body"], fn["end_off"]
        if code.find("]", b, e) < 0:
            continue
        tcalls, tcopies = [], []
        # from each ']' followed by a call or the end of a statement back
        # to the table's name (a pattern tried at every offset was slow)
        for m in _TAIL.finditer(code, b, e):
            open_ = t.match_back(m.start(), "[", "]")
            if open_ <= b:
                continue
            before = _BEFORE.search(code, max(b, open_ - 160), open_)
            if not before:
                continue
            name = before.group(2)
            if name in _KEYWORDS or _NOT.match(name):
                continue
            recv = _split(before.group(1)) if before.group(1) else None
            if recv and recv[0] in _KEYWORDS:
                continue
            if m.group(2) == "(":
                tcalls.append({"recv": recv, "table": name, "field": m.group(1),
                               "line": t.line(before.start(2))})
                continue
            if m.group(1) or not recv:
                continue
            st = max(code.rfind(";", b, open_), code.rfind("{", b, open_),
                     code.rfind("}", b, open_)) + 1
            cm = None
            for cm in _TCOPY.finditer(code, st, open_ + 1):
                pass
            if cm and cm.end() - 1 == open_ and _split(cm.group(3)) == recv and \
                    cm.group(4) == name:
                tcopies.append({"recv": _split(cm.group(1)), "field": cm.group(2),
                                "src": recv, "sfield": name, "line": t.line(cm.start())})
        if tcalls:
            fn["tcalls"] = tcalls
        if tcopies:
            fn["tcopies"] = tcopies
    return facts


def macro_runs(facts, rel, name, i):
    """Does the function-like macro name of file rel call its parameter i?"""
    got = facts.get(rel, {}).get("call_macros")
    return bool(got) and i in got.get(name, ())


def extend(g, max_targets):
    """Add to the context.Graph g (its callers being built): the member
    tables as stores of their struct type and member, copies of a table
    element into a field (with entry points of the audit for a field its
    ENTRY_FIELDS name), and the calls through tables."""
    from . import knowledge as K
    A = g.audit
    by_var = {}         # (rel, var) -> [table]
    by_member = {}      # (type, member) -> {Fn}
    by_member_name = {}
    for rel, f in sorted(g.facts.items()):
        for tb in f.get("fn_tables", ()):
            fns = [fn for name in tb["fns"] for fn in g.resolve(name, rel)]
            if not fns:
                continue
            if tb["member"] is None:
                by_var.setdefault((rel, tb["var"]), []).extend(fns)
            else:
                key = (tb["type"], tb["member"])
                by_member.setdefault(key, set()).update(fns)
                by_member_name.setdefault(tb["member"], set()).update(fns)
                for fn in fns:
                    g.stored_in[fn].add(key)
    entry_fields = {(typ, field): reason for field, typ, how, reason in K.ENTRY_FIELDS
                    if typ and how is None}
    globals_ = {}
    for (rel, var), fns in by_var.items():
        globals_.setdefault(var, []).append(fns)
    for fn in g.fns:
        d = fn.d
        for cp in d.get("tcopies", ()):
            src = g.rtype(fn, cp["src"])
            dst = g.rtype(fn, cp["recv"])
            fns = by_member.get((src, cp["sfield"])) if src else None
            if not fns or not dst:
                continue
            g.stored[(dst, cp["field"])] |= fns
            g.by_field[cp["field"]] |= fns
            reason = entry_fields.get((dst, cp["field"]))
            for t in sorted(fns, key=lambda x: x.id):
                g.stored_in[t].add((dst, cp["field"]))
                if reason:
                    A._entry(t, "%s (copied from %s.%s in %s())"
                             % (reason, src, cp["sfield"], fn.name), fn.file, cp["line"])
        for tc in d.get("tcalls", ()):
            call = {"f": "%s[]" % tc["table"], "line": tc["line"], "col": 0, "args": []}
            if tc["field"]:
                # arr[i]->f(): the element type of a file-scope array
                typ = g.facts[fn.file].get("struct_arrays", {}).get(tc["table"]) \
                    if not tc["recv"] else None
                if not typ:
                    continue
                targets, how = g.field_targets(typ, tc["field"])
                call["f"] = "%s[]->%s" % (tc["table"], tc["field"])
            elif tc["recv"]:
                typ = g.rtype(fn, tc["recv"])
                targets = by_member.get((typ, tc["table"])) if typ else None
                how = "%s.%s[] (table)" % (typ, tc["table"])
                if not targets:
                    pool = by_member_name.get(tc["table"], set())
                    targets = pool if len(pool) <= max_targets else set()
                    how = "->%s[] (table, by member name)" % tc["table"]
            else:
                targets = by_var.get((fn.file, tc["table"]))
                if targets is None:
                    cands = globals_.get(tc["table"], [])
                    targets = cands[0] if len(cands) == 1 else ()
                how = "%s[] (table)" % tc["table"]
            for t in sorted(set(targets or ()), key=lambda x: x.id):
                g.callers[t].append((fn, call, how))
