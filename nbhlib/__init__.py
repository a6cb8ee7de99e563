# SPDX-License-Identifier: GPL-2.0
"""Glue shared by the toolkit's programs: paths, processes, series, KTAP,
kernels and boots. The programs under scripts/, boot-tests/ and audit/
are thin launchers around it (`audit/nbhaudit` holds the audit itself).

A launcher finds the package from its own location:

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from nbhlib import proc
"""
