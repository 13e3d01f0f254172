package model.liarsDice.gameLogic;

/**
 * A claim that at least {@code frequency} dice on the table show {@code faceValue}
 * (ones are wild and count too). Written on the wire as "bid FREQUENCY FACEVALUE".
 */
public class Bid implements Decision {
    private final int frequency;
    private final int faceValue;

    /**
     * @param frequency how many dice the bid claims (1 up to the dice in play)
     * @param faceValue the face claimed (2..6)
     */
    public Bid(int frequency, int faceValue) {
        this.frequency = frequency;
        this.faceValue = faceValue;
    }

    /** @return how many dice the bid claims. */
    public int getFrequency() {
        return frequency;
    }

    /** @return the face the bid names (2..6). */
    public int getFaceValue() {
        return faceValue;
    }

    @Override
    public String toString() {
        return frequency + " x " + faceValue;
    }
}
