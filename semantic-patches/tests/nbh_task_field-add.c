// spatch: -D taskfield=net_xmit_recursion -D fieldtype=u16
struct task_struct {
	unsigned			sched_migrated:1;
#ifdef CONFIG_PSI
	/* Stalled due to lack of memory */
	unsigned			in_memstall:1;
#endif

	unsigned long			atomic_flags; /* Flags requiring atomic access. */

	struct restart_block		restart_block;
};
