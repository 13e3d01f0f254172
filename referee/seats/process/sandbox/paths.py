"""Where things are: the host's files a bot may see, and the ones it must never see.

Every layer that builds a bot a view of the filesystem (bubblewrap's binds, the
namespaces layer's root, Landlock's read and write rules) starts from these lists, so
they are kept in one place: a directory added here is visible under every layer.

The system directories are the part of the host every bot shares, read-only: the
programs and libraries it runs on.  The secret files and directories lie inside them
(under ``/etc``) and are masked whenever a bot could run as root, the one case where
file permissions would not keep it out.
"""

from __future__ import annotations

from pathlib import Path

from referee.core.botspec import SYSTEM_DIRS as SYSTEM_DIRS

#: Files a bot running as root must not read.
_SECRET_FILES = ("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers")
_SECRET_DIRS = ("/etc/ssh", "/etc/sudoers.d", "/etc/ssl/private")


# SYSTEM_DIRS, the directories a sandboxed bot sees read-only (when they exist), is
# defined with the bot's name (referee.core.botspec), whose manifests may name files
# only there or in the bot's own directory.
#: Also visible, read-only, under the supervised layers: runtimes (the JVM, Go) read
#: the CPU and memory topology there.
_SYSFS = "/sys"
#: The wire modules are public: sandboxed Python bots may import them.
PROTOCOL_DIR = str(Path(__file__).resolve().parents[4] / "protocol")
SUPERVISOR = str(Path(__file__).resolve().parent / "supervisor.py")
#: How the supervisor is run, after ``sys.executable``: imported by ``-c`` rather than
#: run as a script, so that its bytecode is cached like any module's (compiling
#: supervisor.py is ~5 ms of every sandboxed bot's start).  Its arguments follow.
SUPERVISOR_COMMAND = [
    "-I",
    "-S",
    "-c",
    f"import sys; sys.path.insert(0, {str(Path(SUPERVISOR).parent)!r}); import supervisor; supervisor.main()",
]
#: Device files a bot under Landlock alone may write (it reads all of /dev).
_WRITABLE_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty")
