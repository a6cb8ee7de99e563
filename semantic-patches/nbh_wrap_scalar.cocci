// SPDX-License-Identifier: GPL-2.0-only
/// Wrap a per-CPU datum that is not a struct (a pointer, a list_head, a
/// counter) into a small struct holding the old value and a nested-BH lock,
/// and rewrite every per-CPU accessor of it to name the value member.
///
//# this_cpu_read(v) becomes this_cpu_read(v.valname), per_cpu(v, cpu)
//# per_cpu(v.valname, cpu), this_cpu_ptr(&v) this_cpu_ptr(&v.valname), and so on
//# for every this_cpu_*, __this_cpu_*, raw_cpu_*, per_cpu*, get/put_cpu*
//# accessor.  The wrapper struct is defined right before the definition;
//# a datum shared with other files needs it moved to a header by hand.
//# Running it twice changes nothing: a wrapped datum no longer matches.
//
// Confidence: High
// Comments: -D datum=VAR -D lock=LOCK -D valname=NAME -D wrapper=STRUCT
// Options: --no-includes --include-headers

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


nbh_check_args("nbh_wrap_scalar.cocci", ['datum', 'lock', 'valname', 'wrapper'], True)

// Every other rule needs the mode and the datum: without this one spatch
// would stop at "no code" before the check above names what is missing.
@nbh_anchor@
@@
- nbh_wrap_scalar_never_matches();

@wrapped@
declarer name DEFINE_PER_CPU;
identifier virtual.datum, virtual.wrapper;
@@
DEFINE_PER_CPU(struct wrapper, datum) = ...;

@wrapper_struct depends on patch && !wrapped@
declarer name DEFINE_PER_CPU;
identifier virtual.datum, virtual.lock, virtual.valname, virtual.wrapper;
type T;
@@
+struct wrapper {
+	T valname;
+	local_lock_t lock;
+};
+
 DEFINE_PER_CPU(T, datum);

@def depends on patch && !wrapped@
declarer name DEFINE_PER_CPU;
identifier virtual.datum, virtual.lock, virtual.wrapper;
type T;
@@
-DEFINE_PER_CPU(T, datum);
+DEFINE_PER_CPU(struct wrapper, datum) = {
+	.lock = INIT_LOCAL_LOCK(lock),
+};

@decl depends on patch && !wrapped@
declarer name DECLARE_PER_CPU;
identifier virtual.datum, virtual.wrapper;
type T;
@@
-DECLARE_PER_CPU(T, datum);
+DECLARE_PER_CPU(struct wrapper, datum);

@accessors depends on patch && !wrapped@
identifier virtual.datum, virtual.valname;
identifier acc =~ "^(__)?(this_cpu_|raw_cpu_|per_cpu|get_cpu_|put_cpu_)";
expression list ES;
@@
(
- acc(datum)
+ acc(datum.valname)
|
- acc(datum, ES)
+ acc(datum.valname, ES)
|
- acc(&datum)
+ acc(&datum.valname)
|
- acc(&datum, ES)
+ acc(&datum.valname, ES)
)

@found depends on report && !wrapped@
declarer name DEFINE_PER_CPU;
identifier virtual.datum;
type T;
position p;
@@
DEFINE_PER_CPU@p(T, datum);

@script:python depends on report@
p << found.p;
d << virtual.datum;
@@
coccilib.report.print_report(p[0], "WARNING: per-CPU scalar %s needs a wrapper struct for its nested-BH lock" % d)
