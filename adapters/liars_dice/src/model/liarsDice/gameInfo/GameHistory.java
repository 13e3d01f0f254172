package model.liarsDice.gameInfo;

import java.util.ArrayList;
import java.util.List;

/** The rounds of the current game so far, oldest first; the last one may be UNFINISHED. */
public class GameHistory {
    private final List<Round> rounds;

    public GameHistory() {
        rounds = new ArrayList<Round>();
    }

    /** A deep copy: changing it leaves {@code other} alone. */
    public GameHistory(GameHistory other) {
        rounds = new ArrayList<Round>(other.rounds.size());
        for (Round r : other.rounds) {
            rounds.add(new Round(r));
        }
    }

    public List<Round> getRounds() {
        return rounds;
    }

    public void addNewRound() {
        rounds.add(new Round());
    }

    /** Adds a turn to the last round. */
    public void addTurn(Turn turn) {
        rounds.get(rounds.size() - 1).addTurn(turn);
    }

    /** Ends the last round. */
    public void endRound(Result result) {
        rounds.get(rounds.size() - 1).end(result);
    }
}
