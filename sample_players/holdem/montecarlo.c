/* Hold'em sample bot in C: bets by its Monte Carlo chance of winning.
 *
 * For each decision it deals the unseen cards at random many times (opponents' hole
 * cards and the rest of the board) and counts how often its best five beats every
 * opponent still in the hand: that is its equity.  Then: equity >= 0.85 goes all-in,
 * >= 0.7 raises the pot, >= 0.55 bets half the pot when nothing is to call; otherwise it
 * calls when the equity beats the pot odds (with a margin), checks when free, and folds.
 * At a bot showdown it shows its best five.
 *
 * Protocol: docs/protocols/holdem.md.  Build: make -C sample_players.
 * Deterministic given the optional seed argument (default 1).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_BYTES 65536
#define SAMPLES 1500 /* divided among the opponents: more opponents, fewer deals */

static uint64_t rng_state = 88172645463325252ULL;

static uint64_t next_random(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static const char RANKS[] = "23456789TJQKA";
static const char SUITS[] = "CDHS";

/* A card is rank * 4 + suit (rank 0 = deuce, suit order C D H S); -1 if not a card. */
static int parse_card(const char *text) {
    const char *r = strchr(RANKS, text[0]);
    const char *s = strchr(SUITS, text[1]);
    if (!text[0] || !text[1] || !r || !s) return -1;
    return (int)(r - RANKS) * 4 + (int)(s - SUITS);
}

static int parse_cards(const char *text, int *out, int max) {
    int n = 0;
    if (strcmp(text, "-") == 0) return 0;
    while (text[0] && text[1] && n < max) {
        out[n++] = parse_card(text);
        text += 2;
    }
    return n;
}

/* The highest card of a straight in a rank mask (ace plays high or low), or -1. */
static int straight_top(int mask) {
    int m = (mask << 1) | ((mask >> 12) & 1); /* bit 0: the ace as a one */
    for (int top = 13; top >= 4; top--)
        if (((m >> (top - 4)) & 0x1F) == 0x1F) return top - 1;
    return -1;
}

/* The k highest ranks of a mask, packed 4 bits each, highest first. */
static int top_ranks(int mask, int k) {
    int packed = 0;
    for (int r = 12; r >= 0 && k > 0; r--)
        if (mask >> r & 1) {
            packed = packed << 4 | r;
            k--;
        }
    while (k-- > 0) packed <<= 4;
    return packed;
}

/* The value of the best five of n (5..7) cards: category << 20 | tie-breaks. Higher wins. */
static int evaluate(const int *cards, int n) {
    int count[13] = {0}, suit_count[4] = {0}, suit_mask[4] = {0}, mask = 0;
    for (int i = 0; i < n; i++) {
        int r = cards[i] >> 2, s = cards[i] & 3;
        count[r]++;
        suit_count[s]++;
        suit_mask[s] |= 1 << r;
        mask |= 1 << r;
    }
    int flush_suit = -1;
    for (int s = 0; s < 4; s++)
        if (suit_count[s] >= 5) flush_suit = s;
    if (flush_suit >= 0) {
        int top = straight_top(suit_mask[flush_suit]);
        if (top >= 0) return 8 << 20 | top;
    }
    int quad = -1, trips[2] = {-1, -1}, pairs[3] = {-1, -1, -1}, ntrips = 0, npairs = 0;
    for (int r = 12; r >= 0; r--) {
        if (count[r] == 4) quad = r;
        else if (count[r] == 3 && ntrips < 2) trips[ntrips++] = r;
        else if (count[r] == 2 && npairs < 3) pairs[npairs++] = r;
    }
    if (quad >= 0) return 7 << 20 | quad << 4 | (top_ranks(mask & ~(1 << quad), 1));
    if (ntrips >= 1 && (ntrips >= 2 || npairs >= 1)) {
        int pair = pairs[0];
        if (ntrips >= 2 && trips[1] > pair) pair = trips[1];
        return 6 << 20 | trips[0] << 4 | pair;
    }
    if (flush_suit >= 0) return 5 << 20 | top_ranks(suit_mask[flush_suit], 5);
    int top = straight_top(mask);
    if (top >= 0) return 4 << 20 | top;
    if (ntrips == 1) return 3 << 20 | trips[0] << 8 | top_ranks(mask & ~(1 << trips[0]), 2);
    if (npairs >= 2)
        return 2 << 20 | pairs[0] << 8 | pairs[1] << 4 |
               top_ranks(mask & ~(1 << pairs[0]) & ~(1 << pairs[1]), 1);
    if (npairs == 1) return 1 << 20 | pairs[0] << 12 | top_ranks(mask & ~(1 << pairs[0]), 3);
    return top_ranks(mask, 5);
}

/* Chance to win (ties shared) against `opponents` random hands. */
static double equity(const int *hole, const int *board, int nboard, int opponents) {
    int used[52] = {0}, deck[52], ndeck = 0;
    used[hole[0]] = used[hole[1]] = 1;
    for (int i = 0; i < nboard; i++) used[board[i]] = 1;
    for (int c = 0; c < 52; c++)
        if (!used[c]) deck[ndeck++] = c;
    if (opponents < 1) return 1.0;
    int samples = SAMPLES / (opponents + 1);
    int need = 2 * opponents + (5 - nboard);
    double wins = 0;
    for (int t = 0; t < samples; t++) {
        for (int i = 0; i < need; i++) { /* partial Fisher-Yates */
            int j = i + (int)(next_random() % (uint64_t)(ndeck - i));
            int tmp = deck[i];
            deck[i] = deck[j];
            deck[j] = tmp;
        }
        int cards[7];
        cards[0] = hole[0];
        cards[1] = hole[1];
        for (int i = 0; i < nboard; i++) cards[2 + i] = board[i];
        for (int i = nboard; i < 5; i++) cards[2 + i] = deck[2 * opponents + i - nboard];
        int mine = evaluate(cards, 7), best = 0, ties = 0;
        for (int o = 0; o < opponents; o++) {
            cards[0] = deck[2 * o];
            cards[1] = deck[2 * o + 1];
            int theirs = evaluate(cards, 7);
            if (theirs > best) best = theirs, ties = 0;
            if (theirs == best) ties++;
        }
        if (mine > best) wins += 1;
        else if (mine == best) wins += 1.0 / (ties + 1);
    }
    return wins / samples;
}

static int sum_list(const char *text) { /* "1,2,3" -> 6 */
    int total = 0;
    while (*text) {
        total += atoi(text);
        const char *comma = strchr(text, ',');
        if (!comma) break;
        text = comma + 1;
    }
    return total;
}

static int sum_pots(const char *text) { /* "30:0.1.2,12:0.2" -> 42 */
    int total = 0;
    if (strcmp(text, "-") == 0) return 0;
    while (*text) {
        total += atoi(text);
        const char *comma = strchr(text, ',');
        if (!comma) break;
        text = comma + 1;
    }
    return total;
}

static void decide(char *line) {
    int seat = 0, tocall = 0, minraise = 0, maxraise = 0, hole[2] = {0, 0}, board[5], nboard = 0;
    int pot = 0, opponents = 0, can_raise = 0, can_call = 0;
    strtok(line, " \n"); /* "act" */
    char *key;
    while ((key = strtok(NULL, " \n")) != NULL) {
        char *value = strtok(NULL, " \n");
        if (!value) break;
        if (!strcmp(key, "seat")) seat = atoi(value);
        else if (!strcmp(key, "hole")) parse_cards(value, hole, 2);
        else if (!strcmp(key, "board")) nboard = parse_cards(value, board, 5);
        else if (!strcmp(key, "bets")) pot += sum_list(value);
        else if (!strcmp(key, "pots")) pot += sum_pots(value);
        else if (!strcmp(key, "tocall")) tocall = atoi(value);
        else if (!strcmp(key, "minraise")) minraise = atoi(value);
        else if (!strcmp(key, "maxraise")) maxraise = atoi(value);
        else if (!strcmp(key, "legal")) {
            can_raise = strstr(value, "raise") != NULL;
            can_call = strstr(value, "call") != NULL;
        } else if (!strcmp(key, "status")) {
            for (int s = 0; value[s]; s++)
                if (s != seat && value[s] != 'F' && value[s] != 'X') opponents++;
        }
    }
    double eq = equity(hole, board, nboard, opponents);
    int half_pot = pot / 2 > minraise ? pot / 2 : minraise;
    int pot_raise = pot > minraise ? pot : minraise;
    if (half_pot > maxraise) half_pot = maxraise;
    if (pot_raise > maxraise) pot_raise = maxraise;
    if (can_raise && eq >= 0.85) printf("raise %d\n", maxraise);
    else if (can_raise && eq >= 0.7) printf("raise %d\n", pot_raise);
    else if (can_raise && eq >= 0.55 && tocall == 0) printf("raise %d\n", half_pot);
    else if (tocall == 0) printf(can_call ? "call\n" : "check\n");
    else if (eq >= (double)tocall / (pot + tocall) + 0.05) printf("call\n");
    else printf("fold\n");
}

static void show(char *line) {
    int cards[7] = {0}, n = 0;
    strtok(line, " \n"); /* "show" */
    char *key;
    while ((key = strtok(NULL, " \n")) != NULL) {
        char *value = strtok(NULL, " \n");
        if (!value) break;
        if (!strcmp(key, "hole") || !strcmp(key, "board")) n += parse_cards(value, cards + n, 7 - n);
    }
    int best = -1, pick[5] = {0, 1, 2, 3, 4};
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) { /* leave out cards a and b */
            int five[5], k = 0;
            for (int i = 0; i < n && k < 5; i++)
                if (i != a && i != b) five[k++] = cards[i];
            int v = evaluate(five, 5);
            if (v > best) {
                best = v;
                memcpy(pick, five, sizeof pick);
            }
        }
    for (int i = 0; i < 5; i++) printf("%c%c%s", RANKS[pick[i] >> 2], SUITS[pick[i] & 3], i < 4 ? " " : "\n");
}

int main(int argc, char **argv) {
    static char line[LINE_MAX_BYTES];
    if (argc > 1) rng_state ^= (uint64_t)strtoull(argv[1], NULL, 10) * 0x9E3779B97F4A7C15ULL;
    if (rng_state == 0) rng_state = 1;
    while (fgets(line, sizeof line, stdin)) {
        if (!strncmp(line, "act ", 4)) decide(line);
        else if (!strncmp(line, "show ", 5)) show(line);
        else continue; /* result and gameover lines need no answer */
        fflush(stdout);
    }
    return 0;
}
