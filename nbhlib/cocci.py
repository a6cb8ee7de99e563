# SPDX-License-Identifier: GPL-2.0
"""The generator's spatch call: the rules of semantic-patches/ in patch
and report mode at once, on files changed in place. The generator
(scripts/generate-raw-patches) and the rule tests (semantic-patches/
run-tests, which compares it with plain spatch and make coccicheck) use
this one."""
import os

from . import paths, proc

COCCI = os.path.join(paths.REPO, "semantic-patches")


def spatch(cocci, files, cwd, defines, env=None):
    """Patch FILES (relative to CWD) in place with COCCI (a file name in
    semantic-patches/) and return the report-mode messages. DEFINES are
    (name, value) pairs for -D (value None: a bare -D name).
    NBH_FUNCTIONS is only set when ENV sets it."""
    cmd = ["spatch", "--very-quiet", "--no-includes", "--include-headers",
           "--macro-file", os.path.join(COCCI, "nbh-macros.h"),
           "--sp-file", os.path.join(COCCI, cocci), "-D", "patch", "-D", "report",
           "--in-place"]
    for k, v in defines:
        cmd += ["-D", f"{k}={v}" if v is not None else k]
    env = dict({"NBH_FUNCTIONS": None}, **(env or {}))
    return proc.run(cmd + sorted(files), cwd=cwd, env=env).out
