# SPDX-License-Identifier: GPL-2.0
"""The findings of a set of facts, cached: the analysis (call graph,
reachability, sections, verdicts, owner markers) is a function of the
facts of every file, of the header structs, of the audited paths and of
the source files it reads; when none of these changed, its findings are those of
the run that computed them.

Facts are named by the SHA-1 of their JSON text (extract's sums), not by
the content of their file: a change that leaves a file's facts as they
were leaves the key as it was.  The source files the analysis read
(Audit.read) are stored with the SHA-1 of their text and checked before
an entry is used: the whole text, or for a file whose functions only
were read, the text up to the end of its last function (the offsets
and lines of its functions are in its facts, and Text.code up to an
offset depends on the text before it).  So a comment appended to a file
after its last function keeps the findings; an edit inside or between
functions does not (their lines or their text changed).  Entries are
in layer "r" of the audit cache, whose version covers every module of
the audit and the launcher."""

import glob
import hashlib
import json
import os

from . import extract

HERE = os.path.dirname(os.path.abspath(__file__))


def _sources():
    return sorted(glob.glob(os.path.join(HERE, "*.py"))) + [
        extract.COCCI, os.path.join(os.path.dirname(HERE), "nbh-audit")]


def key(sums, roles, headers, paths):
    """The key of an analysis: {relpath: facts SHA-1}, {relpath: how the
    launcher uses the file's facts}, the header structs, the paths."""
    h = hashlib.sha1()
    h.update(json.dumps([paths, sorted((rel, sums[rel], roles.get(rel, ""))
                                       for rel in sums)]).encode())
    h.update(json.dumps(headers, sort_keys=True).encode())
    return h.hexdigest()


def _digest(tree, rel, end):
    """SHA-1 of the text of a file (up to offset end unless None), None
    when it cannot be read: read as Audit.text() reads it."""
    try:
        with open(os.path.join(tree, rel), errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    return hashlib.sha1(text[:end].encode()).hexdigest()


def _setup(cache):
    if "r" not in cache.versions:
        cache.versions["r"] = extract._version(_sources())


def get(cache, digest, tree):
    """(findings, owner markers) stored under digest, if the source
    files they were computed from are unchanged; else None (an unreadable
    or malformed entry is a miss, rewritten by put())."""
    _setup(cache)
    try:
        with open(cache._path("r", digest), "rb") as f:
            got = json.loads(f.read())
    except (OSError, ValueError, RecursionError):
        return None
    try:
        reads, findings, owners = got["reads"], got["findings"], got["owners"]
        if not isinstance(findings, list) or not isinstance(owners, list):
            return None
        for rel, (end, sha) in sorted(reads.items()):
            if _digest(tree, rel, end) != sha:
                return None
    except (TypeError, ValueError, KeyError, AttributeError):
        return None
    return findings, owners


def put(cache, digest, tree, facts, reads, findings, owners):
    """Store findings and owner markers with the source files read to
    compute them (Audit.read)."""
    _setup(cache)
    ends = {}
    for rel, how in sorted(reads.items()):
        ext = facts[rel].get("extents") if how == "functions" and rel in facts else None
        ends[rel] = max((x[-1] + 1 for x in ext), default=0) if ext is not None else None
    cache.put_json("r", digest, json.dumps(
        {"reads": {rel: [end, _digest(tree, rel, end)] for rel, end in ends.items()},
         "findings": findings, "owners": owners}, separators=(",", ":")))
