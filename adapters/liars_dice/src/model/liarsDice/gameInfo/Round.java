package model.liarsDice.gameInfo;

import java.util.ArrayList;
import java.util.List;

/** One round: the turns from the first bid to the challenge or fault that ended it. */
public class Round {
    private final List<Turn> turns;
    private Result result;

    public Round() {
        this(new ArrayList<Turn>(), Result.UNFINISHED);
    }

    public Round(List<Turn> turns, Result result) {
        this.turns = turns;
        this.result = result;
    }

    /** A copy with its own list (turns themselves never change, so they are shared). */
    public Round(Round other) {
        this(new ArrayList<Turn>(other.turns), other.result);
    }

    /** @return the turns in the order they were taken. */
    public List<Turn> getTurns() {
        return turns;
    }

    /** @return how the round ended, or UNFINISHED for the round being played. */
    public Result getResult() {
        return result;
    }

    public void addTurn(Turn turn) {
        turns.add(turn);
    }

    /** Ends the round; UNFINISHED is not an ending. */
    public void end(Result result) {
        if (result == Result.UNFINISHED) {
            throw new IllegalArgumentException("a round cannot end UNFINISHED");
        }
        this.result = result;
    }
}
