// sample_player.cpp — a sample student AI written for the PPCA 2014 client API (seed 003,
// §2.2; zzy7896321/holdem client/*.h): only player.h's functions and the query member.  A simple, tight strategy:
// raise strong hands, call cheap bets with fair ones, fold the rest.  It lives in a
// directory of its own.  Build: adapters/ppca/build.sh -o bot adapters/ppca/sample/sample_player.cpp
#include "player.h"

#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

namespace {

int rank_value(char r) { return static_cast<int>(std::string("23456789TJQKA").find(r)) + 2; }  // 2..14

// A comparable value of five cards: category first, then the ranks that break ties.
long value5(const card_type* c) {
    int count[15] = {0};
    bool flush = true;
    for (int i = 0; i < 5; ++i) {
        ++count[rank_value(c[i].first)];
        if (c[i].second != c[0].second) flush = false;
    }
    std::vector<int> order;  // ranks by (count, rank), best first
    for (int n = 4; n >= 1; --n)
        for (int r = 14; r >= 2; --r)
            if (count[r] == n) order.push_back(r);
    int top = 0;  // the straight's high card, if any
    if (order.size() == 5) {
        if (order[0] - order[4] == 4) top = order[0];
        if (order[0] == 14 && order[1] == 5) top = 5;  // A-2-3-4-5
    }
    int cat;
    if (top && flush) cat = 8;
    else if (count[order[0]] == 4) cat = 7;
    else if (count[order[0]] == 3 && order.size() == 2) cat = 6;
    else if (flush) cat = 5;
    else if (top) cat = 4;
    else if (count[order[0]] == 3) cat = 3;
    else if (count[order[0]] == 2 && order.size() == 3) cat = 2;
    else if (count[order[0]] == 2) cat = 1;
    else cat = 0;
    long v = cat;
    if (top) order.assign(5, top);
    for (size_t i = 0; i < 5; ++i) v = v * 16 + (i < order.size() ? order[i] : 0);
    return v;
}

// The best five of 5 to 7 cards (every subset of five).
hand_type best_five(const std::vector<card_type>& cards, long* value) {
    hand_type best = {};
    long best_v = -1;
    int n = static_cast<int>(cards.size());
    for (int mask = 0; mask < (1 << n); ++mask) {
        card_type five[5];
        int k = 0;
        for (int i = 0; i < n && k <= 5; ++i)
            if (mask >> i & 1) {
                if (k < 5) five[k] = cards[i];
                ++k;
            }
        if (k != 5) continue;
        long v = value5(five);
        if (v > best_v) {
            best_v = v;
            for (int i = 0; i < 5; ++i) best[i] = five[i];
        }
    }
    if (value) *value = best_v;
    return best;
}

std::vector<card_type> my_cards(const Query& q) {
    std::vector<card_type> cards(q.community_cards());
    cards.push_back(q.hole_cards()[0]);
    cards.push_back(q.hole_cards()[1]);
    return cards;
}

int hands_played = 0, hands_won = 0;

}  // namespace

std::string Player::login_name() { return "sample"; }

void Player::login_name(std::string name) { std::cerr << "sample: playing as " << name << "\n"; }

void Player::init() {
    hands_played = hands_won = 0;
    std::cerr << "sample: " << query.number_of_players() << " players, " << query.initial_chips() << " chips each\n";
}

void Player::destroy() {
    std::cerr << "sample: won chips in " << hands_won << " of " << hands_played << " hands\n";
}

// The decision for every round: 2 strong, 1 fair, 0 weak.
static decision_type decide(const Query& q, int strength) {
    int me = q.my_id();
    const std::vector<int>& bets = q.current_bets();
    int highest = *std::max_element(bets.begin(), bets.end());
    int to_call = std::min(highest - q.current_bets(me), q.chips(me));
    int pot = 0;
    for (size_t i = 0; i < q.pots().size(); ++i) pot += q.pots()[i].amount();
    for (size_t i = 0; i < bets.size(); ++i) pot += bets[i];
    bool preflop = q.community_cards().empty();
    // Nothing to call: check, except the seed's big blind, who "calls 0" preflop.
    decision_type passive = to_call > 0 || preflop ? make_decision(CALL) : make_decision(CHECK);

    // The minimum raise: the big blind, or this round's largest raise so far.
    int min_raise = 2 * q.blind();
    std::vector<int> put(bets.size(), 0);
    int top = 0;
    for (size_t i = 0; i < q.bets().size(); ++i) {
        int p = q.bets()[i].first;
        if (p < 0 || p >= static_cast<int>(put.size())) continue;
        put[p] += q.bets()[i].second;
        if (put[p] > top) {
            min_raise = std::max(min_raise, put[p] - top);
            top = put[p];
        }
    }
    int room = q.chips(me) - to_call;  // what a raise can add
    // A raise needs someone else in the hand who could answer it.
    bool answerable = false;
    for (size_t i = 0; i < q.participants().size(); ++i) {
        int p = q.participants()[i];
        if (p != me && q.player_status(p) != FOLDED && q.chips(p) + q.current_bets(p) > highest) answerable = true;
    }
    if (strength == 2 && room > 0 && answerable) {
        int x = std::max(min_raise, pot / 2);
        return make_decision(RAISE, std::min(x, room));
    }
    if (to_call == 0) return passive;
    if (strength >= 1 && (to_call * 3 <= pot || to_call <= 4 * q.blind())) return passive;
    if (to_call <= q.blind()) return passive;
    return make_decision(FOLD);
}

decision_type Player::preflop() {
    const card_type* h = query.hole_cards();
    int a = rank_value(h[0].first), b = rank_value(h[1].first);
    int strength = 0;
    if (a == b || std::min(a, b) >= 11) strength = 2;                              // pairs, two faces
    else if (std::max(a, b) == 14 || std::min(a, b) >= 10 || h[0].second == h[1].second) strength = 1;
    return decide(query, strength);
}

static int postflop_strength(const Query& q) {
    long v;
    best_five(my_cards(q), &v);
    long board_v = -1;
    if (q.community_cards().size() == 5) best_five(q.community_cards(), &board_v);
    int cat = static_cast<int>(v >> 20);
    if (cat >= 2 && v > board_v) return 2;  // two pair or better that the board alone does not make
    if (cat == 1) return 1;
    return 0;
}

decision_type Player::flop() { return decide(query, postflop_strength(query)); }
decision_type Player::turn() { return decide(query, postflop_strength(query)); }
decision_type Player::river() { return decide(query, postflop_strength(query)); }

hand_type Player::showdown() { return best_five(my_cards(query), 0); }

void Player::game_end() {
    if (query.out_of_game() && query.chips_won_in_last_game().empty()) return;
    ++hands_played;
    int me = query.my_id();
    const std::vector<int>& won = query.chips_won_in_last_game();
    if (me >= 0 && me < static_cast<int>(won.size()) && won[me] > 0) ++hands_won;
}
