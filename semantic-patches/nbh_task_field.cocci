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
