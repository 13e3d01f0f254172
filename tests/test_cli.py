"""The ``referee`` command end to end, as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.e2e]


def referee(*args: str, cwd=None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
    )


def test_match_writes_summary_log_and_table(built_samples, tmp_path):
    summary, log = tmp_path / "summary.json", tmp_path / "games.jsonl"
    done = referee(
        "match",
        str(built_samples / "yahtzee/bin/competent"),
        f"python3 {built_samples}/yahtzee/greedy_player.py",
        "--games", "30", "--seed", "5", "--json", str(summary), "--log", str(log), "--no-pin",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "competent" in done.stdout and "greedy_player" in done.stdout
    data = json.loads(summary.read_text())
    assert data["seed"] == 5 and data["games_played"] == 30 and data["completed"] is True
    assert data["referee_version"]
    fields = {"name", "wins", "losses", "draws", "mean_score", "forfeits", "cpu_seconds", "peak_rss_bytes",
              "decisions", "mean_decision_us", "max_decision_us"}  # fmt: skip
    for player in data["players"]:
        assert fields <= set(player)
    one, other = data["players"]
    assert (
        one["wins"] == other["losses"] and one["losses"] == other["wins"] and one["draws"] == other["draws"]
    )
    assert one["wins"] + one["losses"] + one["draws"] == 30
    assert len(log.read_text().splitlines()) == 30


def test_usage_errors_exit_2_with_one_line(tmp_path):
    done = referee("match", str(tmp_path / "missing-bot"), "also-missing-xyz", "--games", "3")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "missing-bot" in done.stderr
    done = referee("match", "true", "true", "--games", "0")
    assert done.returncode == 2 and "--games" in done.stderr


def test_bot_that_cannot_start_exits_3(tmp_path):
    broken = tmp_path / "broken"
    broken.write_text("#!/nonexistent/interpreter\n")
    broken.chmod(0o755)
    done = referee("match", str(broken), str(broken), "--games", "3", "--no-pin")
    assert done.returncode == 3 and "cannot start" in done.stderr and done.stderr.count("\n") == 1


def test_a_match_command_ends_at_once_and_leaves_everything_written(built_samples, tmp_path):
    """``referee match`` ends its process without the interpreter's teardown
    (commands._exit_at_once), and its sandbox probe runs in a thread while the options
    are parsed: all it wrote is complete (table through a pipe, summary, log), the exit
    status is the command's, and the probe's working directory is gone, even when the
    command ends with a usage error while the probe still runs."""
    own_tmp = tmp_path / "tmp"
    own_tmp.mkdir(mode=0o777)
    env = {**os.environ, "TMPDIR": str(own_tmp)}
    summary, log = tmp_path / "summary.json", tmp_path / "games.jsonl"
    bot = str(built_samples / "yahtzee/bin/competent")
    argv = [sys.executable, "-m", "referee", "match", bot, bot, "--games", "20", "--seed", "3"]
    argv += ["--json", str(summary), "--log", str(log), "--no-pin", "--quiet"]
    done = subprocess.run(
        argv, capture_output=True, text=True, timeout=120, env=env, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 0, done.stderr
    assert "isolation:" in done.stdout and "competent-1" in done.stdout
    assert json.loads(summary.read_text())["games_played"] == 20
    assert len(log.read_text().splitlines()) == 20
    bad = [sys.executable, "-m", "referee", "match", bot, bot, "--games", "0"]
    done = subprocess.run(bad, capture_output=True, text=True, timeout=120, env=env, stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and "--games" in done.stderr
    assert list(own_tmp.iterdir()) == []


def test_under_a_profiler_the_match_command_exits_normally(built_samples, tmp_path):
    """The quick exit is skipped when a profiler (or a tracer) runs: cProfile writes its
    statistics as the interpreter exits, and must find them there."""
    stats = tmp_path / "match.prof"
    bot = str(built_samples / "yahtzee/bin/competent")
    argv = [sys.executable, "-m", "cProfile", "-o", str(stats), "-m", "referee", "match", bot, bot]
    argv += ["--games", "2", "--no-pin", "--quiet"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    assert stats.stat().st_size > 0


def test_the_collector_is_off_while_the_command_starts_and_on_when_it_runs():
    """referee.__main__.run turns the garbage collector off for the imports and the
    parsing (their objects live as long as the process), and main() freezes them and
    turns it back on before the command runs: a long match must have it."""
    code = (
        "import gc, sys\n"
        "import referee.cli.commands as c\n"
        "def seen(args):\n"
        "    print(gc.isenabled(), gc.get_freeze_count() > 1000)\n"
        "    return 0\n"
        "c.cmd_games = seen\n"
        "sys.argv = ['referee', 'games']\n"
        "from referee.__main__ import run\n"
        "print(gc.isenabled())\n"
        "run()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True", "True"]


def test_games_lists_yahtzee():
    done = referee("games")
    assert done.returncode == 0 and "yahtzee" in done.stdout


def test_holdem_table_exports_phh_and_counts_hands_won(built_samples, tmp_path):
    """Issue 5: results carry hands won; the hand log also exports to PHH (pokerkit reads it back)."""
    from pokerkit import HandHistory

    phh, summary = tmp_path / "hands.phhs", tmp_path / "summary.json"
    done = referee(
        "match", str(built_samples / "holdem/bin/montecarlo"), f"python3 {built_samples}/holdem/always_call.py",
        f"python3 {built_samples}/holdem/hand_strength.py",
        "--game", "holdem", "--games", "3", "--seed", "2", "--export", f"phh={phh}", "--json", str(summary), "--no-pin",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    hands = list(HandHistory.loads_all(phh.read_text()))
    players = json.loads(summary.read_text())["players"]
    won = [p["tallies"]["hands_won"] for p in players]
    # every hand has at least one winner; split pots count for each winner
    assert len(hands) <= sum(won) and len(hands) >= 3
    assert "hands won" in done.stdout


def test_export_format_the_game_lacks_is_a_usage_error(built_samples, tmp_path):
    competent = str(built_samples / "yahtzee/bin/competent")
    done = referee("match", competent, competent, "--games", "1", "--export", f"phh={tmp_path / 'x'}")
    assert done.returncode == 2 and "cannot be exported as phh" in done.stderr


def test_a_bad_output_path_is_a_one_line_error_before_any_game(built_samples, tmp_path):
    """Issue 9: `--json /nonexistent/dir/s.json` played the whole match and then raised.
    Every output path is checked first: exit 2, one line, nothing played."""
    competent = str(built_samples / "yahtzee/bin/competent")
    for flag in ("--json", "--log"):
        started = time.perf_counter()
        done = referee("match", competent, competent, "--games", "100000", flag, "/nonexistent/dir/out")
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and flag in done.stderr and "no such directory" in done.stderr
        assert time.perf_counter() - started < 20, "it played before checking"


def test_two_games_cannot_share_a_flag_that_means_two_things(monkeypatch):
    """Issue 10: a game option declared by two games with another type or help is
    refused when the parser is built, instead of silently sharing one flag."""
    import argparse

    import pytest

    from referee import games
    from referee.cli import arguments
    from referee.games.base import Option

    clashing = type(
        "Clash",
        (games.get("yahtzee"),),
        {"name": "clash", "option_specs": {"cards": Option(str, "x", "other")}},
    )
    monkeypatch.setattr(games, "_registry", {**games.available(), "zz-clash": clashing})
    with pytest.raises(ValueError, match="--cards of zz-clash clashes with bidding-wars"):
        arguments.add_game_options(argparse.ArgumentParser(), "game options")


def test_a_usage_error_is_one_line_naming_help():
    """README: a bad option is exit 2 with one line on stderr (not argparse's usage block)."""
    for args, says in (
        (("match", "a", "b", "--game", "yatzee"), "invalid choice: 'yatzee'"),
        (("match", "a", "b", "--memory-limit", "abc"), "must be a positive number of MiB"),
        (("bogus",), "invalid choice: 'bogus'"),
    ):
        done = referee(*args)
        assert done.returncode == 2, done
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and says in lines[0] and "--help" in lines[0], done.stderr


def test_an_output_in_a_directory_that_cannot_be_written_says_so(built_samples, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    if os.access(locked, os.W_OK):
        pytest.skip("root writes anywhere (CI runs this file as an ordinary user too)")
    competent = str(built_samples / "yahtzee/bin/competent")
    done = referee("match", competent, competent, "--log", str(locked / "x.jsonl"))
    assert done.returncode == 2 and "the directory is not writable" in done.stderr, done.stderr
