# SPDX-License-Identifier: GPL-2.0
"""The functions a nested-BH series converts, read from the series itself.

A function is converted when a hunk of the series adds, inside its body,
a line that does one of the conversions: takes or releases a nested-BH
lock (local_lock_nested_bh(), local_unlock_nested_bh(), their
__local_*() forms on a pointer), installs or reads the bpf_net_context
(bpf_net_ctx_set/clear/get_*), updates a statistics counter IRQ-safely
(this_cpu_inc/dec/add/sub(), qstats_cpu_*_inc()) or uses per-task state
that replaces per-CPU state (current->net_xmit, nf_in_duplicate() and
nf_set_in_duplicate()); or a call of an inline helper that the series
defines with such a line in a header (a lock helper, say), taking the
helper's locks.
A header helper is listed under its header only when the series touches
none of its callers (the conversion lies wholly inside the helper, as
in mptcp_subflow_delegate()): otherwise the callers stand for it. It may
have no symbol of its own to probe (boot-tests/coverage/inlined then
names the callers that credit it). The guest's coverage
tests (cov-start, cov-check), its lock-contention check (contention-check,
from the locks column) and make-mutants work from this list.
"""
import dataclasses
import os
import re

from . import proc, series as ser

MARKER = re.compile(r"(\b|__)(local_lock_nested_bh|local_unlock_nested_bh|"
                    r"bpf_net_ctx_(set|clear|get\w*)|this_cpu_(inc|dec|add|sub)|"
                    r"qstats_cpu_\w+_inc|nf_(set_)?in_duplicate)\s*\(|"
                    r"\bcurrent->net_xmit\b")
# The lock a local_lock_nested_bh() call takes: "&napi_alloc_cache.bh_lock"
# gives "napi_alloc_cache.bh_lock" (per-CPU variable, member).
LOCK = re.compile(r"\blocal_lock_nested_bh\s*\(\s*&?\s*([\w.]+)\s*\)")
# A lock taken through a pointer ("&gcells->cells->bh_lock", in an object
# allocated per CPU) has no static name: lockdep names it after the
# argument of its local_lock_init(), which the series adds too. PTR_LOCK
# gives the argument of a take, INIT_LOCK that of an initialisation.
PTR_LOCK = re.compile(r"(?:\b|__)local_lock_nested_bh\s*\((.*)\)\s*;")
INIT_LOCK = re.compile(r"\blocal_lock_init\s*\((.*)\)\s*;")
# A call: "name(" not preceded by "." or "->" (a member).
CALL = re.compile(r"(?<![\w.>])([A-Za-z_]\w*)\s*\(")
HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?(.*)$")
# A definition starts in column 0 and is not a declaration or a macro
# invocation such as DEFINE_PER_CPU(...); BPF_CALL_n(name, ...) defines
# the helper "name".
BPF_CALL = re.compile(r"^BPF_CALL_\d\((\w+)")
DEFINITION = re.compile(r"^(?:[A-Za-z_][\w \t\*]*?[ \t\*])?([A-Za-z_]\w*)\s*\(")


@dataclasses.dataclass(frozen=True)
class Converted:
    function: str
    path: str            # the .c file (or header), relative to the tree
    patches: tuple       # the patch numbers (first four characters of the name)
    locks: tuple = ()    # the nested-BH locks it takes ("VARIABLE.MEMBER")

    def line(self):
        return (f"{self.function} {self.path} {','.join(self.patches)} "
                f"{','.join(self.locks) or '-'}")


def function_of(line):
    """Name of the function a column-0 line defines, or None."""
    m = BPF_CALL.match(line)
    if m:
        return m.group(1)
    if line.rstrip().endswith(";") or line.startswith(("#", "}")):
        return None
    m = DEFINITION.match(line)
    if not m or m.group(1).isupper() or m.group(1) in ("if", "for", "while", "switch"):
        return None
    return m.group(1)


def member(arg):
    """The last identifier of a lock expression: its member name."""
    names = re.findall(r"\w+", arg)
    return names[-1] if names else ""


def lock_inits(patches):
    """{(file, member): name}: the lockdep names of the locks PATCHES
    initialise with local_lock_init() (the argument as written:
    "&cell->bh_lock"), spaces removed and commas made semicolons (the
    list separates locks with commas).

    Two files that initialise locks under one name give lockdep two
    classes of that name, which contention-check (it counts by name)
    would merge: BadInput naming both."""
    inits, path, where = {}, None, {}
    for p in patches:
        for line in p.text.splitlines():
            if line.startswith("+++ "):
                path = line[6:] if line.startswith("+++ b/") else None
            elif line.startswith("+") and path:
                m = INIT_LOCK.search(line)
                if m:
                    name = re.sub(r"\s+", "", m.group(1)).replace(",", ";")
                    inits[path, member(m.group(1))] = name
                    other = where.setdefault(name, path)
                    if other != path:
                        raise proc.BadInput(
                            f"lock name {name} initialised in {other} and in {path} ({p.name}):"
                            " lockdep and contention-check cannot tell the two apart")
    return inits


def pointer_lock(line, path, inits):
    """The lockdep name of the lock LINE takes through a pointer: the
    local_lock_init() of the same member in PATH, else in PATH's
    directory; None when the series initialises none."""
    m = PTR_LOCK.search(line)
    if not m or not inits:
        return None
    want = member(m.group(1))
    if (path, want) in inits:
        return inits[path, want]
    near = sorted(n for (f, mem), n in inits.items()
                  if mem == want and os.path.dirname(f) == os.path.dirname(path))
    return near[0] if len(near) == 1 else None


def converted_in(patch, helpers=None, inits=None):
    """Yield (function, file, lock) for each marker line PATCH (a
    series.Patch) adds; lock is the nested-BH lock the line takes, or None.
    HELPERS ({name: (lock, ...)}): functions whose call is a marker too,
    taking their locks. INITS (lock_inits()): the names of the locks
    taken through pointers. Header files are read as well, with file
    names ending in .h: helpers() uses them."""
    helpers = helpers or {}
    path, func = None, None
    for line in patch.text.splitlines():
        if line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else None
            func = None
            continue
        if line.startswith("--- ") or path is None or not path.endswith((".c", ".h")):
            continue
        m = HUNK.match(line)
        if m:
            func = function_of(m.group(1))
            continue
        if line[:1] in (" ", "+"):
            name = function_of(line[1:])
            if name:
                func = name
            code = not line[1:].lstrip().startswith(("*", "/*", "//", "#"))
            if line[:1] != "+" or not code:
                continue
            called = [h for h in CALL.findall(line[1:]) if h in helpers and h != func]
            if MARKER.search(line):
                if func is None:
                    if path.endswith(".h"):
                        continue        # a macro body: not a function
                    raise proc.BadInput(f"{patch.name}: marker outside a function in "
                                        f"{path}: {line.strip()}")
                lock = LOCK.search(line)
                yield func, path, lock.group(1) if lock else pointer_lock(line, path, inits)
            elif called and func is not None:
                for h in called:
                    for lock in helpers[h] or (None,):
                        yield func, path, lock


def helpers_of(patches, inits=None):
    """{function: (locks...)} of the header functions the PATCHES convert
    directly: their calls are markers in turn."""
    found = {}
    for p in patches:
        for func, path, lock in converted_in(p, inits=inits):
            if not path.endswith(".h"):
                continue
            found.setdefault(func, set()).update([lock] if lock else [])
    return {f: tuple(sorted(locks)) for f, locks in found.items()}


def called_helpers(patches, helpers):
    """The names of HELPERS that a code line the PATCHES add calls."""
    found = set()
    for p in patches:
        for line in p.text.splitlines():
            if line.startswith("+") and not line.startswith("+++"):
                found.update(n for n in CALL.findall(line[1:]) if n in helpers)
    return found


def converted(series, headers=False):
    """The Converted functions of SERIES (a directory or a series.Series),
    sorted by function and file; BadInput when there is none. HEADERS:
    also the header helpers none of whose callers the series touches."""
    s = ser.read(series) if isinstance(series, str) else series
    found, locks = {}, {}
    inits = lock_inits(s.patches)
    helpers = helpers_of(s.patches, inits)
    alone = set(helpers) - called_helpers(s.patches, helpers) if headers else set()
    for p in s.patches:
        for func, path, lock in converted_in(p, helpers, inits):
            if not path.endswith(".c") and func not in alone:
                continue
            found.setdefault((func, path), set()).add(p.name[:4])
            locks.setdefault((func, path), set()).update([lock] if lock else [])
    if not found:
        raise proc.BadInput(f"no converted function in {s.directory}")
    return [Converted(f, path, tuple(sorted(ps)), tuple(sorted(locks[f, path])))
            for (f, path), ps in sorted(found.items())]


def write_list(series, output):
    """Write the list (one "FUNCTION FILE PATCH[,PATCH...] LOCK[,LOCK...]|-"
    line each) to OUTPUT."""
    proc.write_atomic(output, "".join(c.line() + "\n"
                                      for c in converted(series, headers=True)))
