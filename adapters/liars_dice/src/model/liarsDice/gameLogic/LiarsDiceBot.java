package model.liarsDice.gameLogic;

import model.Bot;
import model.liarsDice.gameInfo.GameInfo;
import model.liarsDice.gameInfo.PlayerInfo;

/**
 * The class every entry extends. One object of the student's class lives for the whole
 * match (the referee keeps the process running from game to game), as in 2013.
 *
 * The throws clauses are the widest the 2013 versions had, so an override with or
 * without "throws InterruptedException" compiles.
 */
public abstract class LiarsDiceBot implements Bot {

    /**
     * Called on each of this bot's turns. Throwing, returning null or an invalid decision
     * costs a die, as in 2013 (the harness reports the fault to the referee).
     */
    public abstract Decision getDecision(GameInfo currentGameInfo) throws InterruptedException;

    /**
     * Called at the end of every round, with every seat's dice of that round revealed and
     * the dice counts after the loss. Optional. Its time counts against this bot's next
     * decision (the referee starts that clock when it sends the next request).
     */
    public void reportRoundResults(GameInfo gameInfo) throws InterruptedException {
    }

    /** Called once at the end of each game this bot plays in. Optional. */
    public void reportGameResults(GameInfo gameInfo) {
    }

    /**
     * Whether the referee will accept {@code decision} now: a challenge needs a bid to
     * challenge; a bid needs a face 2..6, a frequency 1..(dice in play), and must be
     * higher than the current bid (more dice, or as many dice of a higher face).
     */
    public static boolean checkValidDecision(Decision decision, GameInfo currentGameInfo) {
        if (decision == null || currentGameInfo == null) {
            return false;
        }
        Bid current = currentGameInfo.getCurrentBid();
        if (decision instanceof Challenge) {
            return current != null;
        }
        if (!(decision instanceof Bid)) {
            return false;
        }
        Bid bid = (Bid) decision;
        int face = bid.getFaceValue();
        int frequency = bid.getFrequency();
        if (face < 2 || face > 6 || frequency < 1) {
            return false;
        }
        int diceInPlay = 0;
        for (PlayerInfo p : currentGameInfo.getAllPlayersInfo()) {
            diceInPlay += p.getNumDice();
        }
        if (frequency > diceInPlay) {
            return false;
        }
        if (current == null) {
            return true;
        }
        return frequency > current.getFrequency()
                || (frequency == current.getFrequency() && face > current.getFaceValue());
    }
}
