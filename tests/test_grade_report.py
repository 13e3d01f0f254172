"""The reports of ``referee grade`` (referee.grade.report), from hand-made class results.

:func:`_class` is one class holding every case a report must handle: a submission
refused at unpack, a compile error, a checklist failure, a non-qualifier, two ranked
students (one with forfeits and replays) and a fixed opponent.  Student text is hostile
throughout: an id made to run as a spreadsheet formula, ``<script>`` in logs, replies and
stderr, runs of backticks, pipes, newlines and control characters.  The tests read the
files back (CSV, JSON, HTML, Markdown) and check what a reader would see.
"""

from __future__ import annotations

import csv
import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote, unquote

import msgspec
import pytest

from referee.grade.model import (
    BuildStep,
    CheckItem,
    CheckStep,
    ClassResult,
    CompeteStep,
    Feedback,
    Forfeit,
    PointItem,
    QualifyStep,
    Replay,
    Standing,
    StudentResult,
    UnpackStep,
)
from referee.grade.report import (
    _rating_value,
    _step_of,
    csv_safe,
    feedback_html,
    feedback_markdown,
    gradescope_results,
    overview_html,
    overview_markdown,
    validate_gradescope,
    write_all,
    write_gradebook,
)

#: A formula for a spreadsheet, as unpack leaves it ("/" escaped: ids are file names).
HOSTILE_ID = "-=cmd|' %2FC calc'!A0"
SCRIPT = "<script>alert(1)</script>"
TICKS = "````` and ``` inside"
LOG_HEAD = f'cc -O2 -o bot bot.c\nbot.c:3: error: expected ";" {SCRIPT}\n{TICKS}\n'
LOG_TAIL = f"\x1b[31mfatal\x1b[0m \x00 \u202e & \"quoted\" 'single'\n```\nmake: *** [bot] Error 1 {SCRIPT}"
STDERR = f"Traceback (most recent call last):\n  {SCRIPT}\n```` ticks\nValueError: bad | pipe"
CHECK_HINT = "read the board line to the end before answering"
#: The content hash two students share (quinn-noqual's submission is the hostile one's).
SAME = "ab" * 32


def _points(unpack: float, build: float, check: float, qualify: float, compete: float) -> list[PointItem]:
    why = {0: "not earned"}
    return [
        PointItem(name="unpack", points=unpack, max_points=1, why=why.get(unpack, "submission unpacked")),
        PointItem(name="build", points=build, max_points=2, why=why.get(build, "it builds")),
        PointItem(name="protocol check", points=check, max_points=3, why=why.get(check, "checklist")),
        PointItem(name="qualification", points=qualify, max_points=2),
        PointItem(name="competition rank", points=compete, max_points=2.5, why=f"rank points: {compete}"),
    ]


def _student(student: str, points: list[PointItem], **steps) -> StudentResult:
    total = sum(p.points for p in points)
    return StudentResult(student=student, points=points, total=total, max_total=10.5, **steps)


def _unpack(**kw) -> UnpackStep:
    fields = {"outcome": "ok", "summary": "3 files", "seconds": 0.4, "files": 3, "bytes": 2048}
    return UnpackStep(**{**fields, **kw})


def _build(**kw) -> BuildStep:
    fields = dict(outcome="ok", summary="built with make", seconds=2.6, kind="makefile", command="make")
    return BuildStep(**{**fields, "run": "./bot", "why": "a Makefile", "sandbox": "landlock", **kw})


def _check(**kw) -> CheckStep:
    items = [CheckItem(key="startup", title="starts in time", status="pass", figure="12 ms")]
    fields = dict(outcome="ok", summary="all items pass", seconds=5.0, items=items, opponent="random")
    return CheckStep(**{**fields, "games": 4, "seed": 7, **kw})


def _qualify(**kw) -> QualifyStep:
    fields = dict(outcome="ok", summary="qualified", seconds=30.0, opponent="random", games=20, wins=15)
    return QualifyStep(**{**fields, "losses": 4, "draws": 1, "mean_score": 0.75, "rule": "more wins", **kw})


def _class(feedback: Feedback | None = None) -> ClassResult:
    failing_check = _check(
        outcome="check-failed",
        summary="1 of 3 items failed: legal moves",
        items=[
            CheckItem(key="startup", title="starts in time", status="pass", figure="12 ms"),
            CheckItem(
                key="legal",
                title="only legal moves",
                status="fail",
                figure="1 illegal of 40",
                failure={
                    "at": "game 2, move 5",
                    "sent": "move 3 4",
                    "reply": SCRIPT + " | x",
                    "why": "illegal",
                },
                notes=["its stderr ends with:\n" + STDERR],
                hint=CHECK_HINT,
            ),
            CheckItem(key="coverage", title="every kind of line", status="skip", figure="-"),
        ],
    )
    forfeits = [
        Forfeit(
            verdict="timeout",
            detail="no answer in 1 s",
            match="zara-rival",
            game=3,
            position="board 1|2\nturn",
            reply=None,
            stderr_tail=STDERR,
        ),
        Forfeit(
            verdict="illegal", detail=f"played {SCRIPT}", match="random", game=9, position="p", reply="`x`"
        ),
    ]
    hostile = _student(
        HOSTILE_ID,
        _points(1, 2, 3, 2, 1.25),
        unpack=_unpack(source=f"{HOSTILE_ID}.zip", skipped=["__MACOSX/x", SCRIPT], content_hash=SAME),
        build=_build(log_head="ok\n", log_bytes=3),
        check=_check(),
        qualify=_qualify(),
        compete=CompeteStep(
            outcome="ok",
            summary="ranked 2 of 3",
            seconds=100.0,
            format="round robin",
            rank=2,
            rank_range=[1, 3],
            rating=1512.34,
            rating_interval=[1480.0, 1544.5],
            rating_unit="Elo",
            matches=2,
            games=40,
            wins=20,
            losses=18,
            draws=2,
            mean_score=0.525,
            forfeits=forfeits,
            decision_ms_mean=12.345,
            decision_ms_max=80.0,
            peak_rss_bytes=48 * (1 << 20),
            replays=[
                Replay(label="loss against zara-rival, game 3", path="replays/zara-rival-3.json"),
                Replay(label="forfeit against random, game 9", path="replays/random 9%.json"),
                Replay(label="escape", path="../../etc/passwd"),
                Replay(label="far away", path="//evil.example/x"),
            ],
        ),
    )
    students = [
        _student(
            "rita-refused", _points(0, 0, 0, 0, 0), unpack=_unpack(outcome="unsafe-path", summary="../x")
        ),
        _student(
            "carl-compile",
            _points(1, 0, 0, 0, 0),
            unpack=_unpack(content_hash="c1" * 32),
            build=_build(
                outcome="compile-error",
                summary="make failed",
                log_head=LOG_HEAD,
                log_tail=LOG_TAIL,
                log_bytes=123456,
                exit_status=2,
            ),
        ),
        _student(
            "chris-check",
            _points(1, 2, 1.5, 0, 0),
            unpack=_unpack(content_hash="c2" * 32),
            build=_build(),
            check=failing_check,
        ),
        _student(
            "quinn-noqual",
            _points(1, 2, 3, 0, 0),
            unpack=_unpack(content_hash=SAME),
            build=_build(),
            check=_check(),
            qualify=_qualify(
                outcome="not-qualified",
                summary="4 wins, 15 losses",
                wins=4,
                losses=15,
                measure="score rate",
                estimate=0.225,
                interval=[0.1, 0.35],
                forfeits=[Forfeit(verdict="crash", detail="exit 1", game=2, stderr_tail=STDERR)],
            ),
        ),
        hostile,
        _student(
            "zara-rival",
            _points(1, 2, 3, 2, 2.5),
            unpack=_unpack(content_hash="c3" * 32),
            build=_build(),
            check=_check(),
            qualify=_qualify(),
            compete=CompeteStep(
                outcome="ok", summary="ranked 1 of 3", rank=1, rating=1600.0, rating_unit="Elo"
            ),
        ),
    ]
    standings = [
        Standing(rank=1, name="zara-rival", student=True, points=30, rating=1600.0, games=40, wins=30),
        Standing(
            rank=2, name=HOSTILE_ID, student=True, points=21, rating=1512.34, rating_interval=[1480, 1544.5]
        ),
        Standing(rank=3, name="random", student=False, points=3, rating=1300.0, forfeits=0),
    ]
    return ClassResult(
        game="connect4",
        referee_version="0.1.0",
        seed=42,
        sandbox="landlock",
        sandbox_detail="landlock + seccomp",
        created="2025-01-01T12:00:00Z",
        students=students,
        standings=standings,
        format="round robin",
        notes=["one student resubmitted late", f"note with {SCRIPT}"],
        feedback=feedback or Feedback(),
        seconds=321.0,
    )


def _by_id(result: ClassResult, student: str) -> StudentResult:
    return next(s for s in result.students if s.student == student)


# ---------------------------------------------------------------------------- gradebook


def test_gradebook_parses_back_with_expected_columns_and_values(tmp_path: Path):
    path = tmp_path / "gradebook.csv"
    write_gradebook(_class(), path)
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline="")))
    assert rows[0] == [
        "student",
        "outcome",
        "unpack",
        "build",
        "check",
        "qualify",
        "compete",
        "points: unpack",
        "points: build",
        "points: protocol check",
        "points: qualification",
        "points: competition rank",
        "total",
        "max_total",
        "rank",
        "rating",
        "rating_low",
        "rating_high",
        "rating_unit",
        "content_hash",
    ]
    table = {row[0]: dict(zip(rows[0], row, strict=True)) for row in rows[1:]}
    # Sorted by id, the hostile one neutralised (and so sorted by its raw id, first).
    assert [row[0] for row in rows[1:]] == [
        "'" + HOSTILE_ID,
        "carl-compile",
        "chris-check",
        "quinn-noqual",
        "rita-refused",
        "zara-rival",
    ]
    rita = table["rita-refused"]
    assert (rita["outcome"], rita["unpack"], rita["build"], rita["compete"]) == (
        "unsafe-path",
        "unsafe-path",
        "",
        "",
    )
    assert (rita["total"], rita["rank"], rita["rating"]) == ("0", "", "")
    assert table["carl-compile"]["outcome"] == "compile-error"
    chris = table["chris-check"]
    assert (chris["check"], chris["qualify"], chris["points: protocol check"], chris["total"]) == (
        "check-failed",
        "",
        "1.5",
        "4.5",
    )
    assert table["quinn-noqual"]["outcome"] == "not-qualified"
    hostile = table["'" + HOSTILE_ID]
    assert hostile["outcome"] == "ok" and hostile["compete"] == "ok"
    assert (hostile["points: competition rank"], hostile["total"], hostile["max_total"]) == (
        "1.25",
        "9.25",
        "10.5",
    )
    assert (hostile["rank"], hostile["rating"], hostile["rating_low"], hostile["rating_high"]) == (
        "2",
        "1512.3",
        "1480.0",
        "1544.5",
    )
    assert hostile["rating_unit"] == "Elo" and hostile["content_hash"] == "ab" * 32
    # No cell that a spreadsheet would run as a formula.
    for row in rows[1:]:
        for cell in row:
            assert not re.match(r"[=+@\t\r]", cell) and not re.match(r"-(?![\d.])", cell), cell


@pytest.mark.parametrize(
    ("cell", "safe"),
    [
        ("=1+1", "'=1+1"),
        ("+44 20 7946", "'+44 20 7946"),
        ("-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\t=x", "'\t=x"),
        ("\r=x", "'\r=x"),
        ("  =x", "'  =x"),
        ("-", "'-"),
        ("-3.5", "-3.5"),
        ("+2", "+2"),
        ("1e5", "1e5"),
        ("alice", "alice"),
        ("a=b", "a=b"),
        ("", ""),
    ],
)
def test_csv_safe(cell: str, safe: str):
    assert csv_safe(cell) == safe


# ---------------------------------------------------------------------------- Gradescope


@pytest.mark.parametrize(
    ("name", "step"),
    [
        ("build", "build"),
        ("It compiles", "build"),
        ("protocol check", "check"),
        ("Checklist", "check"),
        ("qualification check", "qualify"),
        ("Elo rating", "compete"),
        ("competition rank", "compete"),
        ("submission", "unpack"),
        ("code quality (below)", None),  # "elo" inside a word is not Elo
        ("frankness", None),
        ("report", None),
    ],
)
def test_point_items_are_matched_to_their_step(name: str, step: str | None):
    assert _step_of(PointItem(name=name, points=0, max_points=1)) == step


def test_every_results_json_is_valid_and_carries_the_scores(tmp_path: Path):
    result = _class()
    write_all(result, tmp_path)
    for student in result.students:
        doc = json.loads(
            (tmp_path / "students" / student.student / "results.json").read_text(encoding="utf-8")
        )
        assert validate_gradescope(doc) == [], student.student
        assert doc["score"] == student.total
        assert doc["output_format"] == "md" and doc["visibility"] == doc["stdout_visibility"] == "visible"
        assert isinstance(doc["execution_time"], int)
        assert [t["name"] for t in doc["tests"]] == [p.name for p in student.points]
        for test, item in zip(doc["tests"], student.points, strict=True):
            assert (test["score"], test["max_score"]) == (item.points, item.max_points)
            assert test["status"] in ("passed", "failed")
            assert test["visibility"] == item.visibility
        board = {entry["name"]: entry for entry in doc["leaderboard"]}
        assert board["Total"]["value"] == student.total
        if student.compete is None:
            assert set(board) == {"Total"}
    hostile = json.loads((tmp_path / "students" / HOSTILE_ID / "results.json").read_text(encoding="utf-8"))
    board = {entry["name"]: entry for entry in hostile["leaderboard"]}
    assert board["Rank"] == {"name": "Rank", "value": 2, "order": "asc"}
    assert board["Rating"]["value"] == 1512.3
    assert hostile["execution_time"] == round(0.4 + 2.6 + 5.0 + 30.0 + 100.0)


def test_gradescope_tests_carry_their_steps_detail():
    result = _class()
    carl = gradescope_results(_by_id(result, "carl-compile"), result)
    build = next(t for t in carl["tests"] if t["name"] == "build")
    assert "make: \\*\\*\\* [bot] Error 1" not in build["output"]  # a log is not escaped Markdown …
    assert "make: *** [bot] Error 1" in build["output"]  # … but sits verbatim in a fenced block
    assert "120.6 KiB in all; its last lines" in build["output"]  # 123456 bytes
    assert "not run: build failed" in next(t for t in carl["tests"] if t["name"] == "qualification")["output"]

    chris = gradescope_results(_by_id(result, "chris-check"), result)
    check = next(t for t in chris["tests"] if t["name"] == "protocol check")
    assert check["status"] == "failed"
    assert "only legal moves" in check["output"] and "game 2, move 5" in check["output"]
    assert "read the board line" in check["output"]
    assert "starts in time" not in check["output"]  # only the lines with something to say

    hostile = gradescope_results(_by_id(result, HOSTILE_ID), result)
    rank = next(t for t in hostile["tests"] if t["name"] == "competition rank")
    assert "2 of 3" in rank["output"] and "1512.3 ± 32.2 Elo" in rank["output"]  # (1544.5 - 1480) / 2
    assert "round robin" in rank["output"]


def test_gradescope_respects_feedback_flags():
    hidden = Feedback(check=False, compete=False, stderr=False, build_log=False, visibility="after_published")
    result = _class(hidden)
    chris = json.dumps(gradescope_results(_by_id(result, "chris-check"), result))
    assert "only legal moves" not in chris and "read the board" not in chris and "ValueError" not in chris
    carl = json.dumps(gradescope_results(_by_id(result, "carl-compile"), result))
    assert "Error 1" not in carl and "expected" not in carl
    hostile_doc = gradescope_results(_by_id(result, HOSTILE_ID), result)
    assert [entry["name"] for entry in hostile_doc["leaderboard"]] == ["Total"]
    assert hostile_doc["visibility"] == hostile_doc["stdout_visibility"] == "after_published"
    assert "1512" not in json.dumps(hostile_doc)
    assert validate_gradescope(hostile_doc) == []


def test_other_students_ids_only_with_standings():
    result = _class()
    for student in result.students:
        doc = json.dumps(gradescope_results(student, result))
        page = feedback_markdown(student, result) + feedback_html(student, result)
        for other in ("zara-rival", "quinn-noqual", "rita-refused"):
            if other != student.student:
                assert other not in doc and other not in page, (student.student, other)
    hostile = _by_id(result, HOSTILE_ID)
    page = feedback_html(hostile, result)
    assert "another student" in page and "random%209%25.json" in page  # the fixed opponent's replay kept
    assert "loss against another student, game 3 (no link" in page

    shown = _class(Feedback(standings=True))
    doc = json.dumps(gradescope_results(_by_id(shown, HOSTILE_ID), shown))
    assert "zara-rival" in doc  # the standings, and the forfeit's match
    assert "zara-rival-3.json" in feedback_html(_by_id(shown, HOSTILE_ID), shown)


VALID = {
    "score": 44.0,
    "execution_time": 136,
    "output": "Text relevant to the entire submission",
    "output_format": "simple_format",
    "test_output_format": "text",
    "test_name_format": "text",
    "visibility": "after_due_date",
    "stdout_visibility": "visible",
    "extra_data": {},
    "tests": [
        {
            "score": 2.0,
            "max_score": 2.0,
            "status": "passed",
            "name": "Your name here",
            "name_format": "text",
            "number": "1.1",
            "output": "Giant multiline string",
            "output_format": "text",
            "tags": ["tag1", "tag2"],
            "visibility": "visible",
            "extra_data": {},
        }
    ],
    "leaderboard": [
        {"name": "Accuracy", "value": 0.926},
        {"name": "Time", "value": 15.1, "order": "asc"},
        {"name": "Stars", "value": "*****"},
    ],
}


@pytest.mark.parametrize(
    "doc",
    [
        VALID,
        {"score": 0},
        {"tests": [{"score": 1, "max_score": 2}, {"score": 0, "status": "failed"}]},
        {"score": 3, "tests": [{"name": "Compilation check", "status": "passed"}]},
    ],
)
def test_validator_accepts_the_documented_examples(doc: dict):
    assert validate_gradescope(doc) == []


def _broken(change) -> dict:
    doc = json.loads(json.dumps(VALID))
    change(doc)
    return doc


@pytest.mark.parametrize(
    ("doc", "problem"),
    [
        ([], "not an object"),
        (_broken(lambda d: d["tests"][0].update(status="ok")), "not passed or failed"),
        (_broken(lambda d: d.update(visibility="public")), "visibility: not one of"),
        (_broken(lambda d: d["tests"][0].update(visibility="students")), "tests[0].visibility"),
        (_broken(lambda d: d.update(stdout_visibility=None)), "stdout_visibility"),
        (_broken(lambda d: d.update(output_format="markdown")), "output_format: not one of"),
        (_broken(lambda d: d["tests"][0].update(output_format="rst")), "tests[0].output_format"),
        (
            _broken(lambda d: [d.pop("score"), d["tests"][0].pop("score")]),
            "no score at the top, and not every",
        ),
        ({"output": "hi"}, "no score"),
        ({"tests": []}, "no score"),
        (_broken(lambda d: d.update(score="44")), "score: not a number"),
        (_broken(lambda d: d.update(score=True)), "score: not a number"),
        (_broken(lambda d: d.update(score=float("nan"))), "score: not finite"),
        (_broken(lambda d: d["tests"][0].update(max_score=float("inf"))), "tests[0].max_score: not finite"),
        (_broken(lambda d: d.update(execution_time=-1)), "execution_time: negative"),
        (_broken(lambda d: d.update(grade=1)), "unknown key 'grade'"),
        (_broken(lambda d: d["tests"][0].update(points=1)), "tests[0]: unknown key 'points'"),
        (_broken(lambda d: d["tests"][0].update(tags="a")), "tests[0].tags"),
        (_broken(lambda d: d["tests"][0].update(name=3)), "tests[0].name: not a string"),
        (_broken(lambda d: d.update(tests={})), "tests: not a list"),
        (_broken(lambda d: d.update(extra_data=[])), "extra_data: not an object"),
        (_broken(lambda d: d["leaderboard"][1].update(order="up")), "order not asc or desc"),
        (_broken(lambda d: d["leaderboard"][0].pop("value")), "leaderboard[0]: no value"),
        (_broken(lambda d: d["leaderboard"][0].pop("name")), "leaderboard[0]: name missing"),
        (_broken(lambda d: d["leaderboard"][0].update(value=None)), "leaderboard[0]: not a number"),
        (_broken(lambda d: d["leaderboard"][0].update(rank=1)), "unknown keys ['rank']"),
        (_broken(lambda d: d.update(leaderboard={"name": "x"})), "leaderboard: not a list"),
    ],
)
def test_validator_rejects_broken_documents(doc: object, problem: str):
    problems = validate_gradescope(doc)
    assert any(problem in p for p in problems), problems


# ---------------------------------------------------------------------------- feedback pages


class _Inventory(HTMLParser):
    """Every tag and attribute of a page, and its text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


ALLOWED_TAGS = {"html", "head", "meta", "title", "style", "body", "main", "footer", "h1", "h2", "h3", "p"}
ALLOWED_TAGS |= {"a", "ul", "li", "dl", "dt", "dd", "table", "thead", "tbody", "tr", "th", "td"}
ALLOWED_TAGS |= {"div", "span", "code", "pre", "strong", "em"}


def _inert(page: str) -> _Inventory:
    """Check that an HTML page can run nothing and fetch nothing; return what is in it."""
    inventory = _Inventory()
    inventory.feed(page)
    inventory.close()
    assert "<script" not in page.lower()
    assert "url(" not in page and "@import" not in page
    for tag, attrs in inventory.tags:
        assert tag in ALLOWED_TAGS, tag
        for name, value in attrs.items():
            assert name in ("lang", "charset", "http-equiv", "content", "name", "class", "href", "style"), (
                name
            )
            if name == "href":
                assert value and ":" not in value and "//" not in value and not value.startswith("/"), value
                assert ".." not in value.split("/"), value
            if name == "style":
                assert re.fullmatch(r"width: [\d.]+%", value or ""), value
    metas = [attrs for tag, attrs in inventory.tags if tag == "meta" and attrs.get("http-equiv")]
    assert metas == [{"http-equiv": "Content-Security-Policy", "content": metas[0]["content"]}]
    assert "default-src 'none'" in (metas[0]["content"] or "")
    assert "http://" not in page and "https://" not in page
    return inventory


def test_feedback_html_is_inert_and_shows_student_text_escaped(tmp_path: Path):
    result = _class()
    write_all(result, tmp_path)
    for student in result.students:
        page = (tmp_path / "students" / student.student / "feedback.html").read_text(encoding="utf-8")
        text = "".join(_inert(page).text)
        assert student.student in text
        assert "\x1b" not in page and "\x00" not in page and "\u202e" not in page
    carl = (tmp_path / "students" / "carl-compile" / "feedback.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in carl
    assert "\\x1b[31mfatal\\x1b[0m \\x00 \\u202e &amp; &quot;quoted&quot; &#x27;single&#x27;" in carl
    assert "123456" not in carl and "120.6 KiB" in carl  # the log's size, said in words
    hostile = (tmp_path / "students" / HOSTILE_ID / "feedback.html").read_text(encoding="utf-8")
    assert "-=cmd|&#x27; %2FC calc&#x27;!A0" in hostile
    links = [a["href"] for tag, a in _inert(hostile).tags if tag == "a"]
    assert links == ["replays/random%209%25.json"]  # the escape, the host and the other student's: no link
    overview = (tmp_path / "overview.html").read_text(encoding="utf-8")
    overview_links = {a["href"] for tag, a in _inert(overview).tags if tag == "a"}
    assert overview_links == {f"students/{quote(s.student, safe='')}/feedback.html" for s in result.students}
    assert "students/-%3Dcmd%7C%27%20%252FC%20calc%27%21A0/feedback.html" in overview_links  # "%" encoded
    for href in overview_links:  # every link leads to a page that was written
        assert (tmp_path / Path(unquote(href))).is_file(), href


def _fenced_blocks(markdown: str) -> list[str]:
    """The contents of the fenced code blocks of ``markdown``, by CommonMark's rules for
    backtick fences: a block closes at a line of at least as many backticks, nothing else."""
    blocks, lines, i = [], markdown.split("\n"), 0
    while i < len(lines):
        opening = re.match(r" {0,3}(`{3,})([^`]*)$", lines[i])
        i += 1
        if opening is None:
            continue
        fence, body = opening.group(1), []
        while i < len(lines) and not re.fullmatch(f" {{0,3}}`{{{len(fence)},}} *", lines[i]):
            body.append(lines[i])
            i += 1
        i += 1
        blocks.append("\n".join(body))
    return blocks


def test_markdown_fences_survive_backtick_runs():
    result = _class()
    carl = feedback_markdown(_by_id(result, "carl-compile"), result)
    blocks = _fenced_blocks(carl)
    assert LOG_HEAD.rstrip("\n") in blocks  # whole, in one block, ``` and ````` included
    tail = (
        "\\x1b[31mfatal\\x1b[0m \\x00 \\u202e & \"quoted\" 'single'\n```\nmake: *** [bot] Error 1 " + SCRIPT
    )
    assert tail in blocks
    assert "\x1b" not in carl and "\x00" not in carl
    hostile = feedback_markdown(_by_id(result, HOSTILE_ID), result)
    assert STDERR in _fenced_blocks(hostile)  # under the forfeits' table
    chris = feedback_markdown(_by_id(result, "chris-check"), result)
    assert STDERR in _fenced_blocks(chris)  # the checklist note
    # Student text outside blocks and code spans is escaped: no raw tag.
    outside = re.sub(r"(?ms)^(`{3,})text\n.*?^\1$", "", hostile)
    outside = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", outside)
    assert SCRIPT not in outside and "\\<script\\>alert(1)\\</script\\>" in outside


def _cells(row: str) -> list[str]:
    """A Markdown table row split on its unescaped pipes, as GitHub's tables do."""
    return re.split(r"(?<!\\)\|", row.strip())[1:-1]


def test_markdown_table_cells_keep_their_columns():
    result = _class()
    for student in result.students:
        page = feedback_markdown(student, result)
        tables = re.findall(r"(?m)(?:^\|.*\|\n?)+", page)
        assert tables, student.student
        for table in tables:
            rows = table.strip("\n").split("\n")
            width = len(_cells(rows[0]))
            assert all(len(_cells(row)) == width for row in rows), table
    hostile = feedback_markdown(_by_id(result, HOSTILE_ID), result)
    row = next(line for line in hostile.split("\n") if line.startswith("| 1 | **timeout**"))
    assert _cells(row)[4] == " `board 1\\|2\\nturn` "  # one cell, the newline shown as \\n
    overview = overview_markdown(result)
    assert "[-=cmd\\|' %2FC calc'!A0](students/-%3Dcmd%7C%27%20%252FC%20calc%27%21A0/feedback.md)" in overview


def test_feedback_flags_hide_sections():
    hidden = Feedback(build_log=False, check=False, qualify=False, compete=False, stderr=False)
    result = _class(hidden)
    shown = _class()
    pages = {
        s.student: feedback_markdown(s, result)
        + feedback_html(s, result)
        + json.dumps(gradescope_results(s, result))
        for s in result.students
    }
    assert "expected" in feedback_markdown(_by_id(shown, "carl-compile"), shown)
    assert "expected" not in pages["carl-compile"] and "Error 1" not in pages["carl-compile"]
    assert "not shown" in pages["carl-compile"]
    for text in ("only legal moves", "1 illegal of 40", CHECK_HINT, "game 2, move 5", "1 of 3 items failed"):
        assert text in feedback_html(_by_id(shown, "chris-check"), shown)
        assert text not in pages["chris-check"]
    assert "stopped at the check step (check-failed)" in pages["chris-check"]
    for text in ("score rate", "0.225", "4 wins, 15 losses"):
        assert text in feedback_markdown(_by_id(shown, "quinn-noqual"), shown)
        assert text not in pages["quinn-noqual"]
    for text in ("1512.3", "round robin", "timeout", "Traceback", "random%209%25.json", "decision time"):
        assert text in feedback_html(_by_id(shown, HOSTILE_ID), shown)
        assert text not in pages[HOSTILE_ID], text
    assert "ranked 2" not in pages[HOSTILE_ID]
    # stderr alone: the tails go, the forfeits stay.
    quiet = _class(Feedback(stderr=False))
    page = feedback_html(_by_id(quiet, HOSTILE_ID), quiet) + feedback_markdown(
        _by_id(quiet, "chris-check"), quiet
    )
    assert "Traceback" not in page and "stderr tail" not in page and "no answer in 1 s" in page


def test_hidden_point_items_and_the_total_leave_the_page():
    result = _class()
    student = _by_id(result, "zara-rival")
    secret = msgspec.structs.replace(student.points[0], name="secret tests", visibility="hidden")
    student = msgspec.structs.replace(student, points=[secret, *student.points[1:]])
    page = feedback_markdown(student, result)
    assert "secret tests" not in page and "1 more item not shown" in page and "of 10.5 points" not in page
    doc = gradescope_results(student, result)
    assert doc["tests"][0]["visibility"] == "hidden" and validate_gradescope(doc) == []


def test_steps_not_run_say_which_step_failed():
    result = _class()
    carl = feedback_markdown(_by_id(result, "carl-compile"), result)
    assert carl.count("Not run: build failed.") == 3
    rita = feedback_html(_by_id(result, "rita-refused"), result)
    assert rita.count("Not run: unpack failed.") == 4
    assert "stopped at the unpack step (unsafe-path: ../x): <strong>0 of 10.5 points</strong>." in rita
    quinn = feedback_markdown(_by_id(result, "quinn-noqual"), result)
    assert (
        quinn.count("Not run: qualify failed.") == 1
        and "score rate: 0.225 (interval 0.100 to 0.350)" in quinn
    )


def _table(markdown: str, heading: str) -> list[list[str]]:
    """The body rows of the first table under ``## heading``, cells stripped."""
    section = markdown.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.split("\n") if line.startswith("|")]
    return [[cell.strip() for cell in _cells(row)] for row in rows[2:]]


def test_overview_counts_and_tables():
    result = _class()
    md = overview_markdown(result)
    outcomes = {row[0]: int(row[1]) for row in _table(md, "Outcomes")}
    assert outcomes == {
        "**✔ ok**": 2,
        "**✘ check-failed**": 1,
        "**✘ compile-error**": 1,
        "**✘ not-qualified**": 1,
        "**✘ unsafe-path**": 1,
    }
    steps = {(row[0], row[1]): int(row[2]) for row in _table(md, "Steps")}
    assert steps[("unpack", "**✔ ok**")] == 5 and steps[("unpack", "**✘ unsafe-path**")] == 1
    assert steps[("build", "**✔ ok**")] == 4 and steps[("build", "not run: unpack failed")] == 1
    assert steps[("compete", "**✔ ok**")] == 2 and steps[("compete", "not run: qualify failed")] == 1
    for step in ("unpack", "build", "check", "qualify", "compete"):
        assert sum(n for (name, _), n in steps.items() if name == step) == 6
    assert "mean 5.21, median 5.25, min 0, max 10.5, out of 10.5" in md  # 31.25 / 6
    histogram = _fenced_blocks(md.split("## Totals", 1)[1])[0].split("\n")
    assert [int(line.rsplit(" ", 1)[1]) for line in histogram] == [2, 0, 1, 1, 1, 1]  # bins 0–2 … 10–12
    standings = _table(md, "Standings")
    assert [row[0] for row in standings] == ["1", "2", "3"]
    assert standings[2][1] == "random (fixed opponent)" and "fixed" not in standings[0][1]
    students = _table(md, "Students")
    assert len(students) == 6 and students[-1][1:] == ["**✔ ok**", "10.5", "10.5", "1"]
    assert "- one student resubmitted late" in md
    page = overview_html(result)
    _inert(page)
    assert page.count('<div class="bar"') == 6 and "width: 100.0%" in page
    assert "note with &lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "landlock + seccomp" in page and "321 s" in page and ">6</dd>" in page


def test_write_all_writes_every_report_inside_the_folder(tmp_path: Path):
    out = tmp_path / "report"
    result = _class()
    write_all(result, out)
    write_all(result, out)  # again: replaced, no temporary file left behind
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    expected = ["gradebook.csv", "overview.html", "overview.md"]
    for student in result.students:
        names = ("feedback.html", "feedback.md", "results.json")
        expected += [f"students/{student.student}/{name}" for name in names]
    assert written == sorted(expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]


@pytest.mark.parametrize("bad", ["..", ".", "", "a/b", "../escape", "nul\0byte"])
def test_write_all_refuses_an_id_that_leaves_the_folder(tmp_path: Path, bad: str):
    out = tmp_path / "report"
    result = _class()
    result = msgspec.structs.replace(result, students=[*result.students, StudentResult(student=bad)])
    with pytest.raises(ValueError, match="student"):
        write_all(result, out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report"]
    assert not (tmp_path / "escape").exists()


def test_write_all_does_not_follow_a_planted_link(tmp_path: Path):
    out, elsewhere = tmp_path / "report", tmp_path / "elsewhere"
    (out / "students").mkdir(parents=True)
    elsewhere.mkdir()
    (out / "students" / "zara-rival").symlink_to(elsewhere)
    with pytest.raises(ValueError, match="outside"):
        write_all(_class(), out)
    assert list(elsewhere.iterdir()) == []


def test_overview_links_lead_into_the_students_folder():
    result = _class()
    encoded = "-%3Dcmd%7C%27%20%252FC%20calc%27%21A0"
    assert f"](students/{encoded}/feedback.md)" in overview_markdown(result)
    assert f'href="students/{encoded}/feedback.html"' in overview_html(result)
    assert "[zara-rival](out/students/zara-rival/feedback.md)" in overview_markdown(result, "out/students")
    assert "[zara-rival](zara-rival/feedback.md)" in overview_markdown(result, "")
    standings = _table(overview_markdown(result), "Standings")
    assert standings[0][1] == "[zara-rival](students/zara-rival/feedback.md)"
    for outside in ("../students", "/srv/students"):  # never a link that leaves the page's folder
        assert "](" not in overview_markdown(result, outside)


# ---------------------------------------------------------------------------- withheld items


def _withhold(student: StudentResult, item: str, visibility: str = "after_published") -> StudentResult:
    points = [
        msgspec.structs.replace(p, visibility=visibility) if p.name == item else p for p in student.points
    ]
    return msgspec.structs.replace(student, points=points)


def _shown_now(doc: dict) -> str:
    """What Gradescope shows a student of ``doc`` before anything is published."""
    visible = [test["output"] for test in doc["tests"] if test["visibility"] == "visible"]
    return doc["output"] + json.dumps(doc.get("leaderboard", [])) + "".join(visible)


def test_a_withheld_competition_item_leaves_everything_shown_now():
    result = _class(Feedback(standings=True))
    hostile = _by_id(result, HOSTILE_ID)
    secrets = ("ranked", "2 of 3", "1512", "9.25", "round robin", "Standings", "zara-rival", "rank points")
    # Everything visible: all of it is there to leak (so this test can fail) …
    doc, page = gradescope_results(hostile, result), feedback_markdown(hostile, result)
    assert all(secret in _shown_now(doc) + page for secret in secrets)
    # … and with the competition item after_published, none of it is shown now.
    hostile = _withhold(hostile, "competition rank")
    doc = gradescope_results(hostile, result)
    assert validate_gradescope(doc) == [] and "leaderboard" not in doc
    for secret in secrets:
        assert secret not in _shown_now(doc), secret
    assert "compete: **– shown later**" in doc["output"]
    rank = next(t for t in doc["tests"] if t["name"] == "competition rank")
    assert "2 of 3" in rank["output"] and "1512.3" in rank["output"]  # for when it is published
    page = feedback_markdown(hostile, result) + feedback_html(hostile, result)
    for secret in secrets:
        assert secret not in page, secret
    assert "The results of this step are shown later." in page and "1 more item not shown" in page
    assert "protocol check" in page  # the visible items stay


def test_a_withheld_step_that_failed_is_not_named():
    result = _class()
    quinn = _by_id(result, "quinn-noqual")
    told = ("not-qualified", "qualify failed", "4 wins, 15 losses", "score rate")
    doc = gradescope_results(quinn, result)
    assert "stopped at the qualify step (not-qualified: 4 wins, 15 losses)" in doc["output"]
    quinn = _withhold(quinn, "qualification", "after_due_date")
    doc = gradescope_results(quinn, result)
    page = feedback_markdown(quinn, result) + feedback_html(quinn, result)
    for text in told:
        assert text not in _shown_now(doc) and text not in page, text
    assert "stopped" not in doc["output"] and "shown later" in doc["output"]
    assert "Not run." in page  # the competition, without why
    qualification = next(t for t in doc["tests"] if t["name"] == "qualification")
    assert "not-qualified" in qualification["output"] and "score rate: 0.225" in qualification["output"]
    # A failure in a visible step is still named.
    carl = _withhold(_by_id(result, "carl-compile"), "competition rank")
    assert (
        "stopped at the build step (compile-error: make failed)."
        in gradescope_results(carl, result)["output"]
    )


# ---------------------------------------------------------------------------- partial points, status


def test_pages_show_partial_points_apart():
    result = _class()
    hostile = feedback_markdown(_by_id(result, HOSTILE_ID), result)
    assert ["competition rank", "1.25", "2.5", "**◐ partial**", "rank points: 1.25"] in _table(
        hostile, "Points"
    )
    chris = _table(feedback_markdown(_by_id(result, "chris-check"), result), "Points")
    badges = {row[0]: row[3] for row in chris}
    assert badges == {
        "unpack": "**✔ passed**",
        "build": "**✔ passed**",
        "protocol check": "**◐ partial**",
        "qualification": "**✘ failed**",
        "competition rank": "**✘ failed**",
    }
    assert '<span class="badge part">partial</span>' in feedback_html(_by_id(result, HOSTILE_ID), result)
    assert ".badge.part {" in feedback_html(_by_id(result, HOSTILE_ID), result)


@pytest.mark.parametrize(
    ("student", "item", "status"),
    [
        (HOSTILE_ID, "competition rank", "passed"),  # 1.25 of 2.5, but it competed: passed
        ("zara-rival", "competition rank", "passed"),
        ("chris-check", "protocol check", "failed"),  # 1.5 of 3 and the check failed
        ("chris-check", "build", "passed"),
        ("carl-compile", "build", "failed"),
        ("carl-compile", "qualification", "failed"),  # not run
        ("quinn-noqual", "qualification", "failed"),
    ],
)
def test_gradescope_status_follows_the_items_step(student: str, item: str, status: str):
    result = _class()
    doc = gradescope_results(_by_id(result, student), result)
    assert next(t for t in doc["tests"] if t["name"] == item)["status"] == status


def test_gradescope_status_of_an_item_without_a_step_follows_its_points():
    result = _class()
    zara = _by_id(result, "zara-rival")
    items = [
        PointItem(name="report", points=2, max_points=2),
        PointItem(name="style", points=1, max_points=2),
    ]
    skipped = msgspec.structs.replace(zara.check, outcome="skipped")
    zara = msgspec.structs.replace(zara, points=[*items, *zara.points], check=skipped)
    statuses = {t["name"]: t["status"] for t in gradescope_results(zara, result)["tests"]}
    assert (statuses["report"], statuses["style"], statuses["protocol check"]) == (
        "passed",
        "failed",
        "passed",
    )


# ---------------------------------------------------------------------------- ratings


@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        (1512.34, "Elo", "1512.3"),
        (1512.34, "elo", "1512.3"),
        (0.04, "Elo", "0.0"),
        (-0.0123, "chips per game", "-0.0123"),
        (0.123456, "points per game", "0.123"),
        (-1.2549, "chips per game", "-1.25"),
        (12.345, "score rate", "12.3"),
        (1234.6, "chips per game", "1235"),
        (-0.1, "chips per game", "-0.100"),
        (0.0, "chips per game", "0"),
        (-1e-12, "chips per game", "0"),
        (None, "Elo", ""),
        (float("nan"), "chips per game", ""),
    ],
)
def test_ratings_are_shown_in_their_units_precision(value: float | None, unit: str, text: str):
    assert _rating_value(value, unit) == text


def _chip_class() -> ClassResult:
    """The class, its competition rated in chips per game (dice poker's unit)."""
    result = _class(Feedback(standings=True))
    replace, interval = msgspec.structs.replace, [-0.05, 0.0254]
    chips = {"rating": -0.0123, "rating_interval": interval, "rating_unit": "chips per game"}
    students = [replace(s, compete=replace(s.compete, **chips)) if s.compete else s for s in result.students]
    standings = [replace(row, rating=-0.0123, rating_interval=interval) for row in result.standings]
    return replace(result, students=students, standings=standings)


def test_chip_ratings_keep_their_digits(tmp_path: Path):
    result = _chip_class()
    write_gradebook(result, tmp_path / "gradebook.csv")
    rows = list(csv.DictReader(io.StringIO((tmp_path / "gradebook.csv").read_text(encoding="utf-8"))))
    hostile = next(row for row in rows if row["student"] == "'" + HOSTILE_ID)
    assert (hostile["rating"], hostile["rating_low"], hostile["rating_high"]) == (
        "-0.0123",
        "-0.0500",
        "0.0254",
    )
    page = feedback_markdown(_by_id(result, HOSTILE_ID), result)
    assert "-0.0123 ± 0.0377 chips per game (95 % interval -0.0500 to 0.0254)" in page
    assert _table(page, "Standings")[0][3:5] == ["-0.0123", "-0.0500 to 0.0254"]
    doc = gradescope_results(_by_id(result, HOSTILE_ID), result)
    assert {e["name"]: e["value"] for e in doc["leaderboard"]}["Rating"] == -0.0123


# ---------------------------------------------------------------------------- long lines


def test_long_replies_lines_and_stderr_are_cut():
    result = _class()
    chris = _by_id(result, "chris-check")
    legal = chris.check.items[1]
    failure = {**legal.failure, "reply": "R" * 8000, "sent": "S" * 301}
    stderr = "its stderr ends with:\nFIRST LINE\n" + "x" * 1000 + "\nValueError: the end"
    legal = msgspec.structs.replace(legal, failure=failure, notes=[stderr])
    check = msgspec.structs.replace(chris.check, items=[legal])
    chris = msgspec.structs.replace(chris, check=check)
    for text in (
        feedback_markdown(chris, result),
        feedback_html(chris, result),
        next(t for t in gradescope_results(chris, result)["tests"] if t["name"] == "protocol check")[
            "output"
        ],
    ):
        assert "R" * 300 + " … (8000 characters)" in text and "R" * 301 not in text
        assert "S" * 300 + " … (301 characters)" in text and "S" * 301 not in text
        assert "ValueError: the end" in text and "FIRST LINE" not in text  # a tail keeps its end
        assert "… (1031 characters) " in text and "x" * 300 not in text

    hostile = _by_id(result, HOSTILE_ID)
    long = Forfeit(
        verdict="illegal", detail="bad", position="P" * 500, reply="Q" * 400, stderr_tail="E" * 350
    )
    hostile = msgspec.structs.replace(
        hostile, compete=msgspec.structs.replace(hostile.compete, forfeits=[long])
    )
    page = feedback_markdown(hostile, result)
    assert "P" * 300 + " … (500 characters)" in page and "P" * 301 not in page
    assert "Q" * 300 + " … (400 characters)" in page and "Q" * 301 not in page
    assert "… (350 characters) " + "E" * 300 in page and "E" * 301 not in page
    assert "`board 1\\|2\\nturn`" in feedback_markdown(_by_id(result, HOSTILE_ID), result)  # short: whole


# ---------------------------------------------------------------------------- reproducing a step


CHECK_COMMAND = "referee check connect4 BOT --games 4 --seed 7"
QUALIFY_COMMAND = "referee match connect4 BOT random --games 20 --seed 9"
QUALIFY_HINT = "win more games than you lose against random"


def _with_commands(result: ClassResult) -> ClassResult:
    replace = msgspec.structs.replace
    students = [
        replace(
            s,
            check=replace(s.check, command=CHECK_COMMAND) if s.check else None,
            qualify=replace(s.qualify, command=QUALIFY_COMMAND, hint=QUALIFY_HINT) if s.qualify else None,
        )
        for s in result.students
    ]
    return replace(result, students=students)


def test_check_and_qualify_sections_say_how_to_run_them_again():
    result = _with_commands(_class())
    quinn = _by_id(result, "quinn-noqual")
    page = feedback_markdown(quinn, result)
    for command in (CHECK_COMMAND, QUALIFY_COMMAND):
        assert f"Run it yourself:\n\n```text\n{command}\n```" in page
    assert page.count("BOT is your bot: a folder with bot.toml, an executable, or a quoted command.") == 2
    assert f"**Hint:** {QUALIFY_HINT}" in page
    html_page = feedback_html(quinn, result)
    assert f"<pre>{CHECK_COMMAND}</pre>" in html_page and QUALIFY_HINT in html_page
    tests = {t["name"]: t["output"] for t in gradescope_results(quinn, result)["tests"]}
    assert CHECK_COMMAND in tests["protocol check"]
    assert QUALIFY_COMMAND in tests["qualification"] and QUALIFY_HINT in tests["qualification"]
    # Not without a command, and not when the feedback hides the step.
    plain = _class()
    assert "Run it yourself" not in feedback_markdown(_by_id(plain, "quinn-noqual"), plain)
    hidden = _with_commands(_class(Feedback(check=False, qualify=False)))
    quinn = _by_id(hidden, "quinn-noqual")
    shown = (
        feedback_markdown(quinn, hidden)
        + feedback_html(quinn, hidden)
        + json.dumps(gradescope_results(quinn, hidden))
    )
    for text in (CHECK_COMMAND, QUALIFY_COMMAND, QUALIFY_HINT, "Run it yourself"):
        assert text not in shown, text


# ---------------------------------------------------------------------------- identical submissions


def test_overview_lists_identical_submissions():
    result = _class()
    md = overview_markdown(result)
    section = md.split("## Identical submissions\n", 1)[1].split("\n## ", 1)[0]
    items = [line for line in section.split("\n") if line.startswith("- ")]
    assert items == [
        f"- [-=cmd\\|' %2FC calc'!A0](students/-%3Dcmd%7C%27%20%252FC%20calc%27%21A0/feedback.md), "
        f"[quinn-noqual](students/quinn-noqual/feedback.md) (content hash `{SAME[:16]}`…)"
    ]
    # Groups sorted by their first id, ids within a group sorted; no hash, no group.
    replace = msgspec.structs.replace
    students = [
        replace(s, unpack=replace(s.unpack, content_hash="c1" * 32)) if s.student == "zara-rival" else s
        for s in result.students
    ]
    students.append(StudentResult(student="aaron-nohash", unpack=_unpack()))
    students.append(StudentResult(student="abby-nohash", unpack=_unpack()))
    md = overview_markdown(replace(result, students=students))
    section = md.split("## Identical submissions\n", 1)[1].split("\n## ", 1)[0]
    groups = [re.findall(r"\[([^]]*)\]\(", line) for line in section.split("\n") if line.startswith("- ")]
    assert groups == [["-=cmd\\|' %2FC calc'!A0", "quinn-noqual"], ["carl-compile", "zara-rival"]]
    assert "Identical submissions" in overview_html(result)
    # None alike: no section.
    distinct = [
        replace(s, unpack=replace(s.unpack, content_hash=f"{n:064x}")) if s.unpack else s
        for n, s in enumerate(result.students)
    ]
    assert "Identical" not in overview_markdown(replace(result, students=distinct))
    assert "Identical" not in feedback_markdown(_by_id(result, "quinn-noqual"), result)  # the TA's page only


# ---------------------------------------------------------------------------- notes


def test_a_bots_notes_reach_its_feedback_page_redacted_and_escaped():
    """Issue 15: an adapter's corrections are "a named note in the results, so the student
    learns of it": the feedback lists them by name with the first text of each."""
    result = _class()
    hostile = _by_id(result, HOSTILE_ID)
    replace = msgspec.structs.replace
    noted = replace(
        hostile,
        qualify=replace(
            hostile.qualify,
            notes={"ppca.correction.call-to-check": 7},
            note_examples={"ppca.correction.call-to-check": "game 1 hand 3: flop: CALL with nothing to call"},
        ),
        compete=replace(
            hostile.compete,
            notes={"ppca.correction.raise-below-minimum": 2, "ppca.warning.check-facing-bet": 5},
            note_examples={"ppca.warning.check-facing-bet": f"game 2 vs zara-rival: {SCRIPT}"},
        ),
    )
    result.students[result.students.index(hostile)] = noted
    page = feedback_markdown(noted, result)
    assert page.count("Notes: 7 — what your bot") == 2  # qualification and competition
    rows = [row for row in page.splitlines() if "ppca." in row]
    assert any("call-to-check" in r and "| 7 |" in r and "CALL with nothing to call" in r for r in rows), rows
    # Most frequent first within a step, and another student's name never shown.
    compete_rows = [r for r in rows if "raise-below" in r or "check-facing" in r]
    assert "check-facing-bet" in compete_rows[0] and "raise-below-minimum" in compete_rows[1]
    html_page = feedback_html(noted, result)
    assert "zara-rival" not in page and "zara-rival" not in html_page
    assert SCRIPT not in html_page and "&lt;script&gt;" in html_page
    assert "ppca.correction.call-to-check" in html_page
    # A step without notes has no notes section.
    assert "Notes:" not in feedback_markdown(hostile, _class())


def test_feedback_paths_are_relative_to_the_submission():
    """Issue 28: no page of a student's quotes where the grader keeps its files."""
    ta = "/home/ta/class/grading-2026"
    failing = _check(
        outcome="cannot-start",
        summary=f"the bot could not be started: no such program '{ta}/bots/dave/bot'",
        items=[
            CheckItem(
                key="startup",
                title="startup",
                status="fail",
                figure="exited with code 1 before its first answer",
                failure={"why": f'crash: stderr: File "{ta}/bots/dave/bot.py", line 3'},
                notes=[f'its stderr ends with:\n  File "{ta}/bots/dave/strategy.py", line 9'],
            )
        ],
    )
    dave = _student(
        "dave",
        _points(1, 2, 0, 0, 0),
        unpack=_unpack(),
        build=_build(log_head=f"cc -o {ta}/bots/.build-dave/bot {ta}/submissions/dave/src/bot.c"),
        check=failing,
    )
    result = msgspec.structs.replace(_class(), students=[dave], standings=[])
    pages = feedback_markdown(dave, result) + feedback_html(dave, result)
    pages += json.dumps(gradescope_results(dave, result))
    assert ta not in pages and "/bots/" not in pages and "/submissions/" not in pages
    assert "no such program &#x27;bot&#x27;" in pages or "no such program 'bot'" in pages
    assert "bot.py" in pages and "strategy.py" in pages and "src/bot.c" in pages
    assert (
        dave.check.items[0].failure["why"].startswith('crash: stderr: File "/home/ta/')
    )  # the record keeps them
