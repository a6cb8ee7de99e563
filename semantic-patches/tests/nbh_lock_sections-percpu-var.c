// spatch: -D datum=ipcomp_scratches -D lock=bh_lock
/* A file-scope __percpu pointer (net/xfrm/xfrm_ipcomp.c): the lock is
 * &ipcomp_scratches->bh_lock, this CPU's through the __percpu pointer. */
struct ipcomp_scratch {
	void *buf;
};

static struct ipcomp_scratch __percpu *ipcomp_scratches;

static int ipcomp_scratch_use(const u8 *data, int len)
{
	struct ipcomp_scratch *scratch = this_cpu_ptr(ipcomp_scratches);

	memcpy(scratch->buf, data, len);
	return 0;
}

/* Every CPU's copy: reported at the per_cpu_ptr(). */
static void ipcomp_scratch_clear(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		per_cpu_ptr(ipcomp_scratches, cpu)->buf = NULL;
}
