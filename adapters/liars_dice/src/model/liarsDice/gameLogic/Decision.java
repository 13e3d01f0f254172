package model.liarsDice.gameLogic;

/** What getDecision returns: a {@link Bid} or a {@link Challenge}. */
public interface Decision {
}
