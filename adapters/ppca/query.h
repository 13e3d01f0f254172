// query.h — the PPCA 2014 client's Query (seed 003, §2.2: "比赛信息可以通过 query 成员的
// 成员函数查询").  Every function of the seed's table, with its return type.  All are
// const (so they can be called on a const Query as well).  The values come from the
// referee's lines; README.md says which line fills which function and when.
#ifndef PPCA_QUERY_H
#define PPCA_QUERY_H

#include <string>
#include <utility>
#include <vector>

#include "common.h"
#include "pot.h"

class Query {
public:
    // ---- The whole game (one tournament of up to 27 hands); valid from init().
    const std::string& name_of(int player) const;  // "" for an unknown id
    int number_of_player() const;
    int my_id() const;  // -1 until the first act/show line of the game (README.md)
    int initial_chips() const;
    const std::vector<int>& chips() const;  // chips behind, per player id
    int chips(int player) const;            // 0 for an unknown id

    // ---- One hand (the seed's "局"); valid from preflop() to game_end().
    int number_of_participants() const;
    const std::vector<int>& participants() const;  // ids dealt into this hand, ascending
    bool out_of_game() const;
    int dealer() const;
    int blind() const;  // the small blind
    const card_type* hole_cards() const;  // two cards
    const std::vector<card_type>& community_cards() const;  // 0, 3, 4 or 5 cards
    const std::vector<Pot>& pots() const;  // pots of finished betting rounds, never merged

    // ---- One betting round; valid during that round.
    const std::vector<std::pair<int, int> >& bets() const;  // (player, chips put in) in order
    const std::vector<PLAYER_STATUS>& player_statue() const;  // the seed's spelling
    const std::vector<PLAYER_STATUS>& player_status() const;  // the same vector
    PLAYER_STATUS player_status(int player) const;            // FOLDED for an unknown id
    const std::vector<int>& current_bets() const;
    int current_bets(int player) const;  // 0 for an unknown id

    // ---- The last finished hand; valid from its game_end() to the next game_end().
    const std::vector<HANDINFO>& hands() const;
    const std::vector<std::vector<std::pair<int, int> > >& won_chips_in_pots() const;
    const std::vector<int>& chips_won_in_last_game() const;
};

#endif
