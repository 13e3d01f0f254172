"""Step 1 of ``referee grade``: unpack every student's submission, safely, into ``DEST/<id>/``.

``SUBMISSIONS_DIR`` holds one entry per student, as learning-management systems export
them: a folder, or a ``.zip``, ``.tar.gz``, ``.tgz`` or ``.tar`` archive (``.tar.bz2``,
``.tbz2``, ``.tar.xz`` and ``.txz`` too).  :func:`unpack_all` turns each entry into either
an :class:`Unpacked` tree under ``DEST`` (``DIR/submissions`` for ``referee grade … --out
DIR``) or a :class:`Refused` with a named outcome and a one-line reason for the student
and the TA.  Nothing from a submission runs here, so no sandbox is needed — but every
archive is hostile input, and every rule below is there because an archive can lie.

Where files may go
------------------

**Nothing is ever written outside** ``DEST/<id>``.  A member path is refused
(``unsafe-path``) when it is absolute (a leading ``/`` or a drive letter such as ``C:``),
has a ``..`` component anywhere (even ``a/../b``, which would stay inside: no student
needs one, and a rule with no exception is one that cannot be got wrong), has a NUL byte,
a name longer than 255 bytes, more than ``max_depth`` components or more than 2048 bytes
(so that ``DEST/…/path`` stays under ``PATH_MAX`` and a write cannot fail halfway), appears
twice (which copy is the real one would be a guess — the rule of duplicate ids below), or
is both a file and a folder (or collides with another on a case-insensitive ``DEST``).
In a zip, ``\\`` is a folder separator: the zip format requires ``/``, and
the Windows tools that wrote ``\\`` meant one — so ``..\\evil`` is ``..`` then ``evil``,
and refused.  Empty and ``.`` components (``./a``, ``a//b``) are dropped.

Files are created by this module alone, one validated component at a time, with
``O_EXCL | O_NOFOLLOW``, in a fresh directory: no path can resolve anywhere else, because
no symlink is ever created and none that exists is ever followed.

**Links become copies.**  A symlink or hard link (in a tar; a symlink in a zip made with
``zip -y`` or in a folder) whose target, resolved lexically from where the link sits (from
the archive's root for a hard link), stays inside the submission and is a file there, is
kept as a *copy of the target's content* (with the target's executable bit): a student's
``lib.so -> lib.so.1`` keeps working, and the tree holds plain files only.  A target that
is absolute or climbs out of the submission refuses the whole submission
(``symlink-outside``): it is never innocent in a submission, and a link kept as a link
would point into the grader's machine.  A link to a folder, a dangling link and a loop of
links are left out and listed in :attr:`Unpacked.skipped` (copying a folder link could
copy a tree into itself).  Content is only ever read from archive members or, for a
folder, from files found by a walk that never follows a link, opened ``O_NOFOLLOW``.

**Special files** — devices, FIFOs, sockets, unknown tar member types — refuse the
submission (``special-file``): a bot needs none, and opening a FIFO blocks.

Limits, and why they are checked twice
--------------------------------------

An archive's declared sizes are claims.  They are checked first, so that most bombs are
refused before a byte is inflated: more than ``max_files`` entries (``too-many-files``,
counted while listing, before anything is extracted), a file above ``max_file_bytes`` or
files adding up to more than ``max_bytes`` (``too-large``; link copies count too), a zip
member above 1 MiB that claims to inflate more than ``max_ratio`` times
(``zip-bomb``).  Then every copy is **metered while it streams**: a member that turns
out bigger than declared, more inflated than ``max_ratio``, or that takes a file or the
total over its limit stops the copy at that chunk.  A tar's decompressed stream is
bounded as a whole too (``max_bytes`` plus 4 KiB of headers per allowed entry): a tar
header can make :mod:`tarfile` read a whole "pax header" into memory, and skipping a
member means inflating it.  An archive file larger than that bound is refused before it
is opened.

Permissions and times
---------------------

Files are written ``0o644``, or ``0o755`` when the member had any executable bit (a
student's ``run.sh`` must stay runnable); folders ``0o755``.  Never setuid, setgid or
sticky; ownership and modification times are not restored (the grader owns the tree, and
mtimes would make the same tree look different).  Only files are kept: a folder exists
because a file is in it, so an empty folder is not reproduced (as in git) and the tree is
exactly what its content hash describes.

The shape of a submission
-------------------------

``__MACOSX/`` (Finder's resource forks), ``.DS_Store`` and ``._*`` (AppleDouble
metadata) members are left out and listed in :attr:`Unpacked.skipped`.  When every kept
file then sits under one top-level folder (``alice.zip`` → ``alice/…`` or
``submission/…``, the common LMS shape), that folder is **flattened away**, one level, so
the bot's files sit at ``DEST/<id>/``.  The rule holds for every format, folders included,
so that the same files give the same tree and the same hash however they were handed in.

A submission with no file left is ``empty`` (a zero-byte archive too); an archive its
library cannot read is ``corrupt-archive`` (the library's message, on one line); a
member that is encrypted or uses a compression method Python cannot read, or an entry
that is neither a folder nor an archive (``alice.pdf``), is ``unsupported``; an entry
that cannot be read at all (permissions) is ``unreadable``.

Student ids
-----------

The id is the entry's name less its archive suffix (matched case-insensitively:
``alice.ZIP`` is ``alice``), normalised to Unicode NFC (macOS writes NFD), and made
safe rather than refused: bytes that are not UTF-8, control and format characters
(including bidi overrides), whitespace other than a plain space, ``/``, ``\\`` and
``%`` itself are written ``%XX`` (each byte of their UTF-8; an undecodable byte as
itself).  Escaping ``%`` keeps the mapping one-to-one, so no two names collide by
escaping.  :attr:`Refused.source` and :attr:`Unpacked.source` keep the original name as
:func:`os.fsdecode` gives it (``os.fsencode(source)`` is the name on disk).  Only an id
longer than 200 bytes once escaped is refused (``bad-name``): later steps name files
after it.

Two entries with the same id (``alice.zip`` and ``alice/``) are both refused
(``duplicate-id``): which one the student meant is theirs to say, not ours to guess.
Hidden entries (``.DS_Store``, ``.git``) and ``__MACOSX`` at the top of
``SUBMISSIONS_DIR`` are not submissions and are ignored.  A symlink at the top is the
TA's own and is followed (a student cannot put one there); links inside a submission are
not.

Atomic trees, and re-running
----------------------------

Each submission is extracted into a fresh hidden sibling (``DEST/.unpack-…``) and renamed
into place only when complete, so a refused student leaves no partial tree behind.  On a
re-run an existing ``DEST/<id>`` is renamed aside, the new tree renamed in, and the old one
deleted: ``DEST/<id>`` is always a complete tree (old or new) or absent, never half
written (a crash between the two renames leaves it absent; Linux's
``renameat2(RENAME_EXCHANGE)`` would close that gap but is not in the standard library).
A student refused on a re-run loses their old tree, so that after :func:`unpack_all`
``DEST/<id>`` exists exactly for the :class:`Unpacked` results.  Leftover ``.unpack-…``
directories of a crashed run are removed at the start of the next: one run per ``DEST``
at a time.

Content hash
------------

:attr:`Unpacked.content_hash` identifies the tree, not the archive: the same files with
the same executable bits give the same hash whatever the format, the compression, the
member order or the mtimes.  It is the SHA-256 of, for each file in byte order of its
relative path (``/``-separated, as bytes): the path's length as 4 big-endian bytes, the
path, ``x`` or ``-``, and the 32-byte SHA-256 of the file's content.  ``--resume`` can
unpack again and compare.

A failure of ``DEST`` itself (disk full, no permission) is not a student's fault and
raises :class:`OSError` rather than refusing everyone.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import lzma
import os
import secrets
import shutil
import stat
import tarfile
import tempfile
import unicodedata
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

MiB = 1 << 20

#: Every :attr:`Refused.outcome`, for reports and tests.
OUTCOMES = (
    "empty",
    "unsafe-path",
    "symlink-outside",
    "special-file",
    "too-many-files",
    "too-large",
    "zip-bomb",
    "corrupt-archive",
    "unsupported",
    "unreadable",
    "duplicate-id",
    "bad-name",
)
#: Archive suffixes (matched case-insensitively) and the reader each one takes.
SUFFIXES: dict[str, str] = {
    ".tar.gz": "tar",
    ".tar.bz2": "tar",
    ".tar.xz": "tar",
    ".tgz": "tar",
    ".tbz2": "tar",
    ".txz": "tar",
    ".tar": "tar",
    ".zip": "zip",
}
#: Top-level entries of SUBMISSIONS_DIR that are never submissions (besides hidden ones).
IGNORED_ENTRIES = frozenset({"__MACOSX"})

_TEMP_PREFIX = ".unpack-"  # never a student id: ids never start with "."
_CHUNK = 1 << 16
_RATIO_FLOOR = MiB  # a zip member's ratio is judged above this size only: tiny files compress wildly
_HEADER_BYTES = 4096  # a tar's allowance of header bytes per entry, for the stream bound
_MAX_ID_BYTES = 200
_MAX_NAME_BYTES = 255  # NAME_MAX on Linux
_MAX_PATH_BYTES = 2048  # leaves DEST/.unpack-…/ room under PATH_MAX (4096)
_MAX_LINK_HOPS = 40  # as the kernel's ELOOP
_MAX_LINK_TARGET = 4096  # PATH_MAX
_TAR_SPECIALS = {
    tarfile.CHRTYPE: "a character device",
    tarfile.BLKTYPE: "a block device",
    tarfile.FIFOTYPE: "a FIFO",
}
_ZIP_METHODS = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA}
_FILE_KINDS = {
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
}


@dataclass(frozen=True)
class UnpackLimits:
    """What one submission may hold; beyond it the submission is refused, not trimmed."""

    max_files: int = 10_000  # entries in one submission (folders and links count)
    max_bytes: int = 200 * MiB  # total uncompressed bytes of one submission
    max_file_bytes: int = 100 * MiB
    max_ratio: float = 200.0  # uncompressed/compressed for a zip member above 1 MiB (zip bombs)
    max_depth: int = 32  # path components
    #: Refuse (``unsafe-path``) a name holding a control or format character or an
    #: undecodable byte: a built tree's names reach a TA's terminal through ``find`` or
    #: ``tar tv``, where ``\x1b]0;…\x07`` is an escape sequence (issue 27).
    printable_names: bool = False


@dataclass(frozen=True)
class Unpacked:
    """A submission unpacked into :attr:`path`."""

    student: str  # the id: the entry's name less its suffix, made safe
    source: str  # the entry's name in SUBMISSIONS_DIR (os.fsdecode form)
    path: Path  # DEST/<id>
    files: int
    bytes: int
    content_hash: str  # hex SHA-256 of the tree: see the module's docstring
    skipped: list[str]  # members left out, each with why


@dataclass(frozen=True)
class Refused:
    """A submission not unpacked; ``DEST/<id>`` does not exist."""

    student: str
    source: str
    outcome: str  # one of OUTCOMES: "empty", "unsafe-path", "symlink-outside", … (module docstring)
    reason: str  # one line for the student and the TA


class _Refusal(Exception):
    """Raised anywhere below to refuse the submission being unpacked."""

    def __init__(self, outcome: str, reason: str) -> None:
        super().__init__(reason)
        self.outcome = outcome
        self.reason = reason


# --------------------------------------------------------------------------- ids


def student_id(entry_name: str) -> str | None:
    """The student id of an entry of SUBMISSIONS_DIR, or None for an entry to ignore.

    ``entry_name`` is a name as :func:`os.listdir` returns it (undecodable bytes as
    surrogate escapes).  The archive suffix goes, the rest is NFC-normalised and escaped
    (module docstring, "Student ids"): ``"alice.tar.gz"`` → ``"alice"``,
    ``os.fsdecode(b"\\xffbob.zip")`` → ``"%FFbob"``, ``"50%.zip"`` → ``"50%25"``.
    """
    if entry_name.startswith(".") or entry_name in IGNORED_ENTRIES:
        return None
    stem = entry_name
    suffix = archive_suffix(entry_name)
    if suffix is not None:
        stem = entry_name[: -len(suffix)]
    return "".join(_escape_char(c) for c in unicodedata.normalize("NFC", stem))


def archive_suffix(name: str) -> str | None:
    lowered = name.lower()
    return next((s for s in SUFFIXES if lowered.endswith(s) and len(name) > len(s)), None)


def _escape_char(c: str) -> str:
    """``c`` itself when it is safe in an id, else ``%XX`` for each of its bytes."""
    code = ord(c)
    if 0xDC80 <= code <= 0xDCFF:  # os.fsdecode's escape of an undecodable byte
        return f"%{code - 0xDC00:02X}"
    category = unicodedata.category(c)
    unsafe = c in "%\\/" or category in ("Cc", "Cf", "Cs", "Zl", "Zp") or (category == "Zs" and c != " ")
    if not unsafe:
        return c
    return "".join(f"%{b:02X}" for b in c.encode("utf-8", "surrogatepass"))


def _check_id(student: str) -> None:
    if len(student.encode("utf-8")) > _MAX_ID_BYTES:
        raise _Refusal("bad-name", f"the name is longer than {_MAX_ID_BYTES} bytes; rename it shorter")


# --------------------------------------------------------------------------- the two entry points


def unpack_all(
    submissions: Path, dest: Path, limits: UnpackLimits = UnpackLimits()
) -> list[Unpacked | Refused]:
    """Unpack every entry of ``submissions`` into ``dest/<id>``, one result per entry, sorted by id.

    A bad entry never raises: it becomes a :class:`Refused`.  Raises :class:`ValueError`
    (one line) when ``submissions`` is not a readable directory, or when ``dest`` and
    ``submissions`` lie inside one another (the trees would be read as submissions, or a
    tree's replacement would delete submissions).
    """
    names = _entry_names(submissions)
    _prepare(dest, submissions)
    by_id: dict[str, list[str]] = {}
    for name in names:
        student = student_id(name)
        if student is not None:
            by_id.setdefault(student, []).append(name)
    results: list[Unpacked | Refused] = []
    for student in sorted(by_id):
        sources = sorted(by_id[student])
        if len(sources) == 1:
            results.append(unpack_one(submissions / sources[0], dest, limits))
            continue
        _discard(dest / student)
        shown = ", ".join(_show(s) for s in sources)
        reason = f"{len(sources)} entries are named {_q(student)} ({shown}); submit exactly one"
        results.extend(Refused(student, source, "duplicate-id", reason) for source in sources)
    return results


def unpack_one(entry: Path, dest: Path, limits: UnpackLimits = UnpackLimits()) -> Unpacked | Refused:
    """Unpack one entry of SUBMISSIONS_DIR into ``dest/<id>``, replacing any earlier tree.

    Never raises for a bad entry (only for a failure of ``dest`` itself); raises
    :class:`ValueError` for an entry that is not a submission at all (:func:`student_id`
    is None: a hidden name).
    """
    student = student_id(entry.name)
    if student is None:
        raise ValueError(f"{_q(entry.name)} is a hidden entry, not a submission")
    final = dest / student
    try:
        _check_id(student)
        dest.mkdir(parents=True, exist_ok=True)
        reader = _open_reader(entry, limits)
        try:
            tmp = Path(tempfile.mkdtemp(prefix=_TEMP_PREFIX, dir=dest))
            try:
                files, size, digest, skipped = _unpack(reader, tmp, limits)
            except BaseException:
                _remove(tmp)
                raise
        finally:
            reader.close()
        _install(tmp, final)
    except _Refusal as refusal:
        if refusal.outcome != "bad-name":
            _discard(final)
        return Refused(student, entry.name, refusal.outcome, refusal.reason)
    return Unpacked(student, entry.name, final, files, size, digest, skipped)


def _entry_names(submissions: Path) -> list[str]:
    if not submissions.is_dir():
        raise ValueError(f"{submissions}: not a directory")
    try:
        return os.listdir(submissions)
    except OSError as e:
        raise ValueError(f"{submissions}: cannot list it ({e.strerror})") from None


def _prepare(dest: Path, submissions: Path) -> None:
    """Create ``dest``, refuse overlapping folders, and clear a crashed run's leftovers."""
    here, there = dest.resolve(), submissions.resolve()
    if here == there or there in here.parents or here in there.parents:
        raise ValueError(f"{dest} and {submissions} must not lie inside one another")
    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ValueError(f"{dest}: cannot create it ({e.strerror})") from None
    for name in os.listdir(dest):
        if name.startswith(_TEMP_PREFIX):
            _remove(dest / name)


# --------------------------------------------------------------------------- installing trees


def _install(tmp: Path, final: Path) -> None:
    """Rename the finished tree ``tmp`` to ``final``, replacing an earlier tree without a half state."""
    os.chmod(tmp, 0o755)  # mkdtemp made it 0o700
    if not os.path.lexists(final):
        os.rename(tmp, final)
        return
    old = tmp.with_name(tmp.name + "-old")  # unique because tmp's name is; cleared on restart
    os.rename(final, old)
    os.rename(tmp, final)
    _remove(old)


def _discard(final: Path) -> None:
    """Remove an earlier tree at ``final``: renamed aside first, so it vanishes at once."""
    if os.path.lexists(final):
        aside = final.with_name(f"{_TEMP_PREFIX}{secrets.token_hex(8)}-gone")
        os.rename(final, aside)
        _remove(aside)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)  # never follows links (fd-based on Linux)
    else:
        path.unlink(missing_ok=True)


# --------------------------------------------------------------------------- readers
#
# A reader lists an entry's members as _Member records (names as stored, unchecked) and
# streams a file member's content.  The rules live in _survey, _plan and _write_tree,
# shared by all three formats, so that a zip, a tar and a folder are judged alike.


@dataclass(slots=True)
class _Member:
    """One member as its archive (or folder) states it; nothing here is trusted yet."""

    name: str  # "/"-separated path as stored
    kind: str  # "file", "dir", "symlink", "hardlink" or "special"
    mode: int = 0  # permission bits as stored (0 when the format has none)
    size: int = 0  # declared uncompressed size of a file
    target: str = ""  # a link's target as stored
    packed: int | None = None  # compressed size (zip members only)
    special: str = ""  # what a special member is, for the reason
    # The reader's handle: a ZipInfo, a TarInfo or a path.
    ref: zipfile.ZipInfo | tarfile.TarInfo | str | None = None


class _Reader(Protocol):
    def members(self) -> Iterator[_Member]: ...
    def chunks(self, member: _Member) -> Iterator[bytes]: ...
    def close(self) -> None: ...


def _open_reader(entry: Path, limits: UnpackLimits) -> _Reader:
    """A reader for ``entry``, or a refusal for what cannot be one."""
    try:
        info = os.stat(entry)  # follows a top-level link: the TA's, not a student's
    except OSError as e:
        raise _Refusal("unreadable", f"cannot read {_q(entry.name)} ({e.strerror})") from None
    if stat.S_ISDIR(info.st_mode):
        return _FolderReader(entry)
    if not stat.S_ISREG(info.st_mode):
        kind = _FILE_KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file")
        raise _Refusal("special-file", f"{_q(entry.name)} is {kind}")
    suffix = archive_suffix(entry.name)
    if suffix is None:
        raise _Refusal(
            "unsupported",
            f"{_q(entry.name)} is neither a folder nor a .zip, .tar.gz, .tgz or .tar archive",
        )
    if info.st_size == 0:
        raise _Refusal("empty", f"{_q(entry.name)} is an empty file (0 bytes)")
    if info.st_size > _stream_bound(limits):
        raise _Refusal("too-large", f"the archive is {_size(info.st_size)}, more than a submission may hold")
    return _ZipReader(entry) if SUFFIXES[suffix] == "zip" else _TarReader(entry, limits)


def _stream_bound(limits: UnpackLimits) -> int:
    """Most bytes an archive (or a tar's decompressed stream) may span: data plus headers."""
    return limits.max_bytes + (limits.max_files + 2) * _HEADER_BYTES


def _open_file(path: Path):
    try:
        return open(path, "rb")
    except OSError as e:
        raise _Refusal("unreadable", f"cannot read {_q(path.name)} ({e.strerror})") from None


def _corrupt(e: BaseException) -> _Refusal:
    return _Refusal("corrupt-archive", f"the archive cannot be read: {_one_line(e)}")


class _ZipReader:
    def __init__(self, path: Path) -> None:
        self._file = _open_file(path)
        try:
            self._zip = zipfile.ZipFile(self._file)
        except Exception as e:  # zipfile raises more than BadZipFile on hostile input
            self._file.close()
            raise _corrupt(e) from None

    def members(self) -> Iterator[_Member]:
        for info in self._zip.infolist():
            name = info.filename.replace("\\", "/")  # the zip format requires "/": "\" meant one
            # Unix zips keep st_mode in the high 16 bits; others (Windows) have no modes.
            mode = info.external_attr >> 16 if info.create_system == 3 else 0
            kind = stat.S_IFMT(mode)
            if name.endswith("/") or kind == stat.S_IFDIR:
                yield _Member(name, "dir")
                continue
            self._check_readable(info, name)
            if kind == stat.S_IFLNK:
                yield _Member(name, "symlink", target=self._link_target(info, name))
            elif kind in (0, stat.S_IFREG):
                yield _Member(
                    name, "file", mode & 0o7777, info.file_size, packed=info.compress_size, ref=info
                )
            else:
                yield _Member(name, "special", special=_FILE_KINDS.get(kind, "a special file"))

    @staticmethod
    def _check_readable(info: zipfile.ZipInfo, name: str) -> None:
        if info.flag_bits & 0x1:
            raise _Refusal("unsupported", f"{_q(name)} is encrypted; submit the archive without a password")
        if info.compress_type not in _ZIP_METHODS:
            raise _Refusal(
                "unsupported",
                f"{_q(name)} uses zip compression method {info.compress_type}; re-zip with plain deflate",
            )

    def _link_target(self, info: zipfile.ZipInfo, name: str) -> str:
        """A zip symlink's target is its content (``zip -y``)."""
        if info.file_size > _MAX_LINK_TARGET:
            raise _Refusal("unsafe-path", f"the link {_q(name)} has a target longer than {_MAX_LINK_TARGET}")
        return b"".join(self.chunks(_Member(name, "file", ref=info))).decode("utf-8", "surrogateescape")

    def chunks(self, member: _Member) -> Iterator[bytes]:
        assert isinstance(member.ref, zipfile.ZipInfo)  # as members() made it
        try:
            with self._zip.open(member.ref) as stream:
                while chunk := stream.read(_CHUNK):
                    yield chunk
        except _Refusal:
            raise
        except NotImplementedError as e:
            raise _Refusal("unsupported", f"{_q(member.name)}: {_one_line(e)}") from None
        except Exception as e:
            raise _corrupt(e) from None

    def close(self) -> None:
        self._zip.close()
        self._file.close()


class _Bounded:
    """A read-only window on a (decompressed) stream that refuses to go past ``limit`` bytes.

    :mod:`tarfile` reads a pax or GNU long-name header whole, of whatever size it
    declares, and skips a member by inflating it: bounding the stream bounds both.
    """

    def __init__(self, stream, limit: int) -> None:
        self._stream, self._limit, self._pos = stream, limit, 0

    def _reach(self, end: int) -> None:
        if end > self._limit:
            raise _Refusal("too-large", f"the archive unpacks to more than {_size(self._limit)}")

    def read(self, n: int | None = -1) -> bytes:
        if n is None or n < 0:
            n = self._limit - self._pos + 1  # more than allowed: _reach refuses
        self._reach(self._pos + n)
        data = self._stream.read(n)
        self._pos += len(data)
        return data

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        target = offset if whence == os.SEEK_SET else self._pos + offset
        if whence not in (os.SEEK_SET, os.SEEK_CUR) or target < 0:
            raise OSError("unsupported seek")
        self._reach(target)
        self._stream.seek(target)
        self._pos = target
        return target

    def tell(self) -> int:
        return self._pos

    def write(self, data: bytes) -> int:
        raise OSError("read-only")

    def close(self) -> None:
        """Nothing to close: the stream beneath is its opener's."""


def _decompressed(raw):
    """``raw`` seen through the decompressor its magic bytes name (or as is: a plain tar)."""
    head = raw.read(6)
    raw.seek(0)
    if head.startswith(b"\x1f\x8b"):
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if head.startswith(b"BZh"):
        return bz2.BZ2File(raw)
    if head.startswith(b"\xfd7zXZ\x00"):
        return lzma.LZMAFile(raw)
    return raw


class _TarReader:
    def __init__(self, path: Path, limits: UnpackLimits) -> None:
        self._file = _open_file(path)
        try:
            stream = _Bounded(_decompressed(self._file), _stream_bound(limits))
            self._tar = tarfile.open(fileobj=stream, mode="r:")  # noqa: SIM115 - closed in close()
        except _Refusal:
            self._file.close()
            raise
        except Exception as e:
            self._file.close()
            raise _corrupt(e) from None

    def members(self) -> Iterator[_Member]:
        while True:
            try:
                info = self._tar.next()  # one header at a time: the caller's count cap stops it
            except _Refusal:
                raise
            except Exception as e:
                raise _corrupt(e) from None
            if info is None:
                return
            yield self._member(info)

    @staticmethod
    def _member(info: tarfile.TarInfo) -> _Member:
        if info.isreg():
            return _Member(info.name, "file", info.mode, info.size, ref=info)
        if info.isdir():
            return _Member(info.name, "dir")
        if info.issym():
            return _Member(info.name, "symlink", target=info.linkname)
        if info.islnk():
            return _Member(info.name, "hardlink", target=info.linkname)
        unknown = f"a member of unknown tar type '{info.type.decode('latin-1')}'"
        special = _TAR_SPECIALS.get(info.type, unknown)
        return _Member(info.name, "special", special=special)

    def chunks(self, member: _Member) -> Iterator[bytes]:
        assert isinstance(member.ref, tarfile.TarInfo)  # as members() made it
        try:
            stream = self._tar.extractfile(member.ref)
            assert stream is not None  # a regular member always has data
            with stream:
                while chunk := stream.read(_CHUNK):
                    yield chunk
        except _Refusal:
            raise
        except Exception as e:
            raise _corrupt(e) from None

    def close(self) -> None:
        self._tar.close()
        self._file.close()


class _FolderReader:
    """A folder the LMS already unpacked, walked without following a single link."""

    def __init__(self, root: Path) -> None:
        self._root = root

    def members(self) -> Iterator[_Member]:
        yield from self._walk(str(self._root), "")

    def _walk(self, path: str, prefix: str) -> Iterator[_Member]:
        try:
            with os.scandir(path) as entries:
                for entry in entries:  # unsorted: a huge folder is cut off by the count cap
                    yield from self._member(entry, prefix + entry.name)
        except OSError as e:
            raise _Refusal("unreadable", f"cannot read {_q(prefix or '.')} ({e.strerror})") from None

    def _member(self, entry: os.DirEntry, name: str) -> Iterator[_Member]:
        info = entry.stat(follow_symlinks=False)
        kind = stat.S_IFMT(info.st_mode)
        if kind == stat.S_IFDIR:
            yield _Member(name + "/", "dir")
            yield from self._walk(entry.path, name + "/")
        elif kind == stat.S_IFLNK:
            yield _Member(name, "symlink", target=os.readlink(entry.path))
        elif kind == stat.S_IFREG:
            yield _Member(name, "file", info.st_mode & 0o7777, info.st_size, ref=entry.path)
        else:
            yield _Member(name, "special", special=_FILE_KINDS.get(kind, "a special file"))

    def chunks(self, member: _Member) -> Iterator[bytes]:
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a FIFO swapped in
        assert isinstance(member.ref, str)  # the path members() found
        try:
            fd = os.open(member.ref, flags)
        except OSError as e:
            raise _Refusal("unreadable", f"cannot read {_q(member.name)} ({e.strerror})") from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise _Refusal("special-file", f"{_q(member.name)} is not a regular file")
            yield from _read_fd(fd, member.name)
        finally:
            os.close(fd)

    def close(self) -> None:
        pass


def _read_fd(fd: int, name: str) -> Iterator[bytes]:
    while True:
        try:
            chunk = os.read(fd, _CHUNK)
        except OSError as e:
            raise _Refusal("unreadable", f"cannot read {_q(name)} ({e.strerror})") from None
        if not chunk:
            return
        yield chunk


# --------------------------------------------------------------------------- the rules


@dataclass(slots=True)
class _Listed:
    """A member whose path passed the checks: ``parts`` from the archive's root."""

    parts: tuple[str, ...]
    member: _Member
    target: tuple[str, ...] | None = None  # a link's target, resolved lexically inside the archive


@dataclass(slots=True)
class _Output:
    """A file to write: a file member, or a copy of the file a link resolves to."""

    parts: tuple[str, ...]  # from the archive's root (before flattening)
    member: _Member  # the file member whose content and mode it gets
    copy_of: tuple[str, ...] | None = None  # for a link: the parts of the file it copies


def _unpack(reader: _Reader, root: Path, limits: UnpackLimits) -> tuple[int, int, str, list[str]]:
    """Check ``reader``'s members, then write them under ``root``: (files, bytes, hash, skipped)."""
    listed = _survey(reader.members(), limits)
    outputs, skipped = _plan(listed, limits)
    files, size, digest = _write_tree(reader, outputs, _flatten_depth(outputs), root, limits)
    return files, size, digest, skipped


def _survey(members: Iterable[_Member], limits: UnpackLimits) -> list[_Listed]:
    """Every member, each checked as it is listed: nothing is extracted before all pass.

    Counting and declared sizes are checked member by member, so a tar listing stops at
    the first entry over a limit instead of inflating the rest to find its end.
    """
    listed: list[_Listed] = []
    declared = 0
    for count, member in enumerate(members, 1):
        if count > limits.max_files:
            raise _Refusal("too-many-files", f"the submission has more than {limits.max_files} entries")
        parts = _parts(member.name, limits)
        if member.kind == "special":
            raise _Refusal(
                "special-file",
                f"{_q(member.name)} is {member.special}; only files and folders are allowed",
            )
        if not parts:
            if member.kind == "dir":
                continue  # "./": the root itself
            raise _Refusal("unsafe-path", f"a member has an empty name ({_q(member.name)})")
        target = _link_target(member, parts) if member.kind in ("symlink", "hardlink") else None
        if member.kind == "file":
            _check_declared(member, limits)
            declared += member.size
            if declared > limits.max_bytes:
                raise _Refusal("too-large", f"the files add up to more than {_size(limits.max_bytes)}")
        listed.append(_Listed(parts, member, target))
    return listed


def _parts(name: str, limits: UnpackLimits) -> tuple[str, ...]:
    """The components of a member's path, or a refusal if it could lead anywhere but inside."""
    if "\x00" in name:
        raise _Refusal("unsafe-path", f"{_q(name)} has a NUL byte in its name")
    if name.startswith("/") or _has_drive(name):
        raise _Refusal("unsafe-path", f"{_q(name)} is an absolute path; paths must be relative")
    parts = tuple(p for p in name.split("/") if p not in ("", "."))
    if ".." in parts:
        raise _Refusal("unsafe-path", f"{_q(name)} has a '..' component; paths must stay inside")
    if len(parts) > limits.max_depth:
        raise _Refusal("unsafe-path", f"{_q(name)} is nested deeper than {limits.max_depth} levels")
    try:
        sizes = [len(p.encode("utf-8", "surrogateescape")) for p in parts]
    except UnicodeEncodeError:
        raise _Refusal("unsafe-path", f"{_q(name)} has a name no file system can store") from None
    if limits.printable_names and any(_unprintable(c) for c in name):
        raise _Refusal("unsafe-path", f"{_q(name)} has a control character in its name")
    if any(size > _MAX_NAME_BYTES for size in sizes):
        raise _Refusal("unsafe-path", f"{_q(name)} has a name longer than {_MAX_NAME_BYTES} bytes")
    if sum(sizes) + len(sizes) > _MAX_PATH_BYTES:
        raise _Refusal("unsafe-path", f"{_q(name)} is a path longer than {_MAX_PATH_BYTES} bytes")
    return parts


def _unprintable(c: str) -> bool:
    """A control or format character (bidi overrides too), a line or paragraph
    separator, or an undecodable byte (os.fsdecode's surrogate escape)."""
    return unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp")


def _has_drive(name: str) -> bool:
    return len(name) >= 2 and name[1] == ":" and name[0].isascii() and name[0].isalpha()


def _link_target(member: _Member, parts: tuple[str, ...]) -> tuple[str, ...]:
    """Where a link points, from the archive's root; a refusal if that is outside it.

    A symlink's target is relative to the folder it sits in, a tar hard link's to the
    archive's root.  Resolution is lexical: what the target names inside this archive,
    never what a path means on the grader's disk.
    """
    base = list(parts[:-1]) if member.kind == "symlink" else []
    target = member.target
    outside = _Refusal(
        "symlink-outside", f"the link {_q(member.name)} points to {_q(target)}, outside the submission"
    )
    if target.startswith("/") or _has_drive(target) or "\x00" in target:
        raise outside
    for p in target.split("/"):
        if p == "..":
            if not base:
                raise outside
            base.pop()
        elif p not in ("", "."):
            base.append(p)
    return tuple(base)


def _check_declared(member: _Member, limits: UnpackLimits) -> None:
    """Refuse a file whose declared size alone is over a limit (ratio first: a bomb is a bomb)."""
    bomb = member.packed is not None and member.size > max(_RATIO_FLOOR, limits.max_ratio * member.packed)
    if bomb:
        raise _bomb(member.name, member.size, member.packed or 0, limits)
    if member.size > limits.max_file_bytes:
        raise _Refusal(
            "too-large",
            f"{_q(member.name)} is {_size(member.size)}; a file may be {_size(limits.max_file_bytes)}",
        )


def _bomb(name: str, size: int, packed: int, limits: UnpackLimits) -> _Refusal:
    ratio = size / max(packed, 1)
    return _Refusal(
        "zip-bomb",
        f"{_q(name)} inflates {ratio:.0f}x ({_size(packed)} to {_size(size)}); "
        f"more than {limits.max_ratio:g}x is refused as a zip bomb",
    )


def _junk(parts: tuple[str, ...]) -> str | None:
    """Why a member is left out, or None to keep it."""
    if parts[0] == "__MACOSX":
        return "macOS resource forks"
    if parts[-1] == ".DS_Store":
        return "Finder metadata"
    if parts[-1].startswith("._"):
        return "AppleDouble metadata"
    return None


def _plan(listed: list[_Listed], limits: UnpackLimits) -> tuple[list[_Output], list[str]]:
    """The files to write and the members left out (with why), in archive order.

    Links are resolved here, once every member is known: a symlink may point forward.
    """
    skipped: list[str] = []
    kept: list[_Listed] = []
    for item in listed:
        why = _junk(item.parts)
        if why is None:
            kept.append(item)
        elif item.parts[0] == "__MACOSX":  # listed once: it mirrors the whole submission
            if f"__MACOSX/ ({why})" not in skipped[:1]:
                skipped.insert(0, f"__MACOSX/ ({why})")
        else:
            skipped.append(f"{_show('/'.join(item.parts))} ({why})")
    files = {i.parts: i.member for i in kept if i.member.kind == "file"}
    links = {i.parts: i.target for i in kept if i.target is not None}
    folders = {i.parts[:n] for i in kept for n in range(len(i.parts))}
    folders |= {i.parts for i in kept if i.member.kind == "dir"}
    outputs: list[_Output] = []
    for item in kept:
        if item.member.kind == "dir":
            continue  # a folder exists because a file is in it: empty ones are not reproduced
        if item.target is None:
            outputs.append(_Output(item.parts, item.member))
            continue
        found = _follow(item.target, files, links, folders)
        if isinstance(found, str):
            skipped.append(f"{_show('/'.join(item.parts))} -> {_show(item.member.target)} ({found})")
        else:
            outputs.append(_Output(item.parts, files[found], found))
    _check_layout(outputs)
    if not outputs:
        left = f" (only {_show('; '.join(skipped))})" if skipped else ""
        raise _Refusal("empty", f"the submission holds no files{left}")
    if sum(o.member.size for o in outputs) > limits.max_bytes:
        raise _Refusal(
            "too-large", f"the files and link copies add up to more than {_size(limits.max_bytes)}"
        )
    return outputs, skipped


def _follow(
    target: tuple[str, ...],
    files: dict[tuple[str, ...], _Member],
    links: dict[tuple[str, ...], tuple[str, ...]],
    folders: set[tuple[str, ...]],
) -> tuple[str, ...] | str:
    """The file a chain of links ends at, or why it ends nowhere."""
    for _ in range(_MAX_LINK_HOPS):
        if target in files:
            return target
        if target in links:
            target = links[target]
            continue
        return "link to a folder, not followed" if target in folders else "dangling link"
    return "link loop"


def _check_layout(outputs: list[_Output]) -> None:
    """Refuse two files at one path, and a path that is a file and a folder at once."""
    paths: set[tuple[str, ...]] = set()
    for output in outputs:
        if output.parts in paths:
            raise _Refusal("unsafe-path", f"{_q('/'.join(output.parts))} appears twice; which one counts?")
        paths.add(output.parts)
    for path in paths:
        for n in range(1, len(path)):
            if path[:n] in paths:
                raise _Refusal("unsafe-path", f"{_q('/'.join(path[:n]))} is both a file and a folder")


def _flatten_depth(outputs: list[_Output]) -> int:
    """1 when every file sits under one top-level folder (the LMS shape), else 0."""
    heads = {o.parts[0] for o in outputs}
    return 1 if len(heads) == 1 and all(len(o.parts) > 1 for o in outputs) else 0


# --------------------------------------------------------------------------- writing


class _Meter:
    """Running byte counts while copying: the checks that do not trust declared sizes."""

    def __init__(self, limits: UnpackLimits) -> None:
        self.limits = limits
        self.total = 0

    def watch(self, chunks: Iterable[bytes], member: _Member) -> Iterator[bytes]:
        """``chunks``, stopped by a refusal at the first chunk that breaks a limit."""
        limits, count = self.limits, 0
        for chunk in chunks:
            count += len(chunk)
            self.total += len(chunk)
            if count > member.size:
                if member.packed is not None:
                    raise _bomb(member.name, count, member.packed, limits)
                raise _Refusal("too-large", f"{_q(member.name)} grew past its size while being copied")
            if (
                member.packed is not None
                and count > _RATIO_FLOOR
                and count > limits.max_ratio * member.packed
            ):
                raise _bomb(member.name, count, member.packed, limits)
            if count > limits.max_file_bytes:
                raise _Refusal("too-large", f"{_q(member.name)} is over {_size(limits.max_file_bytes)}")
            if self.total > limits.max_bytes:
                raise _Refusal("too-large", f"the files add up to more than {_size(limits.max_bytes)}")
            yield chunk


def _write_tree(
    reader: _Reader, outputs: list[_Output], cut: int, root: Path, limits: UnpackLimits
) -> tuple[int, int, str]:
    """Write ``outputs`` under ``root`` (less ``cut`` leading components): (files, bytes, hash).

    Members first, in archive order (a compressed tar is read forward once), then link
    copies, read back from the files just written — never from the archive again.
    """
    meter = _Meter(limits)
    made: set[tuple[str, ...]] = set()
    digests: dict[tuple[str, ...], bytes] = {}
    for output in sorted(outputs, key=lambda o: o.copy_of is not None):  # stable: archive order kept
        parts = output.parts[cut:]
        if output.copy_of is None:
            chunks = reader.chunks(output.member)
        else:
            chunks = _read_own(root.joinpath(*output.copy_of[cut:]))
        digests[parts] = _write_file(
            root, parts, meter.watch(chunks, output.member), output.member.mode, made
        )
    executable = {o.parts[cut:]: _executable(o.member.mode) for o in outputs}
    return len(digests), meter.total, _tree_hash(executable, digests)


def _executable(mode: int) -> bool:
    return bool(mode & 0o111)


def _read_own(path: Path) -> Iterator[bytes]:
    """A file this module wrote: an error here is the grader's, so it is not caught."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        while chunk := os.read(fd, _CHUNK):
            yield chunk
    finally:
        os.close(fd)


def _write_file(
    root: Path, parts: tuple[str, ...], chunks: Iterable[bytes], mode: int, made: set[tuple[str, ...]]
) -> bytes:
    """Create ``root/parts`` from ``chunks`` (0o644 or 0o755) and return its content's SHA-256."""
    for n in range(1, len(parts)):
        if parts[:n] not in made:
            folder = root.joinpath(*parts[:n])
            os.mkdir(folder)
            os.chmod(folder, 0o755)  # exact, whatever the umask
            made.add(parts[:n])
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    digest = hashlib.sha256()
    try:
        fd = os.open(root.joinpath(*parts), flags, 0o600)
    except FileExistsError:  # a case-insensitive DEST: "A.py" and "a.py" are one file there
        raise _Refusal("unsafe-path", f"{_q('/'.join(parts))} collides with another file in DEST") from None
    with os.fdopen(fd, "wb") as out:
        for chunk in chunks:
            digest.update(chunk)
            out.write(chunk)
        os.fchmod(out.fileno(), 0o755 if _executable(mode) else 0o644)  # never setuid/setgid/sticky
    return digest.digest()


def _tree_hash(executable: dict[tuple[str, ...], bool], digests: dict[tuple[str, ...], bytes]) -> str:
    """The content hash of a tree (the module docstring's "Content hash" gives the bytes)."""
    tree = hashlib.sha256()
    rows = sorted(("/".join(p).encode("utf-8", "surrogateescape"), p) for p in digests)
    for path, parts in rows:
        tree.update(len(path).to_bytes(4, "big"))
        tree.update(path)
        tree.update(b"x" if executable[parts] else b"-")
        tree.update(digests[parts])
    return tree.hexdigest()


# --------------------------------------------------------------------------- messages


def _show(text: str) -> str:
    """``text`` on one printable line: controls and undecodable bytes escaped, long text cut."""
    out = []
    for c in text:
        code = ord(c)
        if 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\x{code - 0xDC00:02x}")
        elif c.isprintable():
            out.append(c)
        else:
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
    shown = "".join(out)
    return shown if len(shown) <= 120 else shown[:117] + "..."


def _q(text: str) -> str:
    """``text`` quoted for a reason: ``'a b.py'``."""
    return f"'{_show(text)}'"


def _one_line(e: BaseException) -> str:
    """A library's exception as one short line."""
    lines = str(e).strip().splitlines()
    return _show(lines[0] if lines else type(e).__name__)


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} bytes"
    return f"{n / 1024:.1f} KiB" if n < MiB else f"{n / MiB:.1f} MiB"
