"""The grading scheme: points for each step, from ``[points]`` in grading.toml.

=========  ==========================================================================
item       points
=========  ==========================================================================
build      ``build`` when the submission unpacked and built (nothing to build counts)
check      ``check`` when every checklist item passed; with ``check_partial``, that
           times the share of all the checklist's items that passed: an item the
           check did not reach ("skip": the bot never answered, the check stopped at a
           hang) is not passed, so a bot that gets further earns more
qualify    ``qualify`` when it beat the qualification opponent by the rule
compete    for a bot that competed, by ``compete_by``:

           ``rank``: ``compete`` for the best student, ``compete_floor × compete``
           for the last, linear in rank between (students who share a rank share
           the points; a class of one gets it all); with ``benefit_of_doubt``, a
           student's rank is the best of its 95 % rank range — a student the games
           could not tell apart from a better one is not marked down for the dice;
           ``rating``: the same, linear in rating between the lowest and highest
           student rating (all equal: all get ``compete``);
           ``score-rate``: ``compete`` × its score rate (wins + ½ draws per game)
=========  ==========================================================================

An item whose step is switched off (``[check] enabled = false``) is left out of the
scheme, and so of the maximum.  A step that did not run because an earlier one failed
scores 0, with that reason.  ``cap`` bounds the total.
"""

from __future__ import annotations

from referee.grade.config import PointsSection
from referee.grade.model import OK, SKIPPED, CompeteStep, PointItem, StudentResult


def _round(x: float) -> float:
    return round(x + 0.0, 4)


def _not_run(student: StudentResult, step: str) -> str:
    failed = next(
        (
            name
            for name in ("unpack", "build", "check", "qualify")
            if (s := getattr(student, name)) and not s.ok
        ),
        None,
    )
    return f"not run: the {failed} step failed" if failed else f"the {step} step did not run"


def _rank(step: CompeteStep, benefit_of_doubt: bool) -> int | None:
    """The rank points are given for: the standings' rank, or with the benefit of the
    doubt the best rank of its 95 % rank range (the games could not tell it apart)."""
    if benefit_of_doubt and step.rank_range:
        return step.rank_range[0]
    return step.rank


def compete_shares(
    students: list[StudentResult], by: str, floor: float, benefit_of_doubt: bool = False
) -> dict[str, float]:
    """Each competing student's share (0–1) of the ``compete`` points."""
    ranked = {s.student: s.compete for s in students if s.compete is not None and s.compete.outcome == OK}
    shares: dict[str, float] = {}
    if by == "score-rate":
        for student, c in ranked.items():
            # No games (the one bot that qualified): nothing to be measured against.
            shares[student] = (c.wins + c.draws / 2) / c.games if c.games else 1.0
        return shares
    if by == "rating":
        values = {student: c.rating for student, c in ranked.items() if c.rating is not None}
        if not values:
            by = "rank"
        else:
            low, high = min(values.values()), max(values.values())
            for student in ranked:
                v = values.get(student, low)
                shares[student] = 1.0 if high == low else floor + (1 - floor) * (v - low) / (high - low)
            return shares
    # Rank among students only (house bots are not graded): 1 … n by the standings' rank.
    ranks = {student: _rank(c, benefit_of_doubt) for student, c in ranked.items()}
    known = [r for r in ranks.values() if r is not None]
    position = {rank: 1 + sum(1 for other in known if other < rank) for rank in set(known)}
    n = len(ranked)
    for student, rank in ranks.items():
        if rank is None:
            shares[student] = floor
            continue
        r = position[rank]
        shares[student] = 1.0 if n <= 1 else 1.0 - (1 - floor) * (r - 1) / (n - 1)
    return shares


def _item(points: PointsSection, name: str, got: float, why: str) -> PointItem:
    return PointItem(
        name=name,
        points=_round(got),
        max_points=getattr(points, name),
        visibility=points.visibility.get(name, "visible"),
        why=why,
    )


def apply(students: list[StudentResult], points: PointsSection, enabled: dict[str, bool]) -> None:
    """Fill each student's points, total and maximum."""
    shares = compete_shares(students, points.compete_by, points.compete_floor, points.benefit_of_doubt)
    for s in students:
        items: list[PointItem] = []

        def item(name: str, got: float, why: str, items: list[PointItem] = items) -> None:
            items.append(_item(points, name, got, why))

        build_ok = s.unpack is not None and s.unpack.ok and s.build is not None and s.build.ok
        if s.build is None:
            item("build", 0.0, _not_run(s, "build"))
        else:
            item("build", points.build if build_ok else 0.0, s.build.summary)
        if enabled["check"]:
            checked = s.check
            if checked is None or checked.outcome == SKIPPED:
                item("check", 0.0, _not_run(s, "check"))
            elif points.check_partial:
                # Every item counts: one not reached (skip) is not passed.
                passed = sum(1 for i in checked.items if i.status == "pass")
                share = passed / len(checked.items) if checked.items else 0.0
                item(
                    "check", points.check * share, f"{passed} of {len(checked.items)} checklist items passed"
                )
            else:
                item("check", points.check if checked.ok else 0.0, checked.summary)
        if enabled["qualify"]:
            q = s.qualify
            if q is None:
                item("qualify", 0.0, _not_run(s, "qualify"))
            else:
                item("qualify", points.qualify if q.ok else 0.0, q.summary)
        if enabled["compete"]:
            c = s.compete
            if c is None:
                item("compete", 0.0, _not_run(s, "compete"))
            elif c.outcome != OK:
                item("compete", 0.0, c.summary)
            else:
                share = shares.get(s.student, 0.0)
                item(
                    "compete",
                    points.compete * share,
                    f"{c.summary} — {share:.0%} of the competition's points",
                )
        s.points = items
        total = sum(i.points for i in items)
        maximum = sum(i.max_points for i in items)
        if points.cap is not None:
            total, maximum = min(total, points.cap), min(maximum, points.cap)
        s.total, s.max_total = _round(total), _round(maximum)
