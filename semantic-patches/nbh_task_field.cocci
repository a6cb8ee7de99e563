// SPDX-License-Identifier: GPL-2.0-only
/// Add a PREEMPT_RT-only member TASKFIELD of type FIELDTYPE to struct
/// task_struct, for per-CPU state that becomes per task on PREEMPT_RT
/// (nbh_per_task.cocci).
///
//# The member goes right before atomic_flags, next to the other small
//# per-task flags, inside #ifdef CONFIG_PREEMPT_RT so that !PREEMPT_RT keeps
//# its task_struct layout.  A task_struct that already has TASKFIELD is left
//# alone, so running it twice changes nothing.
//
// Confidence: High
// Comments: -D taskfield=FIELD -D fieldtype=TYPE; run on include/linux/sched.h.
// Options: --no-includes --include-headers

virtual patch
virtual report	// nothing to report; accepted so that -D patch -D report runs work

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


nbh_check_args("nbh_task_field.cocci", ['taskfield', 'fieldtype'], False)

@has_field@
identifier virtual.taskfield;
type T;
@@
struct task_struct {
	...
	T taskfield;
	...
};

@script:python mk_type@
t << virtual.fieldtype;
T;
@@
coccinelle.T = cocci.make_type(t)

@task_field depends on patch && !has_field@
identifier virtual.taskfield;
type mk_type.T;
@@
struct task_struct {
	...
+#ifdef CONFIG_PREEMPT_RT
+	T taskfield;
+#endif
	unsigned long atomic_flags;
	...
};
