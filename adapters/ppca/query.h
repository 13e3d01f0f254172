// query.h — the PPCA 2014 client's Query (zzy7896321/holdem, client/query.h): every
// function, with the original's signature and meaning.  README.md says which line of the
// referee fills each one and when.  Two extra spellings from the course's handout
// (doc/holdem.tex) are accepted too: number_of_player() and player_statue().
//
// The include guard is the original's (_QUERY_H_), so an original query.h (which would
// include its query.cpp) next to a student's .cpp is skipped (README.md, "Building").
#ifndef _QUERY_H_
#define _QUERY_H_

#include <string>
#include <utility>
#include <vector>

#include "client.h"
#include "common.h"
#include "pot.h"

using holdem::Pot;

class Query {
public:
    Query(const Client& client) : client(client) {}

    // ---- The whole game: valid from init().
    const std::string& name_of(int player) const;  // the player's name; "" for an unknown id
    int number_of_players() const;                 // players at the table, busted ones included
    int number_of_player() const;                  // the same (the handout's spelling)
    int my_id() const;
    int initial_chips() const;

    // ---- One hand: valid from preflop() to game_end().
    int number_of_participants() const;            // players dealt into this hand
    const std::vector<int>& participants() const;  // their ids, ascending
    bool out_of_game() const;                      // I was not dealt into this hand
    int dealer() const;
    int blind() const;  // the small blind as posted (less when the small blind was all-in)
    const std::vector<std::pair<int, int> >& bets() const;  // this round: (player, chips put in)
    const std::vector<int>& chips() const;                  // chips behind, per player
    int chips(int player) const;
    const std::vector<PLAYER_STATUS>& player_status() const;  // per player, this round
    const std::vector<PLAYER_STATUS>& player_statue() const;  // the same (the handout's spelling)
    PLAYER_STATUS player_status(int player) const;
    const std::vector<int>& current_bets() const;  // chips bet this round, per player
    int current_bets(int player) const;
    const card_type* hole_cards() const;                    // two cards
    const std::vector<card_type>& community_cards() const;  // 0, 3, 4 or 5 cards
    const std::vector<Pot>& pots() const;                   // pots of the finished rounds
    const Pot& pot(int pot_id) const;                       // pots()[pot_id]

    // ---- The last hand's showdown and payout: valid from its game_end() on.
    const std::vector<HANDINFO>& hands() const;
    const std::vector<std::vector<std::pair<int, int> > >& won_chips_in_pots() const;
    const std::vector<int>& chips_won_in_last_game() const;  // net, per player

private:
    friend class Client;

    const Client& client;
};

#endif  // _QUERY_H_
