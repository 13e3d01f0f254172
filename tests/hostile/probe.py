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

It answers every request with the same line: ``could <what>`` when it succeeded,
``could-not <why>`` when the sandbox stopped it.  tests/test_hostile.py checks the
claim from the outside where it can.  These probes only read, write one small file,
or open one socket: none of them can harm the machine.
"""

import contextlib
import fnmatch
import glob
import os
import socket
import sys

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


def write_outside(path: str) -> str:
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


def main() -> None:
    mode, arg = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "")
    actions = {
        "read-opponent": read_opponent,
        "write-outside": write_outside,
        "connect": connect,
        "listen": lambda _: listen(),
        "proc-referee": proc_referee,
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
