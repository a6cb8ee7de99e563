// spatch: -D datum=bpf_sp -D lock=bh_lock
/* The struct is defined in a header this run does not see: without
 * -D structname=NAME the lock cannot be added, and an INIT_LOCAL_LOCK()
 * of a member that does not exist would not compile.  Refused, file
 * unchanged; report mode says why, patch mode fails. */
#include <linux/filter.h>

DEFINE_PER_CPU(struct bpf_scratchpad, bpf_sp);

void bpf_sp_use(void)
{
	struct bpf_scratchpad *sp = this_cpu_ptr(&bpf_sp);

	sp->diff[0] = 0;
}
