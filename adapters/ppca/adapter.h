// adapter.h — internal to the adapter (not for students): the table as the referee's
// lines describe it, read by Query (query.cpp) and written by main.cpp.
#ifndef PPCA_ADAPTER_H
#define PPCA_ADAPTER_H

#include <string>
#include <utility>
#include <vector>

#include "client.h"
#include "common.h"
#include "pot.h"

namespace ppca {

struct Table {
    // The whole game.
    int players;
    int my_id;
    int initial_chips;
    std::vector<std::string> names;
    std::vector<int> chips;
    std::vector<int> start_chips;  // chips behind when the current hand began
    // The hand.
    int hand;  // its number, 1..27; 0 before the first
    int dealer;
    int small_blind;  // as posted (Query::blind())
    std::vector<int> participants;
    bool out_of_game;
    card_type hole[2];
    std::vector<card_type> board;
    std::vector<Pot> pots;
    // The betting round.
    std::vector<std::pair<int, int> > bets;
    std::vector<PLAYER_STATUS> status;
    std::vector<int> current_bets;
    // The last finished hand.
    std::vector<HANDINFO> hands;
    std::vector<std::vector<std::pair<int, int> > > won_in_pots;
    std::vector<int> won_last;

    Table() { reset(); }
    void reset();
};

Table& table();

// 0 high card .. 8 straight flush; -1 if the cards are not five valid, different cards.
int category_of(const hand_type& five);
// HANDINFO::kind, as the original server counted: HAND_INVALID (0) .. HAND_ROYAL_FLUSH (10).
int kind_of(const hand_type& five);

// Builds the pots of Query::pots(): Pot's members are private, as in the original.
struct PotAccess {
    // A pot of `total` chips put in by `seats` (each the same share; any remainder kept).
    static Pot make(int total, const std::vector<int>& seats);
};

}  // namespace ppca

#endif
