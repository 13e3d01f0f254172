package model;

/**
 * What every competition entry provides, whatever the game. LiarsDiceBot implements it,
 * so a student's getName() is an implementation of this method.
 */
public interface Bot {
    /** @return the bot's display name (the referee names bots by their bot.toml instead). */
    String getName();
}
