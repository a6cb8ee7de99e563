# SPDX-License-Identifier: GPL-2.0
"""Per-file facts: spatch for the calls, cfacts for the layout, cached by
content hash under $WORK/cache/audit/ so a re-run only reparses changed
files."""

import collections
import hashlib
import json
import os
import re
import sys
import tempfile
import threading

from nbhlib import proc

from . import cfacts, tables, warn

HERE = os.path.dirname(os.path.abspath(__file__))
COCCI = os.path.join(os.path.dirname(HERE), "facts.cocci")
# --python: spatch runs the interpreter it is given (else the first
# python3 in PATH, a pyenv shim here: a second of CPU in shell scripts
# per spatch process) to find the Python library to load.
SPATCH_OPTS = ["--very-quiet", "--no-includes", "--include-headers",
               "--timeout", "120"] + (["--python", "/usr/bin/python3"]
                                      if os.path.exists("/usr/bin/python3") else [])
# Files per spatch process: progress granularity.  Each process starts
# for about a quarter of a second of CPU (the semantic patch, Python).
BATCH = 64
JOBS = 2            # the machine has two cores shared by the team


# Files that mention per-CPU data go through spatch; the others only feed
# the call graph and use cfacts.regex_calls().  The pattern starts with
# \b in fact (cfacts.word_finditer()).
PERCPU_TOKENS = re.compile(r"(?:this_cpu_\w+|__this_cpu_\w+|raw_cpu_\w+|per_cpu|per_cpu_ptr|"
                           r"get_cpu_var|get_cpu_ptr|local_lock_nested_bh)\s*\(")


def has_percpu_tokens(text):
    return next(cfacts.word_finditer(PERCPU_TOKENS, text), None) is not None


# The calls facts.cocci matches (keep in sync with its regexp).
SPATCH_CALLS = re.compile(r"^(?:__this_cpu_|this_cpu_|raw_cpu_|per_cpu$|per_cpu_ptr$|"
                          r"get_cpu_var$|get_cpu_ptr$|local_lock_nested_bh$|local_unlock_nested_bh$)")


def _version(paths):
    """Cache key part: a change to the extractor invalidates its entries."""
    h = hashlib.sha1()
    for path in paths:
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:12]


def norm_arg(arg):
    arg = " ".join(arg.split())
    return re.sub(r"\s*([^\w\s])\s*", r"\1", arg)


def split_args(text):
    return [norm_arg(a) for a in cfacts._split_top(text)] if text.strip() else []


# What a cache entry must look like: the keys of each layer with their
# types, and the keys of the records in its lists.  An entry that is valid
# JSON but of another shape (a different tool, a hand edit, a truncated
# write of some other program) is dropped like a corrupt one.
_S_KEYS = {"calls": (list, type(None)), "failure": (str, type(None))}
_F_KEYS = {"functions": list, "percpu_defs": list, "percpu_ptr_vars": (list, dict),
           "structs": dict, "fnptrs": (list, dict), "top_registrations": (list, dict),
           "rt_dead": list, "includes": list, "lexical": bool, "unparsed": list,
           "extents": list}
_CALL_KEYS = frozenset(("f", "args", "line", "col"))
_FN_KEYS = frozenset(("name", "line", "calls"))
_STRUCT_KEYS = frozenset(("members", "percpu"))
_UNPARSED_KEYS = frozenset(("kind", "reason"))


def _records(items, keys):
    """Every item is a dict with these keys (a frozenset)."""
    for x in items:
        if not isinstance(x, dict) or not keys <= x.keys():
            return False
    return True


def valid_entry(layer, digest, got):
    """True when a cache entry has the shape the extractor writes."""
    if not isinstance(got, dict):
        return False
    if layer == "s":
        return (all(isinstance(got.get(k, 0), t) for k, t in _S_KEYS.items())
                and _records(got["calls"] or (), _CALL_KEYS))
    if digest.startswith("h"):          # header structs: {name: struct}
        return _records(got.values(), _STRUCT_KEYS)
    return (all(isinstance(got.get(k), t) for k, t in _F_KEYS.items())
            and _records(got["functions"], _FN_KEYS)
            and all(_records(fn["calls"], _CALL_KEYS) for fn in got["functions"])
            and _records(got["unparsed"], _UNPARSED_KEYS))


class Cache:
    """Two layers keyed by file content hash: spatch calls ("s", valid
    while facts.cocci and spatch_view() are unchanged) and complete facts
    ("f", valid while the Python extractor is unchanged).

    A cache that cannot be written is reported once and the run goes on
    without it; an entry that is not JSON or has the wrong shape is
    listed in corrupt, deleted and rebuilt."""

    def __init__(self, root):
        self.root = root
        extractor = [COCCI, os.path.join(HERE, "cfacts.py"), __file__]
        self.versions = {
            "s": _version(extractor),
            "f": _version(extractor + [os.path.join(HERE, "tables.py")]),
        }
        self.corrupt = []
        # {digest: SHA-1 of the JSON text} of the "f" entries read
        self.sums = {}
        self.writable = True
        try:
            os.makedirs(root, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=root, suffix=".tmp")
            os.close(fd)
            os.unlink(tmp)
        except OSError as e:
            self._unwritable(e)

    def _unwritable(self, e):
        if self.writable:
            self.writable = False
            warn("cache %s not writable (%s): facts are not cached" % (
                self.root, e.strerror or e))

    def _path(self, layer, digest):
        return os.path.join(self.root, layer + "-" + self.versions[layer],
                            digest[:2], digest + ".json")

    def has(self, layer, digest):
        return os.path.exists(self._path(layer, digest))

    def get(self, layer, digest):
        path = self._path(layer, digest)
        try:
            with open(path, "rb") as f:
                data = f.read()
            got = json.loads(data)
            if valid_entry(layer, digest, got):
                if layer == "f":
                    self.sums[digest] = hashlib.sha1(data).hexdigest()
                return got
        except OSError:
            return None         # no entry (or none readable): a miss
        except (ValueError, RecursionError):
            pass
        self.corrupt.append(path)
        try:
            os.unlink(path)
        except OSError:
            pass
        return None

    def put(self, layer, digest, facts):
        if self.writable:
            # dumps() uses the C encoder; dump() streams through Python
            self.put_json(layer, digest, json.dumps(facts, separators=(",", ":")))

    def put_json(self, layer, digest, data):
        if not self.writable:
            return
        try:
            proc.write_atomic(self._path(layer, digest), data)
        except OSError as e:
            self._unwritable(e)


# Any of these in a function body may be a call facts.cocci matches: a
# superset of SPATCH_CALLS, on the raw text (comments and macros included).
_SPATCH_WORDS = re.compile(r"this_cpu_|raw_cpu_|per_cpu|get_cpu_|local_lock_nested_bh|"
                           r"local_unlock_nested_bh")
_DIRECTIVE = re.compile(r"^[ \t]*#", re.M)
_BPF_CALL_DEF = re.compile(r"^[ \t]*(?:static[ \t]+)?BPF_CALL_(?:\d|x)\s*\(", re.M)
_NOT_NL = re.compile(r"[^\n]")


def spatch_view(data):
    """The bytes spatch is given: the bodies of functions that cannot hold
    a call facts.cocci matches are blanked (spaces, newlines and offsets
    kept), and so are whole BPF_CALL_n() helpers without such calls, whose
    headers spatch cannot parse.  It matches nothing there anyway; parsing
    them (and recovering from the helpers' parse errors) was most of its
    time.  Bodies with preprocessor lines are kept as they are.  Latin-1
    maps bytes to characters one to one: byte offsets stay put."""
    text = data.decode("latin-1")
    if not _SPATCH_WORDS.search(text):
        return data
    t = cfacts.Text(text)
    spans = []
    bodies = {}
    for fn in cfacts.functions(t):
        bodies[fn["body"]] = fn["end_off"]
    for m in _BPF_CALL_DEF.finditer(t.code):
        po = t.code.index("(", m.start())
        pc = t.match(po, "(", ")")
        b = re.compile(r"\s*\{").match(t.code, pc + 1) if pc > 0 else None
        if b and b.end() - 1 in bodies:
            end = bodies.pop(b.end() - 1)
            spans.append((m.start(), end + 1))
    for body, end in bodies.items():
        spans.append((body + 1, end))
    out, last = [], 0
    for a, b in sorted(spans):
        chunk = text[a:b]
        if _SPATCH_WORDS.search(chunk) or _DIRECTIVE.search(chunk):
            continue
        out.append(text[last:a])
        out.append(_NOT_NL.sub(" ", chunk))
        last = b
    out.append(text[last:])
    return "".join(out).encode("latin-1")


def spatch_batch(paths, datas=None):
    """Run spatch once on a batch of files: calls per file {abs path:
    [call]} and the files it failed on.  With datas (the files' bytes),
    spatch is given spatch_view() copies in a scratch directory;
    positions and names in the result are those of the real files."""
    if datas is not None:
        with tempfile.TemporaryDirectory(prefix="nbh-audit.") as scratch:
            real = {}
            for p, data in zip(paths, datas):
                copy = scratch + p
                os.makedirs(os.path.dirname(copy), exist_ok=True)
                with open(copy, "wb") as f:
                    f.write(spatch_view(data))
                real[copy] = p
            calls, failed = spatch_batch(list(real))
        return ({real[p]: cs for p, cs in calls.items()},
                {real[p]: why.replace(scratch, "") for p, why in failed.items()})
    with tempfile.NamedTemporaryFile("w", suffix=".groups") as g:
        g.write("".join(p + "\n\n" for p in paths))
        g.flush()
        r = proc.run(["spatch", "--sp-file", COCCI] + SPATCH_OPTS + ["--file-groups", g.name])
    calls = {p: [] for p in paths}
    got = _parse_spatch(r.out)
    for p, cs in got.items():
        if p in calls:
            calls[p].extend(cs)
    failed = _spatch_errors(r.err, paths)
    if not r.ok and not got:
        for p in paths:
            failed.setdefault(p, "spatch exited %d" % r.rc)
    return calls, failed


def run_spatch(paths, progress, texts=None):
    """Calls per file {abs path: [call]} and the files spatch failed on,
    JOBS batches at a time; with texts ({abs path: bytes}) on
    spatch_view() copies (see spatch_batch())."""
    calls = {}
    failed = {}
    batches = [paths[i:i + BATCH] for i in range(0, len(paths), BATCH)]
    lock = threading.Lock()
    done = [0]

    def worker():
        while True:
            with lock:
                if not batches:
                    return
                batch = batches.pop(0)
            got, errs = spatch_batch(batch, [texts[p] for p in batch]
                                     if texts is not None else None)
            with lock:
                calls.update(got)
                failed.update(errs)
                done[0] += len(batch)
                progress(done[0], len(paths))

    threads = [threading.Thread(target=worker) for _ in range(JOBS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return calls, failed


def _parse_spatch(out):
    got = {}
    for line in out.splitlines():
        parts = line.split("\t")
        if len(parts) != 6 or parts[0] != "C":
            continue
        _, path, line_no, col, f, args = parts
        got.setdefault(path, []).append(
            {"f": f, "args": split_args(args), "line": int(line_no), "col": int(col)})
    return got


def _spatch_errors(err, batch):
    failed = {}
    for line in err.splitlines():
        m = re.search(r"(?:EXN|timeout|Fatal error).*?(/\S+\.[ch])\b", line)
        if m and m.group(1) in batch:
            failed[m.group(1)] = line.strip()[:200]
    return failed


def python_facts(text):
    """Everything except the spatch calls."""
    t = cfacts.Text(text)
    dead = cfacts.rt_dead_lines(t)
    funcs = cfacts.functions(t)
    for fn in funcs:
        fcalls, protos, local_cpu = cfacts.body_facts(t, fn)
        fn["field_calls"] = fcalls
        fn["protos"] = protos
        fn["local_cpu"] = local_cpu
        fn["cpu_marks"] = cfacts.cpu_marks(t, fn, local_cpu)
        fn["irq_blocks"] = cfacts.irq_blocks(t, fn)
    return t, {
        "functions": funcs,
        "percpu_defs": cfacts.percpu_defs(t, dead),
        "percpu_ptr_vars": cfacts.percpu_ptr_vars(t, funcs),
        # struct layouts matter for per-CPU types and __percpu fields only
        "structs": (cfacts.structs(t, dead)
                    if "_PER_CPU" in t.code or "__percpu" in t.code else {}),
        "fnptrs": cfacts.fnptrs(t, funcs),
        "top_registrations": cfacts.top_registrations(t),
        "top_process": cfacts.top_process(t),
        "percpu_macros": cfacts.percpu_macros(t, dead),
        "rt_dead": sorted(dead),
        "includes": cfacts.includes(t),
    }


def finish(t, facts, calls, spatch_failure):
    """Lexical calls for every function, with the per-CPU accessor calls
    taken from spatch where it parsed the function; a function whose
    accessors spatch did not see keeps the lexical ones and is listed as
    unparsed."""
    funcs = facts["functions"]
    facts["lexical"] = calls is None
    starts = sorted((fn["body"], i) for i, fn in enumerate(funcs))
    parsed = collections.defaultdict(list)
    for c in calls or ():
        fn = _enclosing(funcs, starts, t.offset(c["line"], c["col"]))
        if fn is not None:
            parsed[id(fn)].append(c)
    unparsed = []
    for fn in funcs:
        lexical = cfacts.regex_calls(t, fn)
        if calls is not None:
            mine = [c for c in lexical if SPATCH_CALLS.match(c["f"])]
            if mine and (spatch_failure or not parsed[id(fn)]):
                unparsed.append({"function": fn["name"], "line": fn["line"],
                                 "kind": "spatch" if spatch_failure else "function",
                                 "reason": spatch_failure or
                                 "spatch did not parse the per-CPU accesses of this function"})
                fn["lexical_calls"] = True
            else:
                got = {(c["f"], c["line"]) for c in parsed[id(fn)]}
                missed = [c for c in mine if (c["f"], c["line"]) not in got]
                lexical = [c for c in lexical if not SPATCH_CALLS.match(c["f"])]
                lexical += parsed[id(fn)] + missed
                if missed:
                    unparsed.append({"function": fn["name"], "line": missed[0]["line"],
                                     "kind": "function",
                                     "reason": "spatch missed %d per-CPU call(s), kept lexically"
                                     % len(missed)})
        lexical.sort(key=lambda c: (c["line"], c["col"]))
        fn["calls"] = lexical
        for c in lexical:
            # "exits" only when true: most calls are not early-exit releases
            if _is_release(c["f"]) and cfacts.stmt_exits(t, c["line"], c["col"], fn):
                c["exits"] = True
                c["block"] = cfacts.stmt_block(t, c["line"], c["col"])
            if c["f"] in ACCESSOR_PTRS:
                _derive(t, fn, c)
    if t.unterminated:
        unparsed.insert(0, {"function": "", "line": t.unterminated, "kind": "file",
                            "reason": "unterminated comment: the code after it is not audited"})
    elif t.code.count("{") != t.code.count("}") or t.code.count("(") != t.code.count(")"):
        unparsed.insert(0, {"function": "", "line": 0, "kind": "file",
                            "reason": "unbalanced brackets after preprocessing: functions past the error are not audited"})
    elif spatch_failure and not unparsed:
        unparsed.append({"function": "", "line": 0, "kind": "spatch",
                         "reason": spatch_failure})
    facts["unparsed"] = unparsed
    return facts


def _enclosing(funcs, starts, off):
    import bisect
    i = bisect.bisect_right(starts, (off, len(funcs))) - 1
    if i < 0:
        return None
    fn = funcs[starts[i][1]]
    return fn if fn["body"] <= off <= fn["end_off"] else None


# Accessors whose result is a pointer to the per-CPU object; we follow the
# variable it is stored in through the rest of the function.
ACCESSOR_PTRS = {"this_cpu_ptr", "raw_cpu_ptr", "get_cpu_ptr", "per_cpu_ptr",
                 "this_cpu_read", "__this_cpu_read", "raw_cpu_read",
                 "get_cpu_var", "per_cpu"}


def _is_release(name):
    return ("unlock" in name or name.endswith("_enable") or
            name.endswith("_restore") or name == "put_cpu")


def _derive(t, fn, c):
    """Where the accessor result goes: a variable, its member uses, and
    whether it is returned."""
    var = cfacts.assign_target(t, c["line"], c["col"])
    c["target"] = var
    if not var:
        return
    off = t.offset(c["line"], c["col"])
    c["uses"] = cfacts.member_uses(t, var, off, fn["end_off"])
    c["returned"] = cfacts.returns_var(t, var, off, fn["end_off"])


def extract(tree, relpaths, cache, progress, lexical=False, sums=None):
    """({relpath: facts} for every file, [relpaths spatch ran on]); spatch
    runs only on files whose content it has not seen, while the cached
    facts of the others load.  lexical: no spatch at all (headers read
    for the call graph only).  sums, a dict, receives {relpath: SHA-1 of
    the JSON text of its facts} (what they are, whatever the file's
    content: see memo.py)."""
    out, texts, need_spatch, spatched = {}, {}, [], {}
    raw = {}
    sums = {} if sums is None else sums

    def decoded(rel, data):
        sums[rel] = hashlib.sha1(data.encode()).hexdigest()
        return json.loads(data)

    def miss(rel, digest, data):
        text = data.decode("utf-8", "replace")
        texts[rel] = (digest, text)
        if lexical or not has_percpu_tokens(text):
            # no per-CPU access here: the lexical call list is enough for
            # the call graph, and spatch would cost a full parse
            spatched[rel] = {"calls": None, "failure": None}
            return
        got = cache.get("s", digest)
        if got is None:
            need_spatch.append(rel)
            raw[rel] = data
        else:
            spatched[rel] = got

    def record(rels, calls, failed):
        for rel in rels:
            path = os.path.join(tree, rel)
            got = {"calls": calls.get(path, []), "failure": failed.get(path)}
            if got["failure"] is None:
                # a crash, a kill or a timeout says nothing about the file
                # itself: the next run tries again
                cache.put("s", texts[rel][0], got)
            spatched[rel] = got

    def spatch(rels, errors=None):
        try:
            abspaths = [os.path.join(tree, r) for r in rels]
            record(rels, *run_spatch(abspaths, progress,
                                     {p: raw[r] for r, p in zip(rels, abspaths)}))
        except BaseException as e:      # re-raised by the main thread
            if errors is None:
                raise
            errors.append(e)

    def load_cached():
        for rel, digest in digests:
            if rel in texts:
                continue
            facts = cache.get("f", digest)
            if facts is not None:
                out[rel] = facts
                sums[rel] = cache.sums[digest]
                continue
            with open(os.path.join(tree, rel), "rb") as f:   # corrupt entry
                miss(rel, digest, f.read())

    def job(rel):
        # the workers also write the cache entries (json.dumps is not free)
        return (texts[rel][1], spatched[rel]["calls"], spatched[rel]["failure"],
                cache, texts[rel][0])

    digests = []
    for rel in relpaths:
        with open(os.path.join(tree, rel), "rb") as f:
            data = f.read()
        digest = hashlib.sha1(data).hexdigest()
        digests.append((rel, digest))
        if not cache.has("f", digest):
            miss(rel, digest, data)
    first = list(need_spatch)
    results = {}
    if len(texts) > 8:
        # One pool of JOBS workers: the spatch batches first (a worker
        # waits for its spatch), then the facts of the files that need
        # no spatch, then those of each batch as it completes.  Never
        # more than JOBS processes at work; the cached facts load here
        # meanwhile.
        with proc.quiet_pool(JOBS) as pool:
            batches = [first[i:i + BATCH] for i in range(0, len(first), BATCH)]
            pending = [(b, pool.apply_async(spatch_batch, (
                [os.path.join(tree, r) for r in b], [raw[r] for r in b])))
                for b in batches]
            ready = [r for r in sorted(texts) if r in spatched]
            lexical = pool.map_async(_facts_job, [job(r) for r in ready], chunksize=8)
            load_cached()
            later, done = [], 0
            for b, res in pending:
                record(b, *res.get())
                done += len(b)
                progress(done, len(first))
                later.append((b, pool.map_async(_facts_job, [job(r) for r in b], chunksize=4)))
            results.update(zip(ready, map(decoded, ready, lexical.get())))
            for b, res in later:
                results.update(zip(b, map(decoded, b, res.get())))
    else:
        # spatch works on the new files while the cached facts load
        errors = []
        worker = threading.Thread(target=spatch, args=(first, errors))
        if first:
            worker.start()
        try:
            load_cached()
        finally:
            if first:
                worker.join()
        if errors:
            raise errors[0]
    if len(need_spatch) > len(first):       # corrupt cache entries
        spatch(need_spatch[len(first):])
    if not need_spatch:
        progress(0, 0)
    rels = sorted(texts)
    rest = [r for r in rels if r not in results]
    jobs = [job(r) for r in rest]
    if len(jobs) > 8:
        with proc.quiet_pool(JOBS) as pool:
            results.update(zip(rest, map(decoded, rest, pool.map(_facts_job, jobs, chunksize=8))))
    else:
        results.update(zip(rest, map(decoded, rest, map(_facts_job, jobs))))
    for rel in rels:
        out[rel] = results[rel]
    return out, need_spatch


# Keys of a function's facts left out when empty or false: a warm run
# decodes the facts of ~49000 functions, most with none of these.  The
# readers use fn.get(key, default).
OPTIONAL = ("static", "init", "field_calls", "protos", "local_cpu", "irq_blocks", "vars",
            "fcalls", "stores", "copies", "ptypes", "cpu_marks")


def slim(facts):
    """The cached shape of facts: optional keys without a value dropped."""
    for fn in facts["functions"]:
        for k in OPTIONAL:
            if k in fn and not fn[k]:
                del fn[k]
    return facts


def _facts(job):
    """The facts of a file."""
    text, calls, failure = job[:3]
    t, facts = python_facts(text)
    facts = finish(t, facts, calls, failure)
    # struct types of variables, receivers and stores: calls through
    # function pointers resolved by struct type and field
    cfacts.typed_facts(t, facts)
    tables.typed_facts(t, facts)
    # function extents, for following a per-CPU pointer into a callee
    # without parsing the file again (Audit.text())
    facts["extents"] = [[fn["name"], fn["line"], fn["body"], fn["end_off"]]
                        for fn in facts["functions"]]
    for fn in facts["functions"]:
        del fn["body"], fn["end_off"]
    return slim(facts)


def _facts_job(job):
    """_facts() in a worker (or in this process for a few files), the
    cache entry written: its JSON text goes back to the main process
    (json.loads() there costs less than pickling and unpickling the
    objects)."""
    data = json.dumps(_facts(job), separators=(",", ":"))
    if job[2] is None:
        job[3].put_json("f", job[4], data)
    return data


def progress_printer(quiet, what="files"):
    state = {"last": -1}

    def progress(done, total):
        if quiet:
            return
        if not total:
            sys.stderr.write("nbh-audit: spatch: no %s to parse, all from the cache\n" % what)
            sys.stderr.flush()
            return
        pct = 100 * done // max(total, 1)
        if pct != state["last"]:
            state["last"] = pct
            sys.stderr.write("\rnbh-audit: spatch: %d/%d %s" % (done, total, what))
            if done == total:
                sys.stderr.write("\n")
            sys.stderr.flush()
    return progress


if __name__ == "__main__":
    # debugging aid: dump the facts of one file
    _, f = python_facts(open(sys.argv[1]).read())
    json.dump(f, sys.stdout, indent=1, default=str)


def header_structs(tree, wanted, cache):
    """Struct definitions from include/ for the per-CPU types the audited
    files use, plus every struct with a __percpu field there."""
    inc = os.path.join(tree, "include")
    if not os.path.isdir(inc):
        return {}
    files = set()
    pattern = r"__percpu"
    if wanted:
        pattern += r"|^(struct|union) (%s) \{" % "|".join(sorted(wanted))
    dirs = [d for d in (os.path.join(inc, "linux"), os.path.join(inc, "net"))
            if os.path.isdir(d)]
    files.update(proc.run(["grep", "-rlE", "--include=*.h", pattern] + dirs).out.split())
    out = {}
    for path in sorted(files):
        with open(path, "rb") as f:
            data = f.read()
        digest = "h" + hashlib.sha1(data).hexdigest()
        got = cache.get("f", digest)
        if got is None:
            t = cfacts.Text(data.decode("utf-8", "replace"))
            got = cfacts.structs(t, cfacts.rt_dead_lines(t))
            cache.put("f", digest, got)
        rel = os.path.relpath(path, tree)
        for name, s in got.items():
            if name in wanted or s["percpu"]:
                out.setdefault(name, dict(s, file=rel, header=True))
    return out
