"""Stand-ins for the PPCA 2014 client's files, as they lay next to a student's Player in a
student's checkout (zzy7896321/holdem, client/): written for the tests, not copied.

They declare the original's API under the original's file names and include guards, the
way the originals do: client.h includes IO.h (the original's Boost networking), query.h
includes query.cpp (inline functions reading the original Client's members).  Before the
adapter's prelude.h, these made a build fail with redefinitions (the adapter's common.h
and pot.h next to them), just as the originals did.  IO.h says so when it is read: the
tests require that the adapter never reads it.
"""

from __future__ import annotations

from pathlib import Path

IO_READ = "ppca-adapter-test: the original IO.h was read"

FILES = {
    "IO.h": f"""#pragma once
#pragma message("{IO_READ}")
#include <string>
namespace holdem {{
class IO {{  // the original's is Boost.Asio
public:
    IO(const std::string& host, const std::string& service);
    void receive(std::string& message);
    void send(const std::string& message);
}};
}}
""",
    "common.h": """#ifndef _COMMON_H_
#define _COMMON_H_
#include <array>
#include <utility>
enum DECISION_VALUE { CHECK, FOLD, CALL, RAISE };
typedef std::pair<DECISION_VALUE, int> decision_type;
enum PLAYER_STATUS { NOT_ACTIONED, BET, CHECKED, FOLDED };
const int HAND_INVALID = 0, HAND_HIGH_CARD = 1, HAND_ONE_PAIR = 2, HAND_TWO_PAIR = 3;
const int HAND_THREE_OF_A_KIND = 4, HAND_STRAIGHT = 5, HAND_FLUSH = 6, HAND_FULL_HOUSE = 7;
const int HAND_FOUR_OF_A_KIND = 8, HAND_STRAIGHT_FLUSH = 9, HAND_ROYAL_FLUSH = 10;
extern const char* HAND_STRING[11];
typedef std::pair<char, char> card_type;
typedef std::array<card_type, 5> hand_type;
struct HANDINFO {
    HANDINFO(hand_type h, int p, int k) : hand(h), player(p), kind(k) {}
    hand_type hand;
    int player;
    int kind;
};
inline decision_type make_decision(DECISION_VALUE d) { return decision_type(d, 0); }
inline decision_type make_decision(DECISION_VALUE d, int bet) { return decision_type(d, bet); }
inline const char* rank_of(char) { return "?"; }
inline const char* suit_of(char) { return "?"; }
inline const char* rank_of(const card_type& c) { return rank_of(c.first); }
inline const char* suit_of(const card_type& c) { return suit_of(c.second); }
class Client;
class Player;
class Query;
#endif
""",
    "pot.h": """#pragma once
#include <vector>
namespace holdem {
class Pot {
public:
    Pot(int c) : m(), chips(c) {}
    void add(int p) { m.push_back(p); }
    int amount() const { return chips * (int)m.size(); }
    int set_chips(int c) { return chips = c; }
    const std::vector<int>& contributors() const { return m; }
    bool merge(const Pot&) { return false; }
private:
    std::vector<int> m;
    int chips;
};
}
""",
    "client.h": """#ifndef _CLIENT_H_
#define _CLIENT_H_
#include "IO.h"
#include "pot.h"
#include "common.h"
#include <cstdio>
#include <string>
#include <vector>
#define OUTPUT(...) fprintf(stdout, __VA_ARGS__)
using holdem::IO;
using holdem::Pot;
class Client {
public:
    friend class Query;
    Client(const std::string& host, const std::string& service, const char* id);
private:
    IO io;
    std::vector<std::string> names;
    int my_id;
    std::vector<int> chips;
    std::vector<int> current_bets;
    std::vector<Pot> pots;
    Player& player;
};
#endif
""",
    "query.h": """#ifndef _QUERY_H_
#define _QUERY_H_
#include "client.h"
#include "common.h"
#include "pot.h"
using holdem::Pot;
class Client;
class Query {
public:
    Query(const Client& c) : client(c) {}
    int number_of_players() const;
    int my_id() const;
    const std::vector<int>& chips() const;
    int current_bets(int player) const;
    const std::vector<Pot>& pots() const;
    const Pot& pot(int pot_id) const;
private:
    friend class Client;
    const Client& client;
};
#include "query.cpp"
#endif
""",
    "query.cpp": """
inline int Query::number_of_players() const { return client.names.size(); }
inline int Query::my_id() const { return client.my_id; }
inline const std::vector<int>& Query::chips() const { return client.chips; }
inline int Query::current_bets(int player) const { return client.current_bets[player]; }
inline const std::vector<Pot>& Query::pots() const { return client.pots; }
inline const Pot& Query::pot(int pot_id) const { return client.pots[pot_id]; }
""",
    # The student's own player.h: the original's, with members added (as the course invited).
    "player.h": """#ifndef _PLAYER_H_
#define _PLAYER_H_
#include "query.h"
#include <string>
#include <vector>
class Player {
public:
    Player(const Client& client) : query(client) {}
    ~Player() { destroy(); }
    void init();
    void destroy();
    std::string login_name();
    void login_name(std::string name);
    decision_type preflop();
    decision_type flop();
    decision_type turn();
    decision_type river();
    hand_type showdown();
    void game_end();
    int to_call();
private:
    Query query;
    std::vector<int> seen;
    int hands_seen;
};
#endif
""",
    # The student's AI: includes what the course's example.cpp included; uses its own
    # members, and names from client.h (OUTPUT, Pot), query.h and common.h.
    "student.cpp": """#include "client.h"
#include "player.h"
#include "common.h"
#include <iostream>
#include <utility>

int Player::to_call() {
    int most = 0;
    for (int i = 0; i < query.number_of_players(); ++i) most = std::max(most, query.current_bets(i));
    return most - query.current_bets(query.my_id());
}
std::string Player::login_name() { return "student"; }
void Player::login_name(std::string name) { OUTPUT("student: logged in as %s\\n", name.c_str()); }
void Player::init() { seen.assign(query.number_of_players(), 0); hands_seen = 0; }
void Player::destroy() { std::cout << "student: destroy after " << hands_seen << " hands" << std::endl; }
decision_type Player::preflop() {
    ++seen[query.my_id()];
    return make_decision(CALL);
}
decision_type Player::flop() {
    int total = 0;
    for (size_t i = 0; i < query.pots().size(); ++i) total += query.pot((int)i).amount();
    OUTPUT("student: flop pots %d seen %d\\n", total, seen[query.my_id()]);
    return to_call() > 0 ? make_decision(CALL) : make_decision(CHECK);
}
decision_type Player::turn() { return to_call() > 0 ? make_decision(CALL) : make_decision(CHECK); }
decision_type Player::river() { return to_call() > 0 ? make_decision(CALL) : make_decision(CHECK); }
hand_type Player::showdown() {  // the board: five of one's seven
    hand_type h;
    for (int i = 0; i < 5; ++i) h[i] = query.community_cards()[i];
    return h;
}
void Player::game_end() { ++hands_seen; }
""",
}


def write_checkout(directory: Path) -> Path:
    """The stand-ins and the student's two files in `directory`; returns the student's .cpp."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in FILES.items():
        (directory / name).write_text(text)
    return directory / "student.cpp"
