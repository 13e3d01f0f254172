"""A seccomp deny list for a bot: the syscalls no game needs and an attacker would want.

Everything not listed is allowed, so ordinary programs (interpreters, JVMs, shells) run
unchanged; the list removes the kernel's riskiest and most privileged entry points.  The
supervisor calls :func:`install` on itself just before exec'ing the bot; the filter is
inherited across fork and exec and can never be removed.  Standard library only, and no
imports from the ``referee`` package: the supervisor loads this file as a top-level module
under ``python3 -I -S``.

What the program does, in order:

1. A syscall made through a foreign ABI (i386 ``int 0x80`` on x86_64, or x32 numbers)
   kills the process: the deny list below is keyed by native numbers only.  On x86_64
   that includes ``syscall(-1)``, whose number has the x32 bit set.
2. The names of :data:`DENIED_ALWAYS` (and, on request, the IPC, socket or inotify
   lists) fail with EPERM (EACCES for ``socket``); so do ``fcntl(F_SETPIPE_SZ)`` and
   ``prctl(PR_SET_SECCOMP)``.
3. ``clone`` with a namespace flag fails with EPERM; ``clone3`` fails with ENOSYS, since
   its flags sit in memory a filter cannot read (libc then falls back to ``clone``).
4. ``kill(-1, sig)`` fails with EPERM.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
import sys

# ---- syscall numbers (x86_64: asm/unistd_64.h; aarch64: asm-generic/unistd.h) ----------

#: Syscalls added since Linux 5.1 share one number on every architecture.
_UNIFIED: dict[str, int] = {
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "clone3": 435,
    "pidfd_getfd": 438,
    "mount_setattr": 442,
    "quotactl_fd": 443,
    "memfd_secret": 447,
    "open_tree_attr": 467,
}

_X86_64: dict[str, int] = {
    "read": 0,
    "write": 1,
    "futex": 202,
    "shmget": 29,
    "fcntl": 72,
    "prctl": 157,
    "inotify_init": 253,
    "vmsplice": 278,
    "inotify_init1": 294,
    "fanotify_init": 300,
    "seccomp": 317,
    "shmat": 30,
    "shmctl": 31,
    "socket": 41,
    "clone": 56,
    "kill": 62,
    "semget": 64,
    "semop": 65,
    "semctl": 66,
    "shmdt": 67,
    "msgget": 68,
    "msgsnd": 69,
    "msgrcv": 70,
    "msgctl": 71,
    "ptrace": 101,
    "syslog": 103,
    "vhangup": 153,
    "pivot_root": 155,
    "adjtimex": 159,
    "chroot": 161,
    "acct": 163,
    "settimeofday": 164,
    "mount": 165,
    "umount2": 166,
    "swapon": 167,
    "swapoff": 168,
    "reboot": 169,
    "iopl": 172,
    "ioperm": 173,
    "init_module": 175,
    "delete_module": 176,
    "quotactl": 179,
    "lookup_dcookie": 212,
    "semtimedop": 220,
    "clock_settime": 227,
    "mq_open": 240,
    "mq_unlink": 241,
    "mq_timedsend": 242,
    "mq_timedreceive": 243,
    "mq_notify": 244,
    "mq_getsetattr": 245,
    "kexec_load": 246,
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    "unshare": 272,
    "perf_event_open": 298,
    "name_to_handle_at": 303,
    "open_by_handle_at": 304,
    "clock_adjtime": 305,
    "setns": 308,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "kcmp": 312,
    "finit_module": 313,
    "memfd_create": 319,
    "kexec_file_load": 320,
    "bpf": 321,
    "userfaultfd": 323,
    **_UNIFIED,
}

_AARCH64: dict[str, int] = {
    "read": 63,
    "write": 64,
    "futex": 98,
    "lookup_dcookie": 18,
    "inotify_init1": 26,
    "fcntl": 25,
    "vmsplice": 75,
    "prctl": 167,
    "fanotify_init": 262,
    "seccomp": 277,
    "umount2": 39,
    "mount": 40,
    "pivot_root": 41,
    "chroot": 51,
    "vhangup": 58,
    "quotactl": 60,
    "acct": 89,
    "unshare": 97,
    "kexec_load": 104,
    "init_module": 105,
    "delete_module": 106,
    "clock_settime": 112,
    "syslog": 116,
    "ptrace": 117,
    "kill": 129,
    "reboot": 142,
    "settimeofday": 170,
    "adjtimex": 171,
    "mq_open": 180,
    "mq_unlink": 181,
    "mq_timedsend": 182,
    "mq_timedreceive": 183,
    "mq_notify": 184,
    "mq_getsetattr": 185,
    "msgget": 186,
    "msgctl": 187,
    "msgrcv": 188,
    "msgsnd": 189,
    "semget": 190,
    "semctl": 191,
    "semtimedop": 192,
    "semop": 193,
    "shmget": 194,
    "shmctl": 195,
    "shmat": 196,
    "shmdt": 197,
    "socket": 198,
    "add_key": 217,
    "request_key": 218,
    "keyctl": 219,
    "clone": 220,
    "swapon": 224,
    "swapoff": 225,
    "perf_event_open": 241,
    "name_to_handle_at": 264,
    "open_by_handle_at": 265,
    "clock_adjtime": 266,
    "setns": 268,
    "process_vm_readv": 270,
    "process_vm_writev": 271,
    "kcmp": 272,
    "finit_module": 273,
    "memfd_create": 279,
    "bpf": 280,
    "userfaultfd": 282,
    "kexec_file_load": 294,
    **_UNIFIED,
}

SYSCALLS: dict[str, dict[str, int]] = {"x86_64": _X86_64, "aarch64": _AARCH64}
#: seccomp_data.arch of the native 64-bit little-endian ABI (linux/audit.h).
AUDIT_ARCH: dict[str, int] = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_X32_SYSCALL_BIT = 0x40000000

#: Denied with EPERM in every program (where the arch has the syscall): debugging and
#: memory access of other processes, kernel attack surface rarely needed by a user program
#: (bpf, io_uring, userfaultfd, perf, keyrings), memory or kernel objects that no
#: process's RSS shows (memfd_create, memfd_secret, pages pinned by vmsplice, stacked
#: seccomp filters, fanotify groups, counted per user), namespaces and mounts, and
#: host-wide administration (modules, clocks, swap, reboot, kernel log, port I/O).
#: docs/security.md has the audit of every syscall a bot keeps.
DENIED_ALWAYS: tuple[str, ...] = (
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    "perf_event_open", "bpf", "userfaultfd", "memfd_create", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "memfd_secret", "vmsplice", "seccomp", "fanotify_init",
    "keyctl", "add_key", "request_key",
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot",
    "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "open_tree_attr", "mount_setattr",
    "open_by_handle_at", "name_to_handle_at",
    "swapon", "swapoff", "reboot", "kexec_load", "kexec_file_load",
    "init_module", "finit_module", "delete_module", "acct", "quotactl", "quotactl_fd", "lookup_dcookie",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "syslog", "vhangup",
    "iopl", "ioperm",
)  # fmt: skip
#: Added with ``deny_ipc``: System V and POSIX message-queue IPC, which outlives the bot
#: and is shared host-wide when there is no IPC namespace.
DENIED_IPC: tuple[str, ...] = (
    "shmget", "shmat", "shmdt", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl",
    "semget", "semop", "semtimedop", "semctl",
    "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
)  # fmt: skip

#: Added with ``deny_inotify``: inotify instances and watches are counted per user (per
#: user namespace), so without a user namespace of its own a bot could use up the user's.
DENIED_INOTIFY: tuple[str, ...] = ("inotify_init", "inotify_init1")
#: fcntl(F_SETPIPE_SZ) grows a pipe's buffer (up to 1 MiB, kernel memory) and
#: prctl(PR_SET_SECCOMP) stacks a filter as seccomp() does: both fail with EPERM.
F_SETPIPE_SZ = 1031
PR_SET_SECCOMP = 22

#: clone() flags that make a namespace.  CLONE_NEWTIME (0x80) is left out on purpose: in
#: clone()'s flags that bit belongs to the exit-signal byte (clone3 and unshare only).
CLONE_NAMESPACE_FLAGS = (
    0x00020000  # CLONE_NEWNS
    | 0x02000000  # CLONE_NEWCGROUP
    | 0x04000000  # CLONE_NEWUTS
    | 0x08000000  # CLONE_NEWIPC
    | 0x10000000  # CLONE_NEWUSER
    | 0x20000000  # CLONE_NEWPID
    | 0x40000000  # CLONE_NEWNET
)

# ---- classic BPF ------------------------------------------------------------------------

_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JSET_K = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K

RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000
#: Allowed first, before the deny list.
HOT: tuple[str, ...] = ("read", "write", "futex")

# struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6].
_OFF_NR = 0
_OFF_ARCH = 4
_OFF_ARG0_LOW = 16  # little-endian: the low word of args[0] comes first
_OFF_ARG1_LOW = 24
_BPF_MAXINSNS = 4096

_SECCOMP_SET_MODE_FILTER = 1
_SECCOMP_FILTER_FLAG_TSYNC = 1
_PR_SET_NO_NEW_PRIVS = 38
_SYS_SECCOMP = {"x86_64": 317, "aarch64": 277}


def _stmt(code: int, k: int) -> bytes:
    """One struct sock_filter without jumps: {u16 code; u8 jt; u8 jf; u32 k}."""
    return struct.pack("=HBBI", code, 0, 0, k)


def _jump(code: int, k: int, jt: int, jf: int) -> bytes:
    """A conditional jump; jt/jf count instructions skipped (at most 255 each)."""
    if not (0 <= jt <= 255 and 0 <= jf <= 255):
        raise ValueError(f"BPF jump offset out of range: {jt}, {jf}")
    return struct.pack("=HBBI", code, jt, jf, k)


def arch() -> str | None:
    """The arch name, "x86_64" or "aarch64", when a filter can be built for this machine, else None."""
    if sys.platform != "linux" or struct.calcsize("P") != 8:
        return None  # a 32-bit interpreter on a 64-bit kernel makes foreign-ABI syscalls
    machine = os.uname().machine
    machine = "aarch64" if machine == "arm64" else machine
    return machine if machine in SYSCALLS else None


def build(*, deny_ipc: bool = False, deny_sockets: bool = False, deny_inotify: bool = False) -> bytes:
    """The BPF program (struct sock_filter[], 8 bytes each) for the running arch.

    Cached per (arch, flags): it runs for every bot start.  Raises OSError(ENOSYS) when
    :func:`arch` is None.
    """
    name = arch()
    if name is None:
        raise OSError(errno.ENOSYS, f"seccomp: no filter for {os.uname().machine!r} ({sys.platform})")
    return build_for(name, deny_ipc=deny_ipc, deny_sockets=deny_sockets, deny_inotify=deny_inotify)


def build_for(
    name: str, *, deny_ipc: bool = False, deny_sockets: bool = False, deny_inotify: bool = False
) -> bytes:
    """The program for the named arch (``"x86_64"`` or ``"aarch64"``), wherever we run
    (built once for each arch and choice of lists)."""
    key = (name, deny_ipc, deny_sockets, deny_inotify)
    program = _BUILT.get(key)
    if program is None:
        program = _BUILT[key] = _build_for(name, deny_ipc, deny_sockets, deny_inotify)
    return program


#: build_for's programs (functools.lru_cache, without importing functools: the
#: supervisor's start).  At most 2 arches × 8 choices.
_BUILT: dict[tuple[str, bool, bool, bool], bytes] = {}


def _build_for(name: str, deny_ipc: bool, deny_sockets: bool, deny_inotify: bool) -> bytes:
    table = SYSCALLS[name]
    eperm = _stmt(_RET_K, RET_ERRNO | errno.EPERM)
    prog = [
        _stmt(_LD_W_ABS, _OFF_ARCH),
        _jump(_JEQ_K, AUDIT_ARCH[name], 1, 0),
        _stmt(_RET_K, RET_KILL_PROCESS),
        _stmt(_LD_W_ABS, _OFF_NR),
    ]
    if name == "x86_64":  # x32 numbers reach the same kernel with this bit set
        prog += [_jump(_JSET_K, _X32_SYSCALL_BIT, 0, 1), _stmt(_RET_K, RET_KILL_PROCESS)]
    # A bot's hot path (its reads and writes of lines, its threads' futexes) is allowed
    # at once instead of after the whole deny list: every decision makes these calls.
    for syscall in HOT:
        prog.extend((_jump(_JEQ_K, table[syscall], 0, 1), _stmt(_RET_K, RET_ALLOW)))

    def deny(names: tuple[str, ...], ret: bytes) -> None:
        for syscall in names:
            if syscall in table:
                prog.extend((_jump(_JEQ_K, table[syscall], 0, 1), ret))

    deny(DENIED_ALWAYS, eperm)
    if deny_ipc:
        deny(DENIED_IPC, eperm)
    if deny_sockets:
        deny(("socket",), _stmt(_RET_K, RET_ERRNO | errno.EACCES))
    if deny_inotify:
        deny(DENIED_INOTIFY, eperm)
    # fcntl(fd, F_SETPIPE_SZ, …) and prctl(PR_SET_SECCOMP, …): the second argument's or
    # the first's low word (the kernel takes both as 32-bit ints).
    for syscall, offset, value in (
        ("fcntl", _OFF_ARG1_LOW, F_SETPIPE_SZ),
        ("prctl", _OFF_ARG0_LOW, PR_SET_SECCOMP),
    ):
        prog += [
            _jump(_JEQ_K, table[syscall], 0, 4),
            _stmt(_LD_W_ABS, offset),
            _jump(_JEQ_K, value, 0, 1),
            eperm,
            _stmt(_RET_K, RET_ALLOW),
        ]
    prog += [_jump(_JEQ_K, table["clone3"], 0, 1), _stmt(_RET_K, RET_ERRNO | errno.ENOSYS)]
    # clone: args[0] is the flags on both arches; the namespace bits are all in its low word.
    prog += [
        _jump(_JEQ_K, table["clone"], 0, 4),
        _stmt(_LD_W_ABS, _OFF_ARG0_LOW),
        _jump(_JSET_K, CLONE_NAMESPACE_FLAGS, 0, 1),
        eperm,
        _stmt(_RET_K, RET_ALLOW),
    ]
    # kill(-1): the kernel truncates pid to a 32-bit int, so the low word is the whole test.
    prog += [
        _jump(_JEQ_K, table["kill"], 0, 4),
        _stmt(_LD_W_ABS, _OFF_ARG0_LOW),
        _jump(_JEQ_K, 0xFFFFFFFF, 0, 1),
        eperm,
        _stmt(_RET_K, RET_ALLOW),
    ]
    prog.append(_stmt(_RET_K, RET_ALLOW))
    return b"".join(prog)


class _SockFprog(ctypes.Structure):
    _fields_ = (("len", ctypes.c_ushort), ("filter", ctypes.c_void_p))


def install(program: bytes) -> None:
    """Set PR_SET_NO_NEW_PRIVS, then load ``program`` as a seccomp filter on every thread.

    Uses seccomp(2) with SECCOMP_FILTER_FLAG_TSYNC so no thread of the caller stays
    unfiltered.  Irreversible.  Raises OSError (ENOSYS when :func:`arch` is None).
    """
    name = arch()
    if name is None:
        raise OSError(errno.ENOSYS, "seccomp: unsupported machine")
    count, rest = divmod(len(program), 8)
    if rest or not 0 < count <= _BPF_MAXINSNS:
        raise OSError(errno.EINVAL, f"seccomp: a program of {len(program)} bytes is not 1..4096 instructions")
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    ctypes.set_errno(0)
    if libc.prctl(ctypes.c_int(_PR_SET_NO_NEW_PRIVS), *map(ctypes.c_ulong, (1, 0, 0, 0))) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"seccomp: prctl(PR_SET_NO_NEW_PRIVS): {os.strerror(err)}")
    buf = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len=count, filter=ctypes.addressof(buf))
    ret = libc.syscall(
        ctypes.c_long(_SYS_SECCOMP[name]),
        ctypes.c_long(_SECCOMP_SET_MODE_FILTER),
        ctypes.c_long(_SECCOMP_FILTER_FLAG_TSYNC),
        ctypes.byref(fprog),
    )
    if ret < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"seccomp(SECCOMP_SET_MODE_FILTER): {os.strerror(err)}")
    if ret > 0:  # TSYNC failed: the result is the id of a thread that could not follow
        raise OSError(errno.EBUSY, f"seccomp: thread {ret} could not take the filter")
