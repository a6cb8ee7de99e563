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
Only .c files are listed: header helpers are inline and have no symbol
of their own to probe. The guest's coverage
tests (cov-start, cov-check), its lock-contention check (contention-check,
from the locks column) and make-mutants work from this list.
"""
import dataclasses
import re

from . import proc, series as ser

MARKER = re.compile(r"(\b|__)(local_lock_nested_bh|local_unlock_nested_bh|"
                    r"bpf_net_ctx_(set|clear|get\w*)|this_cpu_(inc|dec|add|sub)|"
                    r"qstats_cpu_\w+_inc|nf_(set_)?in_duplicate)\s*\(|"
                    r"\bcurrent->net_xmit\b")
# The lock a local_lock_nested_bh() call takes: "&napi_alloc_cache.bh_lock"
# gives "napi_alloc_cache.bh_lock" (per-CPU variable, member).
LOCK = re.compile(r"\blocal_lock_nested_bh\s*\(\s*&?\s*([\w.]+)\s*\)")
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
    path: str            # the .c file, relative to the tree
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


def converted_in(patch, helpers=None):
    """Yield (function, file, lock) for each marker line PATCH (a
    series.Patch) adds; lock is the nested-BH lock the line takes, or None.
    HELPERS ({name: (lock, ...)}): functions whose call is a marker too,
    taking their locks. Header files are read as well, with file names
    ending in .h: helpers() uses them."""
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
                yield func, path, lock.group(1) if lock else None
            elif called and func is not None:
                for h in called:
                    for lock in helpers[h] or (None,):
                        yield func, path, lock


def helpers_of(patches):
    """{function: (locks...)} of the header functions the PATCHES convert
    directly: their calls are markers in turn."""
    found = {}
    for p in patches:
        for func, path, lock in converted_in(p):
            if not path.endswith(".h"):
                continue
            found.setdefault(func, set()).update([lock] if lock else [])
    return {f: tuple(sorted(locks)) for f, locks in found.items()}


def converted(series):
    """The Converted functions of SERIES (a directory or a series.Series),
    sorted by function and file; BadInput when there is none."""
    s = ser.read(series) if isinstance(series, str) else series
    found, locks = {}, {}
    helpers = helpers_of(s.patches)
    for p in s.patches:
        for func, path, lock in converted_in(p, helpers):
            if not path.endswith(".c"):
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
    proc.write_atomic(output, "".join(c.line() + "\n" for c in converted(series)))
