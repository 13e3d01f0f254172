// client.h — what a student's Player file gets from the PPCA 2014 client's client.h
// (zzy7896321/holdem): the output macros, `Pot`, and the class `Client` that constructs the
// Player.  The network client itself (and its Boost IO.h) is replaced by the adapter's
// main.cpp, which speaks the referee's line protocol.
//
// The include guard is the original's (_CLIENT_H_): the adapter's prelude.h defines it
// first, so an original client.h next to a student's .cpp (which would pull in Boost) is
// skipped.  The standard headers below are those the original client.h made available
// through IO.h and Boost, which students' files used without including them.
#ifndef _CLIENT_H_
#define _CLIENT_H_

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common.h"
#include "pot.h"

// The original's logging macros; stdout reaches stderr under the adapter (README.md).
#define ERR_OUTPUT(...) fprintf(stderr, __VA_ARGS__)
#define DEBUG_OUTPUT(...) fprintf(stderr, __VA_ARGS__)
#define OUTPUT(...) fprintf(stdout, __VA_ARGS__)

using holdem::Pot;

// Constructs the Player (Player(const Client&)) and feeds its Query.  Nothing in it is
// meant for the student: the table the Query reads is the adapter's (adapter.h).
class Client {
public:
    Client() {}

private:
    Client(const Client&);
    Client& operator=(const Client&);
};

#endif  // _CLIENT_H_
