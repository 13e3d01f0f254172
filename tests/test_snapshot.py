"""Bot snapshots (issue 25, item 1): each bot plays from its own copy under DIR/bots/."""

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
from conftest import BOT_PYTHON, ROOT, SAMPLES
from test_tournament import poll_until

from referee.core.botspec import BotSpecError, resolve
from referee.tournament import snapshot

pytestmark = [pytest.mark.usefixtures("built_samples"), pytest.mark.e2e]

COMPETENT = SAMPLES / "yahtzee/bin/competent"


def _rels(spec) -> set[str]:
    return set(snapshot.files_of(spec))


def test_a_c_executable_is_copied_alone_whatever_changes_beside_it(tmp_path):
    shutil.copy2(COMPETENT, tmp_path / "competent")
    (tmp_path / "run.log").write_text("a log\n")
    (tmp_path / "notes.py").write_text("x = 1\n")
    assert _rels(resolve(str(tmp_path / "competent"))) == {"competent"}


def test_a_python_script_takes_the_modules_and_packages_beside_it(tmp_path):
    (tmp_path / "bot.py").write_text("import helper\n")
    (tmp_path / "helper.py").write_text("X = 1\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "tables.py").write_text("T = 2\n")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "big.bin").write_bytes(b"x" * 100)
    (tmp_path / "run.log").write_text("log\n")
    spec = resolve(f"python3 {tmp_path / 'bot.py'}", tmp_path)
    assert _rels(spec) == {"bot.py", "helper.py", "pkg/__init__.py", "pkg/tables.py"}


def test_a_sample_player_carries_the_protocol_package_and_runs_without_the_referee(tmp_path):
    """Issue 25, item 3: "a copied sample player runs wherever it is" — its snapshot
    holds the project's stdlib-only protocol package; a bare `python3 -I -S` finds it."""
    home = tmp_path / "far"
    home.mkdir()
    shutil.copy2(SAMPLES / "dice_poker" / "threshold.py", home / "threshold.py")
    spec = resolve(f"python3 {home / 'threshold.py'}", tmp_path)
    assert "protocol/__init__.py" in _rels(spec) and "protocol/dice_poker.py" in _rels(spec)
    taken = snapshot.take({spec.name: spec}, tmp_path / "out")[spec.name]
    script = Path(taken.argv[-1])
    assert script.parent == tmp_path / "out" / "bots" / spec.name
    # No site-packages (-S), isolated (-I): the referee is not importable, protocol is.
    done = subprocess.run(
        ["/usr/bin/python3", "-I", "-S", "-c", f"import sys; sys.argv = [{str(script)!r}]; "
         f"sys.path.insert(0, {str(script.parent)!r}); import runpy; "
         "import importlib.util; assert importlib.util.find_spec('referee') is None; "
         f"runpy.run_path({str(script)!r}, run_name='not_main')"],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_a_bot_in_a_large_home_is_refused_with_one_line_naming_bot_toml(tmp_path, monkeypatch):
    monkeypatch.setattr(snapshot, "MAX_FILES", 5)
    for i in range(10):
        (tmp_path / f"m{i}.py").write_text("")
    spec = resolve(f"python3 {tmp_path / 'm0.py'}", tmp_path)
    with pytest.raises(BotSpecError) as caught:
        snapshot.files_of(spec)
    assert "bot.toml" in str(caught.value) and "\n" not in str(caught.value)


def test_a_snapshot_is_whole_or_absent_and_a_stale_one_is_taken_again(tmp_path):
    bot = tmp_path / "bot"
    bot.mkdir()
    shutil.copy2(COMPETENT, bot / "competent")
    (bot / "bot.toml").write_text('run = "./competent"\n')
    spec = resolve(str(bot))
    out = tmp_path / "out"
    (out / "bots" / f".taking-{spec.name}-123").mkdir(parents=True)  # a start killed mid-copy
    (out / "bots" / spec.name).mkdir()  # a start killed before its store existed
    taken = snapshot.take({spec.name: spec}, out)[spec.name]
    assert taken.home == str((out / "bots" / spec.name).resolve())
    assert sorted(os.listdir(out / "bots")) == [spec.name, snapshot.SOURCES]
    assert sorted(os.listdir(taken.home)) == ["bot.toml", "competent"]
    assert taken.argv == [str(Path(taken.home) / "competent")]


def _referee(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", *args],
        capture_output=True, text=True, timeout=300, cwd=cwd, stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip


def _snapshots(out: Path) -> int:
    """How many bots' snapshots ``out/bots`` holds."""
    return sum(entry.is_dir() for entry in (out / "bots").iterdir())


def _rows(out: Path) -> list[dict]:
    rows = json.loads((out / "standings.json").read_text())["rows"]
    return [{k: v for k, v in r.items() if k not in ("cpu_seconds", "peak_rss_bytes")} for r in rows]


@pytest.mark.slow
def test_kill_and_resume_with_files_changing_beside_the_bots_equals_an_uninterrupted_run(tmp_path):
    """Issue 25, item 1: `cd comp && referee tournament ./yf ./competent … > run.log`,
    kill -9, `--resume`: the log growing beside the bots, an edited script and an
    editor's file change nothing; the standings equal an uninterrupted run's."""
    comp = tmp_path / "comp"
    (comp / "yf").mkdir(parents=True)
    shutil.copy2(COMPETENT, comp / "competent")
    shutil.copy2(COMPETENT, comp / "yf" / "competent")
    (comp / "yf" / "bot.toml").write_text('run = "./competent"\n')
    shutil.copy2(SAMPLES / "yahtzee" / "greedy_player.py", comp / "greedy.py")
    os.chmod(tmp_path, 0o755)
    for here, _dirs, files in os.walk(comp):
        os.chmod(here, 0o755)
        for name in files:
            Path(here, name).chmod(0o755)
    args = ["tournament", "./yf", "./competent", f"{BOT_PYTHON} greedy.py", "--games", "60", "--seed", "5"]
    args += ["--quiet"]
    reference = _referee(*args, "--out", "ref", cwd=comp)
    assert reference.returncode == 0, reference.stderr[-2000:]
    with open(comp / "run.log", "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "referee", *args, "--out", "cup"], cwd=comp, stdout=log, stderr=log,
            stdin=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT)},
        )  # fmt: skip
        try:
            # The store, and the three snapshots beside sources.json.
            poll_until(
                proc,
                lambda: (comp / "cup" / "results.sqlite").exists() and _snapshots(comp / "cup") == 3,
                every=0.01,
            )
            time.sleep(0.5)
            (comp / "greedy.py").write_text("raise SystemExit('edited after the start')\n")
            (comp / ".greedy.py.swp").write_bytes(b"vim")
            (comp / "yf" / "run.log").write_text("another log\n")
            if proc.poll() is not None:
                pytest.skip("the tournament finished before the kill")
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    with open(comp / "run.log", "a") as log:
        log.write("the log grew\n")
    resumed = _referee("tournament", "--resume", "cup", "--quiet", cwd=comp)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert "snapshots in" in resumed.stderr
    assert _rows(comp / "cup") == _rows(comp / "ref")


@pytest.mark.slow
def test_a_kill_during_a_snapshot_leaves_no_tournament_and_the_same_command_starts_again(tmp_path):
    """Issue 25, item 1: "a kill -9 of a snapshot in progress"."""
    bot = tmp_path / "big"
    bot.mkdir()
    shutil.copy2(COMPETENT, bot / "competent")
    (bot / "bot.toml").write_text('run = "./competent"\n')
    with open(bot / "data.bin", "wb") as data:
        data.write(os.urandom(1 << 20) * 150)  # 150 MB to copy
    os.chmod(tmp_path, 0o755)
    args = ["tournament", str(bot), str(COMPETENT), "--games", "4", "--seed", "1", "--quiet", "--out", "t"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee", *args], cwd=tmp_path, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    hit = False
    try:
        if poll_until(proc, lambda: any((tmp_path / "t" / "bots").glob(".taking-*"))):
            proc.send_signal(signal.SIGKILL)
            hit = True
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    if not hit:
        pytest.skip("the kill missed the snapshot")
    assert not (tmp_path / "t" / "bots" / "big").exists()  # no half snapshot in place
    again = _referee(*args, cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-2000:]
    assert not list((tmp_path / "t" / "bots").glob(".taking-*"))
    assert (tmp_path / "t" / "bots" / "big" / "data.bin").stat().st_size == 150 << 20


def test_the_interpreter_that_runs_a_script_is_the_machines_not_copied(tmp_path):
    """A bot run by the referee's own Python (a virtualenv's or pyenv's `python`, a link
    outside any system directory: `sample:` players in grading) keeps its interpreter in
    place; a copy of it would be a dangling link in the snapshot."""
    (tmp_path / "bot.py").write_text("print('hi')\n")
    spec = resolve(f"{sys.executable} {tmp_path / 'bot.py'}", tmp_path)
    assert _rels(spec) == {"bot.py"}
    taken = snapshot.take({spec.name: spec}, tmp_path / "out")[spec.name]
    assert taken.argv == [sys.executable, str(tmp_path / "out" / "bots" / spec.name / "bot.py")]
    assert snapshot.sources(tmp_path / "out") == {spec.name: str(tmp_path)}
    done = subprocess.run(taken.argv, capture_output=True, text=True, timeout=60)
    assert done.stdout == "hi\n"
