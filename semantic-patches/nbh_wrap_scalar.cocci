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
