// SPDX-License-Identifier: GPL-2.0-only
/// Give a per-CPU datum protected only by disabled BH its own nested-BH lock:
/// add a local_lock_t member to the datum's struct and initialise it in the
/// DEFINE_PER_CPU() definition, extending an existing initialiser.
///
//# The struct is found through the DEFINE_PER_CPU() or DECLARE_PER_CPU() of
//# the datum, or its "P->datum = alloc_percpu(struct S)", in the same file;
//# for a struct defined in another file (a header), name it with
//# -D structname=NAME and run the script on that file too.  Without
//# -D structname, a definition or an allocation whose struct is not defined
//# in the file (or whose type is no "struct NAME") is refused: the
//# initialisation of a member that is not added would not compile.  The file
//# is left unchanged, report and org modes say why, patch mode prints an
//# error and makes spatch exit 2.  Report and org modes also list each
//# DEFINE_PER_CPU() without the lock, context mode marks it.  With -D member=M the lock is put right after
//# member M (a member that needs protection of its own, such as
//# softnet_data.process_queue); otherwise it becomes the last member.
//# Dynamically allocated per-CPU data (alloc_percpu()) get local_lock_init()
//# for every possible CPU right after the allocation succeeds.
//# Running it twice changes nothing: a struct that has the lock is left alone.
//
// Confidence: High
// Comments: -D datum=VAR -D lock=LOCK are required (lock is usually bh_lock);
//  [-D member=M] [-D structname=NAME].
// Options: --no-includes --include-headers

virtual patch
virtual context
virtual report
virtual org

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


nbh_check_args("nbh_add_lock.cocci", ['datum', 'lock'], True)

// The struct already has the lock: nothing to do anywhere in this file.
@initialize:python@
@@
import os

last_fields = {}
given = []	# the -D structname=NAME given, if any
datum_name = []
structs = {}	# file -> names of the structs it defines
static_at = set()	# (file, line) of the DEFINE_PER_CPU(struct S, datum)
initialised = set()	# (file, line) of a DEFINE_PER_CPU() that initialises the lock
refused = []	# (position, message) of what is refused in this file
failed = []	# refusals of patch mode: spatch exits 2


def struct_refusal(p, S, T=None):
	"""Why the lock of the definition or allocation at p cannot be
	initialised without -D structname: None when struct S is defined in
	the file or -D structname is given."""
	if given:
		return None
	d = datum_name[0]
	f = os.path.basename(p.file)
	if S is None:
		return ("%s is of type %s, not struct NAME: -D structname=NAME is required, "
			"NAME the struct that gets the lock (a struct without a name gets it "
			"by hand)" % (d, T))
	if S in structs.get(p.file, ()):
		return None
	return ("struct %s of %s is not defined in %s: its local_lock_t member cannot be "
		"added here, nor initialised; run with -D structname=%s on this file and "
		"on the file that defines struct %s" % (S, d, f, S, S))


def refuse(p, why):
	if why not in [w for q, w in refused if q.file == p.file]:
		refused.append((p, why))


def allowed(p):
	"""Nothing of p's file is refused: its initialisations may be added."""
	return not any(q.file == p.file for q, _ in refused)

@script:python@
d << virtual.datum;
@@
datum_name.append(d)

@struct_def@
identifier S;
position p;
@@
struct S@p { ... };

@script:python@
S << struct_def.S;
p << struct_def.p;
@@
structs.setdefault(p[0].file, set()).add(S)

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

@decl@
declarer name DECLARE_PER_CPU, DECLARE_PER_CPU_ALIGNED,
	DECLARE_PER_CPU_SHARED_ALIGNED, DECLARE_PER_CPU_READ_MOSTLY,
	DECLARE_PER_CPU_PAGE_ALIGNED;
identifier virtual.datum;
identifier S;
@@
\(DECLARE_PER_CPU\|DECLARE_PER_CPU_ALIGNED\|DECLARE_PER_CPU_SHARED_ALIGNED\|DECLARE_PER_CPU_READ_MOSTLY\|DECLARE_PER_CPU_PAGE_ALIGNED\)(struct S, datum);

// P->datum = alloc_percpu(struct S): S gets the lock.
@alloc_type@
identifier virtual.datum;
expression P;
identifier S;
position p;
@@
P->datum@p = \(alloc_percpu\|alloc_percpu_gfp\)(struct S, ...)

// The struct named on the command line (for headers) or by the definition.
@script:python stype@
s << virtual.structname;
S;
@@
given.append(s)
coccinelle.S = cocci.make_ident(s)

// Without -D structname, the struct must be defined in this file: else
// the initialisation would name a member that is not added.
// A definition that initialises the lock already needs nothing.
@init_done@
declarer name DEFINE_PER_CPU, DEFINE_PER_CPU_ALIGNED,
	DEFINE_PER_CPU_SHARED_ALIGNED, DEFINE_PER_CPU_READ_MOSTLY;
identifier virtual.datum, virtual.lock;
expression E;
type T;
position p;
@@
(
 DEFINE_PER_CPU@p(T, datum) = { ..., .lock = E, ... };
|
 DEFINE_PER_CPU_ALIGNED@p(T, datum) = { ..., .lock = E, ... };
|
 DEFINE_PER_CPU_SHARED_ALIGNED@p(T, datum) = { ..., .lock = E, ... };
|
 DEFINE_PER_CPU_READ_MOSTLY@p(T, datum) = { ..., .lock = E, ... };
)

@script:python@
p << init_done.p;
@@
static_at.add((p[0].file, int(p[0].line)))
initialised.add((p[0].file, int(p[0].line)))

@script:python depends on !has_lock@
S << def.S;
p << def.p;
@@
static_at.add((p[0].file, int(p[0].line)))
why = None if (p[0].file, int(p[0].line)) in initialised else struct_refusal(p[0], S)
if why:
	refuse(p[0], why)

@def_any depends on !has_lock@
declarer name DEFINE_PER_CPU, DEFINE_PER_CPU_ALIGNED,
	DEFINE_PER_CPU_SHARED_ALIGNED, DEFINE_PER_CPU_READ_MOSTLY,
	DEFINE_PER_CPU_PAGE_ALIGNED;
identifier virtual.datum;
type T;
position p;
@@
(
DEFINE_PER_CPU@p(T, datum);
|
DEFINE_PER_CPU_ALIGNED@p(T, datum);
|
DEFINE_PER_CPU_SHARED_ALIGNED@p(T, datum);
|
DEFINE_PER_CPU_READ_MOSTLY@p(T, datum);
|
DEFINE_PER_CPU_PAGE_ALIGNED@p(T, datum);
|
DEFINE_PER_CPU@p(T, datum) = {...};
|
DEFINE_PER_CPU_ALIGNED@p(T, datum) = {...};
|
DEFINE_PER_CPU_SHARED_ALIGNED@p(T, datum) = {...};
|
DEFINE_PER_CPU_READ_MOSTLY@p(T, datum) = {...};
)

@script:python@
T << def_any.T;
p << def_any.p;
@@
if (p[0].file, int(p[0].line)) not in static_at:
	why = struct_refusal(p[0], None, T)
	if why:
		refuse(p[0], why)

@script:python@
S << alloc_type.S;
p << alloc_type.p;
@@
why = struct_refusal(p[0], S)
if why:
	refuse(p[0], why)

@member_after depends on patch && !has_lock@
identifier virtual.lock, virtual.member;
identifier S = {def.S, decl.S, alloc_type.S, stype.S};
type T;
@@
struct S { ...
	T member;
+	local_lock_t lock;
	...
};

@last_field depends on patch && !has_lock && !member_after@
identifier S = {def.S, decl.S, alloc_type.S, stype.S};
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
identifier S = {def.S, decl.S, alloc_type.S, stype.S};
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
position p : script:python() { allowed(p[0]) };
@@
(
- DEFINE_PER_CPU@p(T, datum);
+ DEFINE_PER_CPU(T, datum) = {
+	.lock = INIT_LOCAL_LOCK(lock),
+ };
|
- DEFINE_PER_CPU_ALIGNED@p(T, datum);
+ DEFINE_PER_CPU_ALIGNED(T, datum) = {
+	.lock = INIT_LOCAL_LOCK(lock),
+ };
|
- DEFINE_PER_CPU_SHARED_ALIGNED@p(T, datum);
+ DEFINE_PER_CPU_SHARED_ALIGNED(T, datum) = {
+	.lock = INIT_LOCAL_LOCK(lock),
+ };
|
- DEFINE_PER_CPU_READ_MOSTLY@p(T, datum);
+ DEFINE_PER_CPU_READ_MOSTLY(T, datum) = {
+	.lock = INIT_LOCAL_LOCK(lock),
+ };
|
- DEFINE_PER_CPU_PAGE_ALIGNED@p(T, datum);
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
position p : script:python() { allowed(p[0]) };
@@
(
 DEFINE_PER_CPU@p(T, datum) = { ...,
	.F = E,
+	.lock = INIT_LOCAL_LOCK(lock),
 };
|
 DEFINE_PER_CPU_ALIGNED@p(T, datum) = { ...,
	.F = E,
+	.lock = INIT_LOCAL_LOCK(lock),
 };
|
 DEFINE_PER_CPU_SHARED_ALIGNED@p(T, datum) = { ...,
	.F = E,
+	.lock = INIT_LOCAL_LOCK(lock),
 };
|
 DEFINE_PER_CPU_READ_MOSTLY@p(T, datum) = { ...,
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
position p : script:python() { allowed(p[0]) };
@@
(
  P->datum@p = \(alloc_percpu\|alloc_percpu_gfp\)(T, ...);
  if (!P->datum) S1
+ {
+	int c;
+
+	for_each_possible_cpu(c)
+		local_lock_init(&per_cpu_ptr(P->datum, c)->lock);
+ }
|
  P->datum@p = \(alloc_percpu\|alloc_percpu_gfp\)(T, ...);
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

// Context, report and org modes: the definition without the lock, and
// what is refused.
@depends on context && !has_lock@
position def.p;
identifier virtual.datum;
type T;
@@
(
* DEFINE_PER_CPU@p(T, datum);
|
* DEFINE_PER_CPU_ALIGNED@p(T, datum);
|
* DEFINE_PER_CPU_SHARED_ALIGNED@p(T, datum);
|
* DEFINE_PER_CPU_READ_MOSTLY@p(T, datum);
|
* DEFINE_PER_CPU_PAGE_ALIGNED@p(T, datum);
|
* DEFINE_PER_CPU@p(T, datum) = {...};
|
* DEFINE_PER_CPU_ALIGNED@p(T, datum) = {...};
|
* DEFINE_PER_CPU_SHARED_ALIGNED@p(T, datum) = {...};
|
* DEFINE_PER_CPU_READ_MOSTLY@p(T, datum) = {...};
)

@script:python depends on report && !has_lock@
p << def.p;
d << virtual.datum;
@@
if allowed(p[0]):
	coccilib.report.print_report(p[0], "WARNING: per-CPU datum %s has no nested-BH lock" % d)

@script:python depends on org && !has_lock@
p << def.p;
d << virtual.datum;
@@
if allowed(p[0]):
	coccilib.org.print_todo(p[0], "per-CPU datum %s has no nested-BH lock" % d)

@script:python depends on report@
@@
for p, why in refused:
	coccilib.report.print_report(p, "WARNING: %s not converted: %s" % (datum_name[0], why))

@script:python depends on org@
@@
for p, why in refused:
	coccilib.org.print_safe_todo(p, "%s not converted: %s" % (datum_name[0], why))

@script:python depends on patch@
@@
for p, why in refused:
	sys.stderr.write("nbh_add_lock.cocci: error: %s:%s: %s\n" % (p.file, p.line, why))
	failed.append(why)
del refused[:]

@finalize:python@
@@
if failed:
	sys.exit(2)
