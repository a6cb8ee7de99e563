// spatch: -D datum=tcp_md5sig_pool -D lock=bh_lock NBH_FUNCTIONS=tcp_get_md5sig_pool,pool_store,pool_pass,pool_sleep,pool_reenter,pool_remote
/* Each function here is refused; the code stays as it is. */
struct tcp_md5sig_pool *tcp_get_md5sig_pool(void)
{
	local_bh_disable();
	if (tcp_md5sig_pool_populated)
		return this_cpu_ptr(&tcp_md5sig_pool);
	local_bh_enable();
	return NULL;
}

void pool_store(struct foo *f)
{
	struct tcp_md5sig_pool *hp = this_cpu_ptr(&tcp_md5sig_pool);

	hp->md5_req = NULL;
	f->pool = hp;
}

static void pool_fill(struct tcp_md5sig_pool *hp)
{
	struct tcp_md5sig_pool *mine = this_cpu_ptr(&tcp_md5sig_pool);

	mine->scratch = hp->scratch;
}

void pool_pass(void)
{
	struct tcp_md5sig_pool *hp = this_cpu_ptr(&tcp_md5sig_pool);

	hp->scratch = NULL;
	pool_fill(hp);
}

void pool_sleep(void)
{
	struct tcp_md5sig_pool *hp = this_cpu_ptr(&tcp_md5sig_pool);

	hp->scratch = NULL;
	mutex_lock(&pool_mutex);
	hp->md5_req = NULL;
	mutex_unlock(&pool_mutex);
}

void pool_reenter(int x)
{
	struct tcp_md5sig_pool *hp = this_cpu_ptr(&tcp_md5sig_pool);

	hp->scratch = NULL;
	pool_store(NULL);
	hp->md5_req = NULL;
}

/* Not in BH context according to the audit (not in NBH_FUNCTIONS). */
void pool_init(int cpu)
{
	struct tcp_md5sig_pool *hp = this_cpu_ptr(&tcp_md5sig_pool);

	hp->scratch = NULL;
}

/* Another CPU's copy: no BH section of this CPU to lock. */
void pool_remote(int cpu)
{
	struct tcp_md5sig_pool *hp = per_cpu_ptr(&tcp_md5sig_pool, cpu);

	hp->scratch = NULL;
}
