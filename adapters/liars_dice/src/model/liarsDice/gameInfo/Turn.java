package model.liarsDice.gameInfo;

import model.liarsDice.gameLogic.Decision;

/** One move of a round: who made it and what it was (null for a timeout or an exception). */
public class Turn {
    private final int playerID;
    private final Decision decision;

    public Turn(int playerID, Decision decision) {
        this.playerID = playerID;
        this.decision = decision;
    }

    /** @return the stable id of the player who moved. */
    public int getPlayerID() {
        return playerID;
    }

    /** @return the Bid or Challenge made, or null when the player failed to decide. */
    public Decision getDecision() {
        return decision;
    }

    @Override
    public String toString() {
        return playerID + ": " + decision;
    }
}
