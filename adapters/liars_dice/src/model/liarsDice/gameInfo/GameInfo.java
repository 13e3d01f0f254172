package model.liarsDice.gameInfo;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import model.liarsDice.gameLogic.Bid;
import model.liarsDice.gameLogic.Die;

/**
 * The state of the game as one player may see it: the bid to beat, the history, and a
 * PlayerInfo for every seat in turn order, one of which is yours ({@link #getMyIndex()}).
 * Every call gets a fresh copy, so a bot may change what it is given.
 */
public class GameInfo {
    private Bid currentBid;
    private GameHistory gameHistory;
    private int myIndex;
    private List<PlayerInfo> playersInfo;

    public GameInfo() {
        init(null, new GameHistory(), -1, new ArrayList<PlayerInfo>());
    }

    /**
     * @param myIndex the index in {@code players} of the player this object is for
     *        (-1 when it is not known: see the harness README)
     */
    public GameInfo(Bid currentBid, GameHistory gameHistory, int myIndex, List<PlayerInfo> players) {
        init(currentBid, gameHistory, myIndex, players);
    }

    public GameInfo(GameInfo other) {
        init(other.currentBid, other.gameHistory, other.myIndex, other.playersInfo);
    }

    /** Sets every field; the history is copied, the players list made read-only. */
    public void init(Bid currentBid, GameHistory gameHistory, int myIndex, List<PlayerInfo> playersInfo) {
        this.currentBid = currentBid;
        this.gameHistory = new GameHistory(gameHistory);
        this.myIndex = myIndex;
        this.playersInfo = Collections.unmodifiableList(new ArrayList<PlayerInfo>(playersInfo));
    }

    /** @return the bid to beat or challenge, or null on the first turn of a round. */
    public Bid getCurrentBid() {
        return currentBid;
    }

    public GameHistory getGameHistory() {
        return gameHistory;
    }

    /** @return your dice (an empty list if your seat is not known yet). */
    public List<Die> getMyDice() {
        if (myIndex < 0 || myIndex >= playersInfo.size()) {
            return Collections.<Die>emptyList();
        }
        List<Die> dice = playersInfo.get(myIndex).getDice();
        return dice == null ? Collections.<Die>emptyList() : dice;
    }

    /** @return your stable id, or -1 if your seat is not known yet. */
    public int getMyPlayerID() {
        if (myIndex < 0 || myIndex >= playersInfo.size()) {
            return -1;
        }
        return playersInfo.get(myIndex).getID();
    }

    /** @return your index into {@link #getAllPlayersInfo()} (your seat this game), or -1. */
    public int getMyIndex() {
        return myIndex;
    }

    /** @return one PlayerInfo per seat, in turn order, yours included. */
    public List<PlayerInfo> getAllPlayersInfo() {
        return playersInfo;
    }

    /** The same as {@link #getAllPlayersInfo()}: the name an earlier 2013 version used. */
    public List<PlayerInfo> getPlayersInfo() {
        return playersInfo;
    }

    /** @return every seat's PlayerInfo but yours, in turn order. */
    public List<PlayerInfo> getOtherPlayersInfo() {
        List<PlayerInfo> others = new ArrayList<PlayerInfo>();
        for (int i = 0; i < playersInfo.size(); i++) {
            if (i != myIndex) {
                others.add(playersInfo.get(i));
            }
        }
        return others;
    }

    /** @return the id of the only player with dice left, or -1 while the game goes on. */
    public int getWinnerID() {
        int winner = -1;
        for (PlayerInfo p : playersInfo) {
            if (p.getNumDice() > 0) {
                if (winner != -1) {
                    return -1;
                }
                winner = p.getID();
            }
        }
        return winner;
    }

    /** @return the dice in play: every player's count added up. */
    public int getTotalDice() {
        int total = 0;
        for (PlayerInfo p : playersInfo) {
            total += p.getNumDice();
        }
        return total;
    }

    /** @return whether only one player has dice left. */
    public boolean isGameOver() {
        return getWinnerID() >= 0;
    }
}
