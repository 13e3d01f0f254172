import java.util.HashMap;
import java.util.List;
import java.util.Map;

import model.liarsDice.gameInfo.GameInfo;
import model.liarsDice.gameInfo.PlayerInfo;
import model.liarsDice.gameInfo.Result;
import model.liarsDice.gameInfo.Round;
import model.liarsDice.gameInfo.Turn;
import model.liarsDice.gameLogic.Bid;
import model.liarsDice.gameLogic.Challenge;
import model.liarsDice.gameLogic.Decision;
import model.liarsDice.gameLogic.Die;
import model.liarsDice.gameLogic.LiarsDiceBot;

/**
 * A sample entry written against the 2013 API, the way a student would: count what I
 * can see, expect a third of the unseen dice to match (the face or a wild one), bid what
 * is likely and challenge what is not. It also keeps, per opponent id, how often that
 * opponent's challenged bids turned out false, and trusts bluffers less.
 */
public class SampleStudentBot extends LiarsDiceBot {

    private final Map<Integer, int[]> bluffs = new HashMap<Integer, int[]>(); // id -> {false, challenged}

    @Override
    public String getName() {
        return "Sample Student";
    }

    @Override
    public Decision getDecision(GameInfo gi) {
        int[] mine = new int[7];
        for (Die d : gi.getMyDice()) {
            mine[d.getValue()]++;
        }
        int unseen = gi.getTotalDice() - gi.getMyDice().size();
        Bid current = gi.getCurrentBid();

        if (current != null) {
            double expected = mine[current.getFaceValue()] + mine[Die.WILD] + unseen / 3.0;
            double slack = 1.0 - 0.8 * bluffRate(lastBidder(gi));
            if (current.getFrequency() > expected + slack) {
                return new Challenge();
            }
        }

        // The lowest valid bid on each face; keep the one with the most margin.
        Decision best = null;
        double bestMargin = Double.NEGATIVE_INFINITY;
        for (int face = 2; face <= 6; face++) {
            double expected = mine[face] + mine[Die.WILD] + unseen / 3.0;
            int frequency = 1;
            if (current != null) {
                frequency = face > current.getFaceValue() ? current.getFrequency() : current.getFrequency() + 1;
            }
            Bid bid = new Bid(frequency, face);
            double margin = expected - frequency + 0.01 * face; // prefer high faces on ties
            if (checkValidDecision(bid, gi) && margin > bestMargin) {
                best = bid;
                bestMargin = margin;
            }
        }
        if (best == null || (current != null && bestMargin < -0.5)) {
            return new Challenge();
        }
        return best;
    }

    @Override
    public void reportRoundResults(GameInfo gi) {
        List<Round> rounds = gi.getGameHistory().getRounds();
        if (rounds.isEmpty()) {
            return;
        }
        Round last = rounds.get(rounds.size() - 1);
        List<Turn> turns = last.getTurns();
        boolean challenged = last.getResult() == Result.WINNING_CHALLENGE
                || last.getResult() == Result.LOSING_CHALLENGE;
        if (!challenged || turns.size() < 2) {
            return;
        }
        int bidder = turns.get(turns.size() - 2).getPlayerID();
        if (bidder == gi.getMyPlayerID()) {
            return;
        }
        int[] tally = bluffs.get(bidder);
        if (tally == null) {
            tally = new int[2];
            bluffs.put(bidder, tally);
        }
        if (last.getResult() == Result.WINNING_CHALLENGE) {
            tally[0]++;
        }
        tally[1]++;
    }

    @Override
    public void reportGameResults(GameInfo gi) {
        // Nothing to do: the tallies carry over to the next game.
    }

    private static int lastBidder(GameInfo gi) {
        List<Round> rounds = gi.getGameHistory().getRounds();
        List<Turn> turns = rounds.get(rounds.size() - 1).getTurns();
        return turns.get(turns.size() - 1).getPlayerID();
    }

    private double bluffRate(int id) {
        int[] tally = bluffs.get(id);
        if (tally == null || tally[1] < 5) {
            return 0.3;
        }
        return (double) tally[0] / tally[1];
    }
}
