// query.cpp — Query's functions: each reads the table that main.cpp keeps from the
// referee's lines.  Ids out of range give harmless defaults instead of undefined behaviour.
// Also HAND_STRING (the original's common.cpp) and the hand kinds.
#include "prelude.h"

#include <algorithm>

#include "adapter.h"

namespace ppca {

void Table::reset() {
    players = 0;
    my_id = -1;
    initial_chips = 1000;
    names.clear();
    chips.clear();
    start_chips.clear();
    hand = 0;
    dealer = -1;
    small_blind = 0;
    participants.clear();
    out_of_game = false;
    hole[0] = hole[1] = card_type('?', '?');
    board.clear();
    pots.clear();
    bets.clear();
    status.clear();
    current_bets.clear();
    hands.clear();
    won_in_pots.clear();
    won_last.clear();
}

Table& table() {
    static Table t;
    return t;
}

static int rank_index(char r) {
    static const std::string ranks = "23456789TJQKA";
    std::string::size_type i = ranks.find(r);
    return i == std::string::npos ? -1 : static_cast<int>(i);
}

int category_of(const hand_type& five) {
    int count[13] = {0};
    bool flush = true;
    for (int i = 0; i < 5; ++i) {
        int r = rank_index(five[i].first);
        if (r < 0 || std::string("SHDC").find(five[i].second) == std::string::npos) return -1;
        for (int j = 0; j < i; ++j)
            if (five[j] == five[i]) return -1;
        ++count[r];
        if (five[i].second != five[0].second) flush = false;
    }
    int pairs = 0, trips = 0, quads = 0, singles = 0;
    for (int r = 0; r < 13; ++r) {
        if (count[r] == 2) ++pairs;
        if (count[r] == 3) ++trips;
        if (count[r] == 4) ++quads;
        if (count[r] == 1) ++singles;
    }
    bool straight = false;
    if (singles == 5) {
        int lo = 0, hi = 12;
        while (!count[lo]) ++lo;
        while (!count[hi]) --hi;
        // A-2-3-4-5: the ace plays low.
        straight = hi - lo == 4 || (count[12] && count[0] && count[1] && count[2] && count[3]);
    }
    if (straight && flush) return 8;
    if (quads) return 7;
    if (trips && pairs) return 6;
    if (flush) return 5;
    if (straight) return 4;
    if (trips) return 3;
    if (pairs == 2) return 2;
    if (pairs == 1) return 1;
    return 0;
}

int kind_of(const hand_type& five) {
    int category = category_of(five);
    if (category < 0) return HAND_INVALID;
    if (category == 8) {  // a straight flush up to the ace is a royal flush
        bool ace = false, king = false;
        for (int i = 0; i < 5; ++i) ace = ace || five[i].first == 'A', king = king || five[i].first == 'K';
        if (ace && king) return HAND_ROYAL_FLUSH;
    }
    return HAND_HIGH_CARD + category;
}

Pot PotAccess::make(int total, const std::vector<int>& seats) {
    int n = static_cast<int>(seats.size());
    Pot pot(n > 0 ? total / n : 0);
    for (int i = 0; i < n; ++i) pot.add(seats[i]);
    pot.rest = total - pot.amount();
    return pot;
}

}  // namespace ppca

const char* HAND_STRING[11] = {
    "invalid", "high card", "one pair", "two pair", "three of a kind", "straight",
    "flush", "full house", "four of a kind", "straight flush", "royal flush",
};

using ppca::table;

namespace {
bool valid_id(int player) { return player >= 0 && player < table().players; }
}

const std::string& Query::name_of(int player) const {
    static const std::string none;
    const std::vector<std::string>& names = table().names;
    return player >= 0 && player < static_cast<int>(names.size()) ? names[player] : none;
}
int Query::number_of_players() const { return table().players; }
int Query::number_of_player() const { return table().players; }
int Query::my_id() const { return table().my_id; }
int Query::initial_chips() const { return table().initial_chips; }
const std::vector<int>& Query::chips() const { return table().chips; }
int Query::chips(int player) const {
    return valid_id(player) && player < static_cast<int>(table().chips.size()) ? table().chips[player] : 0;
}

int Query::number_of_participants() const { return static_cast<int>(table().participants.size()); }
const std::vector<int>& Query::participants() const { return table().participants; }
bool Query::out_of_game() const { return table().out_of_game; }
int Query::dealer() const { return table().dealer; }
int Query::blind() const { return table().small_blind; }
const card_type* Query::hole_cards() const { return table().hole; }
const std::vector<card_type>& Query::community_cards() const { return table().board; }
const std::vector<Pot>& Query::pots() const { return table().pots; }
const Pot& Query::pot(int pot_id) const {
    static const Pot none(0);
    const std::vector<Pot>& all = table().pots;
    return pot_id >= 0 && pot_id < static_cast<int>(all.size()) ? all[pot_id] : none;
}

const std::vector<std::pair<int, int> >& Query::bets() const { return table().bets; }
const std::vector<PLAYER_STATUS>& Query::player_statue() const { return table().status; }
const std::vector<PLAYER_STATUS>& Query::player_status() const { return table().status; }
PLAYER_STATUS Query::player_status(int player) const {
    const std::vector<PLAYER_STATUS>& s = table().status;
    return player >= 0 && player < static_cast<int>(s.size()) ? s[player] : NOT_ACTIONED;
}
const std::vector<int>& Query::current_bets() const { return table().current_bets; }
int Query::current_bets(int player) const {
    const std::vector<int>& b = table().current_bets;
    return player >= 0 && player < static_cast<int>(b.size()) ? b[player] : 0;
}

const std::vector<HANDINFO>& Query::hands() const { return table().hands; }
const std::vector<std::vector<std::pair<int, int> > >& Query::won_chips_in_pots() const {
    return table().won_in_pots;
}
const std::vector<int>& Query::chips_won_in_last_game() const { return table().won_last; }
