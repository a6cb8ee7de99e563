# SPDX-License-Identifier: GPL-2.0
"""Processes, files and exit codes.

Every program exits 0 on success, 1 when a check or build failed and 2
on bad input (a one-line message naming the problem). Raise BadInput or
Failure anywhere and let main() turn it into the status.
"""
import concurrent.futures
import dataclasses
import multiprocessing
import os
import queue
import signal
import stat
import subprocess
import sys
import tempfile


class Error(Exception):
    """Base of the toolkit's errors; `status` is the exit code."""
    status = 1


class BadInput(Error):
    """The input is wrong (a missing file, an unknown name): exit 2."""
    status = 2


def tab_table(path, fields):
    """The lines of a tab-separated list of the project (# comments and
    blank lines skipped) as [(line number, tuple of len(FIELDS)
    strings)]; a line with another number of fields or an empty one is
    bad input."""
    rows = []
    with open(path) as f:
        for n, ln in enumerate(f, 1):
            if not ln.strip() or ln.startswith("#"):
                continue
            row = ln.rstrip("\n").split("\t")
            if len(row) != len(fields) or not all(x.strip() for x in row):
                raise BadInput(f"{path}:{n}: want {'<tab>'.join(fields)}")
            rows.append((n, tuple(row)))
    return rows


class Failure(Error):
    """A command, a build or a check failed: exit 1."""
    status = 1


# Fixed identity and dates make every commit we create reproducible, so
# that format-patch output of the same inputs is byte-identical
# (scripts/lib.sh exports the same for the shell programs).
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "nbh-toolkit", "GIT_AUTHOR_EMAIL": "nbh-toolkit@localhost",
    "GIT_COMMITTER_NAME": "nbh-toolkit", "GIT_COMMITTER_EMAIL": "nbh-toolkit@localhost",
    "GIT_AUTHOR_DATE": "2024-06-12T00:00:00+0000",
    "GIT_COMMITTER_DATE": "2024-06-12T00:00:00+0000",
}


@dataclasses.dataclass(frozen=True)
class Result:
    """A finished command: its argument list, exit status and output."""
    cmd: tuple
    rc: int
    out: str
    err: str

    @property
    def ok(self):
        return self.rc == 0

    def tail(self, n=15):
        """The last N lines of stderr (else stdout), for an error message."""
        text = (self.err or self.out).strip().splitlines()
        return "\n    ".join(text[-n:])


# Called with each command line run() starts when set (a program's
# --debug option points it at its Log).
trace = None


def run(cmd, cwd=None, env=None, check=False, capture=True, stdin=None):
    """Run an argument list. ENV entries are added to os.environ (a None
    value removes the variable).
    capture=False lets stdout and stderr through to the user (progress of
    long steps), capture="stderr" sends both to our stderr (our stdout is
    for results); the Result then holds no output. check=True raises
    Failure on a non-zero status, naming the command and its last lines."""
    if trace:
        trace(f"$ {' '.join(map(str, cmd))}")
    full_env = None
    if env:
        full_env = {k: v for k, v in dict(os.environ, **env).items() if v is not None}
    kw = dict(cwd=cwd, env=full_env, text=True, errors="replace", input=stdin)
    if capture == "stderr":
        kw["stdout"] = sys.stderr
    elif capture:
        kw["capture_output"] = True
    p = subprocess.run(list(cmd), **kw)
    r = Result(tuple(cmd), p.returncode, p.stdout or "", p.stderr or "")
    if check and not r.ok:
        raise Failure(f"{' '.join(map(str, cmd[:4]))} failed (rc {r.rc}):\n    {r.tail()}")
    return r


def git(args, repo=None, check=True, env=None):
    """git with the fixed identity; returns stdout stripped of its last
    newline (check=True) or the Result (check=False)."""
    cmd = ["git"] + (["-C", repo] if repo else []) + list(args)
    r = run(cmd, env=dict(GIT_IDENTITY, **(env or {})), check=check)
    return r.out.rstrip("\n") if check else r


class Output:
    """One output path, checked when made (before the work), written
    once by write(). The one way the toolkit writes what it was asked
    to create, so that it never replaces what it was not:

    - "-" is standard output;
    - a symlink is followed: the link stays, its target is written;
    - an existing path that is not a regular file (a character or block
      device, a FIFO, a socket) is opened and written in place, never
      renamed over: `--text /dev/null` leaves /dev/null a device;
    - a regular file or a new path is written to a temporary file next
      to it and renamed: readers see the old file or the new one.

    Problems (a directory, a missing or unwritable directory, an empty
    name) raise BadInput naming the path."""

    def __init__(self, path, makedirs=False):
        self.path = path
        self.tmp = None
        self.target = None
        self.in_place = False
        if path == "-":
            return
        if not path:
            raise BadInput("output '': empty path")
        self.target = os.path.realpath(path)
        try:
            st = os.stat(self.target)
        except FileNotFoundError:
            st = None
        except OSError as e:
            raise BadInput(f"output {path}: {e.strerror or e}")
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise BadInput(f"output {path}: is a directory")
        if st is not None and not stat.S_ISREG(st.st_mode):
            if not os.access(self.target, os.W_OK):
                raise BadInput(f"output {path}: not writable")
            self.in_place = True
            return
        self.mode = stat.S_IMODE(st.st_mode) if st is not None else 0o644
        d = os.path.dirname(self.target)
        if makedirs:
            os.makedirs(d, exist_ok=True)
        if not os.path.isdir(d):
            raise BadInput(f"output {path}: directory {d} does not exist")
        try:
            fd, self.tmp = tempfile.mkstemp(dir=d, prefix=".tmp-" + os.path.basename(self.target) + "-")
            os.close(fd)
        except OSError as e:
            raise BadInput(f"output {path}: cannot write in {d} ({e.strerror or e})")

    def write(self, writer, binary=False):
        """Call writer(f) with F open on the output (text, or bytes with
        BINARY), then put it in place."""
        if self.target is None:
            if binary:
                writer(sys.stdout.buffer)
                sys.stdout.buffer.flush()
            else:
                writer(sys.stdout)
                sys.stdout.flush()
            return
        mode = "wb" if binary else "w"
        try:
            if self.in_place:
                with open(self.target, mode) as f:
                    writer(f)
                return
            with open(self.tmp, mode) as f:
                writer(f)
            os.chmod(self.tmp, self.mode)
            os.rename(self.tmp, self.target)
            self.tmp = None
        except BrokenPipeError:
            raise                   # a FIFO's reader gone: as for stdout, main()
        except OSError as e:
            raise BadInput(f"output {self.path}: {e.strerror or e}")
        finally:
            self.discard()

    def discard(self):
        """Remove the temporary file of an output not written."""
        if self.tmp:
            try:
                os.unlink(self.tmp)
            except OSError:
                pass
            self.tmp = None


def write_atomic(path, data):
    """Write text or bytes to PATH as Output does (its directory made
    if missing)."""
    Output(path, makedirs=True).write(lambda f: f.write(data), binary=isinstance(data, bytes))


class Log:
    """Messages to stderr prefixed with the program's name."""

    def __init__(self, prog, quiet=False):
        self.prog = prog
        self.quiet = quiet

    def __call__(self, msg):
        if not self.quiet:
            print(f"{self.prog}: {msg}", file=sys.stderr, flush=True)

    def error(self, msg):
        print(f"{self.prog}: error: {msg}", file=sys.stderr, flush=True)


def map_with(fn, items, slots):
    """[fn(item, slot) for item in ITEMS], run side by side: one worker
    per slot of SLOTS (a scratch tree, a worktree), each call holding a
    slot no other call uses at the same time. Results in ITEMS' order."""
    free = queue.Queue()
    for s in slots:
        free.put(s)

    def one(item):
        slot = free.get()
        try:
            return fn(item, slot)
        finally:
            free.put(slot)

    with concurrent.futures.ThreadPoolExecutor(max(1, free.qsize())) as pool:
        return list(pool.map(one, items))


def main(prog, fn, argv=None, usage=None):
    """Run fn(argv) and exit with its status (None = 0); an Error exits
    with its status after a one-line message (bad input) or the message
    as given (failures may carry a command's last lines).  USAGE, the
    help of a program that parses its arguments itself (its docstring,
    holding a "Usage:" line), is printed for -h or --help, and nothing
    else is done."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        if usage and argv[:1] in (["-h"], ["--help"]):
            print(usage.strip())
            status = 0
        else:
            status = fn(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader of our output went away (`| head -1`): end quietly,
        # as a program killed by SIGPIPE would, and keep Python's exit
        # from failing on the buffered rest.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(128 + signal.SIGPIPE)
    except Error as e:
        Log(prog).error(str(e))
        sys.exit(e.status)
    except KeyboardInterrupt:
        Log(prog).error("interrupted")
        sys.exit(130)
    sys.exit(status or 0)


def quiet_pool(jobs):
    """A multiprocessing pool of JOBS quiet_worker()s. The workers are
    forked with SIGINT already held by the handler that does nothing: a
    Ctrl-C that lands between a worker's fork and its initializer would
    otherwise end that worker with a traceback. A Ctrl-C that reaches
    the main process meanwhile is raised once the pool exists."""
    got = []
    old = signal.signal(signal.SIGINT, lambda signo, frame: got.append(signo))
    try:
        pool = multiprocessing.Pool(jobs, quiet_worker)
    finally:
        signal.signal(signal.SIGINT, old)
    if got and old is not signal.SIG_IGN:
        pool.terminate()
        raise KeyboardInterrupt
    return pool


def quiet_worker():
    """Initializer of a multiprocessing pool's workers: Ctrl-C reaches
    the whole process group, and the main process alone reports it (one
    line, exit 130, main() above) and ends the pool.  A worker ignores
    it, with a handler that does nothing rather than SIG_IGN, so that
    the commands it runs (reset to the default action by exec) still die
    of it; a worker that exited instead could hang the pool's end."""
    signal.signal(signal.SIGINT, lambda signo, frame: None)
