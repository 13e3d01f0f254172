// player.h — the PPCA 2014 client's Player (seed 003, §2.2).  Implement the functions
// below in your own .cpp file.  "若额外的存储空间，可在 Player.h 中自行加入所需的成员变量":
// add your own members in the marked place; if you do, keep your edited copy of this
// file next to your .cpp and put that directory first: -I yourdir -I adapters/ppca
// (README.md).
#ifndef PPCA_PLAYER_H
#define PPCA_PLAYER_H

#include <cstddef>
#include <string>

#include "common.h"
#include "query.h"

class Player {
public:
    Player() {}
    // The seed: "destroy 将在 Player 的析构函数中调用".
    ~Player() { destroy(); }

    std::string login_name();            // your AI's name; called before init()
    void login_name(std::string name);   // the name the table knows you by
    void init();                         // a game (tournament) starts: players are known
    void destroy();                      // from the destructor, when the game is over
    decision_type preflop();             // each decision of the first betting round
    decision_type flop();                // ... of the second
    decision_type turn();                // ... of the third
    decision_type river();               // ... of the fourth
    hand_type showdown();                // five of your seven cards (--bot-showdown 1)
    void game_end();                     // after every hand ("局"), see README.md

    Query query;

private:
    Player(const Player&) = delete;  // one Player per game; never copied
    Player& operator=(const Player&) = delete;

    // ---- your own members go here ----
};

// Each file that includes this header reports sizeof(Player), so the adapter stops
// with a clear message instead of corrupting memory when the student's .cpp and the
// adapter were compiled against different copies of player.h (README.md).
namespace ppca {
void register_player_layout(std::size_t size, const char* header);
}
namespace {
struct PpcaPlayerLayoutCheck {
    PpcaPlayerLayoutCheck() { ppca::register_player_layout(sizeof(Player), __FILE__); }
};
PpcaPlayerLayoutCheck ppca_player_layout_check;
}  // namespace

#endif
