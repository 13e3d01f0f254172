// A Player that uses every public name of the PPCA 2014 client's API (zzy7896321/holdem,
// client/*.h) and prints what it sees, for tests/test_adapter_ppca.py.  Written for the
// tests; it plays: calls, or checks when nothing is to be called.
#include "client.h"
#include "player.h"
#include "common.h"

#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

static std::string card(const card_type& c) { return std::string(1, c.first) + c.second; }

static std::string ints(const std::vector<int>& v) {
    std::ostringstream o;
    for (size_t i = 0; i < v.size(); ++i) o << (i ? "," : "") << v[i];
    return o.str();
}

// Every name of common.h and pot.h, once, at start-up.
static void constants() {
    std::ostringstream o;
    o << "api-constants";
    const int kinds[11] = {HAND_INVALID,         HAND_HIGH_CARD, HAND_ONE_PAIR,   HAND_TWO_PAIR,
                           HAND_THREE_OF_A_KIND, HAND_STRAIGHT,  HAND_FLUSH,      HAND_FULL_HOUSE,
                           HAND_FOUR_OF_A_KIND,  HAND_STRAIGHT_FLUSH, HAND_ROYAL_FLUSH};
    for (int i = 0; i < 11; ++i) o << " " << kinds[i] << "=" << HAND_STRING[kinds[i]];
    std::cout << o.str() << std::endl;
    DECISION_VALUE values[4] = {CHECK, FOLD, CALL, RAISE};
    PLAYER_STATUS statuses[4] = {NOT_ACTIONED, BET, CHECKED, FOLDED};
    decision_type one = make_decision(values[3], 7), two = make_decision(FOLD);
    std::cout << "api-decisions " << values[0] << values[1] << values[2] << values[3] << " " << statuses[0]
              << statuses[1] << statuses[2] << statuses[3] << " " << one.first << ":" << one.second << " "
              << two.first << ":" << two.second << std::endl;
    std::ostringstream r;
    r << "api-words";
    const char* ranks = "23456789TJQKAx";
    for (const char* p = ranks; *p; ++p) r << " " << rank_of(*p);
    r << " " << suit_of('S') << " " << suit_of('H') << " " << suit_of('D') << " " << suit_of('C') << " " << suit_of('x');
    card_type ten('T', 'D');
    r << " " << rank_of(ten) << "-" << suit_of(ten);
    std::cout << r.str() << std::endl;
    holdem::Pot a(5);
    a.add(0);
    a.add(2);
    Pot b(a);
    Pot c(std::move(b));
    bool merged = a.merge(c);
    Pot d(3);
    d.add(1);
    bool not_merged = a.merge(d);
    int set = d.set_chips(4);
    std::cout << "api-pot " << a.amount() << " " << ints(a.contributors()) << " " << merged << not_merged << " " << set
              << " " << d.amount() << std::endl;
    hand_type h;
    h.fill(ten);
    HANDINFO info(h, 3, HAND_FLUSH);
    std::cout << "api-handinfo " << info.player << " " << info.kind << " " << card(info.hand[4]) << std::endl;
    OUTPUT("api-output %d\n", 1);
    ERR_OUTPUT("api-err-output %d\n", 2);
    DEBUG_OUTPUT("api-debug-output %d\n", 3);
}

static void dump(const char* event, const Query& q) {
    std::ostringstream o;
    o << "api " << event << " id=" << q.my_id() << " n=" << q.number_of_players() << " initial=" << q.initial_chips()
      << " names=";
    for (int i = 0; i < q.number_of_players(); ++i) o << (i ? "," : "") << q.name_of(i);
    o << " chips=" << ints(q.chips()) << " chip0=" << q.chips(0) << " parts=" << ints(q.participants())
      << " np=" << q.number_of_participants() << " out=" << q.out_of_game() << " dealer=" << q.dealer()
      << " blind=" << q.blind() << " hole=" << card(q.hole_cards()[0]) << card(q.hole_cards()[1]) << " board=";
    const std::vector<card_type>& board = q.community_cards();
    for (size_t i = 0; i < board.size(); ++i) o << card(board[i]);
    o << " pots=";
    const std::vector<Pot>& pots = q.pots();
    for (size_t i = 0; i < pots.size(); ++i)
        o << (i ? "," : "") << q.pot(static_cast<int>(i)).amount() << ":" << ints(pots[i].contributors());
    o << " bets=";
    const std::vector<std::pair<int, int> >& bets = q.bets();
    for (size_t i = 0; i < bets.size(); ++i) o << (i ? "," : "") << bets[i].first << ":" << bets[i].second;
    o << " status=";
    const std::vector<PLAYER_STATUS>& status = q.player_status();
    for (size_t i = 0; i < status.size(); ++i) o << q.player_status(static_cast<int>(i));
    o << " cur=" << ints(q.current_bets()) << " cur0=" << q.current_bets(0) << " hands=";
    const std::vector<HANDINFO>& hands = q.hands();
    for (size_t i = 0; i < hands.size(); ++i) {
        o << (i ? "," : "") << hands[i].player << ":";
        for (int k = 0; k < 5; ++k) o << card(hands[i].hand[k]);
        o << ":" << hands[i].kind << ":" << HAND_STRING[hands[i].kind];
    }
    o << " wip=";
    const std::vector<std::vector<std::pair<int, int> > >& wip = q.won_chips_in_pots();
    for (size_t i = 0; i < wip.size(); ++i) {
        o << (i ? "/" : "");
        for (size_t k = 0; k < wip[i].size(); ++k) o << (k ? "," : "") << wip[i][k].first << "=" << wip[i][k].second;
    }
    o << " last=" << ints(q.chips_won_in_last_game());
    std::cout << o.str() << std::endl;
}

static decision_type play(const Query& q) {
    int most = 0;
    for (size_t i = 0; i < q.current_bets().size(); ++i) most = std::max(most, q.current_bets()[i]);
    return most > q.current_bets(q.my_id()) || q.community_cards().empty() ? make_decision(CALL) : make_decision(CHECK);
}

std::string Player::login_name() { return "api"; }
void Player::login_name(std::string name) { std::cout << "api login " << name << std::endl; }
void Player::init() {
    constants();
    dump("init", query);
}
void Player::destroy() { std::cout << "api destroy" << std::endl; }
decision_type Player::preflop() { dump("preflop", query); return play(query); }
decision_type Player::flop() { dump("flop", query); return play(query); }
decision_type Player::turn() { dump("turn", query); return play(query); }
decision_type Player::river() { dump("river", query); return play(query); }
hand_type Player::showdown() {
    dump("showdown", query);
    hand_type h;
    for (int i = 0; i < 5; ++i) h[i] = query.community_cards()[i];
    return h;
}
void Player::game_end() { dump("game_end", query); }
