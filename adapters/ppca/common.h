// common.h — the PPCA 2014 Hold'em client's shared names (zzy7896321/holdem, client/common.h),
// re-declared for the referee's adapter: the same names, types, values and meanings.
//
// The include guard is the original's (_COMMON_H_): the adapter's prelude.h defines it first,
// so an original common.h lying next to a student's .cpp is skipped (README.md, "Building").
#ifndef _COMMON_H_
#define _COMMON_H_

#include <array>
#include <utility>

// CHECK, FOLD and CALL ignore the int; RAISE's int is the amount on top of the call.
enum DECISION_VALUE { CHECK, FOLD, CALL, RAISE };
typedef std::pair<DECISION_VALUE, int> decision_type;

// Query::player_status(): per betting round.
enum PLAYER_STATUS { NOT_ACTIONED, BET, CHECKED, FOLDED };

// HANDINFO::kind, as the original server announced it ("which is K"): 0 an invalid hand.
const int HAND_INVALID = 0;
const int HAND_HIGH_CARD = 1;
const int HAND_ONE_PAIR = 2;
const int HAND_TWO_PAIR = 3;
const int HAND_THREE_OF_A_KIND = 4;
const int HAND_STRAIGHT = 5;
const int HAND_FLUSH = 6;
const int HAND_FULL_HOUSE = 7;
const int HAND_FOUR_OF_A_KIND = 8;
const int HAND_STRAIGHT_FLUSH = 9;
const int HAND_ROYAL_FLUSH = 10;

// Names of the kinds above, "invalid" .. "royal flush" (defined in query.cpp).
extern const char* HAND_STRING[11];

// (rank, suit): rank '2'..'9','T','J','Q','K','A'; suit 'S','H','D','C'.
typedef std::pair<char, char> card_type;
typedef std::array<card_type, 5> hand_type;

// One hand shown at the last showdown (Query::hands()).
struct HANDINFO {
    HANDINFO(hand_type hand, int player, int kind) : hand(hand), player(player), kind(kind) {}

    hand_type hand;  // the five cards the player showed
    int player;      // the player's id
    int kind;        // HAND_INVALID .. HAND_ROYAL_FLUSH
};

inline decision_type make_decision(DECISION_VALUE decision) { return decision_type(decision, 0); }
inline decision_type make_decision(DECISION_VALUE decision, int bet) { return decision_type(decision, bet); }

// Words for a rank or a suit: 'T' -> "10", 'K' -> "K"; 'S' -> "spade", 'C' -> "club",
// 'H' -> "heart", 'D' -> "diamond"; "?" for anything else.
inline const char* rank_of(char rank) {
    static const char* const words[] = {"2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"};
    static const char letters[] = "23456789TJQKA";
    for (int i = 0; i < 13; ++i)
        if (letters[i] == rank) return words[i];
    return "?";
}

inline const char* suit_of(char suit) {
    if (suit == 'S') return "spade";
    if (suit == 'H') return "heart";
    if (suit == 'D') return "diamond";
    if (suit == 'C') return "club";
    return "?";
}

inline const char* rank_of(const card_type& card) { return rank_of(card.first); }
inline const char* suit_of(const card_type& card) { return suit_of(card.second); }

class Client;
class Player;
class Query;

#endif  // _COMMON_H_
