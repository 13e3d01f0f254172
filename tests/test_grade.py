"""`referee grade` end to end on a synthetic class (tests/grade_class.py).

Issue 13's "done means": "an end-to-end test on a synthetic class of ~12 submissions
covering every outcome above (compile error, crash, timeout, illegal moves,
non-qualifier, good bots in C, Python, Java if a JDK installs, and a hostile archive)
producing the gradebook, results.json files that validate against Gradescope's
documented format, and feedback pages"; "--resume DIR continues a grading run after a
crash"; "re-grade one student (--only ID)"; the manifest makes "the same grading …
re-run and give the same gradebook (deterministic bots)"; "grading refuses to run with
a sandbox weaker than the machine's strongest unless told --sandbox … explicitly".

Every run here is the real command line in a child process, as a TA runs it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from referee.grade.report import validate_gradescope
from referee.seats.process import sandbox
from tests.grade_class import GRADING_CONFIG, OSCAR_MARKERS, SECRET, gradebook, make_class
from tests.grade_class import readable as _readable

pytestmark = [
    pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler"),
    pytest.mark.e2e,
    pytest.mark.slow,
]

#: The secret is in the file (trent hunts for it) and must reach no student's results.
CONFIG = f"# {SECRET}\n{GRADING_CONFIG}"


def grade(*args: str, env: dict[str, str] | None = None, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "referee", "grade", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = tmp_path_factory.mktemp("grade")
    _readable(root)
    submissions = root / "class"
    submissions.mkdir()
    expected = make_class(submissions)
    (root / "grading.toml").write_text(CONFIG)
    for marker in ("/tmp/oscar-was-here", "/tmp/escaped-abs.txt"):
        Path(marker).unlink(missing_ok=True)
    out = root / "out"
    started = time.monotonic()
    done = grade(
        str(submissions), "--config", str(root / "grading.toml"), "--out", str(out), "--concurrency", "2",
        env={"REFEREE_GRADING_CONFIG": str(root / "grading.toml")},
    )  # fmt: skip
    seconds = time.monotonic() - started
    assert done.returncode == 0, done.stderr + done.stdout
    return {"root": root, "out": out, "expected": expected, "done": done, "seconds": seconds}


def test_every_student_ends_in_the_expected_named_outcome(graded: dict) -> None:
    book = gradebook(graded["out"])
    assert {s: row["outcome"] for s, row in book.items()} == graded["expected"]
    # The hostile archive never reached a build; the non-qualifier built and passed the check.
    assert book["mallory"]["build"] == ""
    assert (book["judy"]["build"], book["judy"]["check"], book["judy"]["qualify"]) == (
        "ok",
        "ok",
        "not-qualified",
    )


def test_progress_counts_every_student(graded: dict) -> None:
    """Issue 28: "[1/5]" for 6 students — the ones whose submission did not unpack count too."""
    lines = [line for line in graded["done"].stdout.splitlines() if line.startswith("[")]
    n = len(graded["expected"])
    assert [line.split("]")[0] for line in lines] == [f"[{k}/{n}" for k in range(1, n + 1)], lines
    assert any(line.endswith(": victor: unpack empty: the submission is empty") or "victor: unpack empty" in line
               for line in lines), lines  # fmt: skip


def test_points_follow_the_scheme(graded: dict) -> None:
    book = gradebook(graded["out"])
    good = [s for s, outcome in graded["expected"].items() if outcome == "ok"]
    for student in good:
        row = book[student]
        assert (row["points: build"], row["points: check"], row["points: qualify"]) == ("10", "10", "20")
        # Linear in rank from 60 (first) to 30 (last) among the students, capped at 95.
        assert 30 <= float(row["points: compete"]) <= 60
        assert float(row["total"]) == min(95, 40 + float(row["points: compete"]))
        assert row["rank"] and row["rating"] and row["rating_unit"] == "Elo"
    best = max(good, key=lambda s: float(book[s]["points: compete"]))
    assert float(book[best]["points: compete"]) == 60
    assert book["frank"]["total"] == "0"
    assert (book["judy"]["total"], book["heidi"]["total"]) == ("20", "10")
    assert all(row["max_total"] == "95" for row in book.values())


def test_results_json_validate_against_gradescopes_format(graded: dict) -> None:
    for student in graded["expected"]:
        doc = json.loads((graded["out"] / "students" / student / "results.json").read_text())
        assert validate_gradescope(doc) == [], student
        assert doc["score"] == float(gradebook(graded["out"])[student]["total"])


def test_feedback_pages_say_what_went_wrong(graded: dict) -> None:
    students = graded["out"] / "students"
    for student in graded["expected"]:
        for page in ("feedback.md", "feedback.html"):
            assert (students / student / page).stat().st_size > 0
    assert "error" in (students / "frank" / "feedback.md").read_text()  # the compiler's log
    heidi = (students / "heidi" / "feedback.md").read_text()
    assert "decision time" in heidi and "no reply in time" in heidi
    ivan = (students / "ivan" / "feedback.md").read_text()
    assert "legal moves" in ivan
    judy = (students / "judy" / "feedback.md").read_text()
    assert "did not qualify" in judy
    overview = (graded["out"] / "overview.html").read_text()
    assert "compile-error" in overview and "not-qualified" in overview


def test_nothing_escaped_and_no_secret_leaked(graded: dict) -> None:
    root: Path = graded["root"]
    for marker in OSCAR_MARKERS:
        assert not list(root.rglob(marker)), marker
    assert not Path("/tmp/oscar-was-here").exists()
    assert not Path("/tmp/escaped-abs.txt").exists()
    assert not list(root.rglob("escaped.txt"))
    trent = graded["out"] / "students" / "trent"
    for path in trent.rglob("*"):
        if path.is_file():
            assert SECRET not in path.read_text(errors="replace"), path
    assert gradebook(graded["out"])["trent"]["outcome"] == "ok"


def test_the_manifest_records_what_reproduces_the_grading(graded: dict) -> None:
    manifest = json.loads((graded["out"] / "manifest.json").read_text())
    assert manifest["status"] == "complete"
    assert manifest["seed"] == 13 and manifest["game"] == "yahtzee"
    assert manifest["sandbox"] == sandbox.choose("auto").value
    assert manifest["config"]["qualify"]["games"] == 20
    for student in graded["expected"]:
        unpacked = json.loads((graded["out"] / "students" / student / "unpack.json").read_text())
        assert manifest["students"][student]["content_hash"] == unpacked.get("content_hash")


def test_resume_of_a_finished_run_changes_nothing(graded: dict) -> None:
    out: Path = graded["out"]
    before = gradebook(out)
    builds = {p: p.stat().st_mtime_ns for p in (out / "students").glob("*/build.json")}
    done = grade("--resume", str(out))
    assert done.returncode == 0, done.stderr
    assert gradebook(out) == before
    assert {p: p.stat().st_mtime_ns for p in builds} == builds  # nothing was built again


# ---------------------------------------------------------------------------- a small class

SMALL = ("alice", "dave", "frank")
GAUNTLET = """\
game = "yahtzee"
seed = 5
roster = "roster.csv"
[check]
games = 1
[qualify]
games = 30
[compete]
format = "gauntlet"
games = 6
house = ["sample:greedy_player"]
[points]
compete_by = "score-rate"
"""
SMALL_OUTCOMES = {"alice": "ok", "dave": "ok", "frank": "compile-error", "zoe": "missing"}
SAMPLES = Path(__file__).resolve().parents[1] / "sample_players" / "yahtzee"


#: The small class's files, as handed in and as a test copies them to grade them again.
SMALL_FILES = ("class", "house", "grading.toml", "roster.csv")


@pytest.fixture(scope="module")
def small_graded(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The small class graded once, uninterrupted: its gradebook is what the kill -9 test's
    resumed run must end in, and its run is the one the snapshot test resumes (the only
    test that changes ``root``).  ``pristine`` keeps the files as handed in, for a test
    that grades them again in a folder of its own."""
    root = tmp_path_factory.mktemp("small")
    root.chmod(0o755)
    _readable(root)
    everyone = root / "everyone"
    everyone.mkdir()
    make_class(everyone, java=False)
    submissions = root / "class"
    submissions.mkdir()
    for entry in everyone.iterdir():
        if entry.name.split(".")[0] in SMALL:
            entry.rename(submissions / entry.name)
    # The house bot is a copy beside the configuration, which the snapshot test edits.
    house = root / "house"
    house.mkdir()
    shutil.copy2(SAMPLES / "greedy_player.py", house / "greedy.py")
    shutil.copy2(SAMPLES / "random_player.py", house / "random_player.py")
    _readable(house)
    (root / "grading.toml").write_text(
        GAUNTLET.replace('house = ["sample:greedy_player"]', 'house = ["python3 house/greedy.py"]')
    )
    # zoe is on the class list and handed in nothing.
    (root / "roster.csv").write_text("id,name\nalice,A\ndave,D\nfrank,F\nzoe,Z\n")
    pristine = root / "pristine"
    pristine.mkdir()
    for name in SMALL_FILES:
        copy = shutil.copytree if (root / name).is_dir() else shutil.copy2
        copy(root / name, pristine / name)
    out = root / "out"
    first = grade(
        str(submissions), "--config", str(root / "grading.toml"), "--out", str(out), "--concurrency", "2"
    )
    assert first.returncode == 0, first.stderr
    return {"root": root, "pristine": pristine, "out": out, "book": gradebook(out)}


def test_kill_9_then_resume_gives_the_uninterrupted_gradebook_and_only_regrades_one(
    small_graded: dict, tmp_path: Path
) -> None:
    """A run killed in the middle and resumed ends where an uninterrupted run with the same
    seed does (nothing recorded is redone or lost); then one student hands in again."""
    book = small_graded["book"]  # the uninterrupted run's
    assert {s: row["outcome"] for s, row in book.items()} == SMALL_OUTCOMES
    assert book["zoe"]["total"] == "0"
    small = tmp_path
    _readable(small)
    for name in SMALL_FILES:
        source = small_graded["pristine"] / name
        copy = shutil.copytree if source.is_dir() else shutil.copy2
        copy(source, small / name)
    config = str(small / "grading.toml")

    out = small / "killed"
    child = subprocess.Popen(
        [sys.executable, "-m", "referee", "grade", str(small / "class"), "--config", config, "--out", str(out),
         "--concurrency", "2"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not list(out.glob("students/*/check.json")) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    # What a finished step recorded: its record and the reports it owns. A step the kill cut
    # short (a check child that had written its report, say) is not recorded and runs again.
    owner = {"check-report.json": "check.json", "qualify-match.json": "qualify.json"}
    recorded = {
        p: p.read_bytes()
        for p in out.glob("students/*/*.json")
        if (p.parent / owner.get(p.name, p.name)).exists()
    }
    assert any(p.name == "check.json" for p in recorded), "nothing was recorded before the kill"
    done = grade("--resume", str(out))
    assert done.returncode == 0, done.stderr
    for path, content in recorded.items():
        assert path.read_bytes() == content, f"{path} was redone or lost"
    assert gradebook(out) == book  # the same seed, the same gradebook

    # Alice hands in again: only she is graded again, and a gauntlet needs nobody else.
    dave = out / "compete" / "dave" / "tournament.log"
    dave_before = dave.stat().st_mtime_ns
    (small / "class" / "alice" / "README.txt").write_text("resubmitted\n")
    again = grade(str(small / "class"), "--config", config, "--out", str(out), "--only", "alice")
    assert again.returncode == 0, again.stderr
    assert "again for everyone" not in again.stdout
    after = gradebook(out)
    assert after["alice"]["content_hash"] != book["alice"]["content_hash"]
    assert after["dave"] == book["dave"]
    assert dave.stat().st_mtime_ns == dave_before  # dave's gauntlet was not played again


def test_a_weaker_sandbox_is_refused_unless_named_on_the_command_line(tmp_path: Path) -> None:
    best = sandbox.choose("auto")
    weaker = sandbox.Layer.RLIMITS
    if best is weaker or sandbox.problem(weaker) is not None:
        pytest.skip("no weaker layer to refuse here")
    (tmp_path / "class").mkdir()
    (tmp_path / "grading.toml").write_text(f'game = "yahtzee"\nsandbox = "{weaker}"\n')
    args = [str(tmp_path / "class"), "--config", str(tmp_path / "grading.toml")]
    refused = grade(*args, "--out", str(tmp_path / "a"))
    assert refused.returncode == 2
    assert f"--sandbox {weaker}" in refused.stderr and "weaker" in refused.stderr
    assert not (tmp_path / "a" / "manifest.json").exists()
    named = grade(*args, "--out", str(tmp_path / "b"), "--sandbox", str(weaker))
    assert named.returncode == 0, named.stderr
    assert json.loads((tmp_path / "b" / "manifest.json").read_text())["sandbox"] == str(weaker)


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "class").mkdir()
    cases = [
        ([str(tmp_path / "nope"), "--game", "yahtzee", "--out", str(tmp_path / "o")], "not a folder"),
        ([str(tmp_path / "class"), "--out", str(tmp_path / "o")], "which game"),
        (["--resume", str(tmp_path / "class")], "no manifest.json"),
    ]
    for args, words in cases:
        done = grade(*args)
        assert done.returncode == 2
        assert words in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_a_resume_plays_the_snapshots_taken_at_the_start_whatever_changed_beside_them(
    small_graded: dict,
) -> None:
    """Issue 25, item 1: a grading run plays from its own snapshot of every bot, made at
    the start under its folder (the submissions unpacked into OUT/submissions, the house
    bots copied into OUT/house); a resume plays those, and says so: a house bot edited,
    a submission changed and a log dropped into SUBMISSIONS_DIR afterwards change nothing."""
    small: Path = small_graded["root"]
    house = small / "house"
    out: Path = small_graded["out"]  # graded from small/class, with house/greedy.py as the house bot
    book = gradebook(out)
    assert book == small_graded["book"]  # the only test that changes this run
    assert {s: row["outcome"] for s, row in book.items()} == SMALL_OUTCOMES
    assert (out / "house" / "greedy" / "greedy.py").is_file()

    # After the start: the house bot's original now plays at random, a log grows beside
    # it, alice's folder changes, and a stray file lands among the submissions.
    (house / "greedy.py").write_bytes((SAMPLES / "random_player.py").read_bytes())
    (house / "run.log").write_text("a log\n")
    (small / "class" / "alice" / "README.txt").write_text("resubmitted\n")
    (small / "class" / "run.log").write_text("not a student\n")
    # alice's steps 3-5 are played again, from the snapshots.
    for name in ("check.json", "qualify.json", "compete.json"):
        (out / "students" / "alice" / name).unlink()
    shutil.rmtree(out / "compete" / "alice")
    again = grade("--resume", str(out))
    assert again.returncode == 0, again.stderr
    said = again.stdout + again.stderr
    assert "playing the submissions as unpacked when the grading started" in said, said
    assert f"playing the house bots' snapshots in {out / 'house'}" in said, said
    assert gradebook(out) == book  # not alice's new folder, not a student "run", the same house bot

    # A snapshot changed under the run's folder is refused in one line, not played.
    (out / "house" / "greedy" / "greedy.py").write_text("raise SystemExit(1)\n")
    refused = grade("--resume", str(out))
    assert refused.returncode == 2 and "changed since the grading started" in refused.stderr, refused.stderr
