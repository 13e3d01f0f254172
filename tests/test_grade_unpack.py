"""Unpacking a class's submissions (referee.grade.unpack): hostile archives and good ones.

Every archive is built here, in ``tmp_path``, with zipfile and tarfile.  Every run goes
through :func:`_grade`, which checks the promises that hold whatever the input: nothing
appears or changes outside ``DEST``, no temporary directory is left in it, and
``DEST/<id>`` exists exactly for the unpacked students (a refusal leaves no partial tree).
"""

from __future__ import annotations

import gzip
import io
import os
import stat
import tarfile
import zipfile
from pathlib import Path

import pytest

from referee.grade import unpack
from referee.grade.unpack import Refused, Unpacked, UnpackLimits, student_id, unpack_all, unpack_one

MiB = 1 << 20

# --------------------------------------------------------------------------- building archives


def _zip(path: Path, members: dict[str, bytes | tuple[bytes, int]], *, unix: bool = True) -> Path:
    """A zip of ``members`` (name → content, or (content, st_mode)); Unix modes unless ``unix`` is False."""
    with zipfile.ZipFile(path, "w") as z:
        for name, spec in members.items():
            data, mode = spec if isinstance(spec, tuple) else (spec, stat.S_IFREG | 0o644)
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3 if unix else 0
            info.external_attr = mode << 16 if unix else 0
            z.writestr(info, data)
    return path


def _file(name: str, data: bytes = b"x", mode: int = 0o644) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size, info.mode, info.mtime = len(data), mode, 1_700_000_000
    return info, data


def _link(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info, None


def _dir(name: str) -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type, info.mode = tarfile.DIRTYPE, 0o755
    return info, None


def _special(name: str, kind: bytes) -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type, info.devmajor, info.devminor = kind, 1, 3
    return info, None


def _tar(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]], mode: str = "w:gz") -> Path:
    with tarfile.open(path, mode) as t:
        for info, data in members:
            t.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def _folder(path: Path, members: dict[str, bytes | tuple[bytes, int]]) -> Path:
    for name, spec in members.items():
        data, mode = spec if isinstance(spec, tuple) else (spec, 0o644)
        file = path / name
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(data)
        file.chmod(mode)
    path.mkdir(exist_ok=True)
    return path


# --------------------------------------------------------------------------- running, with the invariants


def _listing(root: Path, skip: Path) -> dict[str, tuple[int, int, int]]:
    """Every path under ``root`` but ``skip``, with (mode, size, mtime): what must not change."""
    seen = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if Path(folder, d) != skip]
        for name in dirs + files:
            info = os.lstat(Path(folder, name))
            seen[os.path.relpath(Path(folder, name), root)] = (info.st_mode, info.st_size, info.st_mtime_ns)
    return seen


def _grade(tmp_path: Path, **limits: int | float) -> dict[str, Unpacked | Refused]:
    """Unpack ``tmp_path/subs`` into ``tmp_path/out``; the results by source name."""
    subs, out = tmp_path / "subs", tmp_path / "out"
    before = _listing(tmp_path, out)
    results = unpack_all(subs, out, UnpackLimits(**limits))
    assert _listing(tmp_path, out) == before, "something was written outside DEST"
    assert not Path("/abs").exists()
    unpacked = {r.student for r in results if isinstance(r, Unpacked)}
    for r in results:
        assert isinstance(r, Unpacked) or (r.outcome in unpack.OUTCOMES and "\n" not in r.reason), r
    assert set(os.listdir(out)) == unpacked, "a partial tree or a temporary directory was left"
    assert [r.student for r in results] == sorted(r.student for r in results)
    return {r.source: r for r in results}


@pytest.fixture
def subs(tmp_path: Path) -> Path:
    (tmp_path / "subs").mkdir()
    return tmp_path / "subs"


def _refused(tmp_path: Path, source: str, outcome: str, **limits: int | float) -> Refused:
    result = _grade(tmp_path, **limits)[source]
    assert isinstance(result, Refused), result
    assert result.outcome == outcome, result
    assert "\n" not in result.reason
    return result


def _unpacked(tmp_path: Path, source: str, **limits: int | float) -> Unpacked:
    result = _grade(tmp_path, **limits)[source]
    assert isinstance(result, Unpacked), result
    return result


def _tree(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``root``: relative path → (content, permission bits)."""
    return {
        str(p.relative_to(root)): (p.read_bytes(), stat.S_IMODE(p.lstat().st_mode))
        for p in sorted(root.rglob("*"))
        if not p.is_dir()
    }


# --------------------------------------------------------------------------- hostile paths


@pytest.mark.parametrize("name", ["../escape", "a/../../x", "a/../b", "/abs/path", "C:/x", "c:x", "..\\evil"])
def test_a_zip_member_with_an_unsafe_path_refuses_the_submission(tmp_path, subs, name):
    _zip(subs / "alice.zip", {"ok.py": b"fine", name: b"pwned"})
    _refused(tmp_path, "alice.zip", "unsafe-path")


def test_an_absolute_member_aimed_into_tmp_path_writes_nothing_there(tmp_path, subs):
    aim = tmp_path / "pwned"
    _tar(subs / "alice.tar.gz", [_file("ok.py"), _file(str(aim), b"pwned")])
    _zip(subs / "bob.zip", {str(aim): b"pwned"})
    _refused(tmp_path, "alice.tar.gz", "unsafe-path")
    assert not aim.exists()
    assert _grade(tmp_path)["bob.zip"].outcome == "unsafe-path"


@pytest.mark.parametrize("name", ["../escape", "a/../../x", "/abs/path"])
def test_a_tar_member_with_an_unsafe_path_refuses_the_submission(tmp_path, subs, name):
    _tar(subs / "alice.tgz", [_file("ok.py"), _file(name, b"pwned")])
    _refused(tmp_path, "alice.tgz", "unsafe-path")


def test_too_deep_duplicated_and_file_folder_paths_are_unsafe(tmp_path, subs):
    _zip(subs / "deep.zip", {"/".join(["d"] * 40) + "/f": b"x"})
    _zip(subs / "long.zip", {"/".join(["n" * 250] * 10): b"x"})  # 2.5 KB: past PATH_MAX with DEST
    _zip(subs / "twice.zip", {"a.py": b"1"})
    with pytest.warns(UserWarning, match="Duplicate name"), zipfile.ZipFile(subs / "twice.zip", "a") as z:
        z.writestr("a.py", b"2")
    _tar(subs / "clash.tar", [_file("a"), _file("a/b")], mode="w")
    results = _grade(tmp_path)
    assert {s: r.outcome for s, r in results.items()} == dict.fromkeys(
        ["deep.zip", "long.zip", "twice.zip", "clash.tar"], "unsafe-path"
    )
    assert "appears twice" in results["twice.zip"].reason
    assert "both a file and a folder" in results["clash.tar"].reason


# --------------------------------------------------------------------------- links and special files


@pytest.mark.parametrize(
    "link",
    [
        _link("passwd", "/etc/passwd"),
        _link("link", "../../outside"),
        _link("sub/link", "../../outside"),
        _link("hard", "../outside", tarfile.LNKTYPE),
        _link("hard", "/etc/passwd", tarfile.LNKTYPE),
    ],
    ids=["symlink-abs", "symlink-up", "symlink-up-from-sub", "hardlink-up", "hardlink-abs"],
)
def test_a_tar_link_pointing_outside_refuses_the_submission(tmp_path, subs, link):
    _tar(subs / "alice.tar.gz", [_file("sub/ok.py"), link])
    _refused(tmp_path, "alice.tar.gz", "symlink-outside")
    assert not (tmp_path / "outside").exists()


@pytest.mark.parametrize("kind", [tarfile.CHRTYPE, tarfile.BLKTYPE, tarfile.FIFOTYPE, b"V"])
def test_a_tar_device_or_fifo_refuses_the_submission(tmp_path, subs, kind):
    _tar(subs / "alice.tar", [_file("ok.py"), _special("dev", kind)], mode="w")
    _refused(tmp_path, "alice.tar", "special-file")


def test_links_inside_a_tar_become_copies_and_the_rest_are_skipped(tmp_path, subs):
    _tar(
        subs / "alice.tar.gz",
        [
            _file("bot/lib.so.1", b"ELF", 0o755),
            _link("bot/lib.so", "lib.so.1"),
            _link("bot/chain", "lib.so"),
            _file("bot/data.txt", b"data"),
            _link("bot/hard.txt", "bot/data.txt", tarfile.LNKTYPE),
            _link("bot/forward", "later.txt"),
            _file("bot/later.txt", b"later"),
            _link("bot/folder", "."),
            _dir("bot/empty"),
            _link("bot/to-empty", "empty"),
            _link("bot/dangling", "missing.txt"),
            _link("bot/loop1", "loop2"),
            _link("bot/loop2", "loop1"),
        ],
    )
    result = _unpacked(tmp_path, "alice.tar.gz")
    tree = _tree(result.path)
    assert tree == {
        "lib.so.1": (b"ELF", 0o755),
        "lib.so": (b"ELF", 0o755),
        "chain": (b"ELF", 0o755),
        "data.txt": (b"data", 0o644),
        "hard.txt": (b"data", 0o644),
        "forward": (b"later", 0o644),
        "later.txt": (b"later", 0o644),
    }
    assert not any(p.is_symlink() for p in result.path.rglob("*"))
    assert result.files == 7 and result.bytes == 3 * 3 + 2 * 4 + 2 * 5
    why = " | ".join(result.skipped)
    assert "folder -> . (link to a folder" in why and "dangling link" in why and "link loop" in why
    assert "to-empty -> empty (link to a folder" in why
    assert not (result.path / "empty").exists()  # only files are kept


def test_a_folder_symlink_pointing_outside_refuses_it_and_one_inside_is_copied(tmp_path, subs):
    (tmp_path / "secret").write_bytes(b"do not copy")
    carol = _folder(subs / "carol", {"main.py": b"print(1)"})
    (carol / "evil").symlink_to(tmp_path / "secret")
    dave = _folder(subs / "dave", {"main.py": b"print(2)", "lib/x.py": b"x"})
    (dave / "alias.py").symlink_to("main.py")
    (dave / "lib" / "up").symlink_to("..")  # the submission's own root: a folder, not followed
    results = _grade(tmp_path)
    assert results["carol"].outcome == "symlink-outside"
    assert _tree(results["dave"].path) == {
        "main.py": (b"print(2)", 0o644),
        "alias.py": (b"print(2)", 0o644),
        "lib/x.py": (b"x", 0o644),
    }
    assert results["dave"].skipped == ["lib/up -> .. (link to a folder, not followed)"]


def test_a_relative_folder_symlink_climbing_out_is_refused(tmp_path, subs):
    carol = _folder(subs / "carol", {"a/main.py": b"print(1)"})
    (carol / "a" / "up").symlink_to("../../../secret")
    _refused(tmp_path, "carol", "symlink-outside")


def test_fifos_in_a_folder_or_at_the_top_are_special_and_never_opened(tmp_path, subs):
    erin = _folder(subs / "erin", {"main.py": b"x"})
    os.mkfifo(erin / "pipe")
    os.mkfifo(subs / "frank.zip")  # opening it would block the whole run
    results = _grade(tmp_path)
    assert results["erin"].outcome == "special-file"
    assert results["frank.zip"].outcome == "special-file"


# --------------------------------------------------------------------------- permissions


def test_the_executable_bit_is_kept_and_setuid_setgid_sticky_dropped(tmp_path, subs):
    modes = {"run.sh": 0o4755, "tool": 0o2711, "data": 0o1644, "plain.py": 0o600}
    _tar(subs / "alice.tar.gz", [_file(f"d/{n}", n.encode(), m) for n, m in modes.items()] + [_file("top")])
    _zip(
        subs / "bob.zip", {f"d/{n}": (n.encode(), stat.S_IFREG | m) for n, m in modes.items()} | {"top": b"t"}
    )
    for source in ("alice.tar.gz", "bob.zip"):
        result = _unpacked(tmp_path, source)
        tree = _tree(result.path)
        assert {n: tree[f"d/{n}"][1] for n in modes} == {
            "run.sh": 0o755,
            "tool": 0o755,
            "data": 0o644,
            "plain.py": 0o644,
        }
        assert stat.S_IMODE((result.path / "d").stat().st_mode) == 0o755
        assert stat.S_IMODE(result.path.stat().st_mode) == 0o755


def test_a_windows_zip_has_no_modes_and_backslash_separators(tmp_path, subs):
    _zip(subs / "alice.zip", {"src\\main.py": b"print(1)", "README": b"hi"}, unix=False)
    assert _tree(_unpacked(tmp_path, "alice.zip").path) == {
        "src/main.py": (b"print(1)", 0o644),
        "README": (b"hi", 0o644),
    }


# --------------------------------------------------------------------------- limits and bombs


@pytest.mark.slow
def test_a_real_zip_bomb_is_refused_from_its_declared_ratio(tmp_path, subs):
    """300 MiB of zeros in a ~300 KiB zip, refused at the default limits before inflating."""
    bomb = zipfile.ZipFile(subs / "alice.zip", "w", zipfile.ZIP_DEFLATED, compresslevel=9)
    with bomb, bomb.open("zeros.bin", "w", force_zip64=True) as member:
        for _ in range(300):
            member.write(bytes(MiB))
    result = _refused(tmp_path, "alice.zip", "zip-bomb")
    assert "zeros.bin" in result.reason


def test_the_meter_stops_a_member_while_it_streams(tmp_path):
    """The second line of defence: running counts that do not trust declared sizes."""
    limits = UnpackLimits(max_file_bytes=3 * MiB, max_bytes=5 * MiB)

    def outcome(member: unpack._Member, chunks: list[bytes], meter: unpack._Meter | None = None) -> str:
        with pytest.raises(unpack._Refusal) as refusal:
            list((meter or unpack._Meter(limits)).watch(chunks, member))
        return refusal.value.outcome

    big = bytes(MiB)
    lying_zip = unpack._Member("x", "file", size=10, packed=5)
    assert outcome(lying_zip, [b"a" * 8, b"a" * 8]) == "zip-bomb"
    inflating = unpack._Member("y", "file", size=10 * MiB, packed=4096)
    assert outcome(inflating, [big, big]) == "zip-bomb"
    assert outcome(unpack._Member("z", "file", size=10 * MiB), [big] * 4) == "too-large"
    meter = unpack._Meter(limits)
    assert list(meter.watch([big] * 3, unpack._Member("a", "file", size=3 * MiB))) == [big] * 3
    assert outcome(unpack._Member("b", "file", size=3 * MiB), [big] * 3, meter) == "too-large"


def test_a_tar_pax_header_bomb_is_bounded(tmp_path, subs):
    """A pax header declaring 64 MiB would be read into memory whole: the stream bound stops it."""
    header = tarfile.TarInfo("././@PaxHeader")
    header.type, header.size = tarfile.XHDTYPE, 64 * MiB
    with gzip.open(subs / "alice.tar.gz", "wb", compresslevel=1) as out:
        out.write(header.tobuf(tarfile.USTAR_FORMAT))
        for _ in range(64):
            out.write(bytes(MiB))
    _refused(tmp_path, "alice.tar.gz", "too-large", max_bytes=MiB, max_files=10)


def test_too_many_files_and_too_many_bytes(tmp_path, subs):
    many = {f"f{i}.py": b"x" for i in range(6)}
    _zip(subs / "zip.zip", many)
    _tar(subs / "tar.tar.gz", [_file(n) for n in many])
    _folder(subs / "folder", {f"d/{n}": b"x" for n in many})
    _tar(subs / "big.tgz", [_file("big.bin", bytes(2 * 4096))])
    _tar(subs / "sum.tgz", [_file(f"f{i}", bytes(3000)) for i in range(3)])
    _tar(subs / "copies.tgz", [_file("f", bytes(3000))] + [_link(f"l{i}", "f") for i in range(3)])
    results = _grade(tmp_path, max_files=5, max_bytes=8192, max_file_bytes=4096)
    assert {s: r.outcome for s, r in results.items()} == {
        "zip.zip": "too-many-files",
        "tar.tar.gz": "too-many-files",
        "folder": "too-many-files",
        "big.tgz": "too-large",
        "sum.tgz": "too-large",
        "copies.tgz": "too-large",  # link copies count: 10 000 hard links would fill the disk
    }


# --------------------------------------------------------------------------- broken and odd entries


def test_corrupt_archives_are_refused_with_the_library_message_on_one_line(tmp_path, subs):
    good = _zip(tmp_path / "good.zip", {f"f{i}.py": os.urandom(2000) for i in range(5)}).read_bytes()
    (subs / "alice.zip").write_bytes(good[: len(good) // 2])
    tgz = _tar(tmp_path / "good.tgz", [_file(f"f{i}.py", os.urandom(20_000)) for i in range(5)]).read_bytes()
    (subs / "bob.tgz").write_bytes(tgz[: len(tgz) // 2])
    (subs / "carol.tar").write_bytes(b"this is not a tar archive\n" * 40)
    damaged = bytearray(good)
    damaged[200:260] = bytes(60)  # inside the first member's data: a CRC or inflate error
    (subs / "dave.zip").write_bytes(damaged)
    results = _grade(tmp_path)
    for source in ("alice.zip", "bob.tgz", "carol.tar", "dave.zip"):
        assert results[source].outcome == "corrupt-archive", results[source]
        assert "\n" not in results[source].reason


def test_unsupported_empty_and_encrypted_entries(tmp_path, subs):
    (subs / "alice.pdf").write_bytes(b"%PDF-1.4")
    _zip(subs / "bob.zip", {})
    _tar(subs / "carol.tar", [], mode="w")
    (subs / "dave").mkdir()
    (subs / "erin.zip").write_bytes(b"")
    _zip(subs / "frank.zip", {"__MACOSX/._x": b"fork", "sub/.DS_Store": b"ds"})
    secret = bytearray(_zip(tmp_path / "s.zip", {"a.py": b"print(1)"}).read_bytes())
    for signature, flags_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # local and central headers
        secret[secret.index(signature) + flags_at] |= 0x1
    (subs / "gina.zip").write_bytes(secret)
    results = _grade(tmp_path)
    assert {s: r.outcome for s, r in results.items()} == {
        "alice.pdf": "unsupported",
        "bob.zip": "empty",
        "carol.tar": "empty",
        "dave": "empty",
        "erin.zip": "empty",
        "frank.zip": "empty",
        "gina.zip": "unsupported",
    }
    assert "encrypted" in results["gina.zip"].reason


def test_duplicate_ids_refuse_both_and_remove_an_earlier_tree(tmp_path, subs):
    _zip(subs / "bob.zip", {"a.py": b"1"})
    assert isinstance(_grade(tmp_path)["bob.zip"], Unpacked)
    _folder(subs / "bob", {"a.py": b"2"})
    _zip(subs / "alice.zip", {"a.py": b"3"})
    results = _grade(tmp_path)
    assert results["bob.zip"].outcome == results["bob"].outcome == "duplicate-id"
    assert "bob.zip" in results["bob"].reason
    assert isinstance(results["alice.zip"], Unpacked)


def test_names_become_safe_unique_ids(tmp_path, subs):
    raw = os.fsdecode(b"\xffbob.zip")
    _zip(subs / raw, {"a.py": b"1"})
    _zip(subs / "50%.zip", {"a.py": b"2"})
    _zip(subs / ("\x01" * 70 + ".zip"), {"a.py": b"3"})
    (subs / ".DS_Store").write_bytes(b"")
    (subs / ".git").mkdir()
    (subs / "__MACOSX").mkdir()
    results = _grade(tmp_path)
    assert set(results) == {raw, "50%.zip", "\x01" * 70 + ".zip"}
    assert results[raw].student == "%FFbob" and results[raw].path == tmp_path / "out" / "%FFbob"
    assert os.fsencode(results[raw].source) == b"\xffbob.zip"
    assert results["50%.zip"].student == "50%25"
    assert results["\x01" * 70 + ".zip"].outcome == "bad-name"


def test_student_id():
    assert student_id("alice.zip") == "alice"
    assert student_id("Alice Smith.TAR.GZ") == "Alice Smith"
    assert student_id("bob.tgz") == student_id("bob.tar") == student_id("bob") == "bob"
    assert student_id("carol.pdf") == "carol.pdf"
    assert student_id("e\u0301lise.zip") == student_id("\u00e9lise") == "\u00e9lise"  # NFD → NFC
    assert student_id("a\tb\u202ec\u00a0d.zip") == "a%09b%E2%80%AEc%C2%A0d"
    assert student_id(os.fsdecode(b"x\xfe")) == "x%FE"
    assert student_id(".DS_Store") is None and student_id(".git") is None and student_id("__MACOSX") is None


def test_unpack_all_raises_only_for_an_unusable_submissions_folder(tmp_path, subs):
    with pytest.raises(ValueError, match="not a directory"):
        unpack_all(tmp_path / "missing", tmp_path / "out")
    (tmp_path / "file").write_bytes(b"")
    with pytest.raises(ValueError, match="not a directory"):
        unpack_all(tmp_path / "file", tmp_path / "out")
    with pytest.raises(ValueError, match="inside one another"):
        unpack_all(subs, subs / "out")
    with pytest.raises(ValueError, match="hidden"):
        unpack_one(subs / ".DS_Store", tmp_path / "out")


# --------------------------------------------------------------------------- good submissions


def test_one_top_level_folder_is_flattened_and_mac_litter_skipped(tmp_path, subs):
    _zip(
        subs / "alice.zip",
        {
            "submission/": (b"", stat.S_IFDIR | 0o755),
            "submission/main.py": b"print(1)",
            "submission/lib/util.py": b"x = 1",
            "submission/.DS_Store": b"ds",
            "__MACOSX/submission/._main.py": b"fork",
            "__MACOSX/submission/lib/._util.py": b"fork",
        },
    )
    result = _unpacked(tmp_path, "alice.zip")
    assert _tree(result.path) == {"main.py": (b"print(1)", 0o644), "lib/util.py": (b"x = 1", 0o644)}
    assert result.skipped == ["__MACOSX/ (macOS resource forks)", "submission/.DS_Store (Finder metadata)"]
    assert (result.files, result.bytes) == (2, 13)


def test_two_top_level_items_are_not_flattened(tmp_path, subs):
    _tar(subs / "alice.tar.gz", [_file("./bot/main.py"), _file("./README")])
    assert set(_tree(_unpacked(tmp_path, "alice.tar.gz").path)) == {"bot/main.py", "README"}


FILES = {"main.py": b"print(1)\n", "lib/util.py": b"x = 1\n", "run.sh": (b"#!/bin/sh\n", 0o755)}


def test_the_content_hash_is_the_tree_s_whatever_the_format(tmp_path, subs):
    zipped = {
        f"alice/{n}": (s if isinstance(s, bytes) else (s[0], stat.S_IFREG | s[1])) for n, s in FILES.items()
    }
    _zip(subs / "a.zip", zipped)
    tarred = [_file(f"./{n}", *(s if isinstance(s, tuple) else (s,))) for n, s in reversed(FILES.items())]
    _tar(subs / "b.tar.gz", tarred)
    _tar(subs / "c.tar", tarred, mode="w:bz2")  # compression is sniffed, not taken from the name
    _folder(subs / "d", FILES)
    _folder(subs / "e", FILES | {"main.py": b"print(2)\n"})  # one byte
    _folder(subs / "f", FILES | {"run.sh": b"#!/bin/sh\n"})  # one mode bit
    _folder(subs / "g", {"src/" + n: s for n, s in FILES.items()})  # flattened: the same tree
    hashes = {s: r.content_hash for s, r in _grade(tmp_path).items()}
    assert hashes["a.zip"] == hashes["b.tar.gz"] == hashes["c.tar"] == hashes["d"] == hashes["g"]
    assert len({hashes["a.zip"], hashes["e"], hashes["f"]}) == 3


def test_a_rerun_replaces_each_tree_and_a_later_refusal_removes_it(tmp_path, subs):
    _zip(subs / "alice.zip", {"main.py": b"old", "gone.py": b"old"})
    first = _unpacked(tmp_path, "alice.zip")
    _zip(subs / "alice.zip", {"main.py": b"new"})
    (tmp_path / "out" / ".unpack-crashed").mkdir()  # a crashed run's leftover: cleared
    second = _unpacked(tmp_path, "alice.zip")
    assert _tree(second.path) == {"main.py": (b"new", 0o644)}
    assert second.content_hash != first.content_hash
    assert _unpacked(tmp_path, "alice.zip").content_hash == second.content_hash  # --resume can compare
    (subs / "alice.zip").write_bytes(b"PK garbage")
    _refused(tmp_path, "alice.zip", "corrupt-archive")
    assert not (tmp_path / "out" / "alice").exists()


def test_a_top_level_symlink_is_the_ta_s_and_is_followed(tmp_path, subs):
    real = _zip(tmp_path / "downloaded.zip", {"main.py": b"print(1)"})
    (subs / "alice.zip").symlink_to(real)
    assert _tree(_unpacked(tmp_path, "alice.zip").path) == {"main.py": (b"print(1)", 0o644)}


def test_the_entry_cap_stops_a_tar_listing_before_reading_further(tmp_path, subs):
    """Members past the cap are never read: here the 12th is cut off, and only a run that reads it fails."""
    whole = _tar(
        tmp_path / "t.tgz", [_file(f"f{i}", b"") for i in range(11)] + [_file("big", os.urandom(MiB))]
    )
    (subs / "alice.tgz").write_bytes(whole.read_bytes()[: MiB // 2])
    _refused(tmp_path, "alice.tgz", "too-many-files", max_files=10)
    _refused(tmp_path, "alice.tgz", "corrupt-archive", max_files=100)
