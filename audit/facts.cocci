// SPDX-License-Identifier: GPL-2.0
/// Emit every per-CPU accessor call (this_cpu_*, __this_cpu_*, raw_cpu_*,
/// per_cpu(), per_cpu_ptr(), get_cpu_var(), get_cpu_ptr()) and nested-BH
/// lock call with its position and parsed arguments, one tab-separated
/// line per call, for nbh-audit's fact cache.
//# The rest of the call graph is lexical (nbhaudit/cfacts.py): parsing
//# is what costs, and only files with per-CPU accesses are given to spatch.
// Confidence: High
// Options: --no-includes --include-headers
// Comments: one rule on purpose: each extra rule costs a full match pass,
//  and the audit's speed goal is twice a single trivial rule.

@call@
identifier f =~ "^(__this_cpu_|this_cpu_|raw_cpu_|per_cpu$|per_cpu_ptr$|get_cpu_var$|get_cpu_ptr$|local_lock_nested_bh$|local_unlock_nested_bh$)";
expression list es;
position p;
@@
f@p(es)

@script:python@
f << call.f;
es << call.es;
p << call.p;
@@
print("C\t%s\t%s\t%s\t%s\t%s" % (p[0].file, p[0].line, p[0].column, f,
      str(es).replace("\n", " ").replace("\t", " ")))
