package model.liarsDice.gameLogic;

import java.util.concurrent.ThreadLocalRandom;

/** One die. The harness builds dice from the values the referee sends. */
public class Die {
    /** Ones are wild: they count for the face of any bid. */
    public static final int WILD = 1;

    private final int value;

    /** A freshly rolled die (kept for code that simulates rolls). */
    public Die() {
        this(ThreadLocalRandom.current().nextInt(1, 7));
    }

    /** A die showing {@code value} (1..6). Not in the 2013 API; the harness needs it. */
    public Die(int value) {
        this.value = value;
    }

    /** @return the face showing, 1..6. */
    public int getValue() {
        return value;
    }

    @Override
    public String toString() {
        return Integer.toString(value);
    }
}
