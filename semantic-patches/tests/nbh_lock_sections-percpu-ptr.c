// spatch: -D datum=cpu_queue -D lock=bh_lock
/* The shape of crypto/cryptd.c in 6.1: per-CPU memory behind the __percpu
 * member cpu_queue, reached through pointer variables of the same name. */
struct cryptd_cpu_queue {
	struct crypto_queue queue;
	struct work_struct work;
};

struct cryptd_queue {
	struct cryptd_cpu_queue __percpu *cpu_queue;
};

/* Every CPU's copy at init: left alone, reported at the per_cpu_ptr(). */
static int cryptd_init_queue(struct cryptd_queue *queue,
			     unsigned int max_cpu_qlen)
{
	int cpu;
	struct cryptd_cpu_queue *cq;

	queue->cpu_queue = alloc_percpu(struct cryptd_cpu_queue);
	if (!queue->cpu_queue)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		cq = per_cpu_ptr(queue->cpu_queue, cpu);
		crypto_init_queue(&cq->queue, max_cpu_qlen);
	}
	return 0;
}

/* cryptd_fini_queue(): another CPU's copy, through a pointer variable. */
static void cryptd_fini_queue(struct cryptd_queue *queue)
{
	int cpu;
	struct cryptd_cpu_queue *cpu_queue;

	for_each_possible_cpu(cpu) {
		cpu_queue = per_cpu_ptr(queue->cpu_queue, cpu);
		BUG_ON(cpu_queue->queue.qlen);
	}
	free_percpu(queue->cpu_queue);
}

/* This CPU's copy through this_cpu_ptr(): the lock is named through the
 * __percpu pointer, &queue->cpu_queue->bh_lock. */
static void cryptd_enqueue_one(struct cryptd_queue *queue,
			       struct crypto_async_request *request)
{
	struct cryptd_cpu_queue *cpu_queue;

	cpu_queue = this_cpu_ptr(queue->cpu_queue);
	crypto_enqueue_request(&cpu_queue->queue, request);
	queue_work_on(smp_processor_id(), cryptd_wq, &cpu_queue->work);
}

/* The same with a pointer variable of another name. */
static void cryptd_enqueue_two(struct cryptd_queue *queue,
			       struct crypto_async_request *request)
{
	struct cryptd_cpu_queue *cq = this_cpu_ptr(queue->cpu_queue);

	pr_debug("enqueue\n");
	crypto_enqueue_request(&cq->queue, request);
	queue_work_on(smp_processor_id(), cryptd_wq, &cq->work);
}

/* A pointer from container_of(): not known to be this CPU's copy. */
static void cryptd_queue_worker(struct work_struct *work)
{
	struct cryptd_cpu_queue *cpu_queue;
	struct crypto_async_request *req;

	cpu_queue = container_of(work, struct cryptd_cpu_queue, work);
	req = crypto_dequeue_request(&cpu_queue->queue);
	kfree(req);
}
