"""The synthetic class of tests/grade_class.py, checked by itself (no ``referee grade``).

What :func:`make_class` writes, what unpacking and detection make of it, and, for the
bots that can be built and run without a sandbox, that each behaves as its expected
outcome says: the good ones play legal, strong solitaire games, judy a legal hopeless
one, grace crashes, heidi goes silent, ivan plays an illegal move, trent hunts for the
grading configuration.  oscar's and peggy's Makefiles are never run here: they are
hostile, and only the sandboxed grader may run them (oscar's bot.c is compiled alone).
"""

from __future__ import annotations

import contextlib
import os
import random
import select
import shutil
import subprocess
import tarfile
import time
import zipfile
from pathlib import Path

import pytest
from conftest import BOT_PYTHON
from grade_class import (
    EXPECTED_BUILD_KINDS,
    EXPECTED_OUTCOMES,
    GOOD,
    OSCAR_MARKERS,
    SECRET,
    java_available,
    make_class,
)

from protocol import yahtzee as wire
from referee.grade.detect import Detected, NotDetected, detect
from referee.grade.unpack import Refused, Unpacked, unpack_all

#: How each student is handed in.
FORMS = {
    "alice": "folder",
    "bob": ".zip",
    "carol": "folder",
    "dave": ".tar.gz",
    "erin": "folder",
    "frank": "folder",
    "grace": "folder",
    "heidi": "folder",
    "ivan": "folder",
    "judy": "folder",
    "mallory": ".zip",
    "oscar": "folder",
    "peggy": "folder",
    "trent": "folder",
    "victor": "folder",
    "walter": "folder",
}

HAVE_CC = shutil.which("cc") is not None and shutil.which("make") is not None


def _entry(subs: Path, student: str) -> Path:
    form = FORMS[student]
    return subs / (student if form == "folder" else student + form)


def _listing(root: Path, skip: Path) -> set[str]:
    """Every path under ``root`` but those under ``skip``."""
    seen = set()
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if Path(folder, d) != skip]
        seen.update(os.path.relpath(Path(folder, name), root) for name in dirs + files)
    return seen


# --------------------------------------------------------------------------- what is written


@pytest.mark.parametrize("java", [False, True])
def test_make_class_writes_one_entry_per_student(tmp_path: Path, java: bool) -> None:
    subs = tmp_path / "subs"
    subs.mkdir()
    expected = make_class(subs, java=java)
    students = set(EXPECTED_OUTCOMES) - (set() if java else {"erin"})
    assert set(expected) == students
    assert expected == {s: EXPECTED_OUTCOMES[s] for s in students}
    assert sorted(os.listdir(subs)) == sorted(_entry(subs, s).name for s in students)
    for student in students:
        entry = _entry(subs, student)
        assert entry.is_dir() if FORMS[student] == "folder" else entry.is_file(), student
    assert list((subs / "victor").iterdir()) == []
    assert set(EXPECTED_BUILD_KINDS) <= set(EXPECTED_OUTCOMES)
    assert set(GOOD) == {s for s, outcome in EXPECTED_OUTCOMES.items() if outcome == "ok"}


def test_java_none_means_javac_and_java_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    assert ("erin" in make_class(first)) == java_available()
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert not java_available()
    assert "erin" not in make_class(second)
    assert not (second / "erin").exists()


def test_make_class_wants_an_empty_folder(tmp_path: Path) -> None:
    (tmp_path / "stray.txt").write_text("x")
    with pytest.raises(ValueError):
        make_class(tmp_path)
    with pytest.raises(ValueError):
        make_class(tmp_path / "missing")


def test_archives_hold_what_they_say(tmp_path: Path) -> None:
    make_class(tmp_path, java=False)
    with zipfile.ZipFile(tmp_path / "bob.zip") as z:
        assert {"main.py", "strategy.py"} <= set(z.namelist())
        assert b"from strategy import choose" in z.read("main.py")
    with zipfile.ZipFile(tmp_path / "mallory.zip") as z:
        assert {"../../escaped.txt", "/tmp/escaped-abs.txt"} <= set(z.namelist())
    with tarfile.open(tmp_path / "dave.tar.gz") as t:
        assert {"dave/bot.toml", "dave/src/bot.c"} <= set(t.getnames())
        manifest = t.extractfile("dave/bot.toml").read().decode()
    assert 'build = "cc -O2 -o mybot src/bot.c"' in manifest and 'run = "./mybot"' in manifest
    oscar = (tmp_path / "oscar" / "Makefile").read_text()
    assert all(marker in oscar for marker in OSCAR_MARKERS)
    assert "\tsleep 100000" in (tmp_path / "peggy" / "Makefile").read_text()


def test_the_secret_is_in_no_submission(tmp_path: Path) -> None:
    """trent must find SECRET, not carry it: a leak test needs it to come from the grader."""
    make_class(tmp_path, java=True)
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    for archive in ("bob.zip", "mallory.zip"):
        with zipfile.ZipFile(tmp_path / archive) as z:
            assert all(SECRET.encode() not in z.read(name) for name in z.namelist())
    with tarfile.open(tmp_path / "dave.tar.gz") as t:
        assert all(SECRET.encode() not in t.extractfile(m).read() for m in t.getmembers() if m.isfile())


# --------------------------------------------------------------------------- unpacking and detection


def _unpack(tmp_path: Path, java: bool = True) -> tuple[dict[str, str], dict[str, Unpacked | Refused], Path]:
    """Make the class in ``tmp_path/subs`` and unpack it into ``tmp_path/a/b/out``
    (deep, so that mallory's ``../..`` would land inside ``tmp_path``)."""
    subs, out = tmp_path / "subs", tmp_path / "a" / "b" / "out"
    subs.mkdir()
    out.parent.mkdir(parents=True)
    expected = make_class(subs, java=java)
    abs_target = Path("/tmp/escaped-abs.txt")
    abs_before = abs_target.exists()
    before = _listing(tmp_path, out)
    results = {r.student: r for r in unpack_all(subs, out)}
    assert _listing(tmp_path, out) == before, "something was written outside DEST"
    assert not list(tmp_path.rglob("escaped*"))
    assert abs_before or not abs_target.exists()
    return expected, results, out


def test_unpack_and_detect_give_the_expected_kinds(tmp_path: Path) -> None:
    expected, results, out = _unpack(tmp_path)
    assert set(results) == set(expected)
    assert sorted(os.listdir(out)) == sorted(s for s, r in results.items() if isinstance(r, Unpacked))
    for student, result in results.items():
        if student in ("mallory", "victor"):
            assert isinstance(result, Refused) and result.outcome == expected[student], result
            continue
        assert isinstance(result, Unpacked), result
        found = detect(result.path)
        if student == "walter":
            assert isinstance(found, NotDetected) and found.outcome == "ambiguous", found
            continue
        assert isinstance(found, Detected), (student, found)
        assert found.kind == EXPECTED_BUILD_KINDS[student], (student, found)
    assert set(EXPECTED_BUILD_KINDS) == set(expected) - {"mallory", "victor", "walter"}


def test_detected_commands(tmp_path: Path) -> None:
    _, results, _ = _unpack(tmp_path)
    found = {s: detect(r.path) for s, r in results.items() if isinstance(r, Unpacked)}
    assert found["alice"].build == ["cc", "-O2", "-o", "bot", "bot.c", "-lm"]
    assert found["bob"].build is None and found["bob"].run == ["python3", "main.py"]
    assert found["carol"].build == ["make"] and found["carol"].run == ["./bot"]
    assert found["dave"].build == ["sh", "-c", "cc -O2 -o mybot src/bot.c"]
    assert found["dave"].run == ["./mybot"]
    assert found["erin"].run == ["java", "-cp", ".", "Bot"]
    assert found["heidi"].run == ["python3", "bot.py"]
    assert found["ivan"].run == ["python3", "ivan.py"]
    assert found["oscar"].build == ["make"] and found["peggy"].build == ["make"]
    # bob's zip keeps its files at the top, dave's tar.gz is flattened from dave/.
    assert sorted(os.listdir(results["bob"].path)) == ["main.py", "strategy.py"]
    assert (results["dave"].path / "src" / "bot.c").is_file()


def test_mallory_is_refused_unsafe_path(tmp_path: Path) -> None:
    _, results, out = _unpack(tmp_path, java=False)
    refused = results["mallory"]
    assert isinstance(refused, Refused) and refused.outcome == "unsafe-path"
    assert "escaped" in refused.reason
    assert not (out / "mallory").exists()


# --------------------------------------------------------------------------- the bots, unsandboxed


class _Bot:
    """A bot process spoken to line by line, with a timeout per reply."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        self.proc = subprocess.Popen(
            argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self.buffer = b""

    def ask(self, line: bytes, timeout: float) -> bytes | None:
        """The reply (without its newline), b"" when the bot has gone, None on timeout."""
        try:
            self.proc.stdin.write(line)
            self.proc.stdin.flush()
        except BrokenPipeError:
            return b""
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                return b""
            self.buffer += chunk
        reply, self.buffer = self.buffer.split(b"\n", 1)
        return reply

    def close(self, wait: float = 2.0) -> tuple[int | None, str]:
        """Close its input; (exit status within ``wait`` seconds or None, its stderr)."""
        with contextlib.suppress(BrokenPipeError):
            self.proc.stdin.close()
        try:
            status = self.proc.wait(wait)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            status = None
        return status, self.proc.stderr.read().decode(errors="replace")


def _solitaire(bot: _Bot, games: int, seed: int, timeout: float = 5.0) -> tuple[list[int], int, str | None]:
    """Play ``games`` solitaire games; (final totals, answers given, the first problem or None)."""
    rng = random.Random(seed)
    totals, answers = [], 0
    for _ in range(games):
        card, opponent = [wire.OPEN] * 13 + [0], [wire.OPEN] * 13 + [0]
        for _turn in range(13):
            dice, roll = [rng.randint(1, 6) for _ in range(5)], 1
            while True:
                # The first answer includes the interpreter's start: never the short limit.
                reply = bot.ask(
                    wire.encode_position(card, opponent, dice, roll),
                    timeout if answers else max(timeout, 5.0),
                )
                if reply is None:
                    return totals, answers, "timeout"
                if reply == b"":
                    return totals, answers, "gone"
                try:
                    action = wire.decode_action(reply)
                except ValueError:
                    return totals, answers, f"unparseable: {reply!r}"
                answers += 1
                reason = wire.illegal_reason(card, dice, roll, action)
                if reason is not None:
                    return totals, answers, f"illegal: {reason}"
                if action & 1:
                    mask = action >> 1
                    dice = [d if mask >> k & 1 else rng.randint(1, 6) for k, d in enumerate(dice)]
                    roll += 1
                    continue
                row = action >> 1
                bonus = wire.yahtzee_bonus(card, dice)
                card[row] = wire.score_box(dice, row, card)
                card[wire.BONUS] += bonus
                break
        totals.append(wire.card_total(card))
    return totals, answers, None


def _argv(found: Detected) -> list[str]:
    """The run command, with the tests' Python for ``python3``."""
    return [BOT_PYTHON, *found.run[1:]] if found.run[0] == "python3" else found.run


def _built(tmp_path: Path, student: str) -> tuple[Path, Detected]:
    """``student``'s unpacked folder, built with the detected command (never oscar's or peggy's
    Makefile: oscar's bot.c is compiled alone)."""
    _, results, _ = _unpack(tmp_path)
    folder = results[student].path
    found = detect(folder)
    assert isinstance(found, Detected)
    build = ["cc", "-O2", "-o", "bot", "bot.c", "-lm"] if student == "oscar" else found.build
    assert student != "peggy"
    if build is not None:
        done = subprocess.run(build, cwd=folder, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
    return folder, found


def _needs(student: str) -> list:
    if student == "erin":
        return [pytest.mark.skipif(not java_available(), reason="javac and java needed")]
    if student in ("alice", "carol", "dave", "oscar"):
        return [pytest.mark.skipif(not HAVE_CC, reason="cc and make needed")]
    return []


@pytest.mark.slow
@pytest.mark.parametrize(
    "student", [pytest.param(s, marks=_needs(s)) for s in ("alice", "bob", "carol", "dave", "erin", "oscar")]
)
def test_good_bots_play_legal_strong_games(tmp_path: Path, student: str) -> None:
    folder, found = _built(tmp_path, student)
    bot = _Bot(_argv(found), folder)
    totals, _, problem = _solitaire(bot, games=5, seed=13)
    status, stderr = bot.close()
    assert problem is None, (problem, stderr)
    assert status == 0, stderr
    # The random legal player averages about 47; these average about 215 (dave 170).
    assert sum(totals) / len(totals) > 120, totals


def test_judy_plays_legal_hopeless_games(tmp_path: Path) -> None:
    folder, found = _built(tmp_path, "judy")
    bot = _Bot(_argv(found), folder)
    totals, answers, problem = _solitaire(bot, games=5, seed=13)
    status, stderr = bot.close()
    assert problem is None and status == 0, (problem, stderr)
    assert answers == 5 * 13, "judy never rerolls"
    assert sum(totals) / len(totals) < 35, totals


def test_grace_crashes_after_three_answers(tmp_path: Path) -> None:
    folder, found = _built(tmp_path, "grace")
    bot = _Bot(_argv(found), folder)
    _, answers, problem = _solitaire(bot, games=1, seed=13)
    status, stderr = bot.close()
    assert (answers, problem) == (3, "gone")
    assert status not in (0, None) and "RuntimeError" in stderr


@pytest.mark.slow
def test_heidi_stops_answering_at_her_fifth_decision(tmp_path: Path) -> None:
    folder, found = _built(tmp_path, "heidi")
    bot = _Bot(_argv(found), folder)
    _, answers, problem = _solitaire(bot, games=1, seed=13, timeout=0.5)
    status, _ = bot.close(wait=0.2)
    assert (answers, problem) == (4, "timeout")
    assert status is None, "heidi was still asleep and had to be killed"


def test_ivan_plays_well_formed_illegal_moves(tmp_path: Path) -> None:
    folder, found = _built(tmp_path, "ivan")
    bot = _Bot(_argv(found), folder)
    _, answers, problem = _solitaire(bot, games=1, seed=13)
    bot.close()
    assert problem == "illegal: " + wire.ROW_FULL
    assert answers == 6  # hold, hold, chance; hold, hold, chance again


@pytest.mark.skipif(not HAVE_CC, reason="cc needed")
def test_frank_does_not_compile(tmp_path: Path) -> None:
    _, results, _ = _unpack(tmp_path, java=False)
    found = detect(results["frank"].path)
    done = subprocess.run(found.build, cwd=results["frank"].path, capture_output=True, timeout=60)
    assert done.returncode != 0 and b"error" in done.stderr


def test_trent_leaks_what_he_can_read(tmp_path: Path) -> None:
    """Unsandboxed, with a grading config two folders above him, trent sends it as a reply:
    so under the grader his feedback shows whatever his sandbox let him read."""
    folder, found = _built(tmp_path, "trent")
    (folder.parent.parent / "grading.toml").write_text(f'secret = "{SECRET}"\n')
    bot = _Bot(_argv(found), folder)
    position = wire.encode_position([wire.OPEN] * 13 + [0], [wire.OPEN] * 13 + [0], [1, 2, 3, 4, 6], 1)
    leaked = bot.ask(position, 5.0)
    played = bot.ask(position, 5.0)
    status, stderr = bot.close()
    assert leaked is not None and SECRET.encode() in leaked
    assert SECRET in stderr
    assert (
        played is not None
        and wire.illegal_reason([wire.OPEN] * 13 + [0], [1, 2, 3, 4, 6], 1, int(played)) is None
    )
    assert status == 0
