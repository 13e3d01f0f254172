"""Shared fixtures: the built sample players, and small scripted bots."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_players"


@pytest.fixture(scope="session")
def built_samples() -> Path:
    """Build every C sample player once per test session (make is incremental)."""
    subprocess.run(["make", "-s", "-C", str(SAMPLES)], check=True)
    return SAMPLES


@pytest.fixture
def script_bot(tmp_path):
    """Write a Python bot from source text; returns the command line that runs it."""

    def make(source: str, name: str = "scripted") -> str:
        path = tmp_path / f"{name}.py"
        path.write_text(source)
        return f"{sys.executable} {path}"

    return make
