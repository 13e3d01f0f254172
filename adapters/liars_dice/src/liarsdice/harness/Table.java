package liarsdice.harness;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import model.liarsDice.gameInfo.GameHistory;
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
 * One bot's view of the match, rebuilt from the referee's lines: the ids by seat, the
 * dice counts, and the game's history as Rounds of Turns. It turns "turn" requests into
 * getDecision calls and "reveal"/"penalty"/"result" lines into report calls.
 */
final class Table {
    static final String TAG = "[liarsdice-harness] ";
    private static final int DICE_PER_SEAT = 5;
    /** Full stack traces logged before switching to one line per exception. */
    private static final int FULL_TRACES = 10;
    /** Longest exception text put in a reply (the referee keeps 200 characters of it). */
    private static final int MAX_REPLY_TEXT = 180;

    private final LiarsDiceBot bot;
    private final OutputStream wire;
    private final PrintStream log;

    private int myId = -1; // stable across games once learnt from a turn line
    private int mySeat = -1; // this game's; -1 until known
    private int[] ids; // by seat, from the players line
    private boolean idsKnown; // false while seats stand in for ids
    private int[] counts; // dice per seat now
    private int[][] shown; // every seat's dice of the round that just ended
    private GameHistory history = new GameHistory();
    private boolean roundOpen;
    private Decision pendingOwn; // our last answer of the open round
    private int games;
    private int tracesLogged;
    private boolean warnedNoPlayers;

    Table(LiarsDiceBot bot, OutputStream wire, PrintStream log) {
        this.bot = bot;
        this.wire = wire;
        this.log = log;
    }

    /**
     * Plays a few made-up lines through a throw-away Table and a do-nothing bot, so the
     * harness's own classes are loaded and compiled before the referee's clock runs.
     */
    static void warmUp() {
        OutputStream nowhere = new OutputStream() {
            @Override
            public void write(int b) {
            }

            @Override
            public void write(byte[] b, int off, int len) {
            }
        };
        LiarsDiceBot idle = new LiarsDiceBot() {
            @Override
            public String getName() {
                return "warm-up";
            }

            @Override
            public Decision getDecision(GameInfo gi) {
                Bid current = gi.getCurrentBid();
                Decision d = current == null ? new Bid(1, 2) : new Bid(current.getFrequency() + 1, 6);
                return checkValidDecision(d, gi) ? d : new Challenge();
            }
        };
        Table t = new Table(idle, nowhere, new PrintStream(nowhere));
        String[] game = {
            "players 7 8",
            "turn 0 counts 5 5 dice 12346 bids",
            "turn 0 counts 5 5 dice 12346 bids 0:1:2 1:2:3",
            "reveal 0 1 2 3 3 1 hands 12346 13356",
            "turn 1 counts 5 4 dice 1335 bids 0:1:5",
            "penalty 0 timeout 1 hands 12346 1335",
            "result 0 eliminated 1",
        };
        for (int i = 0; i < 200; i++) {
            for (String line : game) {
                t.handle(line);
            }
        }
        encodeException(new RuntimeException("warm-up"));
    }

    void handle(String line) {
        String[] t = line.trim().split("[ \t]+");
        try {
            if (t[0].equals("turn")) {
                onTurn(t);
            } else if (t[0].equals("players")) {
                onPlayers(t);
            } else if (t[0].equals("reveal")) {
                onReveal(t);
            } else if (t[0].equals("penalty")) {
                onPenalty(t);
            } else if (t[0].equals("result")) {
                onResult(t);
            } else {
                log.println(TAG + "ignoring unknown line: " + line);
            }
        } catch (RuntimeException e) {
            // A line the harness could not read: never leave a request unanswered.
            log.println(TAG + "cannot handle line '" + line + "': " + e);
            if (t[0].equals("turn")) {
                send("exception harness cannot read the request: " + clean(e.toString()));
            }
        }
    }

    // ------------------------------------------------------------------ information lines

    private void onPlayers(String[] t) {
        ids = new int[t.length - 1];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = Integer.parseInt(t[i + 1]);
        }
        counts = new int[ids.length];
        Arrays.fill(counts, DICE_PER_SEAT);
        shown = null;
        history = new GameHistory();
        roundOpen = false;
        pendingOwn = null;
        idsKnown = true;
        mySeat = indexOf(ids, myId); // -1 until our first turn in our first game
        games++;
    }

    private void onReveal(String[] t) {
        int challenger = Integer.parseInt(t[1]);
        int bidder = Integer.parseInt(t[2]);
        Bid bid = new Bid(Integer.parseInt(t[3]), Integer.parseInt(t[4]));
        int loser = Integer.parseInt(t[6]);
        int[][] hands = hands(t, 8);
        ensureIds(hands.length);
        Round round = openRound();
        addPendingBid(round);
        Bid last = lastBid(round);
        if (last == null || last.getFrequency() != bid.getFrequency() || last.getFaceValue() != bid.getFaceValue()) {
            round.addTurn(new Turn(ids[bidder], bid));
        }
        round.addTurn(new Turn(ids[challenger], new Challenge()));
        round.end(loser == challenger ? Result.LOSING_CHALLENGE : Result.WINNING_CHALLENGE);
        endRound(hands, loser, 1);
    }

    private void onPenalty(String[] t) {
        int seat = Integer.parseInt(t[1]);
        String verdict = t[2];
        int lost = Integer.parseInt(t[3]);
        int[][] hands = hands(t, 5);
        ensureIds(hands.length);
        Round round = openRound();
        Decision failed = null;
        if (seat == mySeat && verdict.equals("illegal")) {
            failed = pendingOwn; // the invalid decision, as the 2013 history kept it
        } else if (seat != mySeat) {
            addPendingBid(round); // our bid was accepted before that seat failed
        }
        round.addTurn(new Turn(ids[seat], failed));
        round.end(resultOf(verdict));
        endRound(hands, seat, lost);
    }

    private void onResult(String[] t) {
        GameInfo gi = revealedInfo();
        try {
            bot.reportGameResults(gi);
        } catch (Throwable e) {
            logThrown("reportGameResults", e);
        }
    }

    /** The referee's verdicts in the 2013 terms (README: "What maps to what"). */
    static Result resultOf(String verdict) {
        if (verdict.equals("timeout")) {
            return Result.TIMEOUT;
        }
        if (verdict.equals("illegal")) {
            return Result.INVALIDDECISION;
        }
        // protocol: what this harness answers when getDecision throws; crash, cpu,
        // memory, startup: the process failed, the nearest 2013 ending is an exception.
        return Result.EXCEPTION;
    }

    private void endRound(int[][] hands, int loserSeat, int lost) {
        roundOpen = false;
        pendingOwn = null;
        shown = hands;
        counts = new int[hands.length];
        for (int s = 0; s < hands.length; s++) {
            counts[s] = hands[s].length;
        }
        counts[loserSeat] = Math.max(0, counts[loserSeat] - lost);
        GameInfo gi = revealedInfo();
        try {
            bot.reportRoundResults(gi);
        } catch (Throwable e) {
            logThrown("reportRoundResults", e);
        }
    }

    /** After a round: everyone's dice of that round shown, the counts after the loss. */
    private GameInfo revealedInfo() {
        int n = counts == null ? (ids == null ? 0 : ids.length) : counts.length;
        ensureIds(n);
        List<PlayerInfo> players = new ArrayList<PlayerInfo>(n);
        for (int s = 0; s < n; s++) {
            int count = counts == null ? DICE_PER_SEAT : counts[s];
            List<Die> dice = shown == null || s >= shown.length ? null : dice(shown[s]);
            players.add(new PlayerInfo(count, dice, ids[s], dice == null));
        }
        Bid current = null;
        List<Round> rounds = history.getRounds();
        if (!rounds.isEmpty()) {
            current = lastBid(rounds.get(rounds.size() - 1));
        }
        return new GameInfo(current, history, mySeat, players);
    }

    // ------------------------------------------------------------------ requests

    private void onTurn(String[] t) {
        int seat = Integer.parseInt(t[1]);
        int at = 3;
        List<Integer> c = new ArrayList<Integer>();
        while (!t[at].equals("dice")) {
            c.add(Integer.parseInt(t[at++]));
        }
        int[] now = new int[c.size()];
        for (int i = 0; i < now.length; i++) {
            now[i] = c.get(i);
        }
        int[] myDice = hand(t[at + 1]);
        // t[at + 2] is "bids"
        ensureIds(now.length);
        counts = now;
        mySeat = seat;
        if (idsKnown) {
            myId = ids[seat];
        }

        Round round = openRound();
        round.getTurns().clear(); // the request's bids are the whole round so far
        Bid current = null;
        for (int i = at + 3; i < t.length; i++) {
            String[] b = t[i].split(":");
            current = new Bid(Integer.parseInt(b[1]), Integer.parseInt(b[2]));
            round.addTurn(new Turn(ids[Integer.parseInt(b[0])], current));
        }
        pendingOwn = null;

        List<PlayerInfo> players = new ArrayList<PlayerInfo>(now.length);
        for (int s = 0; s < now.length; s++) {
            if (s == seat) {
                players.add(new PlayerInfo(now[s], dice(myDice), ids[s], false));
            } else {
                players.add(new PlayerInfo(now[s], null, ids[s], true));
            }
        }
        GameInfo gi = new GameInfo(current, history, seat, players);

        Decision decision;
        try {
            decision = bot.getDecision(gi);
        } catch (Throwable e) {
            logThrown("getDecision", e);
            send(encodeException(e));
            return;
        }
        String answer;
        try {
            answer = reply(decision);
        } catch (Throwable e) { // a Bid subclass whose getters throw
            logThrown("reading the decision", e);
            send(encodeException(e));
            return;
        }
        pendingOwn = copy(decision);
        send(answer);
    }

    /**
     * The reply line for a decision. Anything the 2013 game judged an invalid decision
     * (null, an unknown Decision class, negative numbers) becomes a bid the referee
     * judges illegal, so it is counted as an invalid decision there too.
     */
    String reply(Decision d) {
        if (d instanceof Challenge) {
            return "challenge";
        }
        if (d instanceof Bid) {
            Bid b = (Bid) d;
            // The wire has no sign: a negative number would be a protocol fault, not an
            // invalid decision; 0 keeps it an illegal bid.
            return "bid " + Math.max(0, b.getFrequency()) + " " + Math.max(0, b.getFaceValue());
        }
        log.println(TAG + "game " + games + ": getDecision returned "
                + (d == null ? "null" : "a " + d.getClass().getName())
                + ", not a Bid or a Challenge: sent as an invalid bid");
        return "bid 0 0";
    }

    /** An answer that does not parse, so the referee records a protocol fault, naming the exception. */
    static String encodeException(Throwable e) {
        String text = clean(e.toString());
        if (text.length() > MAX_REPLY_TEXT) {
            text = text.substring(0, MAX_REPLY_TEXT);
        }
        return "exception " + text;
    }

    /** Printable ASCII only: the reply must stay one ASCII line. */
    private static String clean(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            out.append(ch >= 32 && ch < 127 ? ch : ' ');
        }
        return out.toString().trim();
    }

    private void send(String line) {
        try {
            wire.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
            wire.flush();
        } catch (IOException e) {
            log.println(TAG + "the referee closed our output: " + e);
            System.exit(0);
        }
    }

    private void logThrown(String where, Throwable e) {
        if (tracesLogged++ < FULL_TRACES) {
            log.println(TAG + "game " + games + ": " + where + " threw:");
            e.printStackTrace(log);
        } else {
            log.println(TAG + "game " + games + ": " + where + " threw " + e);
        }
    }

    // ------------------------------------------------------------------ helpers

    private Round openRound() {
        List<Round> rounds = history.getRounds();
        if (!roundOpen || rounds.isEmpty()) {
            history.addNewRound();
            roundOpen = true;
        }
        return rounds.get(rounds.size() - 1);
    }

    /** Our bid of the open round, which the next request would have listed but none came. */
    private void addPendingBid(Round round) {
        if (pendingOwn instanceof Bid && mySeat >= 0) {
            round.addTurn(new Turn(ids[mySeat], pendingOwn));
        }
        pendingOwn = null;
    }

    private static Bid lastBid(Round round) {
        List<Turn> turns = round.getTurns();
        for (int i = turns.size() - 1; i >= 0; i--) {
            Decision d = turns.get(i).getDecision();
            if (d instanceof Bid) {
                return (Bid) d;
            }
        }
        return null;
    }

    /** A decision of our own, copied so the student cannot change the history afterwards. */
    private static Decision copy(Decision d) {
        if (d instanceof Bid) {
            return new Bid(((Bid) d).getFrequency(), ((Bid) d).getFaceValue());
        }
        if (d instanceof Challenge) {
            return new Challenge();
        }
        return null;
    }

    /**
     * Seats stand in for ids when no players line came this game: a bot restarted in
     * the middle of a game has not seen it.
     */
    private void ensureIds(int seats) {
        if (ids != null && ids.length == seats) {
            return;
        }
        if (!warnedNoPlayers) {
            log.println(TAG + "no 'players' line for this game (restarted mid-game?): seats stand in for ids");
            warnedNoPlayers = true;
        }
        ids = new int[seats];
        idsKnown = false;
        for (int i = 0; i < seats; i++) {
            ids[i] = i;
        }
        if (counts == null || counts.length != seats) {
            counts = new int[seats];
            Arrays.fill(counts, DICE_PER_SEAT);
        }
    }

    private static int[][] hands(String[] t, int from) {
        int[][] out = new int[t.length - from][];
        for (int i = from; i < t.length; i++) {
            out[i - from] = hand(t[i]);
        }
        return out;
    }

    private static int[] hand(String token) {
        if (token.equals("-")) {
            return new int[0];
        }
        int[] out = new int[token.length()];
        for (int i = 0; i < out.length; i++) {
            out[i] = token.charAt(i) - '0';
        }
        return out;
    }

    private static List<Die> dice(int[] values) {
        List<Die> out = new ArrayList<Die>(values.length);
        for (int v : values) {
            out.add(new Die(v));
        }
        return Collections.unmodifiableList(out);
    }

    private static int indexOf(int[] a, int v) {
        if (v < 0) {
            return -1;
        }
        for (int i = 0; i < a.length; i++) {
            if (a[i] == v) {
                return i;
            }
        }
        return -1;
    }
}
