/*
 * equilibrium.c - dice poker (seed 000) sample player: a closed-form Nash equilibrium per B.
 *
 * RAISE[b][d] is the chance to raise to B as the first player with die d, CALL[b][d]
 * the chance to call as the second.  The families (value V(B) to the first player):
 *
 *   B = 3       raise 3..6, raise a 1 with probability 1/5;
 *               call 4..6, call a 3 with probability 3/5                    V = +1/10
 *   4 <= B <= 6 raise 4..6, bluff a 3 with probability (2B-6)/(B+2);
 *               call 5 and 6, call a 4 with probability (14-2B)/(B+2)
 *   7 <= B <= 15 raise 5 and 6, bluff a 3 with probability (B-4)/(B+2);
 *               call 6, call a 5 with probability (16-B)/(B+2)
 *   B >= 16     raise and call only a 6                                      V = -5/9
 *
 * B = 3, 7..15 and 16..18 are the published family; 4..6 come from the same two
 * indifference conditions one die lower (the second player's 4 must be indifferent
 * between calling and folding a raise; the first player's bluff die between raising
 * and folding).  `equilibrium --table` prints the tables; tests/test_dice_poker.py
 * checks by exact best response that every B's pair earns V(B) for both sides.
 *
 * Protocol: one line "op b state d" per call of the seed's AI(op, b, state, d); every
 * line is answered with one integer (0 = fold, 1 = raise/call; 0 to information).
 * Usage: equilibrium [SEED]   (mixing uses splitmix64 seeded by SEED, default 1)
 *        equilibrium --table
 * Build: cc -O2 -Wall -Wextra -std=c11 -o equilibrium equilibrium.c -lm
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BET_MIN = 3, BET_MAX = 18 };

static double RAISE[BET_MAX + 1][7];
static double CALL[BET_MAX + 1][7];

static void init_tables(void) {
    for (int b = BET_MIN; b <= BET_MAX; b++) {
        double *r = RAISE[b], *c = CALL[b];
        if (b == 3) {
            r[1] = 1.0 / 5;
            r[3] = r[4] = r[5] = r[6] = 1;
            c[3] = 3.0 / 5;
            c[4] = c[5] = c[6] = 1;
        } else if (b <= 6) {
            r[3] = (2.0 * b - 6) / (b + 2);
            r[4] = r[5] = r[6] = 1;
            c[4] = (14.0 - 2 * b) / (b + 2);
            c[5] = c[6] = 1;
        } else if (b <= 15) {
            r[3] = (b - 4.0) / (b + 2);
            r[5] = r[6] = 1;
            c[5] = (16.0 - b) / (b + 2);
            c[6] = 1;
        } else {
            r[6] = 1;
            c[6] = 1;
        }
    }
}

static uint64_t rng_state;

static uint64_t splitmix64(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform on [0, 1) with 53 random bits. */
static double uniform(void) { return (double)(splitmix64() >> 11) * (1.0 / 9007199254740992.0); }

static int chance(double p) {
    if (p <= 0) return 0;
    if (p >= 1) return 1;
    return uniform() < p;
}

int main(int argc, char **argv) {
    init_tables();
    if (argc > 1 && strcmp(argv[1], "--table") == 0) {
        printf("# B | raise probability for dice 1..6 | call probability for dice 1..6\n");
        for (int b = BET_MIN; b <= BET_MAX; b++) {
            printf("%d |", b);
            for (int d = 1; d <= 6; d++) printf(" %.17g", RAISE[b][d]);
            printf(" |");
            for (int d = 1; d <= 6; d++) printf(" %.17g", CALL[b][d]);
            printf("\n");
        }
        return 0;
    }
    rng_state = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;

    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        int op, b, state, d, answer = 0;
        if (sscanf(line, "%d %d %d %d", &op, &b, &state, &d) == 4 && b >= BET_MIN && b <= BET_MAX &&
            d >= 1 && d <= 6) {
            if (state == 0) answer = chance(RAISE[b][d]);
            else if (state == 1) answer = chance(CALL[b][d]);
            /* states 2..5 are information: the answer is read and ignored */
        }
        fputs(answer ? "1\n" : "0\n", stdout);
        fflush(stdout);
    }
    return 0;
}
