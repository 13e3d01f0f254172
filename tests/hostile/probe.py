#!/usr/bin/env python3
"""Tries one thing a bot must not be able to do, and reports in its reply whether it could.

Usage: probe.py MODE [ARG]

  read-opponent GLOB  find another bot's working directory (a directory matching
                      GLOB, directly or as a process's /proc/*/cwd) and read its files
  write-outside PATH  create the file PATH, outside its own working directory
  connect PORT        open a TCP connection to 127.0.0.1:PORT
  listen              listen on a loopback port another bot could connect to
  proc-referee PID    read /proc/PID/environ and /proc/PID/fd of the referee (PID, and
                      its own parent process)
  read-file PATH      read the file PATH
  append-file PATH    append a line to the existing file PATH (never creates or truncates)
  fork-count N        fork up to N children that sleep, count how many forks succeeded,
                      then kill and reap them all
  fill-dir DIR MIB    write MIB MiB (at most 400) into DIR, in files of 32 MiB named
                      referee-isolation-fill-<pid>-<k>, and keep them (the test removes
                      them); it goes on to the next file at a write error, and stops at
                      the first file it cannot create or extend at all

PATH may be given without its leading slash (``etc/hostname`` for ``/etc/hostname``):
the referee makes the directory of every absolute path a command names visible to
the bot (that is how a bot finds its own files), so a test naming its target whole
would open the very door it checks is shut.

It answers every request with the same line: ``could <what>`` when it succeeded,
``could-not <why>`` when the sandbox stopped it.  tests/test_hostile.py checks the
claim from the outside where it can.  These probes only read, write one small file,
or open one socket, and fork-count starts at most N sleeping children (the test gives a
small N) that it kills before it answers: none of them can harm the machine.
"""

import contextlib
import fnmatch
import glob
import os
import signal
import socket
import sys
import time

_keep: list[socket.socket] = []  # a listening socket stays open while the bot runs


def read_opponent(pattern: str) -> str:
    """Look for directories matching ``pattern`` directly and as other processes' cwd."""
    mine = os.path.realpath(os.getcwd())
    candidates = set(glob.glob(pattern))
    for cwd_link in glob.glob("/proc/[0-9]*/cwd"):
        try:
            target = os.readlink(cwd_link)
        except OSError:
            continue
        if fnmatch.fnmatch(os.path.basename(target), os.path.basename(pattern)):
            candidates.add(target)
    candidates.discard(mine)
    errors = []
    for directory in sorted(candidates):
        try:
            names = os.listdir(directory)
        except OSError as exc:
            errors.append(f"{directory}: {exc.strerror}")
            continue
        for name in names:
            try:
                with open(os.path.join(directory, name), "rb") as fh:
                    data = fh.read(200)
            except OSError as exc:
                errors.append(f"{name}: {exc.strerror}")
                continue
            text = " ".join(data.decode("ascii", "replace").split())
            return f"could read {directory}/{name}: {text[:100]}"
    return "could-not " + ("; ".join(errors)[:300] or f"found no directory matching {pattern}")


def _absolute(path: str) -> str:
    return path if path.startswith("/") else "/" + path


def write_outside(path: str) -> str:
    path = _absolute(path)
    try:
        with open(path, "w") as fh:
            fh.write("escaped\n")
    except OSError as exc:
        return f"could-not {exc.strerror}"
    return f"could write {path}"


def connect(port: str) -> str:
    try:
        sock = socket.create_connection(("127.0.0.1", int(port)), timeout=0.3)
        sock.sendall(b"hello from a bot\n")
    except OSError as exc:
        return f"could-not {exc.strerror or exc}"
    _keep.append(sock)
    return f"could connect to 127.0.0.1:{port}"


def listen() -> str:
    try:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
    except OSError as exc:
        return f"could-not {exc.strerror or exc}"
    _keep.append(sock)
    return f"could listen on 127.0.0.1:{sock.getsockname()[1]}"


def proc_referee(pid: str) -> str:
    """Read the referee's environment and its open descriptors.

    An environment counts only if it has variables this bot's own lacks: in a pid
    namespace the parent is the sandbox's own init, whose environment is the bot's.
    The referee's cmdline is public on Linux anyway, so it is not tried.
    """
    mine = set(os.environ)
    found = []
    for target in dict.fromkeys([pid, str(os.getppid())]):
        try:
            with open(f"/proc/{target}/environ", "rb") as fh:
                names = {item.split(b"=", 1)[0].decode("ascii", "replace") for item in fh.read().split(b"\0")}
        except OSError:
            names = set()
        foreign = sorted(names - mine - {""})
        if foreign:
            found.append(
                f"{target}/environ: {len(foreign)} variables not its own ({' '.join(foreign[:5])} ...)"
            )
    with contextlib.suppress(OSError):
        found.append(f"{pid}/fd: {len(os.listdir(f'/proc/{pid}/fd'))} descriptors")
    if not found:
        return f"could-not read the environment or /proc/{pid}/fd of the referee"
    return ("could read " + "; ".join(found))[:1000]


def read_file(path: str) -> str:
    path = _absolute(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read(200)
    except OSError as exc:
        return f"could-not read {path}: {exc.strerror}"
    text = " ".join(data.decode("ascii", "replace").split())
    return f"could read {path}: {text[:100]}"


def append_file(path: str) -> str:
    path = _absolute(path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)  # no O_CREAT, no O_TRUNC
    except OSError as exc:
        return f"could-not open {path} for writing: {exc.strerror}"
    try:
        os.write(fd, b"escaped\n")
    except OSError as exc:
        return f"could-not write {path}: {exc.strerror}"
    finally:
        os.close(fd)
    return f"could append to {path}"


#: How long a fork-count child sleeps if nobody kills it (its parent always does).
FORK_CHILD_S = 20


def fork_count(n: str) -> str:
    """Fork up to N sleeping children; the reply says how many forks succeeded."""
    wanted = min(int(n), 200)  # bounded: the suite runs as root too
    children = []
    error = ""
    for _ in range(wanted):
        try:
            pid = os.fork()
        except OSError as exc:
            error = exc.strerror or str(exc)
            break
        if pid == 0:
            try:
                time.sleep(FORK_CHILD_S)
            finally:
                os._exit(0)
        children.append(pid)
    for pid in children:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    for pid in children:
        with contextlib.suppress(OSError):
            os.waitpid(pid, 0)
    return f"could fork {len(children)} of {wanted} children" + (f" ({error})" if error else "")


FILL_FILE = 32 << 20


def fill_dir(args: str) -> str:
    """Write up to MIB MiB into DIR; the reply says how much landed."""
    directory, mib = args.rsplit(" ", 1)
    directory = _absolute(directory)
    left = min(int(mib), 400) << 20
    chunk = b"x" * (1 << 20)  # not zeros: nothing sparse
    written = 0
    error = ""
    for k in range(64):
        if left <= 0:
            break
        path = os.path.join(directory, f"referee-isolation-fill-{os.getpid()}-{k}")
        done = 0
        try:
            with open(path, "wb", buffering=0) as fh:
                while done < min(left, FILL_FILE):
                    done += fh.write(chunk[: min(len(chunk), left - done)])
        except OSError as exc:
            error = exc.strerror or str(exc)
        written += done
        left -= done
        if done == 0:
            break
    mib_written = written >> 20
    if not written:
        return f"could-not write into {directory}: {error}"
    return f"could write {mib_written} MiB into {directory}" + (f" ({error})" if error else "")


def main() -> None:
    mode, arg = sys.argv[1], " ".join(sys.argv[2:])
    actions = {
        "read-opponent": read_opponent,
        "write-outside": write_outside,
        "connect": connect,
        "listen": lambda _: listen(),
        "proc-referee": proc_referee,
        "read-file": read_file,
        "append-file": append_file,
        "fork-count": fork_count,
        "fill-dir": fill_dir,
    }
    reply = None
    out = sys.stdout.buffer
    for _line in sys.stdin.buffer:
        if reply is None:
            reply = actions[mode](arg).replace("\n", " ").encode("ascii", "replace")
        out.write(reply + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
