package model.liarsDice.gameInfo;

/**
 * How a round ended. From the challenger's point of view: WINNING_CHALLENGE means the
 * bid was false and the bidder lost a die, LOSING_CHALLENGE that it held and the
 * challenger lost one. The three faults come from the referee's penalty lines.
 */
public enum Result {
    EXCEPTION,
    TIMEOUT,
    INVALIDDECISION,
    WINNING_CHALLENGE,
    LOSING_CHALLENGE,
    UNFINISHED,
}
