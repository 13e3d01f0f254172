package model.liarsDice.gameLogic;

/** The decision to call the current bid. Written on the wire as "challenge". */
public class Challenge implements Decision {
    public Challenge() {
    }

    @Override
    public String toString() {
        return "Challenge";
    }
}
