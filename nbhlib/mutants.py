# SPDX-License-Identifier: GPL-2.0
"""Mutants of a nested-BH series and the golden file of their outcomes.

generate() makes deliberate breakages of the series, one patch each, in
every converted function (nbhlib.coverage) that takes a nested-BH lock:

  unlock-exit     drop a local_unlock_nested_bh() that precedes an early
                  return/goto/break (the lock stays held on that path)
  drop-pair       drop the lock and all its unlocks in the function
  access-outside  move the lock below the first statement it guards, or
                  the last unlock above the last statement it guards
  outside-bh      move the lock above the local_bh_disable() before it
                  (and its unlock below the matching local_bh_enable())

A mutant's id is NNN-KIND-FUNCTION; the patches go to NNN-KIND-FUNCTION.patch
and an index (ID KIND FILE FUNCTION TESTS DESCRIPTION, tab-separated),
TESTS being the guest tests that drive the datum the lock protects.

boot-tests/mutants/expected (read_expected) holds the outcome of every
mutant: the audit's (flagged, or missed with a reason) and a boot's on
each debug variant and on rt-debug without the softirq lock (killed,
survived with a reason, or unbooted: not measured yet). audit-mutants and run-mutants compare what they see with
it exactly (compare()).
"""
import dataclasses
import difflib
import os
import re

from . import coverage, paths, proc

EXPECTED = os.path.join(paths.REPO, "boot-tests", "mutants", "expected")
LOCK = re.compile(r"^\s*local_lock_nested_bh\((.*)\);\s*$")
UNLOCK = re.compile(r"^\s*local_unlock_nested_bh\((.*)\);\s*$")
EXIT = re.compile(r"^\s*(return\b|goto\b|break;|continue;)")
CONTROL = re.compile(r"^\s*(if|for|while|switch|return|goto|break|continue|do)\b")
# Which guest tests drive the datum behind each lock.
TESTS = {
    "napi_alloc_cache": "napi-alloc-cache,failslab",
    "tcp_md5sig_pool": "tcp-md5sig",
    "ipv4_tcp_sk": "ipv4-tcp-sk",
    "brnf_frag_data_storage": "brnf-frag",
    "process_queue_bh_lock": "backlog",
    "seg6_bpf_srh_states": "seg6-bpf",
    "bpf_sp": "bpf-csum",
}


@dataclasses.dataclass(frozen=True)
class Mutant:
    id: str              # NNN-KIND-FUNCTION
    kind: str
    file: str
    function: str
    tests: tuple         # guest tests
    description: str

    def patch(self, mdir):
        return os.path.join(mdir, self.id + ".patch")

    def index_line(self):
        return "\t".join([self.id, self.kind, self.file, self.function,
                          ",".join(self.tests), self.description])


def tests_for(lock):
    for key, tests in TESTS.items():
        if key in lock:
            return tuple(tests.split(","))
    raise proc.BadInput(f"no guest test known for lock {lock}")


def body(lines, func):
    """(first, last) line indexes of FUNC's body braces, or None."""
    head = re.compile(r"^(BPF_CALL_\d\(" + re.escape(func) + r"\b|"
                      r"(?:[A-Za-z_][\w \t\*]*?[ \t\*])?" + re.escape(func) + r"\s*\()")
    for i, line in enumerate(lines):
        if head.match(line) and not line.rstrip().endswith(";"):
            for j in range(i, min(i + 12, len(lines))):
                if lines[j].startswith("{"):
                    for k in range(j + 1, len(lines)):
                        if lines[k].startswith("}"):
                            return j, k
            return None
    return None


def next_code(lines, i, step, stop):
    """Index of the next non-blank, non-comment line from i in direction step."""
    i += step
    while (i < stop if step > 0 else i > stop) and (
            not lines[i].strip() or lines[i].strip().startswith(("/*", "*", "//"))):
        i += step
    return i


def statement_after(lines, i, last):
    """(start, end) of the simple statement starting at i, or None."""
    end = i
    while end < last and not lines[end].rstrip().endswith(";"):
        if "{" in lines[end] or "}" in lines[end]:
            return None
        end += 1
    text = " ".join(lines[i:end + 1])
    if CONTROL.match(lines[i]) or "{" in text or "}" in text:
        return None
    return i, end


def statement_before(lines, i, first):
    """(start, end) of the simple statement ending at i, or None."""
    if not lines[i].rstrip().endswith(";"):
        return None
    start = i
    while start > first and lines[start - 1].strip() and \
            not lines[start - 1].rstrip().endswith((";", "{", "}")):
        start -= 1
    return statement_after(lines, start, i)


def mutants_of(lines, first, last):
    """Yield (kind, description, new lines, lock) for one function body.

    A lock's unlocks are those after it and before the next lock of the
    same expression (process_backlog drops and retakes its lock)."""
    locks = [(i, LOCK.match(lines[i]).group(1)) for i in range(first, last)
             if LOCK.match(lines[i])]
    for n, (li, lock) in enumerate(locks):
        stop = next((i for i, l in locks[n + 1:] if l == lock), last)
        unlocks = [i for i in range(li, stop)
                   if UNLOCK.match(lines[i]) and UNLOCK.match(lines[i]).group(1) == lock]
        for ui in unlocks[:-1]:
            nx = next_code(lines, ui, 1, last)
            if EXIT.match(lines[nx]):
                yield ("unlock-exit", f"no unlock before '{lines[nx].strip()}' (line {ui + 1})",
                       lines[:ui] + lines[ui + 1:], lock)
        if unlocks:
            drop = {li, *unlocks}
            yield ("drop-pair", f"lock at line {li + 1} and its {len(unlocks)} unlock(s) dropped",
                   [l for i, l in enumerate(lines) if i not in drop], lock)
        st = statement_after(lines, next_code(lines, li, 1, last), last)
        if st:
            a, b = st
            new = lines[:li] + lines[li + 1:b + 1] + [lines[li]] + lines[b + 1:]
            yield ("access-outside", f"'{lines[a].strip()}' moved before the lock (line {li + 1})",
                   new, lock)
        elif unlocks:
            ui = unlocks[-1]
            st = statement_before(lines, next_code(lines, ui, -1, li), li + 1)
            if st:
                a, b = st
                new = lines[:a] + [lines[ui]] + lines[a:ui] + lines[ui + 1:]
                yield ("access-outside", f"'{lines[a].strip()}' moved after the unlock "
                       f"(line {ui + 1})", new, lock)
        bh = next_code(lines, li, -1, first)
        if lines[bh].strip() == "local_bh_disable();":
            new = list(lines)
            if unlocks:
                ui = unlocks[-1]
                en = next_code(lines, ui, 1, last)
                if lines[en].strip() != "local_bh_enable();":
                    continue
                new[ui], new[en] = lines[en], lines[ui]
            new[bh], new[li] = lines[li], lines[bh]
            yield ("outside-bh", f"lock taken before local_bh_disable() (line {bh + 1})",
                   new, lock)


def generate(series, src, outdir):
    """Write the mutants of SERIES (a directory) made on SRC (the tree
    with the series applied) into OUTDIR, replacing the patches and index
    there; return them."""
    out = []
    for c in coverage.converted(series):
        full = os.path.join(src, c.path)
        if not os.path.isfile(full):
            raise proc.BadInput(f"{full} missing: is {src} the patched tree?")
        lines = open(full).read().split("\n")
        span = body(lines, c.function)
        if span is None:
            raise proc.BadInput(f"function {c.function} not found in {c.path}")
        for kind, desc, new, lock in mutants_of(lines, *span):
            # Only the series' own locks: on a stack, a later series adds
            # locks to the same functions (the bulk queues' in cpumap and
            # devmap), which are not this series' to break.
            if lock.lstrip("&") not in c.locks:
                continue
            m = Mutant(f"{len(out) + 1:03d}-{kind}-{c.function}", kind, c.path, c.function,
                       tests_for(lock), desc)
            diff = "".join(difflib.unified_diff(
                [l + "\n" for l in lines], [l + "\n" for l in new],
                f"a/{c.path}", f"b/{c.path}", n=3))
            out.append((m, diff))
    if not out:
        raise proc.BadInput("no mutant generated")
    os.makedirs(outdir, exist_ok=True)
    for f in os.listdir(outdir):
        if f.endswith(".patch") or f == "index":
            os.unlink(os.path.join(outdir, f))
    for m, diff in out:
        proc.write_atomic(m.patch(outdir), diff)
    proc.write_atomic(os.path.join(outdir, "index"),
                      "".join(m.index_line() + "\n" for m, _ in out))
    return [m for m, _ in out]


def read_index(mdir, only=""):
    """The Mutants of MDIR's index; ONLY: comma-separated id prefixes."""
    path = os.path.join(mdir, "index")
    if not os.path.isfile(path):
        raise proc.BadInput(f"no mutant index {path}")
    index = []
    for ln in open(path).read().splitlines():
        mid, kind, file, func, tests, desc = ln.split("\t")
        index.append(Mutant(mid, kind, file, func, tuple(tests.split(",")), desc))
    if only:
        index = [m for m in index if any(m.id.startswith(p) for p in only.split(","))]
    if not index:
        raise proc.BadInput("no mutant selected")
    return index


# -- The golden file -------------------------------------------------------

# The boot columns: a debug variant, or the rt-debug kernel without the
# softirq lock (the series plus paths.SERIES_NO_BH_LOCK), booted with
# stress phases and the contention check of the mutant's lock.
COLUMNS = ("audit", "nort-debug", "rt-debug", "rt-debug-no-bh-lock")
WORDS = {"audit": ("flagged", "missed"), "boot": ("killed", "survived", "unbooted")}
NEEDS_REASON = ("missed", "survived")
# What killed a booted mutant (killed:CLASS): a guest test's own
# assertion, a splat known-splats does not list, a hang or dead guest,
# or only contention-check's requirement that the lock be contended (a
# kill made by the harness, not by a test: not counted as a kill in the
# headline). A plain "killed" is a line measured before the class was
# recorded.
KILLS = ("test", "splat", "hang", "contention")


@dataclasses.dataclass(frozen=True)
class Outcome:
    word: str            # flagged | missed | killed | survived | unbooted
    reason: str | None   # the key of a reason line (missed, survived)

    def __str__(self):
        return f"{self.word}:{self.reason}" if self.reason else self.word


@dataclasses.dataclass(frozen=True)
class Expected:
    path: str
    rows: dict           # id -> {column: Outcome}
    reasons: dict        # key -> text

    @property
    def name(self):
        """The path, relative to the repository when inside it."""
        rel = os.path.relpath(self.path, paths.REPO)
        return self.path if rel.startswith("..") else rel


def read_expected(path=EXPECTED):
    """The golden file; BadInput naming the line of any malformed entry."""
    if not os.path.isfile(path):
        raise proc.BadInput(f"no golden mutant file {path}")
    rows, reasons, used = {}, {}, []
    for n, line in enumerate(open(path), 1):
        where = f"{path}:{n}"
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        if fields[0] == "reason":
            text = line.split(None, 2)
            if len(text) < 3 or text[1] in reasons:
                raise proc.BadInput(f"{where}: want 'reason KEY TEXT', each KEY once")
            reasons[text[1]] = text[2].strip()
            continue
        if len(fields) != 1 + len(COLUMNS):
            raise proc.BadInput(f"{where}: want ID {' '.join(c.upper() for c in COLUMNS)}")
        mid, row = fields[0], {}
        if mid in rows:
            raise proc.BadInput(f"{where}: {mid} listed twice")
        for col, text in zip(COLUMNS, fields[1:]):
            word, _, reason = text.partition(":")
            words = WORDS["audit" if col == "audit" else "boot"]
            if word not in words:
                raise proc.BadInput(f"{where}: {col} outcome {text!r} is none of "
                                    f"{', '.join(words)}")
            if word == "killed":
                if reason and reason not in KILLS:
                    raise proc.BadInput(f"{where}: {col}: killed:{reason}: the class is none"
                                        f" of {', '.join(KILLS)}")
            elif (word in NEEDS_REASON) != bool(reason):
                what = "needs a reason (WORD:KEY)" if reason == "" else "takes no reason"
                raise proc.BadInput(f"{where}: {col}: {word} {what}")
            row[col] = Outcome(word, reason or None)
            used.append((where, reason))
        rows[mid] = row
    for where, key in used:
        if key and key not in reasons and key not in KILLS:
            raise proc.BadInput(f"{where}: no 'reason {key} ...' line")
    return Expected(path, rows, reasons)


def compare(expected, column, got, full=True):
    """Problems of the outcomes GOT ({id: word}, or {id: (word, kill
    class)} for boots) of COLUMN against the golden file, in both
    directions: a killed:CLASS line wants that class too; FULL: every
    mutant ran, so a golden line without a mutant is one too. [] when
    all match."""
    problems = []
    rel = expected.name
    for mid, word in got.items():
        word, kill = word if isinstance(word, tuple) else (word, None)
        row = expected.rows.get(mid)
        if row is None:
            problems.append(f"{mid}: {column} {word}, and {rel} has no line for it: add one")
            continue
        want = row[column]
        if want.word == "unbooted":
            record = f"{word}:REASON" if word in NEEDS_REASON else word
            problems.append(f"{mid}: {column} {word}, but {rel} says unbooted: "
                            f"record the outcome ({record})")
        elif want.word != word:
            problems.append(f"{mid}: {column} {word}, but {rel} expects {want}: find out "
                            f"why, and update its line if {word} is right")
        elif word == "killed" and want.reason and kill and want.reason != kill:
            problems.append(f"{mid}: {column} killed:{kill}, but {rel} expects {want}: "
                            f"find out why, and update its line if killed:{kill} is right")
    if full:
        problems += [f"{mid}: in {rel} but no such mutant was made: remove the line"
                     for mid in expected.rows if mid not in got]
    return problems
