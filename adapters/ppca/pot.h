// pot.h — one pot of the PPCA 2014 client's Query::pots() (seed 003: "一轮下注可能产生多个
// 彩池，不同轮贡献者相同的彩池不合并，详见 pot.h").  The seed does not show this header:
// the class below is a guess (README.md).
#ifndef PPCA_POT_H
#define PPCA_POT_H

#include <algorithm>
#include <vector>

class Pot {
public:
    Pot() : chips_(0) {}
    Pot(int chips, const std::vector<int>& contributors) : chips_(chips), contributors_(contributors) {}

    // Chips in this pot.
    int chips() const { return chips_; }
    // Ids of the players who may win it (still in the hand, put in up to this level).
    const std::vector<int>& contributors() const { return contributors_; }
    int number_of_contributors() const { return static_cast<int>(contributors_.size()); }
    bool is_contributor(int player) const {
        return std::find(contributors_.begin(), contributors_.end(), player) != contributors_.end();
    }

private:
    int chips_;
    std::vector<int> contributors_;
};

#endif
