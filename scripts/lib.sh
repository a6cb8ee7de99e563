# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the scripts/ and boot-tests/ shell programs.
# Source it; it defines WORK and small logging helpers.

: "${WORK:=/var/tmp/nbh-work}"
NBH_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export WORK NBH_REPO

# -h or --help as the first argument of the program that sources this
# file: print its header comment (the lines after its SPDX line, up to
# the first that is not a comment, its "Usage:" among them) and exit 0,
# before any work.
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
	sed -n -e 1d -e '/^[^#]/q' -e /SPDX-License-Identifier/d -e 's/^# \{0,1\}//p' "$0"
	exit 0
fi

# Fixed identity and dates make every commit we create reproducible, so
# that format-patch output of the same inputs is byte-identical.
export GIT_AUTHOR_NAME="nbh-toolkit" GIT_AUTHOR_EMAIL="nbh-toolkit@localhost"
export GIT_COMMITTER_NAME="nbh-toolkit" GIT_COMMITTER_EMAIL="nbh-toolkit@localhost"
export GIT_AUTHOR_DATE="2024-06-12T00:00:00+0000" GIT_COMMITTER_DATE="2024-06-12T00:00:00+0000"

log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# tree_dir NAME: the git repository of a prepared kernel tree.
#   6.1     pristine linux-source-6.1 (branch "pristine")
#   6.1-rt  worktree of the same repository on branch "rt"
#   6.12    pristine linux-source-6.12
#   6.12-rt worktree of the 6.12 repository on branch "rt"
tree_dir() {
	case "$1" in
	6.1) echo "$WORK/trees/linux-6.1" ;;
	6.1-rt) echo "$WORK/trees/linux-6.1-rt" ;;
	6.12) echo "$WORK/trees/linux-6.12" ;;
	6.12-rt) echo "$WORK/trees/linux-6.12-rt" ;;
	*) die "unknown tree '$1' (expected 6.1, 6.1-rt, 6.12 or 6.12-rt)" ;;
	esac
}

# Version of the installed Debian linux-source package for a tree.
source_pkg_version() {
	dpkg-query -W -f='${Version}' "linux-source-$1" 2>/dev/null ||
		die "package linux-source-$1 is not installed (run: make deps)"
}
