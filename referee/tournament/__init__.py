"""Tournaments: formats that schedule matches, the runner, and the results store."""
