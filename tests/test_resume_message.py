"""The resume's first line (issue 25, item 1's wording): singular and plural agree."""

from __future__ import annotations

from referee import games
from referee.tournament import resume


class _Store:
    def __init__(self, stored: int, cut: dict[str, int]) -> None:
        self.stored, self.cut = stored, cut

    def registered_games(self) -> int:
        return 100

    def game_count(self) -> int:
        return self.stored

    def unfinished_games(self) -> dict[str, int]:
        return dict(self.cut)

    def discard_unfinished(self) -> None:
        pass

    def events(self, kind: str | None = None) -> list:
        return []


def _line(game: str, cut: dict[str, int]) -> str:
    return resume.prepare(_Store(40, cut), None, games.get(game), replay_all=False, finished=False)


def test_one_match_cut_short_is_played_again_from_its_start_two_from_theirs() -> None:
    one = _line("yahtzee", {"m1": 5})
    assert "1 match cut short (5 games) is played again from its start" in one, one
    two = _line("yahtzee", {"m1": 5, "m2": 3})
    assert "2 matches cut short (8 games) are played again from their starts" in two, two


def test_matches_that_go_on_agree_with_their_number_and_none_is_not_mentioned() -> None:
    one = _line("dice-poker", {"m1": 5})
    assert "; 1 match cut short goes on at its first deal not stored" in one, one
    two = _line("dice-poker", {"m1": 5, "m2": 1})
    assert "; 2 matches cut short go on at their first deal not stored" in two, two
    none = _line("dice-poker", {})
    assert "cut short" not in none and none.startswith("keeping all 40 stored games"), none
