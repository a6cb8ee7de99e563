// spatch: -D datum=bpf_sp -D lock=bh_lock
#include <linux/local_lock.h>

struct bpf_scratchpad {
	union {
		__be32 diff[64];
		u8     buff[256];
	};
	local_lock_t	bh_lock;
};

static DEFINE_PER_CPU(struct bpf_scratchpad, bpf_sp) = {
	.bh_lock	= INIT_LOCAL_LOCK(bh_lock),
};
