# SPDX-License-Identifier: GPL-2.0
"""nbh-audit: find per-CPU data that relies on disabled bottom halves."""

import sys

TOOL = "nbh-audit"


class AuditError(Exception):
    """Bad input: the message is printed as one line and the tool exits 2."""


def warn(msg):
    print("%s: warning: %s" % (TOOL, msg), file=sys.stderr)


def info(msg):
    print("%s: %s" % (TOOL, msg), file=sys.stderr)
