"""Landlock for a bot: which files it may touch, no TCP, no signals or abstract sockets out.

The supervisor calls :func:`restrict` on itself just before exec'ing the bot; the domain is
inherited across exec and fork and can never be lifted.  Standard library only, and no
imports from the ``referee`` package: the supervisor loads this file as a top-level module
under ``python3 -I -S``.

Kernel facts a caller must know (checked on Linux 6.18, ABI 7):

* It confines the calling *thread* (and what it later forks or execs), not sibling threads:
  call it from a single-threaded process right before exec.
* Once a domain handles filesystem rights, ``mount``, ``umount``, ``pivot_root`` and
  ``move_mount`` fail with EPERM in it: apply it *after* any namespace or mount set-up
  (inside bubblewrap, never around it).
* Rules are attached to the file objects opened when the rule is added, so paths are
  resolved in the caller's mount namespace at that moment; a later bind mount over a path
  does not carry the right.
* Descriptors opened before (stdin/stdout pipes) keep working: rights are checked at open.
* A file rule may only carry file rights (EXECUTE, READ_FILE, WRITE_FILE, TRUNCATE,
  IOCTL_DEV); directory rights on it make ``landlock_add_rule`` fail with EINVAL.
* Path lookup itself is not a right: the bot may still ``stat`` anything, and (until ABI 8's
  RESOLVE_UNIX) ``connect`` to a named unix socket anywhere.  TCP is the only network
  protocol handled; UDP and the like stay open.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (the supervisor's start)
if TYPE_CHECKING:
    from collections.abc import Iterable

# Syscall numbers: the same in the unified table of x86_64 and aarch64.
_SYS_LANDLOCK_CREATE_RULESET = 444
_SYS_LANDLOCK_ADD_RULE = 445
_SYS_LANDLOCK_RESTRICT_SELF = 446
_MACHINES = ("x86_64", "aarch64")

_CREATE_RULESET_VERSION = 1 << 0
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

ACCESS_FS_EXECUTE = 1 << 0
ACCESS_FS_WRITE_FILE = 1 << 1
ACCESS_FS_READ_FILE = 1 << 2
ACCESS_FS_READ_DIR = 1 << 3
ACCESS_FS_REMOVE_DIR = 1 << 4
ACCESS_FS_REMOVE_FILE = 1 << 5
ACCESS_FS_MAKE_CHAR = 1 << 6
ACCESS_FS_MAKE_DIR = 1 << 7
ACCESS_FS_MAKE_REG = 1 << 8
ACCESS_FS_MAKE_SOCK = 1 << 9
ACCESS_FS_MAKE_FIFO = 1 << 10
ACCESS_FS_MAKE_BLOCK = 1 << 11
ACCESS_FS_MAKE_SYM = 1 << 12
ACCESS_FS_REFER = 1 << 13  # ABI 2
ACCESS_FS_TRUNCATE = 1 << 14  # ABI 3
ACCESS_FS_IOCTL_DEV = 1 << 15  # ABI 5

ACCESS_NET_BIND_TCP = 1 << 0  # ABI 4
ACCESS_NET_CONNECT_TCP = 1 << 1  # ABI 4

SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1  # ABI 6

#: The newest ABI whose features this module asks for (ABI 7 only added audit-log flags,
#: whose defaults already keep the exec'd bot's denials out of the audit log).
HIGHEST_USED_ABI = 6

_FS_ABI1 = (1 << 13) - 1  # EXECUTE … MAKE_SYM
#: Rights the kernel accepts on a rule whose object is not a directory.
_FILE_ONLY = (
    ACCESS_FS_EXECUTE | ACCESS_FS_WRITE_FILE | ACCESS_FS_READ_FILE | ACCESS_FS_TRUNCATE | ACCESS_FS_IOCTL_DEV
)
_READ = ACCESS_FS_EXECUTE | ACCESS_FS_READ_FILE | ACCESS_FS_READ_DIR


class _RulesetAttr(ctypes.Structure):
    _fields_ = (
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    )


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # __attribute__((packed)): 12 bytes, no tail padding
    _fields_ = (("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32))


_LIBC: list[ctypes.CDLL] = []  # made once (functools.cache, without importing functools)


def _libc() -> ctypes.CDLL:
    if not _LIBC:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        libc.prctl.restype = ctypes.c_int
        _LIBC.append(libc)
    return _LIBC[0]


def _word(arg: object) -> object:
    # Variadic arguments: an int must be passed as a full register, not as a C int whose
    # upper half is undefined (aarch64).
    return ctypes.c_long(arg) if isinstance(arg, int) else arg


def _syscall(nr: int, *args: object) -> int:
    """One raw syscall through libc; returns its result, or ``-errno`` on failure."""
    ctypes.set_errno(0)
    ret = _libc().syscall(ctypes.c_long(nr), *map(_word, args))
    return ret if ret >= 0 else -ctypes.get_errno()


def _fail(err: int, step: str, path: str | None = None) -> OSError:
    where = f"landlock {step}" + (f" {path!r}" if path is not None else "")
    return OSError(err, f"{where}: {os.strerror(err)}")


def abi_version() -> int:
    """The Landlock ABI this kernel offers, 0 when Landlock is unavailable (not built, not enabled, or not Linux)."""
    if sys.platform != "linux" or os.uname().machine not in _MACHINES:
        return 0
    try:
        ret = _syscall(_SYS_LANDLOCK_CREATE_RULESET, None, 0, _CREATE_RULESET_VERSION)
    except OSError:  # no libc to load
        return 0
    return max(ret, 0)  # -ENOSYS (not built) or -EOPNOTSUPP (not enabled at boot)


def _handled_fs(abi: int) -> int:
    rights = _FS_ABI1
    if abi >= 2:
        rights |= ACCESS_FS_REFER
    if abi >= 3:
        rights |= ACCESS_FS_TRUNCATE
    if abi >= 5:
        rights |= ACCESS_FS_IOCTL_DEV
    return rights


def _add_rules(ruleset: int, paths: Iterable[str], rights: int) -> None:
    """One path-beneath rule per existing path; files get only the file rights."""
    for path in paths:
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except (FileNotFoundError, NotADirectoryError):
            continue  # absent on this system: nothing to allow
        except OSError as exc:
            raise _fail(exc.errno or errno.EIO, "open", path) from exc
        try:
            allowed = rights if stat.S_ISDIR(os.fstat(fd).st_mode) else rights & _FILE_ONLY
            attr = _PathBeneathAttr(allowed_access=allowed, parent_fd=fd)
            ret = _syscall(_SYS_LANDLOCK_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(attr), 0)
            if ret < 0:
                raise _fail(-ret, "add_rule", path)
        finally:
            os.close(fd)


def restrict(
    read: Iterable[str],
    write: Iterable[str],
    *,
    list_only: Iterable[str] = (),
    deny_tcp: bool = True,
    scope_signals: bool = True,
    scope_abstract_unix: bool = True,
) -> int:
    """Confine the calling thread's process (and its future children) with Landlock.

    ``read`` paths may be read and executed (files), listed and traversed (directories);
    ``write`` paths get every filesystem right the ABI knows; ``list_only`` directories
    may be listed (and, as Landlock rules apply beneath, the directories under them) but
    no file in them read; everything else gets none.
    ``deny_tcp`` (ABI ≥ 4) forbids every TCP bind and connect; ``scope_signals`` and
    ``scope_abstract_unix`` (ABI ≥ 6) stop signals to, and abstract unix connections to,
    processes outside the domain.  Features the running ABI lacks are left out rather than
    failing, so the result is the best this kernel can do; the return value says which
    ABI level was applied (``min(abi_version(), HIGHEST_USED_ABI)``).

    Sets PR_SET_NO_NEW_PRIVS first (Landlock requires it without CAP_SYS_ADMIN, and a bot
    must not regain privileges through a setuid binary anyway).  Absent paths are skipped.
    Raises OSError naming the failed step and path; OSError(ENOSYS) without Landlock.
    """
    abi = abi_version()
    if abi <= 0:
        raise _fail(errno.ENOSYS, "unavailable")
    fs = _handled_fs(abi)
    net = ACCESS_NET_BIND_TCP | ACCESS_NET_CONNECT_TCP if deny_tcp and abi >= 4 else 0
    scoped = 0
    if abi >= 6:
        scoped = (SCOPE_SIGNAL if scope_signals else 0) | (
            SCOPE_ABSTRACT_UNIX_SOCKET if scope_abstract_unix else 0
        )
    # Pass only the fields in use: a kernel older than a field refuses a struct that has it.
    size = 24 if scoped else 16 if net else 8
    attr = _RulesetAttr(handled_access_fs=fs, handled_access_net=net, scoped=scoped)

    if _libc().prctl(ctypes.c_int(_PR_SET_NO_NEW_PRIVS), *map(ctypes.c_ulong, (1, 0, 0, 0))) != 0:
        raise _fail(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    ruleset = _syscall(_SYS_LANDLOCK_CREATE_RULESET, ctypes.byref(attr), size, 0)
    if ruleset < 0:
        raise _fail(-ruleset, "create_ruleset")
    try:
        _add_rules(ruleset, read, _READ)
        _add_rules(ruleset, list_only, ACCESS_FS_READ_DIR)
        _add_rules(ruleset, write, fs)
        ret = _syscall(_SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0)
        if ret < 0:
            raise _fail(-ret, "restrict_self")
    finally:
        os.close(ruleset)
    return min(abi, HIGHEST_USED_ABI)
