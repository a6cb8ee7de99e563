// SPDX-License-Identifier: GPL-2.0-only
/// Make a nested per-CPU counter per task on PREEMPT_RT: the member
/// OUTER.MEMBER of the per-CPU struct DATUM is only compiled in for
/// !PREEMPT_RT, and every static inline accessor helper that touches it
/// gains a PREEMPT_RT variant using current->TASKFIELD, a task_struct
/// member (see nbh_task_field.cocci).  !PREEMPT_RT is unchanged.
///
//# The shape of the upstream "net: softnet_data: Make xmit.recursion per
//# task." (v6.11): a recursion counter that relies on disabled BH cannot
//# take a nested-BH lock (the owner would have to take it recursively and
//# it would serialise unrelated senders), but on PREEMPT_RT the code runs in
//# task context, so the count is naturally per task.
//# Accessor helpers are static inline functions whose body reads, increments
//# or decrements DATUM.OUTER.MEMBER with this_cpu_*(), __this_cpu_*() or
//# raw_cpu_*(): each one is wrapped as
//#   #ifdef CONFIG_PREEMPT_RT <copy on current->TASKFIELD> #else <as is> #endif
//# The task_struct member itself is added by nbh_task_field.cocci (this
//# script needs --smpl-spacing for the copies, which garbles struct members).
//# Report mode lists the functions that touch the member directly rather
//# than through a helper (they would not build on PREEMPT_RT) and helpers
//# using an accessor form the script does not know.
//# Running it twice changes nothing: a file whose helpers already use
//# current->TASKFIELD is left alone.
//
// Confidence: Moderate
// Comments: -D datum=VAR -D outer=OUTER -D member=MEMBER -D taskfield=FIELD;
//  run on the header(s) with the struct and the helpers.
// Options: --no-includes --include-headers --smpl-spacing

#spatch --smpl-spacing

virtual patch
virtual report

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
	missing = [] if defs & {"patch", "report"} else \
		["a mode: -D patch or -D report (MODE=patch|report for make coccicheck)"]
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


nbh_check_args("nbh_per_task.cocci", ['datum', 'outer', 'member', 'taskfield'], True)

// Already converted: the helpers use the task's counter (or a per-task
// struct holding it, as later kernels do: current->net_xmit.recursion).
@done@
identifier virtual.taskfield, virtual.member, fld;
@@
\(current->taskfield\|current->fld.member\)

// ------------------------------------------------------------------
// The accessor helpers.

@helper depends on !done@
identifier fn, virtual.datum, virtual.outer, virtual.member;
type T;
position p;
@@
static inline T fn@p(...) { <+... datum.outer.member ...+> }

// Accessor forms with a per-task equivalent.
@known depends on !done@
identifier helper.fn, virtual.datum, virtual.outer, virtual.member;
position p;
@@
fn(...) { <...
(
\(this_cpu_read\|__this_cpu_read\|raw_cpu_read\)(datum.outer.member@p)
|
\(this_cpu_inc\|__this_cpu_inc\|raw_cpu_inc\)(datum.outer.member@p)
|
\(this_cpu_dec\|__this_cpu_dec\|raw_cpu_dec\)(datum.outer.member@p)
|
\(this_cpu_add\|__this_cpu_add\|raw_cpu_add\)(datum.outer.member@p, ...)
|
\(this_cpu_sub\|__this_cpu_sub\|raw_cpu_sub\)(datum.outer.member@p, ...)
|
\(this_cpu_write\|__this_cpu_write\|raw_cpu_write\)(datum.outer.member@p, ...)
)
...> }

@any_access depends on !done@
identifier virtual.datum, virtual.outer, virtual.member;
position p;
@@
datum.outer.member@p

@initialize:python@
@@
helpers = set()
known_at = set()
odd = {}	# function -> reason

@script:python@
fn << helper.fn;
@@
helpers.add(fn)

@script:python@
p << known.p;
@@
known_at.add((p[0].file, p[0].line, p[0].column))

@script:python@
p << any_access.p;
@@
fn = p[0].current_element
if fn not in helpers:
	odd.setdefault(fn, (p[0], "it touches the member directly, not through an accessor helper"))
elif (p[0].file, p[0].line, p[0].column) not in known_at:
	odd.setdefault(fn, (p[0], "an accessor form without a per-task equivalent"))

// An access that cannot move to the task: leave the whole file alone.
@refused depends on !done@
identifier fn;
position p : script:python() { p[0].current_element in odd };
@@
fn@p(...) { ... }

// ------------------------------------------------------------------
// The member exists on !PREEMPT_RT only (nothing is done in a file where
// an access is refused: the member would be missing on PREEMPT_RT).

@member_rt depends on patch && !done && !refused@
identifier virtual.outer, virtual.member;
identifier S;
type T;
@@
struct S {
	...
	struct {
	...
+#ifndef CONFIG_PREEMPT_RT
	T member;
+#endif
	...
	} outer;
	...
};

// Each helper gets a copy under a temporary name, which distinguishes it
// from the original in the next rules (a copy keeps the positions of the
// original); the copy is renamed back at the end.
@rt_copy depends on patch && !done && !refused@
identifier helper.fn;
position helper.p;
type T;
parameter list PL;
statement list SL;
fresh identifier rt = fn ## "__nbh_rt";
@@
+#ifdef CONFIG_PREEMPT_RT
+static inline T rt(PL)
+{
+	SL
+}
+#else
static inline T fn@p(PL) { SL }
+#endif

// --smpl-spacing drops the space between a metavariable and an operator:
// give the assignment forms a name that carries it.
@script:python spaced@
tf << virtual.taskfield;
tfs;
@@
coccinelle.tfs = cocci.make_ident(tf + " ")

@per_task depends on patch && !done@
identifier fn =~ "__nbh_rt$";
identifier virtual.datum, virtual.outer, virtual.member, virtual.taskfield;
identifier spaced.tfs;
expression V;
@@
fn(...) { <...
(
- \(this_cpu_read\|__this_cpu_read\|raw_cpu_read\)(datum.outer.member)
+ current->taskfield
|
- \(this_cpu_inc\|__this_cpu_inc\|raw_cpu_inc\)(datum.outer.member)
+ current->taskfield++
|
- \(this_cpu_dec\|__this_cpu_dec\|raw_cpu_dec\)(datum.outer.member)
+ current->taskfield--
|
- \(this_cpu_add\|__this_cpu_add\|raw_cpu_add\)(datum.outer.member, V)
+ current->tfs+= V
|
- \(this_cpu_sub\|__this_cpu_sub\|raw_cpu_sub\)(datum.outer.member, V)
+ current->tfs-= V
|
- \(this_cpu_write\|__this_cpu_write\|raw_cpu_write\)(datum.outer.member, V)
+ current->tfs= V
)
...> }

@copy depends on patch && !done@
identifier fn =~ "__nbh_rt$";
@@
fn(...) { ... }

@script:python orig_name@
fn << copy.fn;
orig;
@@
coccinelle.orig = cocci.make_ident(fn[:-len("__nbh_rt")])

@rename depends on patch && !done@
identifier copy.fn, orig_name.orig;
@@
- fn
+ orig
  (...) { ... }

// ------------------------------------------------------------------
// Report mode.

@script:python depends on report@
@@
for fn in sorted(odd):
	p, why = odd[fn]
	coccilib.report.print_report(p, "WARNING: %s() not converted: %s" % (fn, why))
