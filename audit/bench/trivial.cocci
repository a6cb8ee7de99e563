// SPDX-License-Identifier: GPL-2.0
/// Baseline for bench-audit: this_cpu_ptr() after local_bh_disable(),
/// one intraprocedural rule.
//# Not an audit: it only sets the time scale nbh-audit is compared to.
// Confidence: Low
// Options: --no-includes --include-headers

virtual report

@r depends on report@
expression E;
position p;
@@
local_bh_disable();
...
this_cpu_ptr@p(E)

@script:python depends on report@
p << r.p;
@@
coccilib.report.print_report(p[0], "WARNING: this_cpu_ptr() after local_bh_disable()")
