package model.liarsDice.gameInfo;

import java.util.Collections;
import java.util.List;

import model.liarsDice.gameLogic.Die;

/**
 * What every player may know about one player: its stable id, how many dice it has and,
 * when they are visible (your own during your turn; everyone's in reportRoundResults and
 * reportGameResults), its dice.
 */
public class PlayerInfo {
    private final List<Die> dice;
    private final int numDice;
    private final int id;
    private final boolean diceHidden;

    /** A player whose dice count is {@code dice.size()}. */
    public PlayerInfo(List<Die> dice, int playerID, boolean diceHidden) {
        this(dice.size(), dice, playerID, diceHidden);
    }

    /**
     * Not in the 2013 API. {@code numDice} may differ from the dice shown: after a round
     * the dice are that round's, the count is the one after the loss (as in 2013).
     */
    public PlayerInfo(int numDice, List<Die> dice, int playerID, boolean diceHidden) {
        this.numDice = numDice;
        this.dice = dice == null ? null : Collections.unmodifiableList(dice);
        this.id = playerID;
        this.diceHidden = diceHidden || dice == null;
    }

    /** @return how many dice the player has now (0 once it is out of the game). */
    public int getNumDice() {
        return numDice;
    }

    /** @return the player's dice, or null when they are hidden from you. */
    public List<Die> getDice() {
        return diceHidden ? null : dice;
    }

    /** @return the player's id: the same in every game of the match, whatever its seat. */
    public int getID() {
        return id;
    }
}
