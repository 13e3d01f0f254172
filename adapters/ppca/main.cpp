// main.cpp — runs a PPCA 2014 Hold'em Player (seed 003) under the referee's line
// protocol (docs/protocols/holdem.md).  Per game (one tournament of up to 27 hands): a
// new Player, login_name(), login_name(name), init(); each `act` line calls preflop(),
// flop(), turn() or river(); each `show` line showdown(); each `result` line (the end
// of a hand, the seed's "局") game_end(); `gameover` deletes the Player, whose
// destructor calls destroy().  Decisions are corrected like the stock client did, and
// every correction is reported on stderr.  README.md has the details.

// The original API's headers first (also force-included with -include, README.md).
#include "prelude.h"

// Angle brackets on purpose: the -I order (not this file's directory) picks player.h,
// so a student's edited player.h wins when its directory comes first (README.md).
#include <player.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "adapter.h"

using ppca::Table;
using ppca::table;

namespace {

// ------------------------------------------------------------------ file descriptors

int proto_in = -1;   // the referee's lines
int proto_out = -1;  // our replies; nothing else is ever written here

void die(const char* message) {
    std::fprintf(stderr, "ppca-adapter: %s\n", message);
    std::fflush(stderr);
    _exit(1);
}

// Runs before every ordinary static constructor (priority 101 < the default 65535), so
// even a student's global object that prints in its constructor cannot reach the
// referee: fd 1 becomes a copy of stderr, and fd 0 an empty input (a leftover `cin >>`
// from the seed's interactive example.cpp gets EOF instead of eating a protocol line).
__attribute__((constructor(101))) void take_protocol_fds() {
    proto_out = fcntl(1, F_DUPFD_CLOEXEC, 3);
    proto_in = fcntl(0, F_DUPFD_CLOEXEC, 3);
    if (proto_out < 0 || proto_in < 0) die("cannot duplicate stdin/stdout");
    if (dup2(2, 1) < 0) die("cannot point stdout at stderr");
    int empty = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (empty < 0) {
        int p[2];
        if (pipe(p) < 0) die("cannot replace stdin");
        close(p[1]);
        empty = p[0];
    }
    if (dup2(empty, 0) < 0) die("cannot replace stdin");
    close(empty);
    std::setvbuf(stdout, NULL, _IOLBF, 0);  // the student's printf lines interleave with ours
}

void send(const std::string& reply) {
    std::string line = reply + "\n";
    const char* p = line.data();
    size_t left = line.size();
    while (left > 0) {
        ssize_t n = write(proto_out, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) die("cannot write a reply (the referee has gone)");
        p += n;
        left -= static_cast<size_t>(n);
    }
}

// ------------------------------------------------------------------ reports

int game_no = 0;          // games begun by this process
std::map<std::string, int> game_corrections, game_warnings, all_corrections, all_warnings;

// A correction changed the reply; a warning did not (the referee will judge it).  Each is
// a note (docs/records.md, "Notes"): the referee counts them by name into the results.
void report(bool corrected, const std::string& kind, const std::string& what) {
    ++(corrected ? game_corrections : game_warnings)[kind];
    ++(corrected ? all_corrections : all_warnings)[kind];
    std::fprintf(stderr, "referee-note: ppca.%s.%s game %d hand %d: %s\n", corrected ? "correction" : "warning",
                 kind.c_str(), game_no, table().hand, what.c_str());
}

std::string tally(const std::map<std::string, int>& counts, const char* noun) {
    int total = 0;
    std::string parts;
    for (std::map<std::string, int>::const_iterator it = counts.begin(); it != counts.end(); ++it) {
        total += it->second;
        parts += (parts.empty() ? "" : ", ") + it->first + " " + std::to_string(it->second);
    }
    std::string text = std::to_string(total) + " " + noun + (total == 1 ? "" : "s");
    return parts.empty() ? text : text + " (" + parts + ")";
}

// ------------------------------------------------------------------ parsing

typedef std::map<std::string, std::string> Fields;

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> out;
    std::string::size_type start = 0;
    while (true) {
        std::string::size_type end = text.find(sep, start);
        out.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos) return out;
        start = end + 1;
    }
}

// `NAME VALUE` pairs, by name: fields added later (such as `initial`, `names`) are simply found.
Fields fields_of(const std::string& line) {
    std::vector<std::string> tokens;
    std::string::size_type i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        std::string::size_type j = i;
        while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
        if (j > i) tokens.push_back(line.substr(i, j - i));
        i = j;
    }
    Fields f;
    if (!tokens.empty()) f[""] = tokens[0];  // the kind of line
    for (size_t k = 1; k + 1 < tokens.size(); k += 2) f[tokens[k]] = tokens[k + 1];
    return f;
}

std::string text_field(const Fields& f, const char* name) {
    Fields::const_iterator it = f.find(name);
    return it == f.end() ? std::string("-") : it->second;
}

int to_int(const std::string& text, int fallback) {
    if (text.empty()) return fallback;
    char* end = 0;
    errno = 0;
    long v = std::strtol(text.c_str(), &end, 10);
    if (*end != '\0' || errno != 0 || v > 2147483647L || v < -2147483647L) return fallback;
    return static_cast<int>(v);
}

int int_field(const Fields& f, const char* name, int fallback) {
    Fields::const_iterator it = f.find(name);
    return it == f.end() ? fallback : to_int(it->second, fallback);
}

std::vector<int> int_list(const std::string& text) {
    std::vector<int> out;
    if (text == "-" || text.empty()) return out;
    std::vector<std::string> parts = split(text, ',');
    for (size_t i = 0; i < parts.size(); ++i) out.push_back(to_int(parts[i], 0));
    return out;
}

std::vector<card_type> cards_of(const std::string& text) {
    std::vector<card_type> out;
    if (text == "-") return out;
    for (size_t i = 0; i + 1 < text.size(); i += 2) out.push_back(card_type(text[i], text[i + 1]));
    return out;
}

struct Entry {
    int seat;
    char letter;
    int chips;
};

// Betting round `index` of a `history` token (rounds are separated by '/'); -1: the last.
std::vector<Entry> round_of(const std::string& history, int index) {
    std::vector<Entry> out;
    if (history == "-") return out;
    std::vector<std::string> rounds = split(history, '/');
    if (index < 0) index = static_cast<int>(rounds.size()) - 1;
    if (index >= static_cast<int>(rounds.size())) return out;
    const std::string& round = rounds[index];
    if (round.empty()) return out;
    std::vector<std::string> items = split(round, ',');
    for (size_t i = 0; i < items.size(); ++i) {
        const std::string& s = items[i];
        size_t k = 0;
        while (k < s.size() && s[k] >= '0' && s[k] <= '9') ++k;
        if (k == 0 || k >= s.size()) continue;
        Entry e;
        e.seat = to_int(s.substr(0, k), -1);
        e.letter = s[k];
        e.chips = to_int(s.substr(k + 1), 0);
        out.push_back(e);
    }
    return out;
}

// ------------------------------------------------------------------ the table

// Players, names and initial chips; `initial N names A,B,...` when the line has them,
// else 1000 and "player<i>".
void set_game(const Fields& f, int players) {
    Table& t = table();
    t.players = players;
    t.initial_chips = int_field(f, "initial", t.initial_chips);
    Fields::const_iterator names = f.find("names");
    if (names != f.end()) {
        std::vector<std::string> given = split(names->second, ',');
        if (static_cast<int>(given.size()) == players) t.names = given;
    }
    if (static_cast<int>(t.names.size()) != players) {
        t.names.clear();
        for (int i = 0; i < players; ++i) t.names.push_back("player" + std::to_string(i));
    }
    if (static_cast<int>(t.chips.size()) != players) t.chips.assign(players, t.initial_chips);
    if (static_cast<int>(t.start_chips.size()) != players) t.start_chips.assign(players, t.initial_chips);
}

const int SMALL_BLINDS[] = {1, 2, 5, 10, 20, 50, 100, 200, 500};

// A hand this seat learns of only from its `result` (it never had to act: folded to,
// all-in from the blind, or out of the game).  Hand-level facts the line does not give
// are worked out from the documented rules: the button moves to the next player with
// chips, the blinds rise every 3 hands.  An `act` line always overrides them.
void infer_hand(int hand) {
    Table& t = table();
    int n = t.players;
    t.participants.clear();
    for (int i = 0; i < n; ++i)
        if (t.chips[i] > 0) t.participants.push_back(i);
    int start = t.hand == 0 || t.dealer < 0 ? 0 : t.dealer + 1;
    t.dealer = -1;
    for (int k = 0; k < n && t.dealer < 0; ++k)
        if (t.chips[(start + k) % n] > 0) t.dealer = (start + k) % n;
    int level = (hand - 1) / 3;
    int levels = static_cast<int>(sizeof SMALL_BLINDS / sizeof SMALL_BLINDS[0]);
    t.small_blind = SMALL_BLINDS[level < 0 ? 0 : level >= levels ? levels - 1 : level];
    t.hole[0] = t.hole[1] = card_type('?', '?');
    t.pots.clear();
    t.bets.clear();
    t.current_bets.assign(n, 0);
    t.status.assign(n, NOT_ACTIONED);
    t.out_of_game = t.my_id >= 0 && t.my_id < n && t.chips[t.my_id] == 0;
    t.hand = hand;
}

// ------------------------------------------------------------------ the Player's life

Player* player = 0;

// Every line but `gameover` starts here.  A hand number that goes back without a
// `gameover` also means a new game (it should not happen; it keeps the Player sane).
bool begin_line(int hand) {
    if (player && hand < table().hand) {
        report(false, "no-gameover", "a new game began without a gameover line");
        delete player;
        player = 0;
    }
    if (player) return false;
    table().reset();
    ++game_no;
    game_corrections.clear();
    game_warnings.clear();
    return true;
}

Client client;  // what the original client was: the Player's Query reads through it

void start_player() {
    player = new Player(client);
    std::string name = player->login_name();
    const Table& t = table();
    std::string accepted = t.my_id >= 0 && t.my_id < static_cast<int>(t.names.size()) ? t.names[t.my_id] : name;
    std::fprintf(stderr, "ppca-adapter: game %d: login_name() is \"%s\"; the table calls it \"%s\"\n", game_no,
                 name.c_str(), accepted.c_str());
    player->login_name(accepted);
    player->init();
}

void end_player() {
    delete player;  // ~Player() calls destroy()
    player = 0;
    std::fprintf(stderr, "ppca-adapter: game %d over: %s; %s\n", game_no,
                 tally(game_corrections, "correction").c_str(), tally(game_warnings, "warning").c_str());
}

// ------------------------------------------------------------------ decisions

// The smallest RAISE the original client (client.cpp, decide()) let through, its
// last_raise_amount: half the small blind as posted at the start of every round, then the
// size of each raise seen in the round (an all-in raise only when it is larger).  The
// original server's minimum was the big blind or the round's largest raise, and it folded a
// raise that passed the client's check but not its own.
int client_minimum(const Fields& f) {
    std::string history = text_field(f, "history");
    std::vector<Entry> first = round_of(history, 0);
    int small_blind = int_field(f, "sb", 0);
    for (size_t i = 0; i < first.size(); ++i)
        if (first[i].letter == 's') small_blind = first[i].chips;
    int minimum = small_blind >> 1;
    std::string status = text_field(f, "status");
    int n = static_cast<int>(status.size());
    std::vector<Entry> round = round_of(history, -1);
    std::vector<int> last_chips(n, -1);  // each seat's last entry that put chips in
    for (size_t k = 0; k < round.size(); ++k)
        if (round[k].seat >= 0 && round[k].seat < n && round[k].letter != 'f' && round[k].letter != 'k')
            last_chips[round[k].seat] = static_cast<int>(k);
    std::vector<int> bets(n, 0);
    for (size_t k = 0; k < round.size(); ++k) {
        const Entry& e = round[k];
        if (e.seat < 0 || e.seat >= n) continue;
        if (e.letter == 's' || e.letter == 'b') bets[e.seat] += e.chips;  // not a raise
        if (e.letter != 'c' && e.letter != 'r') continue;
        int most = *std::max_element(bets.begin(), bets.end());
        bets[e.seat] += e.chips;
        if (status[e.seat] == 'A' && last_chips[e.seat] == static_cast<int>(k))
            minimum = std::max(minimum, bets[e.seat] - most);  // went all-in with it
        else if (bets[e.seat] > most)
            minimum = bets[e.seat] - most;
    }
    return minimum;
}

// What the original client did before sending: CALL with nothing to call -> check, RAISE
// below its own (looser) minimum -> call, RAISE over the stack -> all-in; a RAISE between
// its minimum and the real one is sent, and the referee folds it, as the server did; CHECK
// is always sent as check, as the client did.  Ours also: RAISE when raising is closed ->
// call/check.
std::string corrected(const decision_type& d, const Fields& f) {
    int to_call = int_field(f, "tocall", 0);
    int min_x = int_field(f, "minraise", 0);
    int max_x = int_field(f, "maxraise", 0);
    std::vector<std::string> legal = split(text_field(f, "legal"), ',');
    bool can_check = false, can_call = false, can_raise = false;
    for (size_t i = 0; i < legal.size(); ++i) {
        if (legal[i] == "check") can_check = true;
        if (legal[i] == "call") can_call = true;
        if (legal[i] == "raise") can_raise = true;
    }
    std::string passive = can_call ? "call" : "check";
    std::string round = text_field(f, "round");
    switch (d.first) {
        case FOLD:
            return "fold";
        case CHECK:
            if (can_check) return "check";
            // Not corrected, as the stock client did not (it always sent "check"): the
            // referee judges it and, under --rules ppca, folds it, as the original server
            // folded every check before the flop and every check facing a bet.
            if (to_call == 0)
                report(false, "check-preflop",
                       round + ": CHECK before the flop; sent check, which the referee folds under --rules ppca "
                               "(the original server folded every preflop check; the free option is CALL)");
            else
                report(false, "check-facing-bet",
                       round + ": CHECK facing " + std::to_string(to_call) +
                           " to call; sent check, which the referee folds (illegal)");
            return "check";
        case CALL:
            if (can_call) return "call";
            report(true, "call-to-check", round + ": CALL with nothing to call; sent check");
            return "check";
        case RAISE: {
            int x = d.second;
            std::string asked = round + ": RAISE " + std::to_string(x);
            if (!can_raise) {
                report(true, "raise-not-allowed", asked + " where raising is not allowed; sent " + passive);
                return passive;
            }
            if (x > max_x) {
                report(true, "raise-above-stack",
                       asked + " above the maximum " + std::to_string(max_x) + " (all-in); sent raise " +
                           std::to_string(max_x));
                return "raise " + std::to_string(max_x);
            }
            if (x < min_x) {
                int loose = client_minimum(f);
                if (x <= 0 || x < loose) {
                    report(true, "raise-below-minimum",
                           asked + " below the minimum " + std::to_string(min_x) + "; sent " + passive);
                    return passive;
                }
                report(false, "raise-below-minimum",
                       asked + " below the minimum " + std::to_string(min_x) +
                           "; sent as the original client did (its own check let through " + std::to_string(loose) +
                           " or more), which the referee folds (illegal)");
            }
            return "raise " + std::to_string(x);
        }
    }
    report(true, "unknown-decision",
           round + ": decision type " + std::to_string(static_cast<int>(d.first)) +
               " is none of CHECK, FOLD, CALL, RAISE; sent fold");
    return "fold";
}

// ------------------------------------------------------------------ lines

void on_act(const Fields& f) {
    int hand = int_field(f, "hand", 0);
    bool fresh = begin_line(hand);
    Table& t = table();
    std::vector<int> stacks = int_list(text_field(f, "stacks"));
    int n = static_cast<int>(stacks.size());
    set_game(f, n);
    t.my_id = int_field(f, "seat", -1);
    t.hand = hand;
    t.dealer = int_field(f, "dealer", -1);
    t.small_blind = int_field(f, "sb", 0);
    // The original client's blind() was the small blind as posted: less when it was all-in.
    std::vector<Entry> first = round_of(text_field(f, "history"), 0);
    for (size_t i = 0; i < first.size(); ++i)
        if (first[i].letter == 's') t.small_blind = first[i].chips;
    t.chips = stacks;
    std::vector<card_type> hole = cards_of(text_field(f, "hole"));
    t.hole[0] = hole.size() > 0 ? hole[0] : card_type('?', '?');
    t.hole[1] = hole.size() > 1 ? hole[1] : card_type('?', '?');
    t.board = cards_of(text_field(f, "board"));
    t.out_of_game = false;

    t.pots.clear();
    std::string pots = text_field(f, "pots");
    if (pots != "-") {
        std::vector<std::string> items = split(pots, ',');
        for (size_t i = 0; i < items.size(); ++i) {
            std::string::size_type colon = items[i].find(':');
            std::vector<int> seats;
            if (colon != std::string::npos) {
                std::vector<std::string> ids = split(items[i].substr(colon + 1), '.');
                for (size_t k = 0; k < ids.size(); ++k)
                    if (!ids[k].empty()) seats.push_back(to_int(ids[k], -1));
            }
            t.pots.push_back(ppca::PotAccess::make(to_int(items[i].substr(0, colon), 0), seats));
        }
    }

    t.current_bets = int_list(text_field(f, "bets"));
    t.current_bets.resize(n, 0);
    std::vector<Entry> round = round_of(text_field(f, "history"), -1);
    t.bets.clear();
    std::vector<char> last(n, 0);  // each seat's last action this round (not blinds)
    for (size_t i = 0; i < round.size(); ++i) {
        const Entry& e = round[i];
        if (e.letter == 's' || e.letter == 'b' || e.letter == 'c' || e.letter == 'r')
            t.bets.push_back(std::make_pair(e.seat, e.chips));
        if (e.seat >= 0 && e.seat < n && e.letter != 's' && e.letter != 'b') last[e.seat] = e.letter;
    }
    std::string letters = text_field(f, "status");
    t.status.assign(n, NOT_ACTIONED);
    t.participants.clear();
    // As in the original client: a player out of the game (X) is never marked, so stays
    // NOT_ACTIONED; an all-in player is BET or CHECKED by its action this round.
    for (int i = 0; i < n; ++i) {
        char c = i < static_cast<int>(letters.size()) ? letters[i] : '-';
        if (c != 'X') t.participants.push_back(i);
        if (c == 'B') t.status[i] = BET;
        else if (c == 'C') t.status[i] = CHECKED;
        else if (c == 'F') t.status[i] = FOLDED;
        else if (c == 'A') t.status[i] = last[i] == 'k' ? CHECKED : last[i] ? BET : NOT_ACTIONED;
    }

    if (fresh) start_player();
    std::string name = text_field(f, "round");
    decision_type d;
    if (name == "preflop") d = player->preflop();
    else if (name == "flop") d = player->flop();
    else if (name == "turn") d = player->turn();
    else if (name == "river") d = player->river();
    else {
        report(false, "unknown-round", "round \"" + name + "\"; sent fold");
        send("fold");
        return;
    }
    send(corrected(d, f));
}

char printable(char c) { return c > ' ' && c < 127 ? c : '?'; }

void on_show(const Fields& f) {
    int hand = int_field(f, "hand", 0);
    bool fresh = begin_line(hand);
    Table& t = table();
    if (t.players == 0) set_game(f, 0);
    t.my_id = int_field(f, "seat", t.my_id);
    t.hand = hand;
    std::vector<card_type> hole = cards_of(text_field(f, "hole"));
    if (hole.size() == 2) t.hole[0] = hole[0], t.hole[1] = hole[1];
    t.board = cards_of(text_field(f, "board"));
    if (fresh) start_player();

    hand_type five = player->showdown();
    std::vector<card_type> own(t.board);
    own.push_back(t.hole[0]);
    own.push_back(t.hole[1]);
    bool mine = true;
    for (size_t i = 0; i < five.size(); ++i) {
        bool found = false;
        for (size_t k = 0; k < own.size(); ++k) found = found || own[k] == five[i];
        mine = mine && found;
    }
    std::string reply;
    for (size_t i = 0; i < five.size(); ++i) {
        if (i) reply += ' ';
        reply += printable(five[i].first);
        reply += printable(five[i].second);
    }
    // Sent as chosen (the stock client's showdown was not corrected): the referee mucks
    // an invalid hand.
    if (!mine || ppca::category_of(five) < 0)
        report(false, "showdown-invalid",
               "showdown() returned \"" + reply + "\", not five different cards of your seven; the referee mucks it");
    send(reply);
}

void on_result(const Fields& f) {
    int hand = int_field(f, "hand", 0);
    bool fresh = begin_line(hand);
    Table& t = table();
    std::vector<int> stacks = int_list(text_field(f, "stacks"));
    int n = static_cast<int>(stacks.size());
    set_game(f, n);
    if (hand != t.hand) infer_hand(hand);
    t.board = cards_of(text_field(f, "board"));

    t.hands.clear();
    std::string shown = text_field(f, "shown");
    if (shown != "-") {
        std::vector<std::string> items = split(shown, ',');
        for (size_t i = 0; i < items.size(); ++i) {
            // SEAT:HOLE:FIVE, or SEAT:muck (an invalid showdown: the original's kind 0).
            std::vector<std::string> parts = split(items[i], ':');
            hand_type five;
            five.fill(card_type('?', '?'));
            int kind = HAND_INVALID;
            if (parts.size() >= 3) {
                std::vector<card_type> hole = cards_of(parts[1]);
                std::vector<card_type> shown_five = cards_of(parts[2]);
                for (size_t k = 0; k < 5 && k < shown_five.size(); ++k) five[k] = shown_five[k];
                kind = ppca::kind_of(five);
                if (to_int(parts[0], -1) == t.my_id && hole.size() == 2) t.hole[0] = hole[0], t.hole[1] = hole[1];
            }
            t.hands.push_back(HANDINFO(five, to_int(parts[0], -1), kind));
        }
    }

    t.won_in_pots.clear();
    std::string pots = text_field(f, "pots");
    if (pots != "-") {
        std::vector<std::string> items = split(pots, ',');
        for (size_t i = 0; i < items.size(); ++i) {
            std::vector<std::pair<int, int> > shares;
            std::string::size_type colon = items[i].find(':');
            if (colon != std::string::npos) {
                std::vector<std::string> winners = split(items[i].substr(colon + 1), '.');
                for (size_t k = 0; k < winners.size(); ++k) {
                    std::string::size_type eq = winners[k].find('=');
                    if (eq == std::string::npos) continue;
                    shares.push_back(
                        std::make_pair(to_int(winners[k].substr(0, eq), -1), to_int(winners[k].substr(eq + 1), 0)));
                }
            }
            t.won_in_pots.push_back(shares);
        }
    }
    // The original's chips_won_in_last_game(): what each player won from the pots less what
    // it put in, i.e. its stack after the hand less its stack before.
    t.won_last.assign(n, 0);
    for (int i = 0; i < n; ++i) t.won_last[i] = stacks[i] - t.start_chips[i];
    t.chips = stacks;
    t.start_chips = stacks;

    if (fresh) start_player();
    player->game_end();
}

void on_gameover(const Fields& f) {
    std::vector<int> stacks = int_list(text_field(f, "stacks"));
    if (!stacks.empty() && stacks.size() == table().chips.size()) table().chips = stacks;
    if (player) end_player();
}

}  // namespace

int main() {
    FILE* in = fdopen(proto_in, "r");
    if (!in) die("cannot read stdin");
    char* buffer = 0;
    size_t capacity = 0;
    ssize_t length;
    while ((length = getline(&buffer, &capacity, in)) >= 0) {
        std::string line(buffer, static_cast<size_t>(length));
        while (!line.empty() && (line[line.size() - 1] == '\n' || line[line.size() - 1] == '\r'))
            line.erase(line.size() - 1);
        Fields f = fields_of(line);
        const std::string& kind = f[""];
        if (kind == "act") on_act(f);
        else if (kind == "show") on_show(f);
        else if (kind == "result") on_result(f);
        else if (kind == "gameover") on_gameover(f);
        else if (!kind.empty()) std::fprintf(stderr, "ppca-adapter: ignored a line: %.60s\n", line.c_str());
    }
    std::free(buffer);
    if (player) end_player();  // input ended inside a game: destroy() still runs
    if (game_no > 0)
        std::fprintf(stderr, "ppca-adapter: all %d game(s): %s; %s\n", game_no,
                     tally(all_corrections, "correction").c_str(), tally(all_warnings, "warning").c_str());
    std::fflush(stdout);
    return 0;
}
