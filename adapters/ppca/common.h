// common.h — the PPCA 2014 Hold'em client's shared types (seed 003, §2.2), for the
// referee's line protocol adapter.  Names and types follow the seed's text; what the
// seed does not show is a guess, listed in README.md.
#ifndef PPCA_COMMON_H
#define PPCA_COMMON_H

#include <array>
#include <string>
#include <utility>
#include <vector>

// The seed: "enum DECISION_VALUE { CHECK, FOLD, CALL, RAISE };"
enum DECISION_VALUE { CHECK, FOLD, CALL, RAISE };
// The seed: "typedef std::pair<DECISION_VALUE, int> decision_type;" — for RAISE the
// int is the amount on top of the call.
typedef std::pair<DECISION_VALUE, int> decision_type;

// The seed: rank '2'..'9','T','J','Q','K','A' first, suit 'S','H','D','C' second.
typedef std::pair<char, char> card_type;
// The seed: the five cards shown at a showdown.
typedef std::array<card_type, 5> hand_type;

// The seed: "return make_decision(CALL); ... return make_decision(RAISE, 4);"
inline decision_type make_decision(DECISION_VALUE type, int amount = 0) {
    return decision_type(type, amount);
}

// The seed's player_status values (query.h).
enum PLAYER_STATUS { NOT_ACTIONED, BET, CHECKED, FOLDED };

// One hand shown at the last showdown (Query::hands()).  The seed names HANDINFO but
// its fields are "see common.h": these are guessed (README.md).
struct HANDINFO {
    int player;                           // the player's id
    std::array<card_type, 2> hole_cards;  // their two hole cards ('?','?' if mucked)
    hand_type hand;                       // the five cards shown and compared
    int category;                         // 0 high card, 1 one pair, 2 two pair, 3 three of a kind,
                                          // 4 straight, 5 flush, 6 full house, 7 four of a kind,
                                          // 8 straight flush; -1 if mucked
    bool mucked;                          // an invalid or missing showdown() (bot showdown only)
};

#endif
