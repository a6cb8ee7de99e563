// SPDX-License-Identifier: GPL-2.0
/// Emit every named function call with its position and arguments, one
/// tab-separated line per call, for nbh-audit's fact cache.
//# Only calls through a plain identifier are matched; calls through
//# function pointers are found lexically by nbh-audit (nbhaudit/cfacts.py).
// Confidence: High
// Options: --no-includes --include-headers
// Comments: one rule on purpose: each extra rule costs a full match pass,
//  and the audit's speed goal is twice a single trivial rule.

@call@
identifier f;
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
