// spatch: -D datum=ipv4_tcp_sk -D lock=bh_lock
#include <net/sock.h>

/* 6.12: the wrapper struct lives in a header, the lock is initialised. */
static DEFINE_PER_CPU(struct sock_bh_locked, ipv4_tcp_sk) = {
	.bh_lock = INIT_LOCAL_LOCK(bh_lock),
};
