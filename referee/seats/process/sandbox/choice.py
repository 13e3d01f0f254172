"""Which layer runs the bots here: what this machine allows, and ``--sandbox``.

Whether a layer works is a property of the machine (its kernel, its distribution's
policy on user namespaces, whether bubblewrap is installed), so it is probed rather
than guessed, once per process: :func:`bwrap_works` runs bubblewrap as bots get it,
and :func:`supervised_problem` has the supervisor run ``true`` under the layer exactly
as it runs bots.  :func:`problem` says why a layer cannot run here, or None.

:func:`choose` turns ``--sandbox`` into a layer (``auto``: the strongest that works;
``strict``: the namespaces layer or an error), and :func:`advice` and
:func:`best_possible_note` word the console lines that say when something stronger
would be possible.
"""

from __future__ import annotations

import functools
import marshal
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from typing import Any

from referee.core.limits import Limits
from referee.seats.process.sandbox import landlock, seccomp
from referee.seats.process.sandbox.layers import _PREFERENCE, CHOICES, GAPS, Layer
from referee.seats.process.sandbox.paths import SUPERVISOR_COMMAND
from referee.seats.process.sandbox.plan import _supervisor_config
from referee.seats.process.sandbox.reaping import reap_orphans
from referee.seats.process.sandbox.uids import _probe_uid
from referee.seats.process.sandbox.visibility import _system_binds


@functools.cache
def bwrap_works() -> bool:
    """Whether bubblewrap is installed and can build a sandbox here (probed once)."""
    exe = shutil.which("bwrap")
    if exe is None:
        return False
    probe = [
        exe,
        "--unshare-all",
        "--die-with-parent",
        *_system_binds(),
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        # As bots get it: --disable-userns needs bubblewrap >= 0.8, --size >= 0.7 and a
        # bwrap that is not setuid.
        "--unshare-user",
        "--disable-userns",
        "--size",
        "1048576",
        "--tmpfs",
        "/tmp",
        "true",
    ]
    uid = _probe_uid()
    kwargs: dict[str, Any] = {"user": uid, "group": uid, "extra_groups": []} if uid is not None else {}
    try:
        done = subprocess.run(probe, capture_output=True, timeout=PROBE_TIMEOUT_S, check=False, **kwargs)
    except (OSError, subprocess.SubprocessError):
        return False
    finally:
        reap_orphans()  # bwrap's sandbox init re-parents to us when we are the subreaper
    return done.returncode == 0


#: How long a probe's program may run (bubblewrap's, or the supervisor's); a probe's
#: thread is waited for this long and a little more.
PROBE_TIMEOUT_S = 10.0

#: Probes started ahead (:func:`probe_ahead`): the thread, and where it puts its answer.
_ahead: dict[Layer, tuple[threading.Thread, list[str | None]]] = {}


def probe_ahead(layer: Layer = Layer.NAMESPACES) -> None:
    """Start probing ``layer`` in a thread now, for :func:`supervised_problem` to take
    the answer later: a probe is ~40 ms of waiting for a supervisor's start-up, which a
    command can spend on its own (parsing its options, building its parser).  The
    thread is not a daemon: the interpreter's exit waits for it (bounded by the probe's
    own timeout), so a probe is never cut short and its working directory always goes."""
    if layer in _ahead:
        return
    answer: list[str | None] = []
    thread = threading.Thread(
        target=lambda: answer.append(_probe(layer)), name=f"referee probe {layer}", daemon=False
    )
    _ahead[layer] = (thread, answer)
    thread.start()


@functools.cache
def supervised_problem(layer: Layer) -> str | None:
    """Why ``layer`` (namespaces or landlock) cannot run bots here; None if it can.

    Probed once: the supervisor runs ``/bin/true`` (or ``true`` from the system) under
    the layer, exactly as it runs bots (or the probe :func:`probe_ahead` started).
    """
    ahead = _ahead.get(layer)
    if ahead is not None:
        thread, answer = ahead
        thread.join(PROBE_TIMEOUT_S + 5)
        if answer:  # else the thread failed (its error was printed) or hangs: probe here
            return answer[0]
    return _probe(layer)


def _probe(layer: Layer) -> str | None:
    if not sys.platform.startswith("linux"):
        return "needs Linux"
    if layer is Layer.LANDLOCK:
        if landlock.abi_version() < 1:
            return "Landlock is not available in this kernel"
        if seccomp.arch() is None:
            return f"no seccomp filter for {os.uname().machine}"
    program = shutil.which("true", path="/usr/bin:/bin")
    if program is None:
        return "no 'true' program to probe with"
    workdir = _mkdtemp("probe")
    try:
        uid = _probe_uid()
        if uid is not None:
            os.chown(workdir, uid, uid)
        config = _supervisor_config(
            layer, [program], {"PATH": "/usr/bin:/bin"}, workdir, uid, [], Limits(), []
        )
        config_r, config_w = os.pipe()
        status_r, status_w = os.pipe()
        os.write(config_w, marshal.dumps(config))
        os.close(config_w)
        try:
            done = subprocess.run(
                [sys.executable, *SUPERVISOR_COMMAND, str(config_r), str(status_w)],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                pass_fds=(config_r, status_w),
                timeout=PROBE_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            return f"the supervisor did not run: {exc}"
        finally:
            os.close(config_r)
            os.close(status_w)
        with os.fdopen(status_r, "rb") as fh:
            lines = fh.read().decode(errors="replace").splitlines()
        errors = [line.removeprefix("error ") for line in lines if line.startswith("error ")]
        if errors:
            return errors[0]
        if not lines or lines[0] != "ready" or not any(line.startswith("exit 0 ") for line in lines):
            tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no status"]
            return f"the probe did not run cleanly: {tail[0]}"
        return None
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
        reap_orphans()


def problem(layer: Layer) -> str | None:
    """Why ``layer`` cannot run bots here (None: it can)."""
    if layer in (Layer.NONE, Layer.RLIMITS):
        return None
    if layer is Layer.BWRAP:
        return None if bwrap_works() else "bubblewrap is not installed or cannot create namespaces here"
    return supervised_problem(layer)


def _problem(layer: Layer) -> str | None:
    """:func:`problem` as the package exports it.

    The choice asks the package, not this module: ``sandbox.problem`` is the name the
    rest of the referee knows, and replacing it there (as a test does, to play a kernel
    that refuses user namespaces) must change what :func:`choose` picks.
    """
    from referee.seats.process import sandbox

    return sandbox.problem(layer)


def choose(requested: str) -> Layer:
    """The layer for ``--sandbox requested``; raises ValueError if it cannot work here."""
    if requested == "auto":
        return next(layer for layer in _PREFERENCE if _problem(layer) is None)
    if requested == "strict":
        reason = _problem(Layer.NAMESPACES)
        if reason is None and seccomp.arch() is None:
            reason = f"no seccomp filter for {os.uname().machine}"
        if reason is not None:
            raise ValueError(f"--sandbox strict: the namespaces layer cannot run here ({reason})")
        return Layer.NAMESPACES
    try:
        layer = Layer(requested)
    except ValueError:
        raise ValueError(f"--sandbox {requested}: no such layer (choose from {', '.join(CHOICES)})") from None
    reason = _problem(layer)
    if reason is not None:
        raise ValueError(f"--sandbox {layer}: {reason}")
    return layer


def advice(layer: Layer) -> str | None:
    """One line for the console when ``layer`` is weaker than the strongest this machine
    allows, or None when it is the strongest."""
    best = choose("auto")
    if layer in _PREFERENCE and _PREFERENCE.index(layer) <= _PREFERENCE.index(best):
        return None
    return (
        f"sandbox {layer} does not stop everything: {GAPS[layer]}; "
        f"use --sandbox {best} (the strongest here), or --sandbox strict to refuse anything weaker"
    )


def best_possible_note() -> str | None:
    """Why even ``auto`` is weaker than the namespaces layer here, and how to get it."""
    reason = _problem(Layer.NAMESPACES)
    if reason is None:
        return None
    return (
        f"the namespaces sandbox cannot run here ({reason}); "
        "enable unprivileged user namespaces (e.g. sysctl kernel.apparmor_restrict_unprivileged_userns=0 "
        "on Ubuntu) or install bubblewrap for stronger isolation"
    )


def _mkdtemp(name: str) -> str:
    path = tempfile.mkdtemp(prefix=f"referee-{name}-")
    os.chmod(path, 0o700)
    return path
