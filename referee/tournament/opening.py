"""The results store for a run, by the store's policy: a new tournament's store created
with its configuration and its bots' copies in one transaction, never over another
tournament; a resumed one reopened only for the same bots, with what is kept and what is
played again."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from referee import games
from referee.tournament import resume, snapshot
from referee.tournament.field import isolate
from referee.tournament.plan import Plan
from referee.tournament.runner import load_outcomes
from referee.tournament.setup import Prepared
from referee.tournament.store import NoTournament, Store, StoreError
from referee.tournament.store import writer as store_writer


def _reopen_close(store: Store, plan: Plan, say: Callable[[str], None]) -> None:
    """``--rerun-close``: the done matches with a ``near-limit`` event become pending."""
    if plan.adaptive:
        raise StoreError(
            f"--rerun-close replays matches of a fixed schedule; a {plan.config.format}'s later "
            "rounds were paired from their results"
        )
    done = set(store.done_keys())
    keys = sorted({key for _, _, _, key, _ in store.events("near-limit") if key in done})
    store.reopen(keys)
    say(f"--rerun-close: {len(keys)} match{'es' * (len(keys) != 1)} close to the time limit played again")


def open_store(prepared: Prepared, game: type[games.Game], say: Callable[[str], None]) -> Store:
    """The store, created or reopened for this run; StoreError when it does not match
    (``say`` tells the user one line)."""
    config = prepared.config
    out = Path(prepared.settings.out)
    if prepared.resumed:
        store = Store.open(out)
        try:
            changed = store.changed_bots(prepared.specs.values())
            if changed:
                raise StoreError(
                    f"cannot resume: the files of {', '.join(changed)} changed since the tournament "
                    "started (a resume must play the same bots)"
                )
            plan = Plan(config, game)
            if prepared.settings.rerun_close:
                _reopen_close(store, plan, say)
            finished = plan.next(load_outcomes(store, plan)) is None
            # What is kept and what is played again (docs/tournaments.md, "Resume").
            prepared.outlook = resume.prepare(
                store, plan, game, replay_all=prepared.settings.replay_all, finished=finished
            )
        except BaseException:
            store.close()
            raise
        return store
    if _holds_tournament(out):
        writer = store_writer(out)
        if writer is not None:
            raise StoreError(
                f"{out} holds a tournament that a referee (pid {writer}) is playing now: give a new --out"
            )
        raise StoreError(
            f"{out} already holds a tournament: resume it with --resume {out}, or give a new --out"
        )
    if prepared.isolate:
        isolate(prepared.isolate, out / "bots")
        for entry in prepared.isolate:
            prepared.specs[entry.spec.name] = entry.spec
    # Every bot plays from its own copy under DIR/bots/ (referee.tournament.snapshot).
    prepared.specs.update(snapshot.take({n: prepared.specs[n] for n in config.everyone}, out))
    # The configuration and the bots in one transaction: a kill in between cannot leave
    # a tournament that neither resumes nor can be started again.
    return Store.open(out, config, seed=config.seed, bots=[prepared.specs[n] for n in config.everyone])


def _holds_tournament(out: Path) -> bool:
    """Whether ``out`` holds a recorded tournament (a store killed while being created,
    before its first transaction, holds none: it is created again)."""
    try:
        with Store.read(out):
            return True
    except NoTournament:
        return False
    except StoreError:  # some other SQLite file: not to be overwritten
        return True
