// player.h — the PPCA 2014 client's Player (zzy7896321/holdem, client/player.h), with the
// original's members.  Implement its functions in your own .cpp.  The course let students
// add members here; a student's own edited player.h next to their .cpp is used instead of
// this one (README.md, "Building": its directory comes first in -I).
#ifndef _PLAYER_H_
#define _PLAYER_H_

#include <string>

#include "query.h"

class Player {
public:
    Player(const Client& client) : query(client) {}

    ~Player() { destroy(); }

    void init();
    void destroy();

    std::string login_name();           // the name to log in with
    void login_name(std::string name);  // the name the table knows you by

    decision_type preflop();
    decision_type flop();
    decision_type turn();
    decision_type river();
    hand_type showdown();
    void game_end();

private:
    Query query;
};

#endif  // _PLAYER_H_
