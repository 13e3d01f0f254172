// pot.h — holdem::Pot of the PPCA 2014 client (zzy7896321/holdem, client/pot.h): the same
// members, re-written for the referee's adapter.  A pot is one contribution level: every
// contributor put `chips` into it, so amount() == chips × number of contributors.
//
// Query::pots() fills it from the `pots` field of the referee's `act` line.  Under
// `--rules ppca` that field lists every contributor of each level, folded ones included, as
// the original server did (docs/protocols/holdem.md).  Under the default rules it lists the
// seats that may still win the pot; amount() then still gives the pot's total.
#pragma once
#ifndef PPCA_POT_H
#define PPCA_POT_H

#include <algorithm>
#include <vector>

namespace ppca {
struct PotAccess;
}

namespace holdem {

class Pot {
public:
    Pot(int chips) : m(), chips(chips), rest(0) {}

    // Adds a contributor (ids in ascending order, as the server sent them).
    void add(int player) { m.push_back(player); }

    // Chips in this pot.
    int amount() const { return chips * static_cast<int>(m.size()) + rest; }

    // Sets the chips each contributor put in; returns them.
    int set_chips(int c) { return chips = c; }

    // Ids of the players who put chips into this pot.
    const std::vector<int>& contributors() const { return m; }

    // Adds `pot` to this one when both have the same contributors; false (and no change)
    // otherwise.
    bool merge(const Pot& pot) {
        if (pot.m != m) return false;
        chips += pot.chips;
        rest += pot.rest;
        return true;
    }

private:
    friend struct ppca::PotAccess;
    std::vector<int> m;
    int chips;
    int rest;  // a total that does not divide evenly among the listed seats (default rules)
};

}  // namespace holdem

#endif  // PPCA_POT_H
