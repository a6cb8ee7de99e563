# SPDX-License-Identifier: GPL-2.0
"""What a kernel tree's Kbuild files say about an object."""
import os
import re

OBJ_LINE = re.compile(r"^\s*obj-\$\((CONFIG_\w+)\)\s*[+:]?=(.*)$")


def object_symbol(src, obj):
    """The CONFIG_ symbol under which OBJ's directory Makefile in tree SRC
    builds it, or None (obj-y, or the Makefile does not say)."""
    mk = os.path.join(src, os.path.dirname(obj), "Makefile")
    try:
        text = open(mk, errors="replace").read().replace("\\\n", " ")
    except OSError:
        return None
    for ln in text.splitlines():
        m = OBJ_LINE.match(ln)
        if m and os.path.basename(obj) in m.group(2).split():
            return m.group(1)
    return None
