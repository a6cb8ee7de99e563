// SPDX-License-Identifier: GPL-2.0-only
/// Take the per-CPU datum's nested-BH lock around every section of a
/// function that accesses it: local_lock_nested_bh() before the first access
/// of the section, local_unlock_nested_bh() after the last one and before
/// every return, goto or break that leaves the section.
///
//# A section is the run of sibling statements from the first to the last
//# statement touching the datum (or a pointer fetched from it) in the
//# innermost block holding all of them; statements whose own condition does
//# not touch the datum are entered, so sections in separate branches stay
//# separate.  A value computed under the lock and returned gets a local
//# variable "ret" so that the unlock precedes the return.  A while loop
//# whose condition dequeues from the datum and whose body does not touch it
//# drops the lock in its body and retakes it before the next test (the
//# shape of process_backlog()).  preempt_disable()/preempt_enable() pairs
//# around the datum become the lock, and with -D helpers every accessing
//# function only gains lockdep_assert_held() (BPF helpers run inside the
//# owner's section).
//# The datum is a DEFINE_PER_CPU() variable (the lock is &DATUM.LOCK) or
//# the per-CPU memory behind a __percpu pointer P, a file-scope variable or
//# a member E->DATUM, fetched with this_cpu_ptr(P): the lock is then
//# &P->LOCK, named through the __percpu pointer (local_lock_nested_bh()
//# applies this_cpu_ptr() itself, so never &p->LOCK of the pointer p that
//# this_cpu_ptr() returned).
//# Refused, and listed in report and org modes (org and context modes also
//# show where each section starts): the function reaches another CPU's copy
//# (per_cpu(), per_cpu_ptr(P, cpu): reported at that call, since
//# local_lock_nested_bh() only takes this CPU's lock), the datum's name is a
//# local pointer not fetched with this_cpu_ptr() (container_of()), the
//# function fetches several __percpu pointers, the per-CPU pointer escapes (returned,
//# stored, passed to a function of this file that touches the datum), the
//# section calls a function of this file that touches the datum (a nested
//# local lock deadlocks on PREEMPT_RT), the section would span a call
//# through a function pointer (an okfn, an ops table: it may re-enter the
//# datum), the function hands a function of this file that touches the
//# datum to another as a callback (the section would have to span that call,
//# and the callback would take the lock again; the callback is refused too),
//# the section would span a call that
//# sleeps or re-enables BH, an access hides in a declaration initialiser, or
//# the function is already converted.  Functions called inside a preempt-only
//# owner's section get lockdep_assert_held() instead of a lock (for a
//# DEFINE_PER_CPU() variable only).  Sections only make sense where the
//# audit says the access runs in BH context; the generator names those
//# functions in the environment variable NBH_FUNCTIONS (comma separated);
//# NBH_SKIP_FUNCTIONS lists functions known not to run in BH context.
//
// Confidence: Moderate
// Comments: -D datum=VAR -D lock=LOCK [-D member=M] [-D helpers]
// Options: --no-includes --include-headers

virtual patch
virtual context
virtual report
virtual org
virtual helpers

// Without a mode or a required -D, every rule would match nothing and
// spatch would exit 0 in silence: say what is missing.  BPF_CALL_x()
// helpers are parsed only with nbh-macros.h: say so when it is not given.
@initialize:python@
@@
import sys


def nbh_check_args(script, required, bpf):
	try:
		with open("/proc/self/cmdline", "rb") as f:
			args = f.read().decode("utf-8", "replace").split("\0")
	except OSError:
		return		# not Linux: nothing to check against
	defs, macros = set(), None
	for i, a in enumerate(args[:-1]):
		if a == "-D":
			defs.add(args[i + 1].split("=", 1)[0])
		elif a == "--macro-file":
			macros = args[i + 1]
	missing = [] if defs & {"patch", "context", "report", "org"} else \
		["a mode: -D patch, -D context, -D report or -D org "
		 "(MODE=patch|context|report|org for make coccicheck)"]
	missing += ["-D %s=..." % v for v in required if v not in defs]
	if missing:
		sys.stderr.write("%s: error: missing %s\n" % (script, ", ".join(missing)))
		sys.exit(2)
	if bpf:
		try:
			with open(macros or "") as f:
				ok = "BPF_CALL_" in f.read()
		except OSError:
			ok = False
		if not ok:
			sys.stderr.write("%s: warning: %s: BPF_CALL_x() helpers are not parsed "
					 "and stay unchanged; add --macro-file "
					 "NBH/semantic-patches/nbh-macros.h (in SPFLAGS for make "
					 "coccicheck)\n" % (script, "no --macro-file" if not macros
							    else "macro file %s lacks BPF_CALL_x()" % macros))


nbh_check_args("nbh_lock_sections.cocci", ['datum', 'lock'], True)

@initialize:python@
@@
import os
import re

wanted = set(f for f in os.environ.get("NBH_FUNCTIONS", "").split(",") if f)
skipped = set(f for f in os.environ.get("NBH_SKIP_FUNCTIONS", "").split(",") if f)
helper_fns = set()	# called inside the section of a preempt_disable() owner
facts = {}	# function -> {"stmts": [], "uses": [], "derived": set(), ...}
plans = {}	# function -> computed plan (see plan_for())
derived_names = set()
converted_files = set()	# files that already take or assert the lock
decl_text = {}	# (function, position) -> text of a declaration
fstart = {}	# function -> line of its name, before any change
ret_types = {}	# function -> return type, for the variable "ret"
member_mode = []	# the -D member=M given, if any
excluded = []	# (file, line, col, line_end, col_end) of sizeof() operands
remote_at = {}	# (function, refusal) -> position of the per_cpu_ptr() it is about
datum_name = []	# the -D datum=D given
lock_name = []	# the -D lock=L given
static_defs = {}	# file -> it has DEFINE_PER_CPU() or DECLARE_PER_CPU() of the datum

SLEEPERS = re.compile(r"\b(local_bh_enable|might_sleep|msleep|usleep_range|"
		      r"schedule|cond_resched|mutex_lock|down|wait_event\w*|"
		      r"synchronize_\w+|kvmalloc|vmalloc)\s*\(|GFP_KERNEL")
LOOPS = ("while", "for", "do")
REMOTE = "%s is the copy of another CPU, which local_lock_nested_bh() cannot lock (it takes this CPU's lock): left as it is, handle it by hand"
HANDOFF = "it hands the datum to the callback %s() through %s(): the section would span a call that re-enters the datum (a nested local lock deadlocks on PREEMPT_RT)"


def fn_facts(fn, path=None):
	f = facts.setdefault(fn, {"stmts": [], "uses": [], "derived": set(),
				  "calls": [], "file": None, "refuse": [],
				  "preempt": False, "converted": False})
	f["file"] = f["file"] or path
	return f


def pos(p):
	return (int(p.line), int(p.column))


def pos_end(p):
	return (int(p.line_end), int(p.column_end))


def inside(u, s):
	return s["start"] <= u <= s["end"]


def build_tree(stmts):
	"""Nest the statements of a function by extent; return the roots."""
	nodes = sorted(stmts, key=lambda s: (s["start"], (-s["end"][0], -s["end"][1])))
	roots, stack = [], []
	for s in nodes:
		s["children"] = []
		while stack and not (s["start"] >= stack[-1]["start"] and s["end"] <= stack[-1]["end"]):
			stack.pop()
		s["parent"] = stack[-1] if stack else None
		(stack[-1]["children"] if stack else roots).append(s)
		stack.append(s)
	return roots


def kind(s):
	return s["text"].split(" ", 1)[0]


def uses_in(s, uses):
	return [u for u in uses if inside(u, s)]


def header_use(s, uses):
	return any(inside(u, s) and not any(inside(u, c) for c in s["children"]) for u in uses)


def is_drop_loop(s, uses):
	"""while (x = dequeue(&datum)) { body without the datum }"""
	if kind(s) != "while" or not header_use(s, uses):
		return False
	body = s["children"]
	return bool(body) and not any(uses_in(c, uses) for c in body) and \
		not any(" continue ;" in " " + c["text"] for c in body)


def find_sections(siblings, uses, out):
	idx = [i for i, s in enumerate(siblings) if uses_in(s, uses)]
	if not idx:
		return
	first = siblings[idx[0]]
	if all(siblings[i]["children"] and not header_use(siblings[i], uses) for i in idx):
		for i in idx:
			for c in siblings[i]["children"]:
				find_sections(c["children"] if kind(c) == "{" else [c], uses, out)
		return
	if is_drop_loop(first, uses):
		out.append(("loop", first, first))
		find_sections(siblings[idx[0] + 1:], uses, out)
		return
	out.append(("section", first, siblings[idx[-1]]))


def enclosing(s, kinds):
	p = s["parent"]
	while p is not None and kind(p) not in kinds:
		p = p["parent"]
	return p


def labels_of(path):
	if not path:
		return {}
	try:
		with open(path) as f:
			src = f.read().split("\n")
	except OSError:
		return {}
	found = {}
	for n, line in enumerate(src, 1):
		m = re.match(r"^([A-Za-z_]\w*):", line)
		if m and m.group(1) != "default":
			found.setdefault(m.group(1), []).append(n)
	return found


def plan_for(fn):
	"""Sections, exits and refusals of one function, computed once."""
	if fn in plans:
		return plans[fn]
	f = facts.get(fn)
	plan = {"sections": [], "lock_before": set(), "unlock_after": set(),
		"unlock_before": set(), "vret": set(), "loops": set(),
		"refuse": [], "ret_decl": False, "form": None}
	plans[fn] = plan
	if f is None:
		return plan
	if (wanted and fn not in wanted and not f["preempt"]) or fn in skipped:
		plan["refuse"].append("not run in BH context according to the audit")
		return plan
	if fn in helper_fns:
		return plan
	if f["converted"]:
		plan["refuse"].append("already takes the nested-BH lock")
		return plan
	if f["file"] in converted_files:
		plan["refuse"].append("the file already takes or asserts the nested-BH lock")
		return plan
	for g, gf in sorted(facts.items()):
		for h, via, _ in gf.get("handoffs", []):
			if h == fn and any(HANDOFF % (h, via) == r for r in plan_for(g)["refuse"]):
				plan["refuse"].append("it runs as a callback of %s() (through %s()) inside that function's section: assert the lock instead of taking it" % (g, via))
	form = lock_form(fn)
	if form.startswith("!"):
		if not any("copy of another CPU" in r for r in f["refuse"]):
			plan["refuse"].append(form[1:])
	elif form != "&" + datum_name[0] and f["preempt"]:
		plan["refuse"].append("the datum is reached through the __percpu pointer %s: a preempt_disable() owner or its helpers are converted for a DEFINE_PER_CPU() variable only; handle it by hand" % form)
	plan["form"] = form
	if f["preempt"]:
		return plan
	uses = [u for u in f["uses"] if not any(e[0] == f["file"] and (e[1], e[2]) <= u <= (e[3], e[4]) for e in excluded)]
	plan["refuse"].extend(f["refuse"])
	# A callback handed over after the datum was filled (not one registered
	# by init code reaching the copy of every CPU).
	if not any("copy of another CPU" in r for r in plan["refuse"]):
		for h, via, hp in f.get("handoffs", []):
			if any(u <= hp for u in uses):
				plan["refuse"].append(HANDOFF % (h, via))
	roots = build_tree(f["stmts"])
	stmt_uses = [u for u in uses if any(inside(u, s) for s in f["stmts"])]
	if f.get("decl_access"):
		plan["refuse"].append("the datum is accessed in a declaration initialiser")
	uses = stmt_uses
	secs = []
	find_sections(roots, uses, secs)
	labels = labels_of(f["file"])
	for what, s0, s1 in secs:
		if what == "loop":
			plan["loops"].add(s0["start"])
			continue
		start, end = s0["start"], s1["end"]
		plan["lock_before"].add(start)
		if kind(s1) != "return":
			plan["unlock_after"].add(s1["start"])
		span = [s for s in f["stmts"] if start <= s["start"] and s["end"] <= end]
		for s in span:
			k = kind(s)
			text = " " + s["text"] + " "
			if SLEEPERS.search(s["text"]) and not s["children"]:
				plan["refuse"].append("the section would span a call that sleeps or re-enables BH: %s" % s["text"][:60])
			for c in f.get("fpcalls", []):
				if inside(c["pos"], s) and not s["children"]:
					plan["refuse"].append("the section would span a call through a function pointer (%s()): it may re-enter the datum" % c["what"])
			for callee in f["calls"]:
				if callee["fn"] != fn and callee["pos"] and inside(callee["pos"], s) and not s["children"]:
					plan["refuse"].append("the section calls %s() which touches the datum too (re-entry would deadlock on PREEMPT_RT)" % callee["fn"])
			if k == "return":
				expr = s["text"][len("return"):].strip(" ;")
				if uses_in(s, uses) or "(" in expr:
					plan["vret"].add(s["start"])
					plan["ret_decl"] = True
				elif expr or s is not s1:
					plan["unlock_before"].add(s["start"])
			elif k == "goto":
				label = s["text"].split()[1]
				if not any(start[0] <= n <= end[0] for n in labels.get(label, [])):
					plan["unlock_before"].add(s["start"])
			elif k in ("break", "continue"):
				loop = enclosing(s, LOOPS + (("switch",) if k == "break" else ()))
				if loop is None or loop["start"] < start:
					plan["unlock_before"].add(s["start"])
	if plan["refuse"]:
		for key in ("lock_before", "unlock_after", "unlock_before", "vret", "loops"):
			plan[key] = set()
		plan["ret_decl"] = False
	return plan


def nbh_strip(text):
	return re.sub(r"\s+", "", text)


def static_in(path):
	"""The file defines or declares the datum with DEFINE_PER_CPU() or
	DECLARE_PER_CPU(): this_cpu_ptr(DATUM) is then an array's decay."""
	if path not in static_defs:
		try:
			with open(path) as f:
				text = f.read()
		except OSError:
			text = ""
		static_defs[path] = bool(re.search(r"\b(DEFINE|DECLARE)_PER_CPU\w*\s*\([^;]*,\s*%s\s*\)"
						   % re.escape(datum_name[0]), text))
	return static_defs[path]


def pcpu_arg(X, path=None):
	"""The lock of the datum in this_cpu_ptr(X): "&D.LOCK" (written by the
	rule "sections") for &D, a static DEFINE_PER_CPU() variable; "P" for a
	__percpu pointer P (D, a file-scope pointer, or E->D, a member), whose
	lock &P->LOCK the rule "sections_ptr" writes; None if X is not the
	datum."""
	d = datum_name[0]
	x = nbh_strip(X)
	if x == "&" + d or (x == d and path and static_in(path)):
		return "&" + d
	if x == d or re.match(r"^.+(->|\.)%s$" % re.escape(d), x):
		return x
	return None


def lock_form(fn):
	"""How the function names the lock: "&D" (the static variable), a
	__percpu pointer P (the lock is &P->LOCK), or a refusal (a string
	starting with "!")."""
	f = facts[fn]
	forms = set(f.get("pcpu", ()))
	ptrs = sorted(x for x in forms if x != "&" + datum_name[0])
	if len(ptrs) > 1 or (ptrs and forms - set(ptrs)):
		return "!it reaches the datum through several per-CPU pointers (%s): one lock cannot be named for all; handle it by hand" % ", ".join(sorted(forms))
	if ptrs:
		return ptrs[0]
	if f.get("local_named"):
		return "!%s is a local pointer here, not known to be this CPU's copy (no this_cpu_ptr() in the function): local_lock_nested_bh() cannot name its lock; handle it by hand" % datum_name[0]
	return "&" + datum_name[0]


def first_stmt(fn):
	f = facts.get(fn)
	return min(s["start"] for s in f["stmts"]) if f and f["stmts"] else None


def last_decl(fn):
	f = facts.get(fn)
	if not f or not f.get("decls"):
		return None
	first = first_stmt(fn)
	before = [d for d in f["decls"] if first is None or d < first]
	return max(before) if before else None


def at_last_decl(p, text):
	"""p is the last declaration before the first statement of its function.

	In a function that an earlier rule has changed, Coccinelle renumbers
	the positions, so compare the text of the declaration instead."""
	fn = p.current_element
	want = last_decl(fn)
	if want is None:
		return False
	return pos(p) == want or (decl_text.get((fn, want)) == text and int(p.column) == want[1])


def wants(p, key, P=None):
	"""p is a position of KEY in the plan of its function, whose lock is
	that of the static variable (P None) or &P->LOCK."""
	plan = plan_for(p.current_element)
	form = "&" + datum_name[0] if P is None else nbh_strip(P)
	return not plan["refuse"] and plan["form"] == form and pos(p) in plan[key]


def refusals(fn, p):
	"""(position, message) of each refusal of fn, at the site it is about
	(another CPU's copy) or else at the function's name p."""
	if fn not in facts:
		return []
	return [(remote_at.get((fn, why), p), "%s() not converted: %s" % (fn, why))
		for why in sorted(set(plan_for(fn)["refuse"]))]


def section_start(p):
	"""p starts a section (or a drop-and-retake loop) of its function."""
	plan = plan_for(p.current_element)
	return not plan["refuse"] and (pos(p) in plan["lock_before"] or pos(p) in plan["loops"])


def lock_arg(fn):
	form = plan_for(fn)["form"]
	lock = lock_name[0] if lock_name else "LOCK"
	return "%s.%s" % (form, lock) if form == "&" + datum_name[0] else "&%s->%s" % (form, lock)


def is_lock_site(p, P):
	"""The first this_cpu_ptr(P) of a function whose lock is &P->LOCK: one
	binding of P per function for the rule sections_ptr."""
	fn = p.current_element
	f = facts.get(fn)
	if f is None or plan_for(fn)["form"] in (None, "&" + datum_name[0]) or \
	   plan_for(fn)["form"] != nbh_strip(P) or plan_for(fn)["refuse"]:
		return False
	return pos(p) == min(f["pcpu_at"][nbh_strip(P)])

// ------------------------------------------------------------------
// Facts: accesses, pointers derived from the datum, statements, calls.

@initialize:ocaml@
@@
(* Functions touching the datum: a cheap filter for the fact rules, which
   would otherwise call Python for every statement of a large file. *)
let touching = Hashtbl.create 101
let mark p = Hashtbl.replace touching (List.hd p).Coccilib.current_element ()
let here p = Hashtbl.mem touching (List.hd p).Coccilib.current_element

@script:python@
m << virtual.member;
@@
member_mode.append(m)

@script:python@
d << virtual.datum;
@@
datum_name.append(d)

@script:python@
l << virtual.lock;
@@
lock_name.append(l)

@use_datum@
identifier virtual.datum;
position p;
@@
datum@p

@script:python@
p << use_datum.p;
@@
# With -D member=M only M is this datum: other members have other owners.
if member_mode:
	cocci.include_match(False)
else:
	f = fn_facts(p[0].current_element)
	f["file"] = p[0].file
	f["uses"].append(pos(p[0]))

@script:ocaml@
p << use_datum.p;
@@
mark p

@use_member depends on !helpers@
identifier virtual.datum, virtual.member;
expression E;
position p;
@@
(
E->member@p
|
datum.member@p
)

@script:python@
p << use_member.p;
@@
f = fn_facts(p[0].current_element)
f["file"] = p[0].file
f["uses"].append(pos(p[0]))

@script:ocaml@
p << use_member.p;
@@
mark p

// Per-CPU memory behind a __percpu member E->datum: this_cpu_ptr(E->datum)
// and per_cpu_ptr(E->datum, cpu) are accesses, the names set from them
// pointers to the datum.
@use_pcpu_member depends on !helpers@
identifier virtual.datum;
expression E, C;
position p;
@@
(
\(this_cpu_ptr\|raw_cpu_ptr\)(\(E->datum@p\|E.datum@p\))
|
per_cpu_ptr(\(E->datum@p\|E.datum@p\), C)
)

@script:python@
p << use_pcpu_member.p;
@@
if member_mode:
	cocci.include_match(False)
else:
	f = fn_facts(p[0].current_element, p[0].file)
	f["uses"].append(pos(p[0]))

@script:ocaml@
p << use_pcpu_member.p;
@@
mark p

@derived_pcpu_member depends on !helpers@
identifier virtual.datum;
identifier d;
expression E, C;
position p : script:ocaml() { here p };
type T;
@@
(
T d@p = \(this_cpu_ptr\|raw_cpu_ptr\)(\(E->datum\|E.datum\));
|
d@p = \(this_cpu_ptr\|raw_cpu_ptr\)(\(E->datum\|E.datum\))
|
T d@p = per_cpu_ptr(\(E->datum\|E.datum\), C);
|
d@p = per_cpu_ptr(\(E->datum\|E.datum\), C)
)

@script:python@
p << derived_pcpu_member.p;
d << derived_pcpu_member.d;
@@
if not member_mode:
	fn_facts(p[0].current_element, p[0].file)["derived"].add(d)
	derived_names.add(d)

// How each function names this CPU's copy: this_cpu_ptr(&datum) of a
// static variable, this_cpu_ptr(P) of a __percpu pointer P (the lock is
// then &P->lock, never &p->lock of the pointer p it returns: that is this
// CPU's copy already, and local_lock_nested_bh() applies this_cpu_ptr()).
@pcpu_fetch@
expression X;
position p : script:ocaml() { here p };
@@
\(this_cpu_ptr@p\|raw_cpu_ptr@p\)(X)

@script:python@
p << pcpu_fetch.p;
X << pcpu_fetch.X;
@@
f = facts.get(p[0].current_element)
form = pcpu_arg(X, p[0].file)
if f is not None and form is not None and not member_mode:
	f.setdefault("pcpu", set()).add(form)
	f.setdefault("pcpu_at", {}).setdefault(form, []).append(pos(p[0]))

// The datum's name declared in the function: a local pointer (cryptd's
// "struct cryptd_cpu_queue *cpu_queue"), not the per-CPU variable.
@local_named@
identifier virtual.datum;
identifier fn;
type T;
position p : script:ocaml() { here p };
@@
fn@p(..., T datum, ...) { ... }

@local_named_decl@
identifier virtual.datum;
type T;
expression E;
position p : script:ocaml() { here p };
@@
\(T datum@p;\|T datum@p = E;\)

@script:python@
p << local_named.p;
@@
f = facts.get(p[0].current_element)
if f is not None:
	f["local_named"] = True

@script:python@
p << local_named_decl.p;
@@
f = facts.get(p[0].current_element)
if f is not None and p[0].current_element != datum_name[0]:
	f["local_named"] = True

@derived@
identifier virtual.datum;
identifier d;
position p;
type T;
@@
(
T d@p = <+... datum ...+>;
|
d@p = <+... datum ...+>
)

@script:python@
p << derived.p;
d << derived.d;
@@
fn_facts(p[0].current_element, p[0].file)["derived"].add(d)
derived_names.add(d)

// A name counts as a pointer to the datum only where its latest definition
// before the use (in text order) derives from the datum: the same name is
// often reused for another per-CPU cache in a different branch.
@defn@
identifier virtual.datum;
identifier d;
expression E;
position p : script:ocaml() { here p };
type T;
@@
(
T d@p = E;
|
T d@p;
|
d@p = E
)

@script:python@
p << defn.p;
d << defn.d;
E << defn.E = "";
datum << virtual.datum;
@@
f = facts.get(p[0].current_element)
if f is not None:
	f.setdefault("defs", []).append((pos(p[0]), d, bool(re.search(r"\b%s\b" % re.escape(datum), E))))

@use_derived@
identifier d;
position p : script:ocaml() { here p };
@@
d@p

@script:python@
p << use_derived.p;
d << use_derived.d;
@@
f = facts.get(p[0].current_element)
# With -D member=M a pointer to the whole struct is no access to M.
if f is not None and d in f["derived"] and not member_mode:
	u = pos(p[0])
	before = [df for df in f.get("defs", []) if df[1] == d and df[0] < u]
	if before and max(before)[2]:
		f["uses"].append(u)

@decl_access@
position p : script:ocaml() { here p };
declaration D;
@@
D@p

@script:python@
p << decl_access.p;
D << decl_access.D;
datum << virtual.datum;
@@
f = facts.get(p[0].current_element)
if f is not None:
	fetch = re.search(r"=\s*(this_cpu_ptr|raw_cpu_ptr|per_cpu_ptr)\s*\(", D)
	names = sorted(f["derived"]) + [datum]
	init = D.split("=", 1)[1] if "=" in D else ""
	if member_mode:
		hit = re.search(r"(->|\.)\s*%s\b" % re.escape(member_mode[0]), init)
	else:
		hit = any(re.search(r"(?<!struct )\b%s\b" % re.escape(n), init) for n in names)
	f.setdefault("decls", []).append(pos(p[0]))
	decl_text[(p[0].current_element, pos(p[0]))] = D
	if hit and not fetch:
		f["decl_access"] = True
	f.setdefault("decl_access", False)

@excl@
expression E;
position p : script:ocaml() { here p };
@@
sizeof(E@p)

@script:python@
p << excl.p;
@@
excluded.append((p[0].file, int(p[0].line), int(p[0].column), int(p[0].line_end), int(p[0].column_end)))

@stmt@
statement S;
position p : script:ocaml() { here p };
@@
S@p

@script:python@
p << stmt.p;
S << stmt.S;
@@
f = facts.get(p[0].current_element)
if f is not None:
	f["stmts"].append({"start": pos(p[0]), "end": pos_end(p[0]), "text": S})

@fnstart@
identifier fn;
position p : script:ocaml() { here p };
@@
fn@p(...) { ... }

@script:python@
p << fnstart.p;
fn << fnstart.fn;
@@
fstart[fn] = int(p[0].line)

@already@
identifier virtual.datum, virtual.lock;
position p;
@@
\(local_lock_nested_bh@p\|lockdep_assert_held@p\)(<+... datum.lock ...+>)

@script:python@
p << already.p;
@@
fn_facts(p[0].current_element)["converted"] = True

// The lock is already taken or asserted somewhere in this file (through
// any pointer): the datum is converted here, leave every function alone.
@file_converted@
identifier virtual.datum, virtual.lock;
expression E;
position p;
@@
\(local_lock_nested_bh@p\|lockdep_assert_held@p\)(\(&E->lock\|&datum.lock\))

// Another CPU's copy (hotplug, init, teardown, statistics):
// local_lock_nested_bh() takes this CPU's lock only.  Reported at the site,
// in every function, whatever else it touches.
@remote@
identifier accessor = {per_cpu, per_cpu_ptr};
expression X, C;
position p;
@@
accessor@p(X, C)

@script:python@
p << remote.p;
a << remote.accessor;
X << remote.X;
C << remote.C;
@@
x = nbh_strip(X)
fn = p[0].current_element
# With -D member=M only functions touching M count.
ok = (member_mode and not (fn in facts and facts[fn]["uses"])) or (pcpu_arg(X) is None and x != datum_name[0]) or \
	nbh_strip(C) in ("smp_processor_id()", "raw_smp_processor_id()")
if not ok:
	why = REMOTE % ("%s(%s, %s)" % (a, x, nbh_strip(C)))
	fn_facts(fn, p[0].file)["refuse"].append(why)
	remote_at.setdefault((fn, why), p[0])

@preempt@
position p : script:ocaml() { here p };
@@
preempt_disable@p();

@script:python@
p << preempt.p;
@@
f = facts.get(p[0].current_element)
if f is not None:
	f["preempt"] = True

// Escapes of the per-CPU pointer.
@ret_escape@
identifier virtual.datum;
position p : script:ocaml() { here p };
identifier d;
@@
(
return@p <+... &datum ...+>;
|
return@p d;
)

@script:python@
p << ret_escape.p;
d << ret_escape.d = "";
@@
f = facts.get(p[0].current_element)
if f is not None and (not d or d in f["derived"]):
	f["refuse"].append("the per-CPU pointer escapes: it is returned")

@store_escape@
identifier d;
expression E;
position p : script:ocaml() { here p };
@@
E@p = d

@script:python@
p << store_escape.p;
E << store_escape.E;
d << store_escape.d;
@@
f = facts.get(p[0].current_element)
if f is not None and d in f["derived"] and ("->" in E or "." in E or E.startswith("*")):
	f["refuse"].append("the per-CPU pointer escapes: it is stored in %s" % E)

// Names of function pointers: parameters (okfn) and local variables.
@fnptr_param@
identifier fn, x;
type T;
position p : script:ocaml() { here p };
@@
fn@p(..., T x, ...) { ... }

@script:python@
p << fnptr_param.p;
x << fnptr_param.x;
T << fnptr_param.T;
@@
f = facts.get(p[0].current_element)
if f is not None and "(*)" in T.replace(" ", ""):
	f.setdefault("fnptrs", set()).add(x)

@fnptr_local@
identifier x;
type T;
position p : script:ocaml() { here p };
@@
\(T x@p;\|T x@p = ...;\)

@script:python@
p << fnptr_local.p;
x << fnptr_local.x;
T << fnptr_local.T;
@@
f = facts.get(p[0].current_element)
if f is not None and "(*)" in T.replace(" ", ""):
	f.setdefault("fnptrs", set()).add(x)

// Calls through a function pointer: an output callback (okfn), an ops
// table.  Whatever they call may re-enter the datum.
@fpcall@
expression E;
identifier fld;
position p : script:ocaml() { here p };
@@
\(E->fld@p(...)\|E.fld@p(...)\|(*E@p)(...)\)

@script:python@
p << fpcall.p;
E << fpcall.E;
fld << fpcall.fld = "";
@@
f = facts.get(p[0].current_element)
if f is not None:
	what = "%s->%s" % (E, fld) if fld else "(*%s)" % E
	f.setdefault("fpcalls", []).append({"what": what.replace(" ", ""), "pos": pos(p[0])})

// A function of this file that touches the datum handed over as a
// callback: the data it reads are filled by the caller, so the caller's
// section would have to span the call that runs the callback, and the
// callback would take the lock again (a nested local lock deadlocks on
// PREEMPT_RT).
@cb_pass@
identifier h;
expression E;
position p : script:ocaml() { here p };
@@
E(..., h@p, ...)

@script:python@
p << cb_pass.p;
h << cb_pass.h;
E << cb_pass.E;
@@
fn = p[0].current_element
f = facts.get(fn)
if f is not None and h != fn and h in fstart and h in facts and facts[h]["uses"]:
	f.setdefault("handoffs", []).append((h, E.replace(" ", ""), pos(p[0])))

@calls@
identifier g;
position p : script:ocaml() { here p };
@@
g@p(...)

@script:python@
p << calls.p;
g << calls.g;
@@
f = facts.get(p[0].current_element)
if f is not None:
	f["calls"].append({"fn": g, "pos": pos(p[0])})
	if g in f.get("fnptrs", ()):
		f.setdefault("fpcalls", []).append({"what": g, "pos": pos(p[0])})

@pass_escape@
identifier d, g;
position p : script:ocaml() { here p };
@@
g@p(..., d, ...)

@script:python@
p << pass_escape.p;
g << pass_escape.g;
d << pass_escape.d;
@@
f = facts.get(p[0].current_element)
if f is not None and d in f["derived"] and g in facts and g in fstart and g != p[0].current_element:
	f["refuse"].append("the per-CPU pointer escapes: it is passed to %s() which touches the datum" % g)

@script:python@
p << file_converted.p;
@@
converted_files.add(p[0].file)

@script:python depends on !helpers@
@@
# Calls that touch the datum only count when the callee is in this file.
for fn, f in facts.items():
	f["calls"] = [c for c in f["calls"] if c["fn"] in facts and c["fn"] in fstart]
	if f["preempt"]:
		helper_fns.update(c["fn"] for c in f["calls"] if c["fn"] != fn)
		f["calls"] = []

// ------------------------------------------------------------------
// Context, report and org modes: what is refused and why (report, org),
// where each section starts (context, org).

@fnpos depends on (report || org) && !helpers@
identifier fn;
position p;
@@
fn@p(...) { ... }

@script:python depends on report@
p << fnpos.p;
fn << fnpos.fn;
@@
for at, msg in refusals(fn, p[0]):
	coccilib.report.print_report(at, "WARNING: " + msg)

@script:python depends on org@
p << fnpos.p;
fn << fnpos.fn;
@@
for at, msg in refusals(fn, p[0]):
	coccilib.org.print_safe_todo(at, msg)

@depends on context && !helpers@
statement S;
position p : script:python() { section_start(p[0]) };
@@
* S@p

@section_start depends on org && !helpers@
statement S;
position p : script:python() { section_start(p[0]) };
@@
S@p

@script:python depends on org@
p << section_start.p;
@@
coccilib.org.print_todo(p[0], "%s(): nested-BH section, local_lock_nested_bh(%s)"
			% (p[0].current_element, lock_arg(p[0].current_element)))

// ------------------------------------------------------------------
// Patch mode.

// One rule for all insertions: positions are only valid until a rule
// has changed the function.
@sections depends on patch && !helpers@
identifier virtual.datum, virtual.lock;
expression E;
statement S;
position pvl : script:python() { wants(pvl[0], "vret") and wants(pvl[0], "lock_before") };
position pv : script:python() { wants(pv[0], "vret") and not wants(pv[0], "lock_before") };
position pb : script:python() { wants(pb[0], "lock_before") and wants(pb[0], "unlock_after") };
position pl : script:python() { wants(pl[0], "lock_before") and not wants(pl[0], "unlock_after") };
position pa : script:python() { wants(pa[0], "unlock_after") and not wants(pa[0], "lock_before") };
position pu : script:python() { wants(pu[0], "unlock_before") };
position pw : script:python() { wants(pw[0], "loops") };
@@
(
+ local_lock_nested_bh(&datum.lock);
- return@pvl E;
+ ret = E;
+ local_unlock_nested_bh(&datum.lock);
+ return ret;
|
- return@pv E;
+ ret = E;
+ local_unlock_nested_bh(&datum.lock);
+ return ret;
|
+ local_lock_nested_bh(&datum.lock);
  S@pb
+ local_unlock_nested_bh(&datum.lock);
|
+ local_lock_nested_bh(&datum.lock);
  S@pl
|
  S@pa
+ local_unlock_nested_bh(&datum.lock);
|
+ local_unlock_nested_bh(&datum.lock);
  S@pu
|
+ local_lock_nested_bh(&datum.lock);
  while@pw (E) {
+	local_unlock_nested_bh(&datum.lock);
	...
+	local_lock_nested_bh(&datum.lock);
  }
+ local_unlock_nested_bh(&datum.lock);
)

// Per-CPU memory behind a __percpu pointer P: the lock is &P->lock, taken
// before the this_cpu_ptr(P) of the section.  One binding of P per function.
@pcpu_site depends on patch && !helpers@
identifier fetch = {this_cpu_ptr, raw_cpu_ptr};
expression P;
position p : script:python(P) { is_lock_site(p[0], P) };
@@
fetch@p(P)

@sections_ptr depends on patch && !helpers@
expression pcpu_site.P;
identifier virtual.lock;
expression E;
statement S;
position pvl : script:python(P) { wants(pvl[0], "vret", P) and wants(pvl[0], "lock_before", P) };
position pv : script:python(P) { wants(pv[0], "vret", P) and not wants(pv[0], "lock_before", P) };
position pb : script:python(P) { wants(pb[0], "lock_before", P) and wants(pb[0], "unlock_after", P) };
position pl : script:python(P) { wants(pl[0], "lock_before", P) and not wants(pl[0], "unlock_after", P) };
position pa : script:python(P) { wants(pa[0], "unlock_after", P) and not wants(pa[0], "lock_before", P) };
position pu : script:python(P) { wants(pu[0], "unlock_before", P) };
position pw : script:python(P) { wants(pw[0], "loops", P) };
@@
(
+ local_lock_nested_bh(&P->lock);
- return@pvl E;
+ ret = E;
+ local_unlock_nested_bh(&P->lock);
+ return ret;
|
- return@pv E;
+ ret = E;
+ local_unlock_nested_bh(&P->lock);
+ return ret;
|
+ local_lock_nested_bh(&P->lock);
  S@pb
+ local_unlock_nested_bh(&P->lock);
|
+ local_lock_nested_bh(&P->lock);
  S@pl
|
  S@pa
+ local_unlock_nested_bh(&P->lock);
|
+ local_unlock_nested_bh(&P->lock);
  S@pu
|
+ local_lock_nested_bh(&P->lock);
  while@pw (E) {
+	local_unlock_nested_bh(&P->lock);
	...
+	local_lock_nested_bh(&P->lock);
  }
+ local_unlock_nested_bh(&P->lock);
)

@vret_decl depends on patch && !helpers@
type T;
identifier fn;
position pf : script:python() { plan_for(pf[0].current_element)["ret_decl"] };
@@
T fn@pf(...) { ... }

@script:python@
T << vret_decl.T;
fn << vret_decl.fn;
@@
ret_types[fn] = T

@vret_decl_add depends on patch && !helpers@
type vret_decl.T;
declaration D;
position p : script:python(D) { plan_for(p[0].current_element)["ret_decl"] and at_last_decl(p[0], D) };
@@
D@p
+T ret;

// Functions whose return type comes from a macro (BPF_CALL_x()) return u64.
@vret_decl_macro depends on patch && !helpers && !vret_decl@
declaration D;
position p : script:python(D) { plan_for(p[0].current_element)["ret_decl"] and at_last_decl(p[0], D) };
@@
D@p
+u64 ret;

// preempt_disable()-only protection becomes the nested-BH lock.
@preempt_only depends on patch && !helpers@
identifier virtual.datum, virtual.lock;
position p : script:python() { p[0].current_element in facts and facts[p[0].current_element]["preempt"] and not plan_for(p[0].current_element)["refuse"] };
@@
(
- preempt_disable@p();
+ local_lock_nested_bh(&datum.lock);
|
- preempt_enable@p();
+ local_unlock_nested_bh(&datum.lock);
)

// With -D helpers: functions running inside the section of another function.
@assert_held depends on patch && helpers@
identifier virtual.datum, virtual.lock;
statement S;
position p : script:python() { p[0].current_element in facts and facts[p[0].current_element]["uses"] and not facts[p[0].current_element]["converted"] and lock_form(p[0].current_element) == "&" + datum_name[0] and pos(p[0]) == first_stmt(p[0].current_element) };
@@
+ lockdep_assert_held(this_cpu_ptr(&datum.lock));
  S@p

// A function called inside a preempt_disable() owner section in this file.
@assert_called depends on patch && !helpers@
identifier virtual.datum, virtual.lock;
statement S;
position p : script:python() { p[0].current_element in helper_fns and not facts[p[0].current_element]["converted"] and lock_form(p[0].current_element) == "&" + datum_name[0] and pos(p[0]) == first_stmt(p[0].current_element) };
@@
+ lockdep_assert_held(this_cpu_ptr(&datum.lock));
S@p

