// spatch: -D datum=pcpu_scratch -D lock=bh_lock
/* The type of the datum is no "struct NAME": the struct that gets the
 * lock cannot be found.  Refused, file unchanged. */
#include <linux/percpu.h>

typedef struct {
	void *buf;
} scratch_t;

static DEFINE_PER_CPU(scratch_t, pcpu_scratch);
