# SPDX-License-Identifier: GPL-2.0
"""Lexical facts about one C file that spatch does not give us cheaply.

spatch (facts.cocci) gives the calls with their arguments.  This module
adds what needs the layout of the text: function extents (including
BPF_CALL_n() helpers), per-CPU definitions, __percpu pointer fields,
struct members, function pointers stored in initializers and fields,
code that does not exist on PREEMPT_RT, and the block structure needed
to tell an early-exit unlock from the end of a section.
"""

import bisect
import itertools
import re

KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "typeof",
            "__typeof__", "defined", "do", "else", "case", "goto",
            "__attribute__", "asm", "__asm__", "volatile", "alignof",
            "_Alignof", "__alignof__", "offsetof", "__builtin_expect"}


_BLANK_RE = re.compile(r"""
    ^[ \t]*\#(?:[^\n\\]|\\.|\\\n)*     # preprocessor line and continuations
  | //[^\n]*
  | /\*.*?\*/
  | "(?:[^"\\\n]|\\.)*"
  | '(?:[^'\\\n]|\\.)*'
""", re.M | re.S | re.X)
_NOT_NL = re.compile(r"[^\n]")


def _blanked(m):
    s = m.group()
    return _NOT_NL.sub(" ", s) if "\n" in s else " " * len(s)


def blank(text):
    """Comments, string and character literals and preprocessor lines
    replaced by spaces; newlines and offsets kept."""
    return _BLANK_RE.sub(_blanked, text)


_CLOSING = {"{": "}", "(": ")"}
_TOP = re.compile(r"[{};]")


def _is_word(c):
    """c is a character of \\w."""
    return c.isalnum() or c == "_"


def word_finditer(pat, s, pos=0, endpos=None):
    """pat.finditer(s, pos, endpos) for a pattern that starts with \\b
    before a word character, given pat without that \\b: its matches at
    the start of a word.  sre tries a pattern that starts with \\b at
    every offset; without it, it skips to the characters the pattern can
    start with."""
    if endpos is None:
        endpos = len(s)
    search = pat.search
    while True:
        m = search(s, pos, endpos)
        if m is None:
            return
        i = m.start()
        if i and _is_word(s[i - 1]):
            pos = i + 1
            continue
        yield m
        pos = m.end()


class Text:
    """A file's text with offset/line conversions and matching braces."""

    def __init__(self, text):
        self.raw = text
        self.code = blank(text)
        # offsets of the line starts: the lengths of the lines, summed
        self.starts = list(itertools.accumulate(
            map((1).__add__, map(len, text.split("\n")[:-1])), initial=0))
        # A "/*" left after blank() opens a comment that never ends: the
        # compiler sees no code after it, and its words must not become
        # calls.  unterminated is its line (0: none).
        self.unterminated = 0
        bad = self.code.find("/*")
        if bad >= 0:
            self.unterminated = self.line(bad)
            self.code = self.code[:bad] + _NOT_NL.sub(" ", self.code[bad:])

    def line(self, off):
        return bisect.bisect_right(self.starts, off)

    def offset(self, line, col=0):
        if line - 1 >= len(self.starts):
            return len(self.raw)
        return self.starts[line - 1] + col

    def match(self, off, opening="{", closing="}"):
        """Offset of the bracket closing the one at off, or -1."""
        # from one bracket to the next with str.find(): a regular
        # expression match object per bracket cost more
        code = self.code
        closing = _CLOSING[opening]
        find = code.find
        depth = 0
        o = find(opening, off)
        c = find(closing, off)
        while c >= 0:
            if 0 <= o < c:
                depth += 1
                o = find(opening, o + 1)
            else:
                depth -= 1
                if depth == 0:
                    return c
                c = find(closing, c + 1)
        return -1

    def match_back(self, off, opening="(", closing=")"):
        code = self.code
        rfind = code.rfind
        depth = 0
        o = rfind(opening, 0, off + 1)
        c = rfind(closing, 0, off + 1)
        while o >= 0:
            if c > o:
                depth += 1
                c = rfind(closing, 0, c)
            else:
                depth -= 1
                if depth == 0:
                    return o
                o = rfind(opening, 0, o)
        return -1


# --- PREEMPT_RT configuration --------------------------------------------

RT = "CONFIG_PREEMPT_RT"
_IF_RE = re.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b(.*)$", re.M)


def _rt_polarity(kind, cond):
    """True: branch exists on RT; False: branch is dead on RT;
    None: the condition does not decide it."""
    cond = cond.split("/*")[0].split("//")[0].strip()
    if kind == "ifdef":
        return True if cond == RT else None
    if kind == "ifndef":
        return False if cond == RT else None
    m = re.fullmatch(r"(!?)\s*(?:defined\s*\(?\s*%s\s*\)?|IS_ENABLED\s*\(\s*%s\s*\))"
                     % (RT, RT), cond)
    if m:
        return not m.group(1)
    return None


def rt_dead_lines(t):
    """Lines that do not exist when CONFIG_PREEMPT_RT=y."""
    dead = set()
    if RT not in t.raw:
        return dead
    stack = []          # [polarity, in_else]
    prev = 0            # line of the previous directive
    for m in _IF_RE.finditer(t.raw):
        no = t.line(m.start())
        if any(pol is False for pol, _ in stack):
            dead.update(range(prev + 1, no))
        prev = no
        kind, cond = m.group(1), m.group(2)
        if kind in ("if", "ifdef", "ifndef"):
            stack.append([_rt_polarity(kind, cond), False])
        elif kind == "elif" and stack:
            # an #elif after an RT test: only the RT branch is known
            stack[-1] = [False if stack[-1][0] else None, True]
        elif kind == "else" and stack:
            pol = stack[-1][0]
            stack[-1] = [None if pol is None else not pol, True]
        elif kind == "endif" and stack:
            stack.pop()
    # C-level: if (IS_ENABLED(CONFIG_PREEMPT_RT)) { ... } else { ... }
    for m in re.finditer(r"\bif\s*\(\s*(!?)\s*IS_ENABLED\s*\(\s*%s\s*\)\s*\)" % RT,
                         t.code):
        neg = bool(m.group(1))
        then = _block_after(t, m.end())
        if not then:
            continue
        if neg:
            dead.update(range(t.line(then[0]), t.line(then[1]) + 1))
        rest = t.code[then[1] + 1:then[1] + 200]
        e = re.match(r"\s*else\b", rest)
        if e and not neg:
            other = _block_after(t, then[1] + 1 + e.end())
            if other:
                dead.update(range(t.line(other[0]), t.line(other[1]) + 1))
    # if (A || IS_ENABLED(CONFIG_PREEMPT_RT)) ... else ...: true on RT,
    # the else branch is dead (rps_lock_irq_disable())
    for m in re.finditer(r"\bif\s*\(([^;{}]*?\bIS_ENABLED\s*\(\s*%s\s*\)[^;{}]*?)\)\s*(?=[{\w])"
                         % RT, t.code):
        cond = m.group(1)
        if "&&" in cond or "!" in cond.replace("!=", "") or "||" not in cond:
            continue
        then = _block_after(t, m.end())
        if not then:
            continue
        rest = t.code[then[1] + 1:then[1] + 200]
        e = re.match(r"\s*else\b", rest)
        if e:
            other = _block_after(t, then[1] + 1 + e.end())
            if other:
                dead.update(range(t.line(other[0]), t.line(other[1]) + 1))
    return dead


def _block_after(t, off):
    """(start, end) offsets of the statement or block starting after off."""
    m = re.compile(r"\s*").match(t.code, off)
    i = m.end()
    if i < len(t.code) and t.code[i] == "{":
        j = t.match(i)
        return (i, j) if j > 0 else None
    j = t.code.find(";", i)
    return (i, j) if j > 0 else None


# --- functions ------------------------------------------------------------

_INIT_ATTR = re.compile(r"\b__(?:net_)?(?:init|exit)\b|\b__ref\b")


def functions(t):
    """Top-level function definitions."""
    out = []
    depth = 0
    pos = 0
    last_end = 0        # end of the previous top-level item
    while True:
        m = _TOP.search(t.code, pos)
        if not m:
            break
        i, c = m.start(), m.group()
        pos = i + 1
        if c == "{":
            if depth == 0:
                fn = _function_header(t, last_end, i)
                j = t.match(i)
                if j < 0:
                    break
                if fn:
                    fn["body"] = i
                    fn["end_off"] = j
                    fn["end"] = t.line(j)
                    out.append(fn)
                pos = last_end = j + 1
                continue
            depth += 1
        elif c == "}":
            depth -= 1
        elif depth == 0:
            last_end = i + 1
    return out


_BPF_CALL = re.compile(r"^(?:BPF_CALL_\d|BPF_CALL_x)$")


_ATTRS = re.compile(r"(?:__acquires|__releases|__must_hold|__attribute__)\s*\(.*\)\s*$", re.S)
_KIND_BEFORE = re.compile(r"\b(struct|union|enum)\s+\w*\s*$")
_STATIC = re.compile(r"\bstatic\b")
_WORD_RUN = re.compile(r"\w+")


def _last_word(s):
    """(offset, word) of what (\\w+)\\s*$ finds in s, or None: the
    word the string ends with, blanks after it allowed."""
    r = s.rstrip()
    m = _WORD_RUN.match(r[::-1])
    if not m:
        return None
    n = len(r) - m.end()
    return n, r[n:]


def _function_header(t, start, brace):
    head = t.code[start:brace]
    # strip trailing attributes such as __acquires(x) or __releases(x)
    stripped = head.rstrip()
    while "__" in stripped:
        m = _ATTRS.search(stripped)
        if not m:
            break
        stripped = stripped[:m.start()].rstrip()
    if not stripped.endswith(")"):
        return None
    close = start + len(stripped) - 1
    open_ = t.match_back(close)
    if open_ < start:
        return None
    before = t.code[start:open_]
    last = _last_word(before)
    if not last or last[1] in KEYWORDS:
        return None
    at, name = last
    if before.rstrip().endswith("="):
        return None
    if "struct" in before or "union" in before or "enum" in before:
        # the word before the name, or the name, is the keyword
        i = at
        while i > 0 and before[i - 1].isspace():
            i -= 1
        while i > 0 and _is_word(before[i - 1]):
            i -= 1
        if _KIND_BEFORE.search(before, i):
            return None
    params_text = t.code[open_ + 1:close]
    params = _params(params_text)
    if _BPF_CALL.match(name):
        # BPF_CALL_3(name, type, arg, type, arg, ...)
        parts = [p.strip() for p in _split_top(params_text)]
        name = parts[0] if parts else name
        params = [parts[k] for k in range(2, len(parts), 2)]
    prefix = before
    return {"name": name, "line": t.line(start + at),
            "static": "static" in prefix and bool(_STATIC.search(prefix)),
            "init": "__" in prefix and bool(_INIT_ATTR.search(prefix)),
            "params": params}


_SPLIT = re.compile(r"[()\[\]{},]")


def _split_top(text):
    if "(" not in text and "[" not in text and "{" not in text:
        return text.split(",") if text.strip() else []
    # from one bracket or comma to the next (a loop over every character
    # was most of the time of the lexical call lists)
    parts, depth, last = [], 0, 0
    for m in _SPLIT.finditer(text):
        c = m.group()
        if c == ",":
            if depth == 0:
                i = m.start()
                parts.append(text[last:i])
                last = i + 1
        elif c in "([{":
            depth += 1
        else:
            depth -= 1
    if text[last:].strip():
        parts.append(text[last:])
    return parts


_FN_PARAM = re.compile(r"\(\s*\*\s*(\w+)\s*\)")
_PARAM_NAME = re.compile(r"(\w+)\s*(\[[^\]]*\]\s*)*$")


def _params(text):
    names = []
    for p in _split_top(text):
        p = p.strip()
        m = _FN_PARAM.search(p) if "(" in p else None    # function pointer
        if m:
            names.append(m.group(1))
            continue
        m = _PARAM_NAME.search(p)
        names.append(m.group(1) if m and p not in ("void", "...") else "")
    return names


# --- per-CPU definitions, __percpu pointers, structs ------------------------

_PERCPU_DEF = re.compile(
    r"\b(DEFINE|DECLARE)_PER_CPU(\w*)\s*\(\s*([^;]*?)\s*,\s*(\w+)\s*(\[[^\]]*\])?\s*\)")
_PERCPU_PTR = re.compile(r"\b__percpu\s*\*+\s*(\w+)\s*(?:;|=)")
# \b(struct|union)...: see word_finditer()
_STRUCT = re.compile(r"(struct|union)\s+(\w+)\s*(?:__\w+\s*(?:\([^)]*\))?\s*)*\{")


def percpu_defs(t, dead):
    out = []
    if "_PER_CPU" not in t.code:
        return out
    for m in _PERCPU_DEF.finditer(t.code):
        line = t.line(m.start())
        prefix = t.code[t.starts[line - 1]:m.start()]
        out.append({"name": m.group(4), "type": " ".join(m.group(3).split()),
                    "kind": m.group(1).lower(), "variant": m.group(2).lstrip("_"),
                    "line": line, "col": m.start() - t.starts[line - 1],
                    "static": "static" in prefix, "rt_dead": line in dead})
    return out


def structs(t, dead):
    """struct name -> {line, members: {member: [sub-members] or None},
    rt_dead: [member], percpu: {member: type}, pointers: [member]}."""
    out = {}
    for m in word_finditer(_STRUCT, t.code):
        body = m.end() - 1
        end = t.match(body)
        if end < 0:
            continue
        info = {"line": t.line(m.start()), "members": {}, "rt_dead": [],
                "percpu": {}, "pointers": []}
        _members(t, body + 1, end, info, dead)
        out.setdefault(m.group(2), info)
    return out


def _members(t, start, end, info, dead):
    code = t.code
    pos, decl_start = start, start
    while pos < end:
        m = _TOP.search(code, pos, end)
        if not m:
            break
        i, c = m.start(), m.group()
        pos = i + 1
        if c == "{":
            j = t.match(i)
            if j < 0:
                return
            sub = {"members": {}, "rt_dead": [], "percpu": {}, "pointers": []}
            _members(t, i + 1, j, sub, dead)
            k = code.find(";", j)
            name = re.match(r"\s*(\w*)", code[j + 1:k]).group(1)
            if name:
                info["members"][name] = sorted(sub["members"])
                if t.line(k) in dead:
                    info["rt_dead"].append(name)
                info["rt_dead"].extend(name + "." + m for m in sub["rt_dead"])
                info["pointers"].extend(name + "." + m for m in sub["pointers"])
            else:   # anonymous: members belong to the parent
                info["members"].update(sub["members"])
                info["rt_dead"].extend(sub["rt_dead"])
                info["pointers"].extend(sub["pointers"])
            info["percpu"].update(sub["percpu"])
            pos = decl_start = k + 1
            continue
        if c == ";":
            decl = code[decl_start:i]
            m = re.search(r"(\w+)\s*(\[[^\]]*\]\s*)*(:\s*\w+\s*)?$", decl)
            if m and "(" not in decl.replace("(*", ""):
                info["members"][m.group(1)] = None
                if "*" in decl:
                    info["pointers"].append(m.group(1))
                if t.line(i) in dead:
                    info["rt_dead"].append(m.group(1))
                if "__percpu" in decl:
                    info["percpu"][m.group(1)] = " ".join(
                        decl[:decl.index("__percpu")].split())
            elif m and "(*" in decl:
                fm = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl)
                if fm:
                    info["members"][fm.group(1)] = None
            decl_start = i + 1


def percpu_ptr_vars(t, funcs):
    """Top-level 'T __percpu *name;' variables (dynamic per-CPU data)."""
    out = []
    if "__percpu" not in t.code:
        return out
    inside = [(f["body"], f["end_off"]) for f in funcs]
    for m in _PERCPU_PTR.finditer(t.code):
        off = m.start(1)
        if any(a <= off <= b for a, b in inside):
            continue
        if _depth(t.code, off) != 0:
            continue
        line = t.line(off)
        typ = t.code[t.starts[line - 1]:m.start()]
        out.append({"name": m.group(1), "type": " ".join(typ.split()),
                    "line": line})
    return out


def _depth(code, off):
    return code.count("{", 0, off) - code.count("}", 0, off)


# --- function pointers -------------------------------------------------------

# Possessive quantifiers: the adjacent \s* around the optional cast made
# this quadratic in long blank runs (the blanked blob of 6.1's
# iterators.lskel.h cost 2.5 s); the matches are the same.
_INIT_FIELD = re.compile(r"\.\s*(\w+)\s*=\s*+(?:\(\s*\w[\w\s\*]*+\)\s*+)?&?\s*(\w+)\s*(?=[,}\n])")
# The same for the "\s*&?\s*" after the "=": a designated initializer
# followed by a long blanked string (the test vectors of 6.1's
# crypto/testmgr.h, 1.5 MB) was tried at every split of the blank run,
# 40 s for that one file.  \s, "&" and \w exclude each other: possessive
# quantifiers give up no match.
_ASSIGN_FIELD = re.compile(r"(?:->|\.)\s*+(\w+)\s*+=\s*+&?\s*+(\w+)\s*+;")
_TOPVAR = re.compile(r"(?:\bstruct\s+(\w+)\s+)?(?:const\s+)?(\w+)\s*(?:\[[^\]]*\])?\s*(?:__\w+\s*)*=\s*\{")
_TOP_REG = re.compile(r"(DEFINE_TIMER|DECLARE_TASKLET|DECLARE_TASKLET_OLD|"
                      r"DECLARE_TASKLET_DISABLED)\s*\(\s*(\w+)\s*,\s*(\w+)")


_NOT_FN = re.compile(r"^(?:[A-Z0-9_]+|\d\w*|true|false|NULL|sizeof)$")
_INIT_OPEN = re.compile(r"=\s*\{")


def fnptrs(t, funcs):
    """(field, function-name) pairs, with the variable and struct type
    being initialized when known."""
    out = []
    opens = [m.start() for m in _INIT_OPEN.finditer(t.code)]
    heads = {}
    for m in _INIT_FIELD.finditer(t.code):
        if _NOT_FN.match(m.group(2)):
            continue
        off = m.start()
        var = typ = None
        # the innermost '= {' before us
        i = bisect.bisect_left(opens, off) - 1
        if i >= 0:
            k = opens[i]
            if k not in heads:
                vm = None
                for vm in _TOPVAR.finditer(t.code[max(0, k - 200):k + 3]):
                    pass
                heads[k] = (vm.group(1), vm.group(2)) if vm else (None, None)
            typ, var = heads[k]
        out.append({"field": m.group(1), "fn": m.group(2), "line": t.line(off),
                    "var": var, "type": typ, "how": "init"})
    for m in _ASSIGN_FIELD.finditer(t.code):
        if _NOT_FN.match(m.group(2)):
            continue
        out.append({"field": m.group(1), "fn": m.group(2),
                    "line": t.line(m.start()), "var": None, "type": None,
                    "how": "assign"})
    return out


def top_registrations(t):
    if "DEFINE_TIMER" not in t.code and "DECLARE_TASKLET" not in t.code:
        return []
    return [{"macro": m.group(1), "name": m.group(2), "fn": m.group(3),
             "line": t.line(m.start())} for m in word_finditer(_TOP_REG, t.code)]


# File-scope macros that hand a function to process context: initcalls
# (their function), DECLARE_WORK(name, fn) (the second argument).
_TOP_PROCESS = re.compile(r"^[ \t]*(?:static\s+)?(module_init|module_exit|\w*initcall\w*|"
                          r"DECLARE_WORK|DECLARE_DELAYED_WORK|DECLARE_DEFERRABLE_WORK)"
                          r"\s*\(\s*(\w+)\s*(?:,\s*(\w+)\s*)?\)", re.M)


def top_process(t):
    """[{macro, fn, line}] for the file-scope process-context registrations."""
    out = []
    code = t.code
    if "initcall" not in code and "module_" not in code and "DECLARE_" not in code:
        return out
    for m in _TOP_PROCESS.finditer(code):
        fn = m.group(3) if m.group(1).startswith("DECLARE_") else m.group(2)
        if fn:
            out.append({"macro": m.group(1), "fn": fn, "line": t.line(m.start())})
    return out


# --- inside function bodies ------------------------------------------------

_FIELD_CALL = re.compile(r"(?:->|\.)\s*(\w+)\s*\)?\s*\(")
_PROTO_REF = re.compile(r"&\s*(\w+_proto)\b")
_LOCAL_CPU = re.compile(r"\b(\w+)\s*=\s*(?:raw_)?(?:smp_processor_id|get_cpu)\s*\(")


_IRQ_COND = re.compile(r"\bif\s*\(\s*((?:(?:in_hardirq|in_irq|irqs_disabled)\s*\(\s*\)"
                       r"\s*(?:\|\|\s*)?)+)\)")


def body_facts(t, fn):
    body = t.code[fn["body"]:fn["end_off"]]
    base = fn["body"]
    fcalls = [{"field": m.group(1), "line": t.line(base + m.start())}
              for m in _FIELD_CALL.finditer(body)]
    protos = sorted(set(_PROTO_REF.findall(body)))
    local_cpu = (sorted(set(_LOCAL_CPU.findall(body)))
                 if "smp_processor_id" in body or "get_cpu" in body else [])
    return fcalls, protos, local_cpu


def irq_blocks(t, fn):
    """Line ranges of 'if (in_hardirq() || irqs_disabled()) { ... }'
    branches: IRQs are off there whatever the caller did."""
    out = []
    if t.code.find("irqs_disabled", fn["body"], fn["end_off"]) < 0:
        return out
    for m in _IRQ_COND.finditer(t.code, fn["body"], fn["end_off"]):
        if "irqs_disabled" not in m.group(1):
            continue
        blk = _block_after(t, m.end())
        if blk:
            out.append([t.line(blk[0]), t.line(blk[1])])
    return out


# --- CPU-keyed owner markers ------------------------------------------------
#
# A member or file-scope variable that holds the number of the CPU inside
# a section (txq->xmit_lock_owner, q->owner): stores of the current CPU
# number, stores of -1 and comparisons with the current CPU number.  The
# current CPU number is (raw_)smp_processor_id(), a local assigned it or
# get_cpu() (local_cpu), or a parameter whose name holds "cpu" (set only:
# owners.py keeps it when a caller passes the current CPU).

_CHAIN_AT = r"\b[A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)*\b(?!\s*(?:\(|\[|->|\.))"
_THIS_CPU = r"(?:raw_)?smp_processor_id\s*\(\s*\)"
_CPU_VALUE = r"(%s|-1\b|\b[A-Za-z_]\w*\b(?!\s*(?:\(|\[|->|\.)))" % _THIS_CPU
_LOAD = r"(?:(?:READ_ONCE|smp_load_acquire|data_race)\s*\(\s*&?\s*(%s)\s*\)|(%s))" % (
    _CHAIN_AT, _CHAIN_AT)
_MARK_STORE = re.compile(
    r"(?:(?:WRITE_ONCE|smp_store_release)\s*\(\s*&?\s*(%s)\s*,\s*%s\s*\)"
    r"|(?:try_)?cmpxchg\s*\(\s*&\s*(%s)\s*,[^,;()]*,\s*%s\s*\)"
    r"|(%s)\s*=(?!=)\s*%s\s*[;,)])" % (_CHAIN_AT, _CPU_VALUE, _CHAIN_AT, _CPU_VALUE,
                                        _CHAIN_AT, _CPU_VALUE))
_MARK_CMP = re.compile(r"%s\s*(==|!=)\s*(%s|\b[A-Za-z_]\w*\b(?!\s*(?:\(|\[|->|\.)))|"
                       r"(%s|\b[A-Za-z_]\w*\b)\s*(==|!=)\s*%s" % (_LOAD, _THIS_CPU, _THIS_CPU, _LOAD))
_LOCAL_DECL = r"\b(?:int|unsigned|long|short|u8|u16|u32|u64|s8|s16|s32|s64|bool|size_t)\b" \
              r"[^;{}()]*?\b%s\b"


def current_cpu(value, local_cpu):
    """value (an expression's text) is the current CPU number:
    (raw_)smp_processor_id() or a local assigned it (local_cpu)."""
    return "processor_id" in value or value in local_cpu


def _chain_start_ok(code, i):
    """A chain found at i is not the tail of a longer expression
    (a[i].m, f(x)->m)."""
    j = i
    while j > 0 and code[j - 1] in " \t\n":
        j -= 1
    return not (j and (code[j - 1] in ".]" or code[j - 2:j] == "->"))


def cpu_marks(t, fn, local_cpu):
    """Stores of the current CPU number or of -1 to a member chain or a
    variable that is not local to fn, and comparisons of one with the
    current CPU number: [{"op": "set" | "reset" | "cmp", "chain": [..],
    "line", "value", "param": i (a set through parameter i)}]."""
    code, body, end = t.code, fn["body"], fn["end_off"]
    cpu_params = {p: i for i, p in enumerate(fn["params"]) if "cpu" in p}
    if (code.find("processor_id", body, end) < 0 and code.find("get_cpu", body, end) < 0
            and code.find("-1", body, end) < 0 and not cpu_params):
        return []
    head = t.offset(fn["line"])
    local = {}

    def outside(chain):
        """Not a local variable or parameter of fn (a member chain is)."""
        if len(chain) > 1:
            return True
        name = chain[0]
        if name not in local:
            local[name] = name in fn["params"] or re.search(
                _LOCAL_DECL % re.escape(name), code[head:end]) is not None
        return not local[name]

    def cpu(v):
        return current_cpu(v, local_cpu)

    out = []
    for m in _MARK_STORE.finditer(code, body, end):
        i = 1 if m.group(1) else 3 if m.group(3) else 5
        chain, value = split_chain(m.group(i)), re.sub(r"\s+", "", m.group(i + 1))
        if not _chain_start_ok(code, m.start(i)) or chain[0] in KEYWORDS:
            continue
        if value == "-1":
            op = "reset"
        elif cpu(value) or value in cpu_params:
            op = "set"
        else:
            continue
        if not outside(chain):
            continue
        mark = {"op": op, "chain": chain, "line": t.line(m.start(i)), "value": value}
        if op == "set" and not cpu(value):
            mark["param"] = cpu_params[value]
        out.append(mark)
    for m in _MARK_CMP.finditer(code, body, end):
        if m.group(4) is not None:
            side, other, at = m.group(1) or m.group(2), m.group(4), m.start(1) if m.group(1) \
                else m.start(2)
        else:
            side, other, at = m.group(7) or m.group(8), m.group(5), m.start(7) if m.group(7) \
                else m.start(8)
        other = re.sub(r"\s+", "", other)
        chain = split_chain(side)
        if (not cpu(other) or cpu(side) or chain[0] in KEYWORDS
                or not _chain_start_ok(code, at) or not outside(chain)):
            continue
        out.append({"op": "cmp", "chain": chain, "line": t.line(at), "value": other})
    out.sort(key=lambda x: (x["line"], x["op"]))
    return out


_IDENT_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")


def regex_calls(t, fn):
    """Lexical call list of a function: name, arguments, position: what
    \\b([A-Za-z_]\\w*)\\s*\\( finds in its body, but a name after a
    member operator (a call through a field: see body_facts())."""
    out = []
    code = t.code
    lo, end = fn["body"], fn["end_off"]
    find, match, line_of, starts = code.find, t.match, t.line, t.starts
    keywords, ident_start = KEYWORDS, _IDENT_START
    # from each '(' back to the name before it: '(' is a fast search,
    # a name is not
    po = find("(", lo, end)
    while po >= 0:
        j = po
        while j > 0 and code[j - 1].isspace():
            j -= 1
        k = j
        while k > 0 and (code[k - 1].isalnum() or code[k - 1] == "_"):
            k -= 1
        here = po
        po = find("(", po + 1, end)
        if k == j or k < lo or code[k] not in ident_start:
            continue
        name = code[k:j]
        if name in keywords:
            continue
        i = k - 1
        while i > 0 and code[i] in " \t\n":
            i -= 1
        if code[i] == "." or (code[i] == ">" and code[i - 1] == "-"):
            continue        # a call through a field: see body_facts()
        pc = match(here, "(", ")")
        if pc < 0:
            continue
        args = [" ".join(a.split()) for a in _split_top(code[here + 1:pc])]
        line = line_of(k)
        out.append({"f": name, "args": args, "line": line, "col": k - starts[line - 1]})
    return out


def stmt_exits(t, line, col, fn):
    """True when the statement at (line, col) sits in a nested block that
    is left by return/goto/break/continue right after it: an unlock on an
    early-exit path, which does not end the section for the code below."""
    off = t.offset(line, col)
    depth = 0
    code = t.code
    i = code.find(";", off)
    if i < 0:
        return False
    # depth of the statement relative to the function body
    rel = code.count("{", fn["body"], off) - code.count("}", fn["body"], off)
    if rel <= 1:
        return False
    m = re.compile(r"\s*(return|goto|break|continue)\b").match(code, i + 1)
    if m:
        return True
    # a few more statements before the block closes, e.g. unlock; x = y; return
    seg_end = code.find("}", i)
    seg = code[i + 1:seg_end]
    del depth
    if "{" in seg:
        return False
    # the block must end in a return or goto of its own, not in one an
    # 'if' guards ('unlock; ...; if (++work >= quota) return work;' goes
    # on with the loop)
    m = re.search(r"\b(?:return|goto)\b[^;]*;\s*$", seg)
    if not m:
        return False
    before = seg[:m.start()].rstrip()
    return not (before.endswith(")") or re.search(r"\belse$", before))


def stmt_block(t, line, col):
    """(first, last) line of the innermost { } block holding the statement
    at (line, col), or None: where a section that the statement leaves on
    an early exit really ends, when the section was opened in that block."""
    off = t.offset(line, col)
    code = t.code
    depth = 0
    for i in range(off - 1, -1, -1):
        if code[i] == "}":
            depth += 1
        elif code[i] == "{":
            if depth == 0:
                end = t.match(i)
                return (t.line(i), t.line(end)) if end > 0 else None
            depth -= 1
    return None


def assign_target(t, line, col):
    """Variable assigned the value of the expression starting at
    (line, col): 'p = this_cpu_ptr(...)' or 'T *p = this_cpu_ptr(...)'."""
    off = t.offset(line, col)
    lo = max(0, off - 200)
    before = t.code[lo:off]
    m = re.search(r"(\w+)\s*=\s*(?:\(\s*[\w\s\*]+\)\s*)?&?\s*$", before)
    if m and not re.search(r"[=!<>]=\s*$", before[:m.end()]):
        return m.group(1)
    return None


_ARROW = r"\b%s\s*->\s*(\w+)((?:\s*\.\s*\w+)*)"
_SIZEOF = re.compile(r"\b(?:sizeof|typeof|__typeof__|offsetof)\s*\(\s*$")


def block_end(t, start_off, end_off):
    """The end of the block holding start_off (the offset of its closing
    brace), or end_off when the block goes on past it."""
    depth = 0
    for i in range(start_off, end_off):
        c = t.code[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                return i
    return end_off


def member_uses(t, var, start_off, end_off):
    """(member chain, line) for every var->a.b after start_off, within the
    block holding start_off and up to the next assignment of var."""
    end_off = block_end(t, start_off, end_off)
    m = re.compile(r"\b%s\s*=[^=]" % re.escape(var)).search(t.code, start_off + 1, end_off)
    if m:
        end_off = m.start()
    out = []
    for m in re.finditer(_ARROW % re.escape(var), t.code[start_off:end_off]):
        chain = [m.group(1)] + [x.strip() for x in m.group(2).split(".") if x.strip()]
        if "lock" in chain[-1]:
            continue        # taking the datum's own lock is not a data access
        if _SIZEOF.search(t.code, max(0, start_off + m.start() - 20), start_off + m.start()):
            continue        # sizeof(p->member) reads nothing
        out.append((chain, t.line(start_off + m.start())))
    return out


_INCLUDE = re.compile(r'[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]')


def includes(t):
    """What ^[ \\t]*#[ \\t]*include[ \\t]*[<"]([^>"]+)[>"] finds (multi-line):
    tried at the start of the lines whose first character that is not a
    blank is '#', found by str.find() (the pattern tried at every offset
    was slow)."""
    raw = t.raw
    out = []
    pos = 0         # where the scan goes on
    while True:
        h = raw.find("#", pos)
        if h < 0:
            return out
        ls = raw.rfind("\n", 0, h) + 1
        if ls >= pos and not raw[ls:h].strip(" \t"):
            m = _INCLUDE.match(raw, ls)
            if m:
                out.append(m.group(1))
                pos = m.end()
                continue
        pos = h + 1


def returns_var(t, var, start_off, end_off):
    return re.search(r"\breturn\s+%s\s*;" % re.escape(var),
                     t.code[start_off:end_off]) is not None


# --- typed calls through function pointers -----------------------------------
#
# What the call graph needs to resolve 'd->ops->xmit()' by struct type and
# field: the declared types of a function's variables and parameters, the
# receivers of field calls, functions stored in fields and fields copied
# from others, struct member types, BPF program types named, exports.

_CHAIN = r"[A-Za-z_]\w*(?:\s*(?:->|\.)\s*[A-Za-z_]\w*)*"
_FCALL = re.compile(r"(%s)\s*(?:->|\.)\s*([A-Za-z_]\w*)\s*\)?\s*\(" % _CHAIN)
_STORE = re.compile(r"(%s)\s*(?:->|\.)\s*([A-Za-z_]\w*)\s*=\s*&?\s*([A-Za-z_]\w*)\s*;" % _CHAIN)
_COPY = re.compile(r"(%s)\s*(?:->|\.)\s*([A-Za-z_]\w*)\s*=\s*(%s)\s*(?:->|\.)\s*([A-Za-z_]\w*)\s*;"
                   % (_CHAIN, _CHAIN))
# these four start with \b in fact: see word_finditer()
_VAR = re.compile(r"(?:struct|union)\s+(\w+)\s*(?:(?:\*|\bconst\b|__rcu|__percpu)\s*)*"
                  r"([A-Za-z_]\w*)\s*(?=[;,=)\[])")
# BPF_CALL_2(name, struct T *, arg, ...) and SYSCALL_DEFINEn() headers
_MACRO_PARAM = re.compile(r"(?:struct|union)\s+(\w+)\s*(?:(?:\*|\bconst\b)\s*)*,\s*"
                          r"([A-Za-z_]\w*)\s*(?=[,)])")
_MEMBER = re.compile(r"(?:struct|union)\s+(\w+)\s*(?:(?:\*|\bconst\b|__rcu|__percpu)\s*)*"
                     r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)?(?:__\w+(?:\([^)]*\))?\s*)*;")
_PTYPE = re.compile(r"\bBPF_PROG_TYPE_[A-Z0-9_]+\b")
# an anonymous structure or union inside another, and the name of the
# member it declares ("} element;", "} u[2];")
_ANON = re.compile(r"\b(?:struct|union)\s*\{")
_ANON_NAME = re.compile(r"\s*(?:__\w+(?:\([^)]*\))?\s*)*([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)?;")
_EXPORT = re.compile(r"EXPORT_(?:SYMBOL|SYMBOL_GPL|SYMBOL_NS|SYMBOL_NS_GPL|PER_CPU_SYMBOL\w*)"
                     r"\s*\(\s*(\w+)")


# '->f(' or '.f)(' (a call) or '->f =' (a store or a copy)
_MEMBER_OP = re.compile(r"(?:->|\.)\s*([A-Za-z_]\w*)\s*(?:(\)?\s*\()|(=(?!=)))")


def _chain_start(code, op, lo):
    """Offset where the chain of members ending at the operator at op
    starts (its leftmost identifier, as _CHAIN matches from the left),
    or None."""
    j, first = op, None
    while True:
        k = j
        while k > lo and code[k - 1] in " \t\n":
            k -= 1
        i = k
        while i > lo and (code[i - 1].isalnum() or code[i - 1] == "_"):
            i -= 1
        if i == k or code[i].isdigit():
            return first
        first = i
        b = i
        while b > lo and code[b - 1] in " \t\n":
            b -= 1
        if b - 2 >= lo and code[b - 2:b] == "->":
            j = b - 2
        elif b - 1 >= lo and code[b - 1] == "." and not (b - 2 >= lo and code[b - 2] == "."):
            j = b - 1
        else:
            return first


_MEMBER_SEP = re.compile(r"\s*(?:->|\.)\s*")


def split_chain(s):
    return [x for x in _MEMBER_SEP.split(s.strip()) if x]


def _aggregate(t, code, name, b, e, members):
    """members[name] = {member: struct type} for the aggregate whose
    braces are at b and e. The members of a nested aggregate are also
    its own (flattened), as before; a named member of an anonymous one
    (struct ib_event's "union { struct ib_qp *qp; ... } element;") gets
    a type of its own, "ib_event::element", holding only that
    aggregate's members: event->element.qp is a struct ib_qp whatever
    other "qp" members the outer structure has."""
    got = {mm.group(2): mm.group(1) for mm in word_finditer(_MEMBER, code, b + 1, e)}
    pos = b + 1
    while True:
        am = _ANON.search(code, pos, e)
        if not am:
            break
        ae = t.match(am.end() - 1)
        if ae < 0 or ae > e:
            break
        nm = _ANON_NAME.match(code, ae + 1, e)
        if nm:
            sub = "%s::%s" % (name, nm.group(1))
            got[nm.group(1)] = sub
            _aggregate(t, code, sub, am.end() - 1, ae, members)
        pos = ae + 1
    members[name] = got


def typed_facts(t, facts):
    """Add to facts (functions still holding body/end_off) per function
    'vars', 'fcalls', 'stores', 'copies', 'ptypes', and per file
    'members', 'ptypes', 'exported'."""
    code = t.code
    ptypes = "BPF_PROG_TYPE_" in code
    for fn in facts["functions"]:
        head = t.offset(fn["line"])
        body, end = fn["body"], fn["end_off"]
        fn["vars"] = {m.group(2): m.group(1)
                      for m in word_finditer(_MACRO_PARAM, code, head, body)}
        fn["vars"].update((m.group(2), m.group(1))
                          for m in word_finditer(_VAR, code, head, end))
        fn["fcalls"] = []
        fn["stores"] = []
        fn["copies"] = []
        # the member operators are few: match the chains from there
        # (a chain regex tried at every offset was most of the time)
        pos = body
        while True:
            m = _MEMBER_OP.search(code, pos, end)
            if not m:
                break
            pos = m.end()
            start = _chain_start(code, m.start(), body)
            if start is None:
                continue
            if m.group(2) is not None:
                fm = _FCALL.match(code, start, end)
                if fm and fm.end(2) == m.end(1):
                    chain = split_chain(fm.group(1))
                    if chain[0] not in KEYWORDS:
                        fn["fcalls"].append({"recv": chain, "field": fm.group(2),
                                             "line": t.line(fm.start(2)), "col": 0})
            elif m.group(3) is not None:
                sm = _STORE.match(code, start, end)
                if sm and sm.end(2) == m.end(1):
                    fn["stores"].append({"recv": split_chain(sm.group(1)), "field": sm.group(2),
                                         "value": sm.group(3), "line": t.line(sm.start())})
                    pos = sm.end()
                    continue
                cm = _COPY.match(code, start, end)
                if cm and cm.end(2) == m.end(1):
                    fn["copies"].append({"recv": split_chain(cm.group(1)), "field": cm.group(2),
                                         "src": split_chain(cm.group(3)),
                                         "sfield": cm.group(4)})
                    pos = cm.end()
        fn["ptypes"] = sorted(set(_PTYPE.findall(code, body, end))) if ptypes else []
    members = {}
    for m in word_finditer(_STRUCT, code):
        b = m.end() - 1
        e = t.match(b)
        if e > 0 and m.group(2) not in members:
            _aggregate(t, code, m.group(2), b, e, members)
    facts["members"] = members
    facts["ptypes"] = sorted(set(_PTYPE.findall(code))) if ptypes else []
    facts["exported"] = (sorted({m.group(1) for m in word_finditer(_EXPORT, code)})
                         if "EXPORT_" in code else [])
    return facts


# --- macros that access per-CPU data -----------------------------------------

_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)((?:[^\n\\]|\\.|\\\n)*)", re.M)
_OP_CALL = re.compile(r"\b((?:__this_cpu|this_cpu|raw_cpu)_(?!ptr\b)\w+)\s*\(")


def percpu_macros(t, dead):
    """{name: [{"params": [...], "calls": [{"f", "args"}]}]}: function-like
    macros whose body calls a per-CPU operation (this_cpu_inc(),
    raw_cpu_add(), ...), one entry per definition that exists on
    PREEMPT_RT.  An invocation of one is an access (MPLS_INC_STATS(),
    RT_CACHE_STAT_INC(), NEIGH_CACHE_STAT_INC())."""
    out = {}
    if "define" not in t.raw or "cpu_" not in t.raw or not _OP_CALL.search(t.raw):
        return out
    for m in _DEFINE.finditer(t.raw):
        if t.line(m.start()) in dead:
            continue
        body = m.group(3).replace("\\\n", " ")
        calls = []
        for c in _OP_CALL.finditer(body):
            depth, j = 0, c.end() - 1
            for j in range(c.end() - 1, len(body)):
                if body[j] == "(":
                    depth += 1
                elif body[j] == ")":
                    depth -= 1
                    if depth == 0:
                        break
            args = [" ".join(a.split()) for a in _split_top(body[c.end():j])]
            calls.append({"f": c.group(1), "args": args})
        if calls:
            params = [p.strip() for p in m.group(2).split(",") if p.strip()]
            out.setdefault(m.group(1), []).append({"params": params, "calls": calls})
    return out
