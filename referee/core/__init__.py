"""What every layer shares: verdicts, limits, naming a bot, interrupts (and, next, seeding and records)."""
