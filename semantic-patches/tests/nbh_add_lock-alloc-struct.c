// spatch: -D datum=cpu_queue -D lock=bh_lock
/* Dynamic per-CPU data: the struct is found from alloc_percpu(struct S)
 * when it is defined in the same file (crypto/cryptd.c), without
 * -D structname. */
#include <linux/percpu.h>

struct cryptd_cpu_queue {
	struct crypto_queue queue;
	struct work_struct work;
};

struct cryptd_queue {
	struct cryptd_cpu_queue __percpu *cpu_queue;
};

static int cryptd_init_queue(struct cryptd_queue *queue,
			     unsigned int max_cpu_qlen)
{
	queue->cpu_queue = alloc_percpu(struct cryptd_cpu_queue);
	if (!queue->cpu_queue)
		return -ENOMEM;
	return 0;
}
