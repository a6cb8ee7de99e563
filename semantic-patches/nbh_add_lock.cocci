// SPDX-License-Identifier: GPL-2.0-only
/// Give a per-CPU datum protected only by disabled BH its own nested-BH lock:
/// add a local_lock_t member to the datum's struct and initialise it in the
/// DEFINE_PER_CPU() definition, extending an existing initialiser.
///
//# The struct is found through the DEFINE_PER_CPU() of the datum in the same
//# file; for a struct defined in a header, also name it with -D structname=NAME and
//# run the script on the header. With -D member=M the lock is put right after
//# member M (a member that needs protection of its own, such as
//# softnet_data.process_queue); otherwise it becomes the last member.
//# Dynamically allocated per-CPU data (alloc_percpu()) get local_lock_init()
//# for every possible CPU right after the allocation succeeds.
//# Running it twice changes nothing: a struct that has the lock is left alone.
//
// Confidence: High
// Comments: -D datum=VAR -D lock=LOCK are required (lock is usually bh_lock).
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


nbh_check_args("nbh_add_lock.cocci", ['datum', 'lock'], True)

// The struct already has the lock: nothing to do anywhere in this file.
@initialize:python@
@@
last_fields = {}

@has_lock@
identifier virtual.lock;
identifier S;
@@
struct S { ...
	local_lock_t lock;
	...
};

@def@
declarer name DEFINE_PER_CPU, DEFINE_PER_CPU_ALIGNED,
	DEFINE_PER_CPU_SHARED_ALIGNED, DEFINE_PER_CPU_READ_MOSTLY,
	DEFINE_PER_CPU_PAGE_ALIGNED;
identifier virtual.datum;
identifier S;
position p;
@@
(
DEFINE_PER_CPU@p(struct S, datum);
|
DEFINE_PER_CPU_ALIGNED@p(struct S, datum);
|
DEFINE_PER_CPU_SHARED_ALIGNED@p(struct S, datum);
|
DEFINE_PER_CPU_READ_MOSTLY@p(struct S, datum);
|
DEFINE_PER_CPU_PAGE_ALIGNED@p(struct S, datum);
|
DEFINE_PER_CPU@p(struct S, datum) = {...};
|
DEFINE_PER_CPU_ALIGNED@p(struct S, datum) = {...};
|
DEFINE_PER_CPU_SHARED_ALIGNED@p(struct S, datum) = {...};
|
DEFINE_PER_CPU_READ_MOSTLY@p(struct S, datum) = {...};
)

// The struct named on the command line (for headers) or by the definition.
@script:python stype@
s << virtual.structname;
S;
@@
coccinelle.S = cocci.make_ident(s)

@member_after depends on patch && !has_lock@
identifier virtual.lock, virtual.member;
identifier S = {def.S, stype.S};
type T;
@@
struct S { ...
	T member;
+	local_lock_t lock;
	...
};

@last_field depends on patch && !has_lock && !member_after@
identifier S = {def.S, stype.S};
field F;
position p;
@@
struct S { ... F@p ... };

@script:python@
p << last_field.p;
S << last_field.S;
@@
k = (p[0].file, S)
last_fields[k] = max(last_fields.get(k, 0), int(p[0].line))

@member_last depends on patch && !has_lock && !member_after@
identifier virtual.lock;
identifier S = {def.S, stype.S};
field F;
position p : script:python(S) { int(p[0].line) == last_fields.get((p[0].file, S)) };
@@
struct S {
	...
	F@p
+	local_lock_t lock;
};

@init_empty depends on patch && !has_lock@
declarer name DEFINE_PER_CPU, DEFINE_PER_CPU_ALIGNED,
	DEFINE_PER_CPU_SHARED_ALIGNED, DEFINE_PER_CPU_READ_MOSTLY,
	DEFINE_PER_CPU_PAGE_ALIGNED;
identifier virtual.datum, virtual.lock;
type T;
@@
(
- DEFINE_PER_CPU(T, datum);
+ DEFINE_PER_CPU(T, datum) = {
+	.lock = INIT_LOCAL_LOCK(lock),
+ };
|
- DEFINE_PER_CPU_ALIGNED(T, datum);
+ DEFINE_PER_CPU_ALIGNED(T, datum) = {
+	.lock = INIT_LOCAL_LOCK(lock),
+ };
|
- DEFINE_PER_CPU_SHARED_ALIGNED(T, datum);
+ DEFINE_PER_CPU_SHARED_ALIGNED(T, datum) = {
+	.lock = INIT_LOCAL_LOCK(lock),
+ };
|
- DEFINE_PER_CPU_READ_MOSTLY(T, datum);
+ DEFINE_PER_CPU_READ_MOSTLY(T, datum) = {
+	.lock = INIT_LOCAL_LOCK(lock),
+ };
|
- DEFINE_PER_CPU_PAGE_ALIGNED(T, datum);
+ DEFINE_PER_CPU_PAGE_ALIGNED(T, datum) = {
+	.lock = INIT_LOCAL_LOCK(lock),
+ };
)

// The definition already initialises the lock (struct in a header).
@init_has@
declarer name DEFINE_PER_CPU, DEFINE_PER_CPU_ALIGNED,
	DEFINE_PER_CPU_SHARED_ALIGNED, DEFINE_PER_CPU_READ_MOSTLY;
identifier virtual.datum, virtual.lock;
expression E;
type T;
@@
(
 DEFINE_PER_CPU(T, datum) = { ..., .lock = E, ... };
|
 DEFINE_PER_CPU_ALIGNED(T, datum) = { ..., .lock = E, ... };
|
 DEFINE_PER_CPU_SHARED_ALIGNED(T, datum) = { ..., .lock = E, ... };
|
 DEFINE_PER_CPU_READ_MOSTLY(T, datum) = { ..., .lock = E, ... };
)

// Extend an existing designated initialiser instead of replacing it.
@init_extend depends on patch && !has_lock && !init_empty && !init_has@
declarer name DEFINE_PER_CPU, DEFINE_PER_CPU_ALIGNED,
	DEFINE_PER_CPU_SHARED_ALIGNED, DEFINE_PER_CPU_READ_MOSTLY;
identifier virtual.datum, virtual.lock;
identifier F;
expression E;
type T;
@@
(
 DEFINE_PER_CPU(T, datum) = { ...,
	.F = E,
+	.lock = INIT_LOCAL_LOCK(lock),
 };
|
 DEFINE_PER_CPU_ALIGNED(T, datum) = { ...,
	.F = E,
+	.lock = INIT_LOCAL_LOCK(lock),
 };
|
 DEFINE_PER_CPU_SHARED_ALIGNED(T, datum) = { ...,
	.F = E,
+	.lock = INIT_LOCAL_LOCK(lock),
 };
|
 DEFINE_PER_CPU_READ_MOSTLY(T, datum) = { ...,
	.F = E,
+	.lock = INIT_LOCAL_LOCK(lock),
 };
)

// Dynamically allocated per-CPU data: S->datum = alloc_percpu(struct X);
// each possible CPU's copy gets its lock initialised once allocated.
@dyn_done@
identifier virtual.datum, virtual.lock;
expression P, C;
@@
local_lock_init(&per_cpu_ptr(P->datum, C)->lock);

@dyn depends on patch && !dyn_done@
iterator name for_each_possible_cpu;
identifier virtual.datum, virtual.lock;
expression P;
statement S1;
fresh identifier c = "cpu";
type T;
@@
(
  P->datum = \(alloc_percpu\|alloc_percpu_gfp\)(T, ...);
  if (!P->datum) S1
+ {
+	int c;
+
+	for_each_possible_cpu(c)
+		local_lock_init(&per_cpu_ptr(P->datum, c)->lock);
+ }
|
  P->datum = \(alloc_percpu\|alloc_percpu_gfp\)(T, ...);
+ if (P->datum) {
+	int c;
+
+	for_each_possible_cpu(c)
+		local_lock_init(&per_cpu_ptr(P->datum, c)->lock);
+ }
)

@has_include@
@@
#include <linux/local_lock.h>

@add_include depends on patch && !has_include && (member_last || member_after || init_empty || init_extend || dyn)@
@@
// After the last <linux/...> include (spatch picks the last one): on
// PREEMPT_RT local_lock.h needs spinlock_t declared before it.  A trailing
// comment of that include line moves to the new line.
#include <linux/...>
+#include <linux/local_lock.h>

@script:python depends on report && !has_lock@
p << def.p;
d << virtual.datum;
@@
coccilib.report.print_report(p[0], "WARNING: per-CPU datum %s has no nested-BH lock" % d)
