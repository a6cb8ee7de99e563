// SPDX-License-Identifier: GPL-2.0-only
/// Make the updates of a per-CPU statistics counter IRQ-safe instead of
/// giving it a lock: __this_cpu_inc()/dec()/add()/sub() become
/// this_cpu_inc()/dec()/add()/sub(), and a single increment, decrement,
/// addition or subtraction through a pointer from this_cpu_ptr() becomes
/// this_cpu_*() of the member.
///
//# For a counter whose only reliance on disabled BH is that no other
//# writer runs on this CPU during its read-modify-write: on PREEMPT_RT
//# without the softirq lock such an update can be preempted halfway by a
//# task updating the same counter, and one count is lost.  this_cpu_*() is
//# one operation that neither preemption nor an interrupt can split.
//# !PREEMPT_RT keeps its semantic: on x86-64 __this_cpu_inc() and
//# this_cpu_inc() compile to the same "inc %gs:..." instruction, and a
//# "p->m++" through a this_cpu_ptr() pointer becomes that one instruction
//# instead of an address computation and an increment; architectures with
//# the generic per-CPU operations put an IRQ-off pair around the update.
//# DATUM is a static per-CPU variable (softnet_data), a file-scope __percpu
//# pointer (ip_rt_acct) or a __percpu field E->DATUM / E.DATUM of any
//# struct (pf: f->pf, head->pf); with -D member=M only member M of it is
//# the datum (softnet_data, processed).  Forms rewritten:
//#   __this_cpu_inc(L), _dec(L), _add(L, N), _sub(L, N) -> this_cpu_*(L)
//#   this_cpu_ptr(P)->m++, --, ++.., --.., += N, -= N   -> this_cpu_*(P->m)
//#   p = this_cpu_ptr(P); ... p->m++; or p[I].m += N;  -> this_cpu_*(P->m),
//#     this_cpu_*(P[I].m); p and its assignment go once nothing else uses p
//#   H(this_cpu_ptr(P)); or H(p); where H is a function of the same run
//#     "static inline void H(T *q) { q->m++; }" (or --)  -> this_cpu_inc(P->m)
//# with this_cpu_ptr(&VAR)->m written VAR.m, macro bodies included
//# (NF_CT_STAT_INC()).  spatch sees the helpers of every file of one run
//# (make coccicheck runs one file at a time: only those of the same file).
//# Left alone, and listed in report mode with the reason: reads, writes
//# and other accessors of the datum (__this_cpu_read(), _write(),
//# _inc_return(), ...); an update whose value is used; a pointer handed to
//# a function that is not such a helper, stored or returned; every update
//# of a function that also reads or writes the datum otherwise (the
//# counter is then updated together with that access under one BH-disabled
//# section: convert by hand); an update inside a u64_stats_update_begin()
//# section (a u64 on 32-bit that its readers fetch with the seqcount:
//# needs u64_stats_t); a helper that updates the counter under a
//# preprocessor conditional or does more than the update.  this_cpu_ptr()
//# only: raw_cpu_*(), per_cpu_ptr() and get_cpu_ptr() are not touched.
//# Running it twice changes nothing: this_cpu_*() is not matched again.
//
// Confidence: Moderate
// Comments: -D datum=NAME [-D member=M]
// Options: --no-includes --include-headers

virtual patch
virtual context
virtual report
virtual org

// Without a mode or without -D datum, every rule would match nothing and
// spatch would exit 0 in silence: say what is missing.  BPF_CALL_x()
// helpers are parsed only with nbh-macros.h: say so when it is not given.
@initialize:python@
@@
import re
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


nbh_check_args("nbh_stats.cocci", ['datum'], True)

NBH = {"datum": None, "member": None}
RE = {}


def nbh_setup():
	"""The datum's text forms, from -D datum and -D member."""
	d = re.escape(NBH["datum"])
	m = re.escape(NBH["member"]) if NBH["member"] else r"\w+"
	chain = r"(?:\(*\w+\)*(?:->|\.))*"	# net->ct. (net)->ct. f->
	if NBH["member"]:
		RE["static"] = re.compile(r"^\(*%s\)*\.%s(?!\w)" % (d, m))
	else:
		RE["static"] = re.compile(r"^\(*%s\)*(?:[.\[]|$)" % d)
	RE["scalar"] = re.compile(r"^\*\(*%s%s\)*$" % (chain, d))
	RE["ptr"] = re.compile(r"^\(*%s%s\)*(?:->|\[[^]]*\]\.)%s(?!\w)" % (chain, d, m))
	RE["base_static"] = re.compile(r"^&\(*%s\)*$" % d)
	RE["base_ptr"] = re.compile(r"^\(*%s%s\)*$" % (chain, d))


def nbh_reset():
	"""State of one file (make coccicheck) or of one spatch command line."""
	global HELPERS, TOUCH, SITES, OTHER, SEEN, ARROW, CALL, BARE, PV, MIXED, U64
	HELPERS = {}	# counter helper -> (member, "inc" or "dec")
	TOUCH = {}	# function of one pointer parameter updating a member -> member
	SITES = {}	# (file, line, col) -> update site
	OTHER = {}	# (file, line, col) -> another access of the datum
	SEEN = set()	# positions that are neither: pointer assignments
	ARROW, CALL, BARE = {}, {}, {}	# uses of this_cpu_ptr() and of variables
	PV = {}		# (file, fn, var) -> text of the base, for var = this_cpu_ptr(base)
	MIXED = set()	# (file, fn, var) also set from anything else
	U64 = {}	# (file, fn) -> [(line of begin, line of end)]


nbh_reset()


def nbh_text(e):
	return re.sub(r"\s+", "", str(e))


def nbh_lvalue(e):
	"""A per-CPU lvalue of the datum (member), as this_cpu_*() take it."""
	s = nbh_text(e)
	if RE["static"].match(s) or RE["ptr"].match(s):
		return True
	return not NBH["member"] and bool(RE["scalar"].match(s))


def nbh_base(e):
	"""The datum's per-CPU pointer, as this_cpu_ptr() takes it."""
	s = nbh_text(e)
	return bool(RE["base_static"].match(s) or RE["base_ptr"].match(s))


def nbh_member_ok(f):
	return not NBH["member"] or str(f) == NBH["member"]


def nbh_name():
	return NBH["datum"] + ("." + NBH["member"] if NBH["member"] else "")


def nbh_key(p):
	return (p.file, int(p.line), int(p.column))


def nbh_var(p, x):
	"""(file, fn, x) when x is set from this_cpu_ptr() of the datum in the
	function of p, or None."""
	k = (p.file, p.current_element, str(x))
	return k if k in PV else None


def nbh_name_of(p):
	"""The function of position p, or the macro whose body holds it."""
	if p.current_element != "something_else":
		return p.current_element
	try:
		with open(p.file) as f:
			lines = f.read().split("\n")
		for n in range(int(p.line) - 1, -1, -1):
			m = re.match(r"^\s*#\s*define\s+(\w+)", lines[n])
			if m:
				return m.group(1)
			if n < int(p.line) - 1 and not lines[n].rstrip().endswith(chr(92)):
				break
	except (OSError, IndexError):
		pass
	return "a macro"


def nbh_site(p, kind, **kw):
	SITES[nbh_key(p)] = dict(kw, kind=kind, fn=p.current_element, name=nbh_name_of(p),
				 file=p.file, line=int(p.line), p=p)


def nbh_other(p, what):
	OTHER.setdefault(nbh_key(p), dict(fn=p.current_element, name=nbh_name_of(p),
					  file=p.file, line=int(p.line), what=what, p=p))


def nbh_use(q, f, H, how):
	"""A use of a per-CPU pointer of the datum that is no update site:
	another access, unless it is a member outside -D member or a pointer
	handed to a function that cannot touch the member."""
	if f:
		if nbh_member_ok(f):
			nbh_other(q, "read or written through %s->%s" % (how, f))
	elif H and H in HELPERS:
		if nbh_member_ok(HELPERS[H][0]):
			nbh_other(q, "handed to %s() through %s, not as a statement" % (H, how))
	elif H and H in TOUCH:
		if nbh_member_ok(TOUCH[H]):
			nbh_other(q, "handed to %s() through %s, which updates ->%s under a "
				  "preprocessor conditional or with other work" % (H, how, TOUCH[H]))
	elif H:
		if not NBH["member"]:
			nbh_other(q, "handed to %s() through %s (not a counter helper "
				  "spatch has seen)" % (H, how))
	elif not NBH["member"]:
		nbh_other(q, "used through %s otherwise than by a counter update" % how)


def nbh_why(s):
	"""Why update site S stays as it is, or None: the decision is per
	function (a rule that changes a function sees it anew)."""
	same = [t for t in SITES.values() if t["fn"] == s["fn"] and t["file"] == s["file"]]
	mixed = sorted(t["var"][2] for t in same if t.get("var") in MIXED)
	if mixed:
		return "%s also points to other memory here: convert by hand" % mixed[0]
	for b, e in U64.get((s["file"], s["fn"]), []):
		if [t for t in same if b < t["line"] < e]:
			return ("%s is updated in the u64_stats_update_begin() section "
				"of line %d: a u64 counter that readers on 32-bit fetch "
				"under the seqcount; make it a u64_stats_t (u64_stats_inc()/"
				"add()) by hand" % (nbh_name(), b))
	others = sorted((o["line"], o["what"]) for o in OTHER.values()
			if o["fn"] == s["fn"] and o["file"] == s["file"])
	if others:
		return ("%s is also %s at line %d: the counter is updated together with "
			"that access under one BH-disabled section; convert by hand"
			% ((nbh_name(),) + tuple(reversed(others[0]))))
	return None


def nbh_fn_ok(p):
	"""Position p is an update site to convert: in a function (or macro)
	all of whose update sites are converted.  A rule that changed a
	function before sees its positions in a temporary file: there the
	function is known by its name in every file of the run."""
	if any(s["file"] == p[0].file for s in SITES.values()) and nbh_key(p[0]) not in SITES:
		return False
	return nbh_fn_converted(p[0].current_element)


def nbh_fn_converted(fn):
	sites = [s for s in SITES.values() if s["fn"] == fn]
	return bool(sites) and all(s["why"] is None for s in sites)


def nbh_refusals():
	"""(position, message) of every access left alone, in file order."""
	out = []
	for k, s in SITES.items():
		if s["why"]:
			out.append((k, s["p"], "%s() not converted: %s" % (s["name"], s["why"])))
	for k, o in OTHER.items():
		out.append((k, o["p"], "%s() not converted: %s is %s: not a single counter "
			    "update" % (o["name"], nbh_name(), o["what"])))
	return [(p, msg) for k, p, msg in sorted(out, key=lambda x: x[0])]

@script:python nbh_datum@
d << virtual.datum;
@@
NBH["datum"] = d
nbh_setup()
nbh_reset()

@script:python nbh_member@
m << virtual.member;
@@
NBH["member"] = m
nbh_setup()

// Every other rule needs the mode and the datum: without this one spatch
// would stop at "no code" before the check above names what is missing.
@nbh_anchor@
position p;
@@
nbh_stats_never_matches@p();

@script:python@
p << nbh_anchor.p;
@@
pass

// ------------------------------------------------------------------
// Counter helpers: a static inline function of one pointer parameter
// whose whole body is one increment or decrement of a member of it.

@helper_inc disable ptr_to_array@
identifier H, q, f;
type T;
@@
static inline void H(T *q)
{
(
	q->f++;
|
	++q->f;
)
}

@script:python@
H << helper_inc.H;
f << helper_inc.f;
@@
HELPERS[H] = (f, "inc")

@helper_dec disable ptr_to_array@
identifier H, q, f;
type T;
@@
static inline void H(T *q)
{
(
	q->f--;
|
	--q->f;
)
}

@script:python@
H << helper_dec.H;
f << helper_dec.f;
@@
HELPERS[H] = (f, "dec")

// One that updates a member among other things, or under #ifdef: named
// when the datum is handed to it.
@touch disable ptr_to_array@
identifier H, q, f;
type T;
expression N;
@@
static inline void H(T *q) { <+... \(q->f++\|++q->f\|q->f--\|--q->f\|q->f += N\|q->f -= N\) ...+> }

@script:python@
H << touch.H;
f << touch.f;
@@
if H not in HELPERS:
	TOUCH.setdefault(H, f)

// ------------------------------------------------------------------
// Accessors.

@acc@
identifier op = {__this_cpu_inc, __this_cpu_dec, __this_cpu_add, __this_cpu_sub};
expression L : script:python() { nbh_lvalue(L) };
expression list ES;
position p;
@@
op@p(L, ES)

@script:python@
p << acc.p;
op << acc.op;
@@
nbh_site(p[0], "acc", op=op)

@acc_other@
identifier op =~ "^(__)?this_cpu_(read|write|xchg|cmpxchg|try_cmpxchg|inc_return|dec_return|add_return|sub_return|and|or)$";
expression L : script:python() { nbh_lvalue(L) };
expression list ES;
position p;
@@
op@p(L, ES)

@script:python@
p << acc_other.p;
op << acc_other.op;
@@
nbh_other(p[0], "accessed with %s()" % op)

// ------------------------------------------------------------------
// Variables holding this_cpu_ptr() of the datum.

@pv_decl@
identifier x;
type T;
expression P : script:python() { nbh_base(P) };
position pd, q;
@@
T *x@pd = this_cpu_ptr@q(P);

@script:python@
x << pv_decl.x;
P << pv_decl.P;
pd << pv_decl.pd;
q << pv_decl.q;
@@
PV.setdefault((pd[0].file, pd[0].current_element, x), nbh_text(P))
SEEN.add(nbh_key(q[0]))

@pv_asg@
identifier x;
expression P : script:python() { nbh_base(P) };
position pd, q;
@@
x@pd = this_cpu_ptr@q(P)

@script:python@
x << pv_asg.x;
P << pv_asg.P;
pd << pv_asg.pd;
q << pv_asg.q;
@@
k = (pd[0].file, pd[0].current_element, x)
if PV.setdefault(k, nbh_text(P)) != nbh_text(P):
	MIXED.add(k)
SEEN.add(nbh_key(q[0]))
SEEN.add(nbh_key(pd[0]))

// The same variable set from anything else: it may point elsewhere.
@pv_else@
identifier x : script:python() { any(k[2] == x for k in PV) };
expression E;
type T;
position pd;
@@
(
T *x@pd = E;
|
x@pd = E
)

@script:python@
x << pv_else.x;
E << pv_else.E;
pd << pv_else.pd;
@@
k = nbh_var(pd[0], x)
if k and not (nbh_text(E).startswith("this_cpu_ptr(") and nbh_base(nbh_text(E)[13:-1])):
	MIXED.add(k)
SEEN.add(nbh_key(pd[0]))

// ------------------------------------------------------------------
// Update sites: one statement, an increment, a decrement, += or -=.

@upd_direct disable ptr_to_array@
expression P : script:python() { nbh_base(P) };
identifier f : script:python() { nbh_member_ok(f) };
expression N;
position q;
@@
(
 this_cpu_ptr@q(P)->f++;
|
 ++this_cpu_ptr@q(P)->f;
|
 this_cpu_ptr@q(P)->f--;
|
 --this_cpu_ptr@q(P)->f;
|
 this_cpu_ptr@q(P)->f += N;
|
 this_cpu_ptr@q(P)->f -= N;
)

@script:python@
q << upd_direct.q;
@@
nbh_site(q[0], "direct")

@upd_var disable ptr_to_array@
identifier x : script:python() { any(k[2] == x for k in PV) };
identifier f : script:python() { nbh_member_ok(f) };
expression N, I;
position q;
@@
(
 x@q->f++;
|
 ++x@q->f;
|
 x@q->f--;
|
 --x@q->f;
|
 x@q->f += N;
|
 x@q->f -= N;
|
 x@q[I].f++;
|
 ++x@q[I].f;
|
 x@q[I].f--;
|
 --x@q[I].f;
|
 x@q[I].f += N;
|
 x@q[I].f -= N;
)

@script:python@
q << upd_var.q;
x << upd_var.x;
@@
k = nbh_var(q[0], x)
if k:
	nbh_site(q[0], "var", var=k)

@helper_call@
identifier hf;
expression P : script:python() { nbh_base(P) };
identifier x : script:python() { any(k[2] == x for k in PV) };
position q;
@@
(
hf(this_cpu_ptr@q(P));
|
hf(x@q);
)

@script:python@
hx << helper_call.x = "";
q << helper_call.q;
fname << helper_call.hf;
@@
k = nbh_var(q[0], hx) if hx else None
if fname in HELPERS and nbh_member_ok(HELPERS[fname][0]) and (not hx or k):
	nbh_site(q[0], "helper", var=k)

// ------------------------------------------------------------------
// Every other use of such a pointer is another access of the datum.

@use_direct disable ptr_to_array@
expression P : script:python() { nbh_base(P) };
identifier f, H;
expression list ES1, ES2;
position q;
@@
(
this_cpu_ptr@q(P)->f
|
H(ES1, this_cpu_ptr@q(P), ES2)
|
this_cpu_ptr@q(P)
)

@script:python@
uf << use_direct.f = "";
uh << use_direct.H = "";
q << use_direct.q;
@@
k = nbh_key(q[0])
if uf:
	ARROW[k] = (q[0], uf, "this_cpu_ptr()")
elif uh:
	CALL[k] = (q[0], uh, "this_cpu_ptr()")
else:
	BARE[k] = (q[0], "this_cpu_ptr()")

@use_var disable ptr_to_array@
identifier x : script:python() { any(k[2] == x for k in PV) };
identifier f, H;
expression I;
expression list ES1, ES2;
position q;
@@
(
x@q->f
|
x@q[I].f
|
H(ES1, x@q, ES2)
|
x@q
)

@script:python@
vf << use_var.f = "";
vh << use_var.H = "";
q << use_var.q;
x << use_var.x;
@@
k = nbh_key(q[0])
if nbh_var(q[0], x):
	if vf:
		ARROW[k] = (q[0], vf, x)
	elif vh:
		CALL[k] = (q[0], vh, x)
	else:
		BARE[k] = (q[0], x)

// ------------------------------------------------------------------
// u64_stats sections.

@u64@
expression S, F;
position b, e;
@@
(
u64_stats_update_begin@b(S);
... when any
u64_stats_update_end@e(S);
|
F = u64_stats_update_begin_irqsave@b(S);
... when any
u64_stats_update_end_irqrestore@e(S, F);
)

@script:python@
b << u64.b;
e << u64.e;
@@
U64.setdefault((b[0].file, b[0].current_element), []).append(
	(int(b[0].line), int(e[0].line)))

// ------------------------------------------------------------------
// What is converted, and why the rest is not.

@script:python nbh_decide@
@@
for k, (q, f, how) in ARROW.items():
	if k not in SITES and k not in SEEN:
		nbh_use(q, f, None, how)
for k, (q, H, how) in CALL.items():
	if k not in SITES and k not in SEEN:
		nbh_use(q, None, H, how)
for k, (q, how) in BARE.items():
	if k not in SITES and k not in SEEN and k not in ARROW and k not in CALL:
		nbh_use(q, None, None, how)
for s in SITES.values():
	s["why"] = nbh_why(s)

@script:python helper_ops@
hname << helper_call.hf;
hid;
g;
op;
@@
if hname not in HELPERS or not nbh_member_ok(HELPERS[hname][0]):
	cocci.include_match(False)
	hname = "x"
coccinelle.hid = cocci.make_ident(hname)
coccinelle.g = cocci.make_ident(HELPERS.get(hname, ("x",))[0])
coccinelle.op = cocci.make_ident("this_cpu_" + HELPERS.get(hname, ("", "x"))[1])

// ------------------------------------------------------------------
// Patch mode.

@depends on patch@
expression L : script:python() { nbh_lvalue(L) };
expression N;
position p : script:python() { nbh_fn_ok(p) };
@@
(
- __this_cpu_inc@p(L)
+ this_cpu_inc(L)
|
- __this_cpu_dec@p(L)
+ this_cpu_dec(L)
|
- __this_cpu_add@p(L, N)
+ this_cpu_add(L, N)
|
- __this_cpu_sub@p(L, N)
+ this_cpu_sub(L, N)
)

@depends on patch disable ptr_to_array@
expression P : script:python() { nbh_base(P) };
expression N;
identifier f : script:python() { nbh_member_ok(f) };
position q : script:python() { nbh_fn_ok(q) };
@@
(
- this_cpu_ptr@q(&P)->f++;
+ this_cpu_inc(P.f);
|
- ++this_cpu_ptr@q(&P)->f;
+ this_cpu_inc(P.f);
|
- this_cpu_ptr@q(&P)->f--;
+ this_cpu_dec(P.f);
|
- --this_cpu_ptr@q(&P)->f;
+ this_cpu_dec(P.f);
|
- this_cpu_ptr@q(&P)->f += N;
+ this_cpu_add(P.f, N);
|
- this_cpu_ptr@q(&P)->f -= N;
+ this_cpu_sub(P.f, N);
|
- this_cpu_ptr@q(P)->f++;
+ this_cpu_inc(P->f);
|
- ++this_cpu_ptr@q(P)->f;
+ this_cpu_inc(P->f);
|
- this_cpu_ptr@q(P)->f--;
+ this_cpu_dec(P->f);
|
- --this_cpu_ptr@q(P)->f;
+ this_cpu_dec(P->f);
|
- this_cpu_ptr@q(P)->f += N;
+ this_cpu_add(P->f, N);
|
- this_cpu_ptr@q(P)->f -= N;
+ this_cpu_sub(P->f, N);
)

@depends on patch disable ptr_to_array@
identifier helper_ops.hid, helper_ops.g, helper_ops.op;
expression P : script:python() { nbh_base(P) };
position q : script:python() { nbh_fn_ok(q) };
@@
(
- hid(this_cpu_ptr@q(&P));
+ op(P.g);
|
- hid(this_cpu_ptr@q(P));
+ op(P->g);
)

@depends on patch disable ptr_to_array@
identifier x;
type T;
expression P : script:python() { nbh_base(P) };
identifier f : script:python() { nbh_member_ok(f) };
expression N;
position q : script:python() { nbh_fn_ok(q) };
@@
(
 T *x = this_cpu_ptr(&P);
|
 x = this_cpu_ptr(&P);
)
<...
(
- x@q->f++;
+ this_cpu_inc(P.f);
|
- ++x@q->f;
+ this_cpu_inc(P.f);
|
- x@q->f--;
+ this_cpu_dec(P.f);
|
- --x@q->f;
+ this_cpu_dec(P.f);
|
- x@q->f += N;
+ this_cpu_add(P.f, N);
|
- x@q->f -= N;
+ this_cpu_sub(P.f, N);
)
...>

@depends on patch disable ptr_to_array@
identifier x;
type T;
expression P : script:python() { nbh_base(P) };
identifier f : script:python() { nbh_member_ok(f) };
expression N, I;
position q : script:python() { nbh_fn_ok(q) };
@@
(
 T *x = this_cpu_ptr(P);
|
 x = this_cpu_ptr(P);
)
<...
(
- x@q->f++;
+ this_cpu_inc(P->f);
|
- ++x@q->f;
+ this_cpu_inc(P->f);
|
- x@q->f--;
+ this_cpu_dec(P->f);
|
- --x@q->f;
+ this_cpu_dec(P->f);
|
- x@q->f += N;
+ this_cpu_add(P->f, N);
|
- x@q->f -= N;
+ this_cpu_sub(P->f, N);
|
- x@q[I].f++;
+ this_cpu_inc(P[I].f);
|
- ++x@q[I].f;
+ this_cpu_inc(P[I].f);
|
- x@q[I].f--;
+ this_cpu_dec(P[I].f);
|
- --x@q[I].f;
+ this_cpu_dec(P[I].f);
|
- x@q[I].f += N;
+ this_cpu_add(P[I].f, N);
|
- x@q[I].f -= N;
+ this_cpu_sub(P[I].f, N);
)
...>

@depends on patch@
identifier helper_ops.hid, helper_ops.g, helper_ops.op, x;
type T;
expression P : script:python() { nbh_base(P) };
position q : script:python() { nbh_fn_ok(q) };
@@
(
 T *x = this_cpu_ptr(&P);
|
 x = this_cpu_ptr(&P);
)
<...
- hid(x@q);
+ op(P.g);
...>

@depends on patch disable ptr_to_array@
identifier helper_ops.hid, helper_ops.g, helper_ops.op, x;
type T;
expression P : script:python() { nbh_base(P) };
position q : script:python() { nbh_fn_ok(q) };
@@
(
 T *x = this_cpu_ptr(P);
|
 x = this_cpu_ptr(P);
)
<...
- hid(x@q);
+ op(P->g);
...>

// A pointer variable that its converted updates leave unused.
@script:python@
@@
NBH["drop"] = set(s["var"][2] for s in SITES.values()
		  if s.get("var") and s["why"] is None)

@depends on patch@
identifier x : script:python() { x in NBH["drop"] };
type T;
expression P : script:python() { nbh_base(P) };
position pd : script:python() { nbh_fn_converted(pd[0].current_element) };
@@
- T *x@pd = this_cpu_ptr(P);
  ... when != x

@depends on patch@
identifier x : script:python() { x in NBH["drop"] };
type T;
expression P : script:python() { nbh_base(P) };
position pd : script:python() { nbh_fn_converted(pd[0].current_element) };
@@
- T *x;
  ... when != x
- x@pd = this_cpu_ptr(P);
  ... when != x

// ------------------------------------------------------------------
// Context, report and org modes.

@depends on context disable ptr_to_array@
identifier I, H, f;
expression E;
position q : script:python() { nbh_key(q[0]) in SITES and nbh_fn_ok(q) };
@@
(
* I@q(...)
|
* I@q->f
|
* I@q[E].f
|
* H(I@q)
)

@script:python depends on report@
@@
for p, msg in nbh_refusals():
	coccilib.report.print_report(p, "WARNING: " + msg)

@script:python depends on org@
@@
for k in sorted(k for k in SITES if SITES[k]["why"] is None):
	s = SITES[k]
	coccilib.org.print_todo(s["p"], "%s(): IRQ-safe this_cpu_*() update of %s"
				% (s["name"], nbh_name()))
for p, msg in nbh_refusals():
	coccilib.org.print_safe_todo(p, msg)

