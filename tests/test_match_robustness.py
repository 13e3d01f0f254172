"""Issue 9, through the command line as a user runs it: a match never loses a result
and always says why.

Each numbered item of the issue is a test here: interrupts (1), output paths (2), a
bot that never answers (3), the extra-line verdict (4), a crash's reason (5), a bot
that cannot start (6), and the details of messages and help (7); then Liar's Dice
penalties as seed 001 states them.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from conftest import BOT_PYTHON, ROOT

pytestmark = [pytest.mark.usefixtures("built_samples"), pytest.mark.slow, pytest.mark.e2e]

COMPETENT = str(ROOT / "sample_players/yahtzee/bin/competent")
READER = str(ROOT / "sample_players/liars_dice/bin/reader")
GREEDY = f"{BOT_PYTHON} {ROOT}/sample_players/yahtzee/greedy_player.py"


def referee(*args: str, cwd=None, timeout: float = 120, env=None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd or ROOT,
        stdin=subprocess.DEVNULL,
        env=env,
    )


def bot(tmp_path: Path, name: str, source: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    return f"{BOT_PYTHON} {path}"


def running_under(pid: int, word: str) -> bool:
    """Whether a process with ``word`` in its command line runs under ``pid``."""
    try:
        tree = psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return False
    for process in tree:
        try:
            if word in process.cmdline():
                return True
        except psutil.Error:
            continue
    return False


# A Liar's Dice bot that reads its requests and never answers (like a mawk bot without
# -W interactive, whose answers wait behind its buffered input).
SILENT = "import sys\nfor line in sys.stdin:\n    pass\n"


# ------------------------------------------------------------------ 1. interrupts


@pytest.mark.parametrize(
    ("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)]
)
def test_a_stop_signal_ends_the_match_with_its_summary(tmp_path, signum, status):
    """The summary of the games played is written (valid JSON, marked stopped, as many
    games as the log has), the table printed, the documented status returned, no
    traceback, and no working directory of the referee's left in /tmp."""
    summary, log = tmp_path / "s.json", tmp_path / "g.jsonl"
    referee_run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "referee",
            "match",
            COMPETENT,
            GREEDY,
            "--games",
            "100000",
            "--json",
            str(summary),
            "--log",
            str(log),
            "--no-pin",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not log.exists() or log.stat().st_size < 5000):
        time.sleep(0.05)
    referee_run.send_signal(signum)
    stdout, stderr = referee_run.communicate(timeout=60)
    assert referee_run.returncode == status, stderr
    assert "Traceback" not in stderr and "ExceptionGroup" not in stderr, stderr
    data = json.loads(summary.read_text())
    played = len(log.read_text().splitlines())
    assert data["completed"] is False and data["games_played"] == played > 0
    assert data["stopped"] == f"interrupted by {signal.Signals(signum).name}"
    assert sum(p["games"] for p in data["players"]) == 2 * played
    assert f"interrupted by {signal.Signals(signum).name} after {played} games" in stderr
    assert "competent" in stdout  # the table
    assert not list(Path("/tmp").glob(f"referee-{referee_run.pid}-*"))
    assert not list(Path("/tmp").glob(f"referee-stderr-{referee_run.pid}-*"))


def test_an_interrupt_while_a_bot_is_silent_ends_at_once(tmp_path):
    """Ctrl-C while the referee waits out a bot's 60 s startup allowance: it stops at
    once, with a summary of zero games, and leaves no process or directory behind."""
    sleeper = bot(tmp_path, "sleeper", "import time\ntime.sleep(3600)\n")
    summary = tmp_path / "s.json"
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "referee",
            "match",
            sleeper,
            COMPETENT,
            "--games",
            "5",
            "--json",
            str(summary),
            "--no-pin",
            "--quiet",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
    )
    # Interrupted once the sleeper runs (not after a fixed delay: a loaded machine may
    # still be importing, or preparing the match, which writes no summary).
    script = str(tmp_path / "sleeper.py")
    deadline = time.monotonic() + 30
    while not running_under(run.pid, script) and time.monotonic() < deadline and run.poll() is None:
        time.sleep(0.02)
    assert running_under(run.pid, script), "the sleeper never started"
    sent = time.monotonic()
    run.send_signal(signal.SIGINT)
    _, stderr = run.communicate(timeout=30)
    assert run.returncode == 130, stderr
    assert time.monotonic() - sent < 10
    data = json.loads(summary.read_text())
    assert data["games_played"] == 0 and data["stopped"] == "interrupted by SIGINT"
    assert not list(Path("/tmp").glob(f"referee-{run.pid}-*"))
    assert not [
        p for p in psutil.process_iter(["cmdline"]) if str(tmp_path) in " ".join(p.info["cmdline"] or [])
    ]


def test_the_summary_is_rewritten_during_the_match(tmp_path):
    """kill -9 cannot be caught: the summary on disk then holds the games of the last
    checkpoint (every 10 s; 1 s here), marked in progress, and stays valid JSON."""
    summary = tmp_path / "s.json"
    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "referee",
            "match",
            COMPETENT,
            COMPETENT,
            "--games",
            "1000000",
            "--json",
            str(summary),
            "--no-pin",
            "--quiet",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        cwd=ROOT,
        env={**os.environ, "REFEREE_CHECKPOINT_EVERY_S": "1"},
    )
    try:
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline and not summary.exists():
            time.sleep(0.1)
    finally:
        run.kill()
        run.wait()
    data = json.loads(summary.read_text())
    assert data["games_played"] > 0 and data["completed"] is False
    assert data["stopped"].startswith("in progress")


# ------------------------------------------------------------------ 2. output paths


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--json", "/nonexistent/dir/s.json"),
        ("--log", "/nonexistent/dir/g.jsonl"),
        ("--export", "phh=/nonexistent/dir/h.phh"),
        ("--stderr-dir", "/nonexistent/dir/err"),
    ],
)
def test_a_bad_output_path_is_a_usage_error_before_any_game(flag, value):
    game = ("--game", "holdem") if flag == "--export" else ()
    started = time.monotonic()
    done = referee("match", COMPETENT, COMPETENT, *game, "--games", "100000", flag, value)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and flag in done.stderr and "no such directory" in done.stderr
    assert time.monotonic() - started < 20  # refused, not played


def test_a_stderr_dir_that_is_a_file_is_refused(tmp_path):
    target = tmp_path / "file"
    target.write_text("")
    done = referee("match", COMPETENT, COMPETENT, "--games", "1", "--stderr-dir", str(target))
    assert done.returncode == 2 and "not a directory" in done.stderr


# ------------------------------------------------------------------ 3. a bot that never answers


def test_a_never_answering_bot_costs_a_few_startup_allowances(tmp_path):
    """Liar's Dice restarts a dead bot; one that never answers is given up on after
    --give-up-after (3) tries, so 40 games take about 3 startup allowances, and the
    verdict names the usual causes (mawk's buffered input among them).  Without a
    terminal, progress lines go to stderr.  (It reads its first request, so that
    decision is a ``timeout``, as every decision is held to the seed's 50 ms; its late
    answer is awaited for at most the startup allowance, and then it is stopped with
    ``startup``.)"""
    silent = bot(tmp_path, "silent", SILENT)
    summary = tmp_path / "s.json"
    env = {**os.environ, "REFEREE_PROGRESS_EVERY_S": "0.5"}
    started = time.monotonic()
    done = referee(
        "match", silent, READER, "--game", "liars-dice", "--games", "40", "--startup-timeout", "1",
        "--json", str(summary), "--no-pin", env=env,
    )  # fmt: skip
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert elapsed < 3 * 1 + 12, elapsed  # three allowances, plus start-up of the interpreter
    data = json.loads(summary.read_text())
    silent_stats = next(p for p in data["players"] if p["name"] == "silent")
    assert set(silent_stats["forfeits"]) == {"startup", "timeout"}
    assert silent_stats["forfeits"]["timeout"] == 3  # each process's first decision
    assert silent_stats["restarts"] == 2  # the first start, then two more: three in a row
    details = [f["detail"] for f in silent_stats["forfeit_details"] if f["verdict"] == "startup"]
    assert "mawk" in details[0] and "flush" in details[0]
    assert any("out for the rest of the match after 3 failed starts" in d for d in details)
    assert "out for the rest of the match" in done.stderr  # said at once, as a notice
    progress = [line for line in done.stderr.splitlines() if re.search(r"\d+/40 games", line)]
    assert progress and "last forfeit: silent " in progress[-1], done.stderr


def test_give_up_after_is_configurable(tmp_path):
    silent = bot(tmp_path, "silent", SILENT)
    summary = tmp_path / "s.json"
    done = referee(
        "match", silent, READER, "--game", "liars-dice", "--games", "10", "--startup-timeout", "0.5",
        "--give-up-after", "1", "--json", str(summary), "--no-pin", "--quiet",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    silent_stats = next(p for p in json.loads(summary.read_text())["players"] if p["name"] == "silent")
    assert silent_stats["restarts"] == 0


# ------------------------------------------------------------------ 4. the extra line


def test_the_extra_line_verdict_quotes_the_stray_line(tmp_path):
    chatty = bot(
        tmp_path,
        "chatty",
        # Answers requests only: the `players` line at each game's start is information.
        "import sys\nfor line in sys.stdin:\n    if line.startswith('turn '):\n"
        "        print('thinking about it\\nbid 6 2', flush=True)\n",
    )
    summary = tmp_path / "s.json"
    done = referee("match", chatty, READER, "--game", "liars-dice", "--games", "1", "--json", str(summary))
    assert done.returncode == 0, done.stderr
    detail = json.loads(summary.read_text())["players"][0]["forfeit_details"][0]["detail"]
    assert "printed more than one line: 'thinking about it' and then 'bid 6 2'" in detail
    assert "stderr" in detail
    assert "thinking about it" in done.stdout and "b'" not in done.stdout


# ------------------------------------------------------------------ 5. a crash says why


def test_a_script_name_with_a_typo_is_a_usage_error(tmp_path):
    """``python3 mybot_typo.py``: said before the match (exit 2, one line naming the
    file and where it was looked for), not 1000 crashes."""
    done = referee("match", f"{BOT_PYTHON} mybot_typo.py", COMPETENT, "--games", "2", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "no such file 'mybot_typo.py'" in done.stderr and str(tmp_path) in done.stderr


def test_a_crash_quotes_the_end_of_its_stderr(tmp_path):
    """A bot that dies of an exception: the reason is in the verdict, on the console and
    in the JSON, not only in a stderr file."""
    broken = bot(tmp_path, "broken", "import sys\nimport no_such_module_xyz\n")
    summary = tmp_path / "s.json"
    done = referee("match", broken, COMPETENT, "--games", "2", "--json", str(summary))
    assert done.returncode == 0, done.stderr
    detail = json.loads(summary.read_text())["players"][0]["forfeit_details"][0]["detail"]
    assert "exited with code 1 before its first answer" in detail
    assert "stderr:" in detail and "No module named 'no_such_module_xyz'" in detail
    assert "no_such_module_xyz" in done.stdout


def test_exit_127_explains_itself(tmp_path):
    script = tmp_path / "runner.sh"
    script.write_text("#!/bin/sh\nexec no-such-program-xyz\n")
    script.chmod(0o755)
    summary = tmp_path / "s.json"
    done = referee("match", str(script), COMPETENT, "--games", "1", "--json", str(summary))
    detail = json.loads(summary.read_text())["players"][0]["forfeit_details"][0]["detail"]
    assert "code 127" in detail and "not found" in detail and "no-such-program-xyz" in detail, done.stdout


# ------------------------------------------------------------------ 6. a bot that cannot start


def test_a_bot_that_cannot_start_among_three_forfeits_and_the_others_play(tmp_path):
    summary = tmp_path / "s.json"
    done = referee(
        "match", "/bin/does-not-exist-xyz", READER, READER, "--game", "liars-dice", "--games", "5",
        "--json", str(summary), "--no-pin",
    )  # fmt: skip
    # Resolving the command fails before the match: a usage error, one line.
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    broken = tmp_path / "broken"
    broken.write_text("#!/nonexistent/interpreter\n")
    broken.chmod(0o755)
    done = referee(
        "match", str(broken), READER, READER, "--game", "liars-dice", "--games", "5", "--json", str(summary),
        "--no-pin",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "broken cannot start" in done.stderr and "the others play on" in done.stderr
    data = json.loads(summary.read_text())
    assert data["completed"] is True and data["games_played"] == 5
    broken_stats = next(p for p in data["players"] if p["name"] == "broken")
    assert set(broken_stats["forfeits"]) == {"startup"} and broken_stats["wins"] == 0
    readers = [p for p in data["players"] if p["name"] != "broken"]
    assert sum(p["wins"] for p in readers) == 5


def test_two_bots_one_cannot_start_exits_3_with_a_summary(tmp_path):
    broken = tmp_path / "broken"
    broken.write_text("#!/nonexistent/interpreter\n")
    broken.chmod(0o755)
    summary = tmp_path / "s.json"
    done = referee("match", str(broken), COMPETENT, "--games", "3", "--json", str(summary))
    assert done.returncode == 3
    assert "cannot start: cannot start" not in done.stderr
    data = json.loads(summary.read_text())
    assert data["games_played"] == 0 and "broken cannot start" in data["stopped"]
    keep = referee("match", str(broken), COMPETENT, "--games", "3", "--keep-going", "--json", str(summary))
    assert keep.returncode == 0 and json.loads(summary.read_text())["games_played"] == 3


def test_a_failed_build_exits_3(tmp_path):
    home = tmp_path / "built"
    home.mkdir()
    (home / "bot.toml").write_text(
        'name = "built"\nrun = "./bot"\nbuild = "echo compile error >&2; exit 1"\n'
    )
    done = referee("match", str(home), COMPETENT, "--games", "1", "--build")
    assert done.returncode == 3, done.stderr
    assert "build failed" in done.stderr and "compile error" in done.stderr


@pytest.mark.parametrize("run", ["./bot", "bot"])
def test_a_build_that_makes_the_program_plays_the_first_time(tmp_path, run):
    """The program 'run' names may exist only once the build has made it: the bot is
    resolved again after its build (it used to fail to start until a second run)."""
    home = tmp_path / "built"
    home.mkdir()
    (home / "make.sh").write_text(
        "printf '#!/bin/sh\\nwhile read line; do echo 0; done\\n' > bot\nchmod 755 bot\n"
    )
    (home / "bot.toml").write_text(f'name = "built"\nrun = "{run}"\nbuild = "sh make.sh"\n')
    home.chmod(0o755)
    summary = tmp_path / "s.json"
    done = referee("match", str(home), COMPETENT, "--games", "2", "--build", "--json", str(summary))
    assert done.returncode == 0, done.stderr
    built = next(p for p in json.loads(summary.read_text())["players"] if p["name"] == "built")
    assert built["games"] == 2 and built["decisions"] >= 2 and "startup" not in built["forfeits"]


# ------------------------------------------------------------------ 7. details and help


def test_the_table_says_how_many_more_forfeits_there_are(tmp_path):
    """Always "0": legal once a game (ones), then an illegal move that forfeits each of
    30 games; the summary details 20, the table groups them and counts the other 10."""
    zero = bot(tmp_path, "zero", "import sys\nfor line in sys.stdin:\n    print(0, flush=True)\n")
    done = referee("match", zero, COMPETENT, "--games", "30", "--no-pin")
    assert "zero: illegal ×20 at game 0 decision" in done.stdout, done.stdout
    assert "zero: 10 more forfeits, counted in the table (--json details the first 20" in done.stdout
    assert "position:" in done.stdout and "reply:" in done.stdout


def test_a_reply_never_reaches_the_terminal_raw(tmp_path):
    """A reply with an escape sequence and a NUL: escaped in the table and the details."""
    nasty = bot(
        tmp_path, "nasty", "import sys\nfor line in sys.stdin:\n    print('\\x1b[31mX\\x00', flush=True)\n"
    )
    done = referee("match", nasty, COMPETENT, "--games", "1", "--no-pin")
    assert "\x1b" not in done.stdout and "\x00" not in done.stdout and "\x00" not in done.stderr
    assert "\\x1b[31mX\\x00" in done.stdout, done.stdout


def test_messages_show_text_not_python_bytes(tmp_path):
    caller = bot(tmp_path, "caller", "import sys\nfor line in sys.stdin:\n    print('call', flush=True)\n")
    summary = tmp_path / "s.json"
    done = referee("match", caller, COMPETENT, "--games", "1", "--json", str(summary))
    detail = json.loads(summary.read_text())["players"][0]["forfeit_details"][0]["detail"]
    assert "'call'" in detail and "b'" not in detail and "b'" not in done.stdout


def test_a_script_that_is_not_executable_gets_the_right_command(tmp_path):
    js = tmp_path / "bot.js"
    js.write_text("console.log(0)\n")
    done = referee("match", str(js), COMPETENT)
    assert done.returncode == 2 and f'"node {js}"' in done.stderr and "python3" not in done.stderr


def test_help_and_games_lead_somewhere():
    games = referee("games")
    assert "default --games 1000" in games.stdout and "each answer 0.05 s" in games.stdout
    assert "130" in referee("--help").stdout
    match_help = referee("match", "--help").stdout
    assert "130" in match_help and "docs/writing-a-bot.md" in match_help and "docs/protocols/" in match_help
    bench_help = referee("bench", "--help").stdout
    assert "round trips" in bench_help and "Yahtzee match" in bench_help
    wrong = referee("match", COMPETENT, COMPETENT, COMPETENT, "--games", "1")
    assert "exactly 2 bots" in wrong.stderr


def test_options_may_come_between_the_bots():
    done = referee("match", COMPETENT, "--games", "2", COMPETENT, "--seed", "3")
    assert done.returncode == 0, done.stderr
    assert "2 games, seed 3" in done.stdout


# ------------------------------------------------------------------ Liar's Dice penalties


def test_liars_dice_timeouts_cost_one_die_each_reported_as_timeout(tmp_path):
    """The issue's own command: flaky --slow-every 1 at a 20 ms limit.  Seed 001: a die
    per timeout; the log and the summary agree, and no penalty takes more than one die."""
    log, summary = tmp_path / "g.jsonl", tmp_path / "s.json"
    done = referee(
        "match", f"{BOT_PYTHON} sample_players/liars_dice/flaky.py --slow-every 1", READER,
        "--game", "liars-dice", "--games", "1", "--seed", "1", "--decision-timeout", "0.02",
        "--log", str(log), "--json", str(summary),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    record = json.loads(log.read_text())
    seat = record["seats"].index("flaky")
    penalties = [r["penalty"] for r in record["summary"]["rounds"] if r.get("penalty")]
    assert penalties and all(p["dice_lost"] == 1 for p in penalties)
    assert all(p["verdict"] == "timeout" for p in penalties if p["seat"] == seat)
    flaky = next(p for p in json.loads(summary.read_text())["players"] if p["name"] == "flaky")
    assert set(flaky["forfeits"]) == {"timeout"}
    assert flaky["forfeits"]["timeout"] == sum(p["seat"] == seat for p in penalties)
    assert "seats 2" in done.stderr and "seed seats 4" in done.stderr  # the two-seat note


def test_the_log_keeps_a_faulted_reply_whole(tmp_path):
    long_reply = "x" * 1000
    noisy = bot(
        tmp_path,
        "noisy",
        f"import sys\nfor line in sys.stdin:\n    if line.startswith('turn '):\n        print('{long_reply}', flush=True)\n",
    )
    log = tmp_path / "g.jsonl"
    done = referee("match", noisy, READER, "--game", "liars-dice", "--games", "1", "--log", str(log))
    assert done.returncode == 0, done.stderr
    steps = json.loads(log.read_text())["transcript"]
    faulted = [s for s in steps if "verdict" in s]
    assert faulted and faulted[0]["reply"] == long_reply and faulted[0]["line"].startswith("turn ")


def test_placements_count_every_place_for_any_seat_count(tmp_path):
    """Four Liar's Dice seats: each game gives one first place (the seed's single
    winner) and one of each other place; wins are first places."""
    summary = tmp_path / "s.json"
    done = referee(
        "match",
        READER,
        READER,
        READER,
        READER,
        "--game",
        "liars-dice",
        "--games",
        "8",
        "--json",
        str(summary),
    )
    assert done.returncode == 0, done.stderr
    players = json.loads(summary.read_text())["players"]
    for place in ("1", "2", "3", "4"):
        assert sum(p["placements"].get(place, 0) for p in players) == 8
    assert all(p["wins"] == p["placements"].get("1", 0) for p in players)
    assert all(p["wins"] + p["losses"] + p["draws"] == 8 for p in players)


# ------------------------------------------------------------------ from the review


def test_the_sweep_removes_only_a_dead_referees_own_directories(tmp_path):
    """Only names a referee makes, owned by this user, of a pid not running; a crafted
    name (a pid too large for the system) neither crashes the sweep nor is removed."""
    from referee.seats.process.bot import sweep_stale_directories

    stale = tmp_path / "referee-3999999-bot-abcd1234"
    names = [
        "referee-99999999999999999999-x",
        "referee-2023-11-results",
        f"referee-{os.getpid()}-me-abcd1234",
    ]
    for name in names:
        (tmp_path / name).mkdir()
    stale.mkdir()
    (stale / "file").write_text("x")
    assert sweep_stale_directories(str(tmp_path)) == 1
    assert not stale.exists() and all((tmp_path / name).exists() for name in names)


def test_the_summary_never_follows_a_planted_link(tmp_path):
    from referee.sinks.files import write_atomically

    victim = tmp_path / "victim"
    victim.write_text("keep")
    for pid in range(os.getpid() - 2, os.getpid() + 3):  # the names the old code used
        (tmp_path / f".s.json.{pid}.tmp").symlink_to(victim)
    write_atomically(str(tmp_path / "s.json"), b"{}\n")
    assert victim.read_text() == "keep" and (tmp_path / "s.json").read_bytes() == b"{}\n"


@pytest.mark.parametrize(
    "command",
    [
        f"{BOT_PYTHON} -c 'print(1/2)'",
        "sh -c 'exec cat'",
        f"{BOT_PYTHON} {ROOT}/sample_players/yahtzee/greedy_player.py --server http://localhost:8000/",
        f"{BOT_PYTHON} {ROOT}/sample_players/yahtzee/greedy_player.py out/game.log",
    ],
)
def test_a_command_with_code_urls_or_later_files_is_not_refused(command):
    from referee.core.botspec import resolve

    assert resolve(command).argv


def test_a_closed_stderr_does_not_lose_the_summary(tmp_path):
    """`referee match … 2>&1 | head -1`: stderr is a pipe nobody reads any more."""
    summary = tmp_path / "s.json"
    silent = bot(tmp_path, "silent", SILENT)
    read_end, write_end = os.pipe()
    os.close(read_end)
    env = {**os.environ, "REFEREE_PROGRESS_EVERY_S": "0.2"}
    done = subprocess.run(
        [sys.executable, "-m", "referee", "match", silent, READER, "--game", "liars-dice", "--games", "3",
         "--startup-timeout", "0.5", "--json", str(summary)],
        stdout=subprocess.DEVNULL, stderr=write_end, stdin=subprocess.DEVNULL, cwd=ROOT, env=env, timeout=60,
    )  # fmt: skip
    os.close(write_end)
    assert done.returncode == 0
    assert json.loads(summary.read_text())["games_played"] == 3


def test_a_failed_build_among_three_is_said_once(tmp_path):
    home = tmp_path / "built"
    home.mkdir()
    (home / "bot.toml").write_text(
        'name = "built"\nrun = "./bot"\nbuild = "echo compile error >&2; exit 1"\n'
    )
    done = referee("match", str(home), READER, READER, "--game", "liars-dice", "--games", "2", "--build")
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if "build failed" in line]
    assert len(lines) == 1 and lines[0].count("cannot start") == 1, done.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="bot uids exist only when the referee is root")
def test_as_root_the_sweep_also_removes_a_dead_referees_bot_owned_directories(tmp_path):
    """As root each bot's working directory belongs to the bot's uid: a referee killed
    with SIGKILL leaves them behind, and the next one must recognise them by the dead
    referee's uid block (and leave alone one owned by any other uid)."""
    from referee.seats.process import sandbox
    from referee.seats.process.bot import sweep_stale_directories

    dead = 3999998
    bots = tmp_path / f"referee-{dead}-bot-abcd1234"
    stranger = tmp_path / f"referee-{dead}-other-abcd1234"
    for path, uid in ((bots, sandbox.uid_block(dead)[1]), (stranger, sandbox.uid_block(dead + 1)[1])):
        path.mkdir()
        (path / "file").write_text("x")
        os.chown(path / "file", uid, uid)
        os.chown(path, uid, uid)
    assert sweep_stale_directories(str(tmp_path)) == 1
    assert not bots.exists() and stranger.exists()
