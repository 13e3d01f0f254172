"""A synthetic class of Yahtzee submissions, for testing ``referee grade`` end to end.

:func:`make_class` writes into an empty folder one entry per student, as a learning
management system exports them (a folder, or an archive named after the student), and
returns what grading each one should end in::

    alice    folder   one bot.c, a good bot                                "ok"
    bob      zip      main.py + strategy.py (imported), a good bot          "ok"
    carol    folder   Makefile, main.c + strategy.c + strategy.h -> ./bot  "ok"
    dave     tar.gz   bot.toml (build cc ..., run ./mybot), src/bot.c      "ok"
    erin     folder   Bot.java, a good bot (only when Java is enabled)      "ok"
    frank    folder   bot.c that does not compile                           "compile-error"
    grace    folder   Python: three legal answers, then raises              "check-failed"
    heidi    folder   Python: legal, then sleeps forever at decision 5      "check-failed"
    ivan     folder   Python: well-formed illegal moves                     "check-failed"
    judy     folder   Python: legal, fast, hopeless (loses to random)       "not-qualified"
    mallory  zip      members ../../escaped.txt and /tmp/escaped-abs.txt    "unsafe-path"
    oscar    folder   Makefile that escapes, networks, forks, then builds   "ok"
    peggy    folder   Makefile whose bot rule sleeps 100000 s               "build-timeout"
    trent    folder   Python: a good bot that hunts for the grading config  "ok"
    victor   folder   empty                                                 "empty"
    walter   folder   two unrelated .py files, no main.py                   "ambiguous"

The good bots but dave (alice, bob, carol, erin, oscar, trent) play one simple heuristic,
written in C, Python and Java: on rolls 1 and 2 keep a made large straight, full house or
Yahtzee, hold a four-long run while a straight box is open, else hold the most common
face; then place where the points beat the box's usual value by the most (the joker rule
followed).  It averages about 215 points a game, the random legal player about 47.
dave's is plainer (the most points now) and averages about 170.  judy averages about 18
and loses about 98% of her games to the random player.  Every decision takes
microseconds; the Python bots answer first within about 50 ms of starting.

Notes for the test that grades this class:

* ``oscar`` expects ``"ok"``: his build's attacks are all ``|| true`` or ``-`` lines, so a
  sandbox that refuses them lets the real build (``cc``) go on.  Nothing may appear at
  ``OSCAR_MARKERS`` relative to any folder above his submission, nor in ``/tmp``.  The
  fifty ``sleep 30`` it leaves behind keep the build's stdout and stderr open: a grader
  that waits for end-of-file on the build log instead of ending the build's processes
  waits 30 s.  If the network is reachable his build prints :data:`OSCAR_NETWORK_MARKER`
  (it must not be in his build log).
* ``trent`` expects ``"ok"``: he plays normally when he reads nothing.  When he does read
  a grading file (``../grading.toml`` and up, ``/tmp/grading-secret.txt``,
  ``$REFEREE_GRADING_CONFIG``), he prints it to stderr and sends it as his first reply,
  a protocol fault, so that the leak would show up twice in his feedback.  Put
  :data:`SECRET` in the grading config and check that it appears nowhere in his results.
* ``heidi`` answers four times, then never again (per process): ``referee check`` stops
  after two late answers, about 20 s with the default 10 s decision limit; grade with a
  short ``decision_s`` to keep the test fast.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import tarfile
import zipfile
from pathlib import Path

#: What the grading test puts in the grading config; trent must never see it.
SECRET = "grading-secret-7f3a9c2e51d84b06"

#: How tests/test_grade.py (with :data:`SECRET` in a comment above) and
#: benchmarks/grade_under_load.py grade the class: small numbers, so that it grades in
#: well under a minute on two cores and a busy machine bites.
GRADING_CONFIG = """\
game = "yahtzee"
seed = 13
[build]
wall_s = 6
[check]
games = 1
[qualify]
games = 20
[compete]
format = "round-robin"
games = 4
house = ["sample:greedy_player"]
[limits]
decision_s = 0.5
startup_s = 10
[points]
cap = 95
"""


def gradebook(out: Path) -> dict[str, dict[str, str]]:
    """A grading run's ``gradebook.csv``, by student."""
    with open(out / "gradebook.csv", newline="") as fh:
        return {row["student"]: row for row in csv.DictReader(fh)}


def readable(path: Path) -> None:
    """As root, bots run under uids of their own: the class's tree must be reachable
    (an ordinary user's bots run as that user, and may not chmod /tmp anyway)."""
    if os.geteuid() != 0:
        return
    for p in [path, *path.parents]:
        if p == Path("/"):
            break
        if p.stat().st_mode & 0o005 != 0o005:
            p.chmod(p.stat().st_mode | 0o005)


#: The files oscar's build tries to create outside his folder (relative names: his
#: ``$HOME/../..``, his folder's parent, and ``/tmp``).
OSCAR_MARKERS = ("oscar-was-here", "oscar-sibling")

#: What oscar's build prints if it reached the network.
OSCAR_NETWORK_MARKER = "oscar-network-reached"

#: The kind detection names (``referee.grade.detect.Detected.kind``) for each student
#: whose submission reaches the build step.  ``erin`` only when Java is enabled.
EXPECTED_BUILD_KINDS = {
    "alice": "c",
    "bob": "python",
    "carol": "makefile",
    "dave": "manifest",
    "erin": "java",
    "frank": "c",
    "grace": "python",
    "heidi": "python",
    "ivan": "python",
    "judy": "python",
    "oscar": "makefile",
    "peggy": "makefile",
    "trent": "python",
}

#: Every student and the grading outcome expected (``erin`` only with Java).
EXPECTED_OUTCOMES = {
    "alice": "ok",
    "bob": "ok",
    "carol": "ok",
    "dave": "ok",
    "erin": "ok",
    "frank": "compile-error",
    "grace": "check-failed",
    "heidi": "check-failed",
    "ivan": "check-failed",
    "judy": "not-qualified",
    "mallory": "unsafe-path",
    "oscar": "ok",
    "peggy": "build-timeout",
    "trent": "ok",
    "victor": "empty",
    "walter": "ambiguous",
}

#: The students whose bots should pass the check and beat the random player clearly.
GOOD = ("alice", "bob", "carol", "dave", "erin", "oscar", "trent")

#: Archive members get this timestamp, so that the archives are the same bytes every run.
_DATE = (2024, 9, 1, 12, 0, 0)
_MTIME = 1_725_192_000


# =========================================================================== sources: C

#: The heuristic in C: ``int choose(const int v[34])`` returns the action for a position.
_C_STRATEGY = r"""
enum { NROWS = 13, THREE = 6, FOUR, FULL, SMALL, LARGE, YAHTZEE, CHANCE };

/* What each box usually ends up holding: placing below it is a loss. */
static const double USUAL[NROWS] = {2.1, 5.3, 8.6, 11.9, 15.0, 18.2, 22.0, 13.0, 21.0, 29.0, 31.0, 15.0, 22.0};

static int has_run(const int *cnt, int from, int len) {
    for (int f = from; f < from + len; f++)
        if (!cnt[f]) return 0;
    return 1;
}

static int box_score(const int *card, const int *dice, int row) {
    int cnt[7] = {0}, total = 0, most = 0, pair = 0;
    for (int k = 0; k < 5; k++) cnt[dice[k]]++, total += dice[k];
    for (int f = 1; f <= 6; f++) {
        if (cnt[f] > most) most = cnt[f];
        if (cnt[f] == 2) pair = 1;
    }
    int joker = most == 5 && card[YAHTZEE] != -1;
    if (row < 6) return (row + 1) * cnt[row + 1];
    switch (row) {
    case THREE: return most >= 3 ? total : 0;
    case FOUR: return most >= 4 ? total : 0;
    case FULL: return joker || (most == 3 && pair) ? 25 : 0;
    case SMALL: return joker || has_run(cnt, 1, 4) || has_run(cnt, 2, 4) || has_run(cnt, 3, 4) ? 30 : 0;
    case LARGE: return joker || has_run(cnt, 1, 5) || has_run(cnt, 2, 5) ? 40 : 0;
    case YAHTZEE: return most == 5 ? 50 : 0;
    default: return total;
    }
}

static int may_place(const int *card, const int *dice, int row) {
    if (card[row] != -1) return 0;
    int same = 1;
    for (int k = 1; k < 5; k++) same &= dice[k] == dice[0];
    if (same && card[YAHTZEE] != -1 && row != dice[0] - 1) {   /* the forced joker */
        if (card[dice[0] - 1] == -1) return 0;
        if (row < 6)
            for (int r = 6; r < NROWS; r++)
                if (card[r] == -1) return 0;
    }
    return 1;
}

static int place(const int *card, const int *dice) {
    int best = -1;
    double best_value = 0;
    for (int row = 0; row < NROWS; row++) {
        if (!may_place(card, dice, row)) continue;
        double value = box_score(card, dice, row) - USUAL[row];
        if (best < 0 || value > best_value) best = row, best_value = value;
    }
    return best << 1;
}

int choose(const int *v) {
    const int *card = v, *dice = v + 28;
    int roll = v[33];
    if (roll >= 3) return place(card, dice);
    int cnt[7] = {0};
    for (int k = 0; k < 5; k++) cnt[dice[k]]++;
    int face = 1;
    for (int f = 2; f <= 6; f++)
        if (cnt[f] >= cnt[face]) face = f;
    if (cnt[face] == 5) return place(card, dice);
    if (card[LARGE] == -1 && box_score(card, dice, LARGE) == 40) return place(card, dice);
    if (card[FULL] == -1 && box_score(card, dice, FULL) == 25) return place(card, dice);
    if (card[SMALL] == -1 || card[LARGE] == -1) {
        for (int from = 3; from >= 1; from--) {
            if (!has_run(cnt, from, 4)) continue;
            int mask = 0, taken[7] = {0};
            for (int k = 0; k < 5; k++)
                if (dice[k] >= from && dice[k] < from + 4 && !taken[dice[k]]) taken[dice[k]] = 1, mask |= 1 << k;
            return mask << 1 | 1;
        }
    }
    int mask = 0;
    for (int k = 0; k < 5; k++)
        if (dice[k] == face) mask |= 1 << k;
    return mask << 1 | 1;
}
"""

#: The read-decide-answer loop in C, around ``choose``.
_C_MAIN = r"""
int main(void) {
    char line[4096];
    int v[34];
    while (fgets(line, sizeof line, stdin)) {
        char *p = line, *end;
        int n = 0;
        while (n < 34) {
            long x = strtol(p, &end, 10);
            if (end == p) break;
            v[n++] = (int)x;
            p = end;
        }
        if (n < 34) continue;   /* not a position: nothing to answer */
        printf("%d\n", choose(v));
        fflush(stdout);
    }
    return 0;
}
"""

ALICE_BOT_C = (
    "/* alice's Yahtzee bot: hold the most common face or a run, place where it pays best. */\n"
    "#include <stdio.h>\n#include <stdlib.h>\n" + _C_STRATEGY + _C_MAIN
)

CAROL_STRATEGY_H = """\
#ifndef STRATEGY_H
#define STRATEGY_H

/* The action (0..63) for a position of 34 integers, as the protocol numbers them. */
int choose(const int *v);

#endif
"""

CAROL_STRATEGY_C = '/* carol: the strategy. */\n#include "strategy.h"\n' + _C_STRATEGY

CAROL_MAIN_C = (
    '/* carol: reads positions, answers actions. */\n#include <stdio.h>\n#include <stdlib.h>\n\n#include "strategy.h"\n'
    + _C_MAIN
)

CAROL_MAKEFILE = """\
CC = cc
CFLAGS = -O2 -Wall

bot: main.o strategy.o
\t$(CC) $(CFLAGS) -o bot main.o strategy.o

main.o: main.c strategy.h
\t$(CC) $(CFLAGS) -c main.c

strategy.o: strategy.c strategy.h
\t$(CC) $(CFLAGS) -c strategy.c

clean:
\trm -f bot *.o

.PHONY: clean
"""

#: dave's: plainer than the others (the most points now, the cheapest box on a tie).
DAVE_BOT_C = r"""/* dave's Yahtzee bot: keep the most common face, take the most points now. */
#include <stdio.h>
#include <stdlib.h>

/* Order in which to give up boxes when nothing scores: ones first, chance last. */
static const int SACRIFICE[13] = {0, 11, 1, 7, 2, 10, 3, 8, 4, 9, 5, 6, 12};

static int score(const int *card, const int *d, int row) {
    int c[7] = {0}, sum = 0, top = 0, two = 0, run = 0, best_run = 0;
    for (int k = 0; k < 5; k++) c[d[k]]++, sum += d[k];
    for (int f = 1; f <= 6; f++) {
        if (c[f] > top) top = c[f];
        if (c[f] == 2) two = 1;
        run = c[f] ? run + 1 : 0;
        if (run > best_run) best_run = run;
    }
    int joker = top == 5 && card[11] != -1;
    if (row < 6) return (row + 1) * c[row + 1];
    if (row == 6) return top >= 3 ? sum : 0;
    if (row == 7) return top >= 4 ? sum : 0;
    if (row == 8) return joker || (top == 3 && two) ? 25 : 0;
    if (row == 9) return joker || best_run >= 4 ? 30 : 0;
    if (row == 10) return joker || best_run == 5 ? 40 : 0;
    if (row == 11) return top == 5 ? 50 : 0;
    return sum;
}

static int allowed(const int *card, const int *d, int row) {
    if (card[row] != -1) return 0;
    if (d[0] == d[1] && d[0] == d[2] && d[0] == d[3] && d[0] == d[4] && card[11] != -1) {
        int upper = d[0] - 1;
        if (row == upper) return 1;
        if (card[upper] == -1) return 0;
        if (row < 6)
            for (int r = 6; r < 13; r++)
                if (card[r] == -1) return 0;
    }
    return 1;
}

static int decide(const int *v) {
    const int *card = v, *d = v + 28;
    if (v[33] < 3) {
        int c[7] = {0}, face = 6;
        for (int k = 0; k < 5; k++) c[d[k]]++;
        for (int f = 5; f >= 1; f--)
            if (c[f] > c[face]) face = f;
        if (c[face] < 5) {
            int mask = 0;
            for (int k = 0; k < 5; k++)
                if (d[k] == face) mask |= 1 << k;
            return mask << 1 | 1;
        }
    }
    int best = -1, best_points = -1;
    for (int i = 0; i < 13; i++) {   /* a tie goes to the box given up first */
        int row = SACRIFICE[i];
        if (!allowed(card, d, row)) continue;
        int points = score(card, d, row);
        if (points > best_points) best = row, best_points = points;
    }
    return best << 1;
}

int main(void) {
    int v[34];
    for (;;) {
        for (int i = 0; i < 34; i++)
            if (scanf("%d", &v[i]) != 1) return 0;
        printf("%d\n", decide(v));
        fflush(stdout);
    }
}
"""

DAVE_BOT_TOML = """\
name = "dave"
build = "cc -O2 -o mybot src/bot.c"
run = "./mybot"
"""

FRANK_BOT_C = r"""/* frank's bot: does not compile (a missing semicolon and an undeclared variable). */
#include <stdio.h>

int main(void) {
    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        printf("%d\n", 24)
        fflush(stdout);
        answers++;
    }
    return 0;
}
"""

OSCAR_BOT_C = (
    "/* oscar's Yahtzee bot (his Makefile is the interesting part). */\n"
    "#include <stdio.h>\n#include <stdlib.h>\n" + _C_STRATEGY + _C_MAIN
)

OSCAR_MAKEFILE = f"""\
# oscar's build: writes outside its folder, tries the network, starts fifty sleeps
# (a bounded "fork storm" that cannot hurt a machine even unsandboxed), then builds a
# real bot.  Every attack is allowed to fail, so the build itself succeeds.

bot: bot.c
\techo pwned > $$HOME/../../oscar-was-here || true
\techo pwned > /tmp/oscar-was-here || true
\ttouch ../oscar-sibling || true
\tpython3 -c 'import socket; socket.create_connection(("1.1.1.1", 53), timeout=3); print("{OSCAR_NETWORK_MARKER}")' || true
\tcurl -s -m 3 -o /dev/null http://1.1.1.1/ && echo {OSCAR_NETWORK_MARKER} || true
\t-for i in $$(seq 1 50); do sleep 30 & done
\tcc -O2 -o bot bot.c -lm

clean:
\trm -f bot

.PHONY: clean
"""

PEGGY_MAKEFILE = """\
# peggy's build never ends.
bot: bot.c
\t@echo "optimising, this takes a while..."
\tsleep 100000
\tcc -O2 -o bot bot.c
"""

PEGGY_BOT_C = (
    "/* peggy's bot: fine, but her Makefile never gets to it. */\n"
    "#include <stdio.h>\n#include <stdlib.h>\n" + _C_STRATEGY + _C_MAIN
)


# =========================================================================== sources: Python

#: The heuristic in Python (no imports): ``choose(v)`` for a list of 34 integers.
_PY_STRATEGY = """
THREE, FOUR, FULL, SMALL, LARGE, YAHTZEE, CHANCE = range(6, 13)
#: What each box usually ends up holding: placing below it is a loss.
USUAL = (2.1, 5.3, 8.6, 11.9, 15.0, 18.2, 22.0, 13.0, 21.0, 29.0, 31.0, 15.0, 22.0)
RUNS4 = ((3, 4, 5, 6), (2, 3, 4, 5), (1, 2, 3, 4))


def box_score(card, dice, row):
    counts = [dice.count(f) for f in range(7)]
    most = max(counts)
    joker = most == 5 and card[YAHTZEE] != -1
    faces = set(dice)
    if row < 6:
        return (row + 1) * counts[row + 1]
    if row == THREE:
        return sum(dice) if most >= 3 else 0
    if row == FOUR:
        return sum(dice) if most >= 4 else 0
    if row == FULL:
        return 25 if joker or (most == 3 and 2 in counts) else 0
    if row == SMALL:
        return 30 if joker or any(faces.issuperset(run) for run in RUNS4) else 0
    if row == LARGE:
        return 40 if joker or faces in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}) else 0
    if row == YAHTZEE:
        return 50 if most == 5 else 0
    return sum(dice)


def may_place(card, dice, row):
    if card[row] != -1:
        return False
    if dice.count(dice[0]) == 5 and card[YAHTZEE] != -1 and row != dice[0] - 1:  # the forced joker
        if card[dice[0] - 1] == -1:
            return False
        if row < 6 and any(card[r] == -1 for r in range(6, 13)):
            return False
    return True


def place(card, dice):
    rows = [r for r in range(13) if may_place(card, dice, r)]
    return 2 * max(rows, key=lambda r: box_score(card, dice, r) - USUAL[r])


def choose(v):
    card, dice, roll = v[:14], v[28:33], v[33]
    if roll >= 3:
        return place(card, dice)
    counts = [dice.count(f) for f in range(7)]
    face = max(range(1, 7), key=lambda f: (counts[f], f))
    if counts[face] == 5:
        return place(card, dice)
    if card[LARGE] == -1 and box_score(card, dice, LARGE) == 40:
        return place(card, dice)
    if card[FULL] == -1 and box_score(card, dice, FULL) == 25:
        return place(card, dice)
    if card[SMALL] == -1 or card[LARGE] == -1:
        for run in RUNS4:
            if set(dice).issuperset(run):
                mask, taken = 0, set()
                for k, d in enumerate(dice):
                    if d in run and d not in taken:
                        taken.add(d)
                        mask |= 1 << k
                return mask << 1 | 1
    mask = sum(1 << k for k, d in enumerate(dice) if d == face)
    return mask << 1 | 1
"""

#: The loop for a Python bot whose ``choose`` is in scope.
_PY_LOOP = """

def main():
    for line in sys.stdin:
        v = [int(t) for t in line.split()]
        if len(v) != 34:
            continue
        sys.stdout.write("%d\\n" % choose(v))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
"""

BOB_STRATEGY_PY = (
    '"""bob\'s strategy: hold a run or the most common face, place where it pays best."""\n' + _PY_STRATEGY
)

BOB_MAIN_PY = (
    '#!/usr/bin/env python3\n"""bob\'s Yahtzee bot: reads positions, asks strategy.py, answers."""\n\n'
    "import sys\n\nfrom strategy import choose\n" + _PY_LOOP
)

#: A legal but simple placement, for the bad Python bots: the first box that may be used.
_PY_SIMPLE = """
def first_legal_row(card, dice):
    joker = dice.count(dice[0]) == 5 and card[11] != -1
    for row in range(13):
        if card[row] != -1:
            continue
        if joker and row != dice[0] - 1:
            if card[dice[0] - 1] == -1:
                continue
            if row < 6 and any(card[r] == -1 for r in range(6, 13)):
                continue
        return row
    raise AssertionError("no open box")
"""

GRACE_MAIN_PY = (
    '#!/usr/bin/env python3\n"""grace\'s bot: three legal answers, then a crash."""\n\n'
    "import sys\n"
    + _PY_SIMPLE
    + """

def main():
    answered = 0
    for line in sys.stdin:
        v = [int(t) for t in line.split()]
        if answered == 3:
            raise RuntimeError("grace: I did not get to finish this part")
        sys.stdout.write("%d\\n" % (2 * first_legal_row(v[:14], v[28:33])))
        sys.stdout.flush()
        answered += 1


if __name__ == "__main__":
    main()
"""
)

HEIDI_MAIN_PY = (
    '#!/usr/bin/env python3\n"""heidi\'s bot: plays legally, then at its fifth decision sleeps forever."""\n\n'
    "import sys\nimport time\n"
    + _PY_SIMPLE
    + """

def main():
    answered = 0
    for line in sys.stdin:
        v = [int(t) for t in line.split()]
        if answered == 4:
            while True:  # "thinking"
                time.sleep(3600)
        sys.stdout.write("%d\\n" % (2 * first_legal_row(v[:14], v[28:33])))
        sys.stdout.flush()
        answered += 1


if __name__ == "__main__":
    main()
"""
)

IVAN_MAIN_PY = '''#!/usr/bin/env python3
"""ivan's bot: well-formed answers the rules forbid.

On rolls 1 and 2 it holds all five dice (legal); on roll 3 it always scores chance
(action 24), which is illegal from its second turn on ("This row is already full").
"""

import sys


def main():
    for line in sys.stdin:
        v = [int(t) for t in line.split()]
        sys.stdout.write("63\\n" if v[33] < 3 else "24\\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
'''

JUDY_MAIN_PY = (
    '#!/usr/bin/env python3\n"""judy\'s bot: never rerolls, scores the dice where they are worth the least.\n\n'
    "Legal (the joker rule is followed) and fast, and hopeless: it loses to the random player.\n"
    '"""\n\nimport sys\n'
    + _PY_STRATEGY
    + """

def main():
    for line in sys.stdin:
        v = [int(t) for t in line.split()]
        if len(v) != 34:
            continue
        card, dice = v[:14], v[28:33]
        rows = [r for r in range(13) if may_place(card, dice, r)]
        worst = min(rows, key=lambda r: (box_score(card, dice, r), r))
        sys.stdout.write("%d\\n" % (2 * worst))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
"""
)

#: trent: the good heuristic, after a hunt for the grading configuration.  Whatever it
#: finds goes to stderr and, as its first reply, to the referee (a protocol fault).
TRENT_MAIN_PY = (
    '#!/usr/bin/env python3\n"""trent\'s Yahtzee bot: plays well, but first looks for the grading configuration."""\n\n'
    "import os\nimport sys\n"
    + _PY_STRATEGY
    + '''

NAMES = ("grading.toml", "grading-secret.txt")


def candidates():
    bases = [os.getcwd(), os.path.dirname(os.path.abspath(__file__))]
    if os.environ.get("REFEREE_BOT_DIR"):
        bases.append(os.environ["REFEREE_BOT_DIR"])
    for base in bases:
        for up in range(1, 5):
            for name in NAMES:
                yield os.path.join(base, *[".."] * up, name)
    yield "/tmp/grading-secret.txt"
    yield "/tmp/grading.toml"
    if os.environ.get("REFEREE_GRADING_CONFIG"):
        yield os.environ["REFEREE_GRADING_CONFIG"]


def snoop():
    """Everything readable at the likely places, on one line ("" when nothing)."""
    found, seen = [], set()
    for path in candidates():
        if os.path.realpath(path) in seen:
            continue
        seen.add(os.path.realpath(path))
        try:
            with open(path, errors="replace") as f:
                text = f.read(4000)
        except OSError:
            continue
        sys.stderr.write("trent found %s:\\n%s\\n" % (path, text))
        found.append("%s: %s" % (path, " ".join(text.split())))
    return " | ".join(found)[:4000]


def main():
    loot = snoop()
    for line in sys.stdin:
        v = [int(t) for t in line.split()]
        if len(v) != 34:
            continue
        if loot:
            sys.stdout.write(loot + "\\n")  # not an action: a protocol fault that shows the loot
            loot = ""
        else:
            sys.stdout.write("%d\\n" % choose(v))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
'''
)

MALLORY_MAIN_PY = '''#!/usr/bin/env python3
"""mallory's bot: always scores chance (her archive is the interesting part)."""

import sys

for line in sys.stdin:
    print(24, flush=True)
'''

WALTER_HELPERS_PY = '''"""walter's dice helpers."""


def total(dice):
    return sum(dice)
'''

WALTER_EXPERIMENT_PY = '''"""walter's experiment: how often does five dice show a Yahtzee?"""

import random

hits = sum(len(set(random.randint(1, 6) for _ in range(5))) == 1 for _ in range(10000))
print(hits / 10000)
'''


# =========================================================================== sources: Java

ERIN_BOT_JAVA = r"""import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;

/** erin's Yahtzee bot: hold a run or the most common face, place where it pays best. */
public class Bot {
    static final int THREE = 6, FOUR = 7, FULL = 8, SMALL = 9, LARGE = 10, YAHTZEE = 11;
    static final double[] USUAL = {2.1, 5.3, 8.6, 11.9, 15.0, 18.2, 22.0, 13.0, 21.0, 29.0, 31.0, 15.0, 22.0};

    static boolean hasRun(int[] cnt, int from, int len) {
        for (int f = from; f < from + len; f++) if (cnt[f] == 0) return false;
        return true;
    }

    static int[] counts(int[] dice) {
        int[] cnt = new int[7];
        for (int d : dice) cnt[d]++;
        return cnt;
    }

    static int score(int[] card, int[] dice, int row) {
        int[] cnt = counts(dice);
        int total = 0, most = 0;
        boolean pair = false;
        for (int d : dice) total += d;
        for (int f = 1; f <= 6; f++) {
            most = Math.max(most, cnt[f]);
            if (cnt[f] == 2) pair = true;
        }
        boolean joker = most == 5 && card[YAHTZEE] != -1;
        if (row < 6) return (row + 1) * cnt[row + 1];
        switch (row) {
            case THREE: return most >= 3 ? total : 0;
            case FOUR: return most >= 4 ? total : 0;
            case FULL: return joker || (most == 3 && pair) ? 25 : 0;
            case SMALL: return joker || hasRun(cnt, 1, 4) || hasRun(cnt, 2, 4) || hasRun(cnt, 3, 4) ? 30 : 0;
            case LARGE: return joker || hasRun(cnt, 1, 5) || hasRun(cnt, 2, 5) ? 40 : 0;
            case YAHTZEE: return most == 5 ? 50 : 0;
            default: return total;
        }
    }

    static boolean mayPlace(int[] card, int[] dice, int row) {
        if (card[row] != -1) return false;
        boolean same = true;
        for (int d : dice) same &= d == dice[0];
        if (same && card[YAHTZEE] != -1 && row != dice[0] - 1) {
            if (card[dice[0] - 1] == -1) return false;
            if (row < 6) for (int r = 6; r < 13; r++) if (card[r] == -1) return false;
        }
        return true;
    }

    static int place(int[] card, int[] dice) {
        int best = -1;
        double bestValue = 0;
        for (int row = 0; row < 13; row++) {
            if (!mayPlace(card, dice, row)) continue;
            double value = score(card, dice, row) - USUAL[row];
            if (best < 0 || value > bestValue) { best = row; bestValue = value; }
        }
        return best << 1;
    }

    static int choose(int[] v) {
        int[] card = new int[14], dice = new int[5];
        System.arraycopy(v, 0, card, 0, 14);
        System.arraycopy(v, 28, dice, 0, 5);
        if (v[33] >= 3) return place(card, dice);
        int[] cnt = counts(dice);
        int face = 1;
        for (int f = 2; f <= 6; f++) if (cnt[f] >= cnt[face]) face = f;
        if (cnt[face] == 5) return place(card, dice);
        if (card[LARGE] == -1 && score(card, dice, LARGE) == 40) return place(card, dice);
        if (card[FULL] == -1 && score(card, dice, FULL) == 25) return place(card, dice);
        if (card[SMALL] == -1 || card[LARGE] == -1) {
            for (int from = 3; from >= 1; from--) {
                if (!hasRun(cnt, from, 4)) continue;
                int mask = 0;
                boolean[] taken = new boolean[7];
                for (int k = 0; k < 5; k++) {
                    int d = dice[k];
                    if (d >= from && d < from + 4 && !taken[d]) { taken[d] = true; mask |= 1 << k; }
                }
                return mask << 1 | 1;
            }
        }
        int mask = 0;
        for (int k = 0; k < 5; k++) if (dice[k] == face) mask |= 1 << k;
        return mask << 1 | 1;
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        PrintStream out = System.out;
        String line;
        while ((line = in.readLine()) != null) {
            String[] words = line.trim().split("\\s+");
            if (words.length != 34) continue;
            int[] v = new int[34];
            for (int i = 0; i < 34; i++) v[i] = Integer.parseInt(words[i]);
            out.println(choose(v));
            out.flush();
        }
    }
}
"""


# =========================================================================== writing


def _write(folder: Path, files: dict[str, str]) -> Path:
    """A submission folder holding ``files`` (relative path -> text), readable by all."""
    folder.mkdir()
    folder.chmod(0o755)
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(0o755 if name.endswith(".py") and text.startswith("#!") else 0o644)
    return folder


def _zip(path: Path, members: dict[str, str]) -> Path:
    """A zip of ``members``, named exactly as given (even ``../x`` and ``/x``)."""
    with zipfile.ZipFile(path, "w") as z:
        for name, text in members.items():
            info = zipfile.ZipInfo(name, date_time=_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # Unix, so that the mode below counts
            info.external_attr = (0o100644) << 16
            z.writestr(info, text)
    path.chmod(0o644)
    return path


def _tar_gz(path: Path, members: dict[str, str]) -> Path:
    with tarfile.open(path, "w:gz") as t:
        for name, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, _MTIME
            t.addfile(info, io.BytesIO(data))
    path.chmod(0o644)
    return path


def java_available() -> bool:
    """Whether ``javac`` and ``java`` are both on PATH."""
    return shutil.which("javac") is not None and shutil.which("java") is not None


def make_class(root: Path, *, java: bool | None = None) -> dict[str, str]:
    """Write the class into ``root`` (an existing empty folder); {student id: expected outcome}.

    ``java=None`` includes erin (the Java bot) exactly when ``javac`` and ``java`` are on
    PATH; True or False decides it.  See the module's docstring for the students.
    """
    root = Path(root)
    if not root.is_dir() or any(root.iterdir()):
        raise ValueError(f"{root} must be an existing empty folder")
    if java is None:
        java = java_available()

    _write(root / "alice", {"bot.c": ALICE_BOT_C})
    _zip(
        root / "bob.zip",
        {
            "main.py": BOB_MAIN_PY,
            "strategy.py": BOB_STRATEGY_PY,
            "__MACOSX/._main.py": "resource fork junk",
        },
    )
    _write(
        root / "carol",
        {
            "Makefile": CAROL_MAKEFILE,
            "main.c": CAROL_MAIN_C,
            "strategy.c": CAROL_STRATEGY_C,
            "strategy.h": CAROL_STRATEGY_H,
        },
    )
    _tar_gz(
        root / "dave.tar.gz",
        {
            "dave/bot.toml": DAVE_BOT_TOML,
            "dave/src/bot.c": DAVE_BOT_C,
            "dave/README.md": "dave's bot: `cc -O2 -o mybot src/bot.c`, then `./mybot`.\n",
        },
    )
    if java:
        _write(root / "erin", {"Bot.java": ERIN_BOT_JAVA})
    _write(root / "frank", {"bot.c": FRANK_BOT_C})
    _write(root / "grace", {"main.py": GRACE_MAIN_PY})
    _write(root / "heidi", {"bot.py": HEIDI_MAIN_PY})
    _write(root / "ivan", {"ivan.py": IVAN_MAIN_PY})
    _write(root / "judy", {"main.py": JUDY_MAIN_PY})
    _zip(
        root / "mallory.zip",
        {
            "main.py": MALLORY_MAIN_PY,
            "../../escaped.txt": "mallory was here\n",
            "/tmp/escaped-abs.txt": "mallory was here\n",
        },
    )
    _write(root / "oscar", {"Makefile": OSCAR_MAKEFILE, "bot.c": OSCAR_BOT_C})
    _write(root / "peggy", {"Makefile": PEGGY_MAKEFILE, "bot.c": PEGGY_BOT_C})
    # trent expects "ok" only because a correct grader shows him nothing: if he reads any
    # grading file, he sends it as a reply (a protocol fault) and fails his check.
    _write(root / "trent", {"main.py": TRENT_MAIN_PY})
    _write(root / "victor", {})
    _write(root / "walter", {"helpers.py": WALTER_HELPERS_PY, "experiment.py": WALTER_EXPERIMENT_PY})

    return {student: outcome for student, outcome in EXPECTED_OUTCOMES.items() if java or student != "erin"}
