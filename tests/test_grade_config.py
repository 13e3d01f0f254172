"""grading.toml, the points scheme and the qualification rule of `referee grade`.

Issue 13: "The configuration (TOML, documented with a full example per seed game) names:
build limits, the qualification opponent and threshold, the tournament format and its
parameters, the grading scheme (e.g. points for building, for passing referee check, for
qualifying, for placement or rating, with caps), and which feedback students see";
qualification is "the Yahtzee seed's rule: beat a random legal player … with a
configurable number of games and a significance rule".
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from referee import games
from referee.core.records import MatchEvidence
from referee.games.base import Standing as GameStanding
from referee.grade import compete, config, scheme
from referee.grade.model import OK, CheckItem, CheckStep, CompeteStep, QualifyStep, StudentResult
from referee.grade.steps import _judge, limit_flags, step_seed
from referee.stats.intervals import Moments

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "docs" / "grading").glob("*.toml"))


def test_there_is_an_example_for_every_seed_game() -> None:
    assert {p.stem for p in EXAMPLES} == set(games.available())


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_each_example_is_a_configuration_grading_accepts(path: Path) -> None:
    parsed, base = config.load(path)
    assert parsed.game == path.stem
    house = [config.bot_command(h, parsed.game, base) for h in parsed.compete.house]
    config.bot_command(parsed.qualify.opponent, parsed.game, base)
    compete.validate(parsed, parsed.game, house, "auto")  # what `referee tournament` would refuse


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[qualify]\ngamez = 3\n", "unknown key `gamez` in [qualify] (did you mean `games`?)"),
        ('[qualify]\nrule = "luck"\n', "rule"),
        ('[points]\ncompete_by = "vibes"\n', "compete_by"),
        ('[points.visibility]\nbuild = "sometimes"\n', "not one of"),
        ('[points.visibility]\nstyle = "visible"\n', "no item 'style'"),
        ("[feedback]\nbuildlog = true\n", "unknown key `buildlog` in [feedback] (did you mean `build_log`?)"),
        ("[qualify]\nconfidence = 1.5\n", "confidence"),
        ("[compete]\ngames = 0\n", "compete.games"),
    ],
)
def test_mistakes_are_refused_in_one_line(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "grading.toml"
    path.write_text(text)
    with pytest.raises(config.GradingConfigError) as caught:
        config.load(path)
    assert words in str(caught.value) and "\n" not in str(caught.value)


def test_a_compete_section_the_tournament_refuses_is_refused_before_anything_runs() -> None:
    bad = config.parse({"compete": {"format": "tables", "table_size": 9}})
    with pytest.raises(ValueError, match="yahtzee"):
        compete.validate(bad, "yahtzee", [], "auto")


def test_sample_players_and_paths_become_commands(tmp_path: Path) -> None:
    assert config.bot_command("random", "dice-poker", tmp_path).endswith("dice_poker/random_player.py")
    assert "yahtzee/bin/competent" in config.bot_command("sample:competent", "yahtzee", tmp_path)
    (tmp_path / "house").mkdir()
    assert config.bot_command("house", "yahtzee", tmp_path) == str((tmp_path / "house").resolve())
    with pytest.raises(config.GradingConfigError, match="no sample player"):
        config.bot_command("sample:nobody", "yahtzee", tmp_path)


def test_step_seeds_depend_on_the_student_not_the_class() -> None:
    assert step_seed(7, "check", "alice") == step_seed(7, "check", "alice")
    assert (
        len({step_seed(7, "check", "alice"), step_seed(7, "check", "bob"), step_seed(7, "qualify", "alice")})
        == 3
    )
    assert 0 <= step_seed(2**64 - 1, "compete", "") < 2**63


def test_limits_become_the_flags_check_and_match_take() -> None:
    limits = config.parse(
        {"limits": {"decision_s": 0.5, "memory_bytes": 64 << 20, "cpu_s": float("inf")}}
    ).limits
    assert limit_flags(limits) == ["--decision-timeout", "0.5", "--memory-limit", "64", "--cpu-limit", "none"]


# ---------------------------------------------------------------------------- qualification


def _evidence(points: list[int], edge: Moments | None = None) -> MatchEvidence:
    return MatchEvidence(games_per_unit=1, units=sum(points), points=points, edge=edge)


def test_significant_needs_the_lower_bound_above_a_half() -> None:
    # 60 wins in 100 games: rate 0.6, sd 0.49, one-sided 95 % bound 0.6 - 1.66 * 0.049 = 0.519.
    step = QualifyStep(outcome=OK, summary="", wins=60, losses=40)
    assert _judge(step, _evidence([40, 0, 60]), GameStanding.WINS, "significant", 0.95)
    assert step.interval is not None and 0.51 < step.interval[0] < 0.53
    # 55 of 100: the bound (0.467) is below a half — could be luck.
    step = QualifyStep(outcome=OK, summary="", wins=55, losses=45)
    assert not _judge(step, _evidence([45, 0, 55]), GameStanding.WINS, "significant", 0.95)
    # ... which "more-wins", the seed's words taken literally, lets in.
    assert _judge(step, _evidence([45, 0, 55]), GameStanding.WINS, "more-wins", 0.95)


def test_games_ranked_by_chips_qualify_on_the_mean_edge() -> None:
    # 400 deals, mean +0.5 chips, sd 3: bound 0.5 - 1.65 * 3 / 20 = 0.25 > 0.
    n, mean, sd = 400, 0.5, 3.0
    edge = Moments(n=n, total=n * mean, total_sq=(n - 1) * sd * sd + n * mean * mean)
    step = QualifyStep(outcome=OK, summary="", wins=150, losses=250)  # fewer deals won, more chips
    assert _judge(step, _evidence([250, 0, 150], edge), GameStanding.SCORE, "significant", 0.95)
    assert step.measure == "score per game"
    assert not _judge(step, _evidence([250, 0, 150], edge), GameStanding.SCORE, "significant", 0.9999999)


# ---------------------------------------------------------------------------- points


def _student(
    name: str, *, rank: int | None = None, rating: float | None = None, games: int = 10, wins: int = 5
):
    s = StudentResult(student=name)
    from referee.grade.model import BuildStep, UnpackStep

    s.unpack = UnpackStep(outcome=OK, summary="")
    s.build = BuildStep(outcome=OK, summary="built")
    s.check = CheckStep(outcome=OK, summary="passed")
    s.qualify = QualifyStep(outcome=OK, summary="qualified")
    s.compete = CompeteStep(outcome=OK, summary="", rank=rank, rating=rating, games=games, wins=wins)
    return s


ENABLED = {"check": True, "qualify": True, "compete": True}


def test_rank_points_are_linear_from_full_to_the_floor_and_ties_share() -> None:
    students = [_student("a", rank=1), _student("b", rank=2), _student("c", rank=2), _student("d", rank=4)]
    points = config.PointsSection(compete=60, compete_floor=0.5)
    scheme.apply(students, points, ENABLED)
    compete_points = {s.student: s.points[-1].points for s in students}
    # Four students: shares 1, 5/6, 5/6 (tied at position 2), 1/2.
    assert compete_points == {"a": 60, "b": 50, "c": 50, "d": 30}
    assert students[0].total == 100 and students[0].max_total == 100


def test_rating_and_score_rate_schemes() -> None:
    students = [
        _student("a", rating=100.0, wins=9),
        _student("b", rating=0.0, wins=1),
        _student("c", rating=50.0),
    ]
    scheme.apply(students, config.PointsSection(compete=10, compete_by="rating", compete_floor=0.0), ENABLED)
    assert [s.points[-1].points for s in students] == [10, 0, 5]
    scheme.apply(students, config.PointsSection(compete=10, compete_by="score-rate"), ENABLED)
    assert [s.points[-1].points for s in students] == [9, 1, 5]


def test_a_failed_step_scores_nothing_after_it_and_partial_check_and_cap() -> None:
    s = _student("a", rank=1)
    s.check = CheckStep(
        outcome="check-failed",
        summary="failed: legal moves",
        items=[
            CheckItem(key="k", title=t, status=st)
            for t, st in (("a", "pass"), ("b", "fail"), ("c", "pass"), ("d", "skip"))
        ],
    )
    s.qualify = s.compete = None
    points = config.PointsSection(check=9, check_partial=True, cap=15)
    scheme.apply([s], points, ENABLED)
    by = {p.name: p for p in s.points}
    # 2 of the 4 items: the one not reached (skip) is not passed (issue 28)
    assert by["check"].points == 4.5 and by["check"].why == "2 of 4 checklist items passed"
    assert by["qualify"].points == 0 and "check step failed" in by["qualify"].why
    assert (s.total, s.max_total) == (14.5, 15)  # 10 + 4.5; the maximum capped


def test_a_step_switched_off_is_not_in_the_maximum() -> None:
    s = _student("a", rank=1)
    scheme.apply([s], config.PointsSection(), {"check": False, "qualify": True, "compete": True})
    assert [p.name for p in s.points] == ["build", "qualify", "compete"]
    assert s.max_total == 90


def test_the_benefit_of_the_doubt_gives_rank_points_for_the_best_plausible_rank() -> None:
    students = [_student("a", rank=1), _student("b", rank=2), _student("c", rank=3)]
    students[0].compete.rank_range = [1, 2]
    students[1].compete.rank_range = [1, 3]  # could be first: the games cannot tell
    students[2].compete.rank_range = [3, 3]
    scheme.apply(
        students, config.PointsSection(compete=60, compete_floor=0.5, benefit_of_doubt=True), ENABLED
    )
    assert [s.points[-1].points for s in students] == [60, 60, 30]
    scheme.apply(students, config.PointsSection(compete=60, compete_floor=0.5), ENABLED)
    assert [s.points[-1].points for s in students] == [60, 45, 30]


#: Every numeric key of grading.toml, with a value just out of its range (issue 27).
OUT_OF_RANGE = [
    ("seed = -1\n", "seed"),
    ("concurrency = 0\n", "concurrency"),
    ("[unpack]\nmax_files = 0\n", "unpack.max_files"),
    ("[unpack]\nmax_mib = 0\n", "unpack.max_mib"),
    ("[build]\nwall_s = 0\n", "build.wall_s"),
    ("[build]\nwall_s = inf\n", "build.wall_s"),
    ("[build]\ncpu_s = -1.0\n", "build.cpu_s"),
    ("[build]\nmemory_mib = 8\n", "build.memory_mib"),
    ("[build]\ndisk_mib = 0\n", "build.disk_mib"),
    ("[build]\nprocesses = 0\n", "build.processes"),
    ("[check]\ngames = -1\n", "check.games"),
    ("[check]\nwall_s = nan\n", "check.wall_s"),
    ("[qualify]\ngames = 0\n", "qualify.games"),
    ('[qualify]\nrule = "significant"\nconfidence = 0.5\n', "qualify.confidence"),
    ("[qualify]\nconfidence = 1.0\n", "qualify.confidence"),
    ("[qualify]\nconfidence = nan\n", "qualify.confidence"),
    ("[qualify]\nwall_s = 0\n", "qualify.wall_s"),
    ("[compete]\ngames = 0\n", "compete.games"),
    ("[compete]\nrounds = 0\n", "compete.rounds"),
    ("[compete]\ntable_size = 1\n", "compete.table_size"),
    ("[compete]\ntables = 0\n", "compete.tables"),
    ("[compete]\nseeding_games = 0\n", "compete.seeding_games"),
    ("[points]\nbuild = -1\n", "points.build"),
    ("[points]\ncheck = -1\n", "points.check"),
    ("[points]\nqualify = inf\n", "points.qualify"),
    ("[points]\ncompete = -0.5\n", "points.compete"),
    ("[points]\ncompete_floor = 1.5\n", "points.compete_floor"),
    ("[points]\ncap = -1\n", "points.cap"),
    ("[limits]\ndecision_s = 0\n", "limits.decision_s"),
    ("[limits]\nmemory_bytes = -1\n", "limits.memory_bytes"),
    ("[limits]\nstartup_s = nan\n", "limits.startup_s"),
]


@pytest.mark.parametrize(("text", "key"), OUT_OF_RANGE, ids=[k for _, k in OUT_OF_RANGE])
def test_every_number_is_checked_at_load_with_its_range(tmp_path: Path, text: str, key: str) -> None:
    """Issue 27: ``confidence = 0.5`` with ``rule = "significant"`` loaded, then ended the
    run mid-way with a traceback (``t_value(0)``).  Each number is refused at load, in
    one line naming the key, the value and the range it must be in."""
    path = tmp_path / "grading.toml"
    path.write_text(text)
    with pytest.raises(config.GradingConfigError) as caught:
        config.load(path)
    message = str(caught.value)
    assert f"{key} = " in message and "out of range: it must be" in message, message
    assert "\n" not in message


def test_every_numeric_key_has_a_range() -> None:
    """A number added to grading.toml without a range fails here."""
    checked = set(config._RANGES) | {"limits"}
    numeric = set()
    for section in msgspec.structs.fields(config.GradingConfig):
        kind = section.type
        inner = next((a for a in getattr(kind, "__args__", (kind,)) if isinstance(a, type)), None)
        if inner is not None and issubclass(inner, msgspec.Struct) and section.name != "feedback":
            for f in msgspec.structs.fields(inner):
                if {int, float} & set(getattr(f.type, "__args__", (f.type,))):
                    numeric.add(section.name if section.name == "limits" else f"{section.name}.{f.name}")
        elif {int, float} & set(getattr(kind, "__args__", (kind,))):
            numeric.add(section.name)
    assert numeric <= checked, numeric - checked
    assert {key for _, key in OUT_OF_RANGE if not key.startswith("limits.")} == set(config._RANGES)
