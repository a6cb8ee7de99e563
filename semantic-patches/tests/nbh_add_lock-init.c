// spatch: -D datum=bpf_redirect_info -D lock=bh_lock
#include <linux/percpu.h>

struct bpf_redirect_info {
	u32 flags;
	union {
		u32 tgt_index;
		void *tgt_value;
	};
	u32 kern_flags;
};

DEFINE_PER_CPU(struct bpf_redirect_info, bpf_redirect_info) = {
	.flags = 1,
};
