"""Shared fixtures: the built sample players, and small scripted bots."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _reachable_by_strangers(path: str) -> bool:
    """Whether a user in no group of ours can run ``path`` (every directory above it o+x)."""
    real = Path(os.path.realpath(path))
    return all(os.stat(d).st_mode & 0o001 for d in real.parents) and bool(os.stat(real).st_mode & 0o005 == 5)


#: The interpreter for the tests' Python bots.  As root, every bot runs under a uid of
#: its own, which must be able to run it; a pyenv Python under /root (0700) cannot be,
#: so the system's Python is used then (the bots need only the standard library).
BOT_PYTHON = next(
    (p for p in (sys.executable, "/usr/bin/python3") if os.path.exists(p) and _reachable_by_strangers(p)),
    sys.executable,
)
SAMPLES = ROOT / "sample_players"

#: Load drills (``@pytest.mark.drill``) start busy loops of their own to starve a bot on
#: purpose: beside another worker they starve it too, and are starved by it.  The suite
#: skips them; ``REFEREE_DRILLS=1 pytest -m drill -n0`` runs them alone, as CI does.
DRILLS = os.environ.get("REFEREE_DRILLS") == "1"


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker more than the cores this process may use.  A third of the
    suite's wall time is waiting — for a timeout, a bot's exit, a server — and another
    worker fills those waits; the tests hold beside a busy loop per core, which is more
    than one worker more."""
    return len(os.sched_getaffinity(0)) + 1 if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1) + 1


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if DRILLS:
        return
    skip = pytest.mark.skip(reason="a load drill: runs alone with REFEREE_DRILLS=1 -n0 (docs/testing.md)")
    for item in items:
        if item.get_closest_marker("drill") is not None:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def built_samples() -> Path:
    """Build every C sample player once per test session (make is incremental)."""
    subprocess.run(["make", "-s", "-C", str(SAMPLES)], check=True)
    return SAMPLES


@pytest.fixture
def tmp_path() -> Path:
    """A fresh directory that other users may read (pytest's own is 0700).

    As root the referee runs every bot under a uid of its own and refuses a bot whose
    files that uid cannot read (docs/security.md); the tests' bots live here.
    """
    path = Path(tempfile.mkdtemp(prefix="referee-test-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def private_dir(tmp_path_factory) -> Path:
    """A directory only its owner can read: pytest's own 0700 tmp_path."""
    path = tmp_path_factory.mktemp("private")
    os.chmod(path, 0o700)
    return path


@pytest.fixture
def script_bot(tmp_path):
    """Write a Python bot from source text; returns the command line that runs it."""

    def make(source: str, name: str = "scripted") -> str:
        path = tmp_path / f"{name}.py"
        path.write_text(source)
        return f"{BOT_PYTHON} {path}"

    return make
