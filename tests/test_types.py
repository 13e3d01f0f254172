"""The code stays mypy-clean: ``python -m mypy`` with the configuration of pyproject.toml
([tool.mypy]: referee/ and protocol/, check_untyped_defs, warn_unused_ignores).

mypy is pinned in the test extra, as ruff is (tests/test_lint.py).  The run uses the
working tree's .mypy_cache: about 1 s when warm, 15 s cold (a fresh clone, as in CI),
hence ``slow``.  A warm run that finds errors is run again cold, in a cache of its own,
so that a stale cache can neither fail the test nor hide an error in what it reports.
"""

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def _mypy(cache: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(cache),
            "--no-color-output",
            "--no-error-summary",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.slow
def test_mypy_is_clean(tmp_path):
    probe = subprocess.run([sys.executable, "-m", "mypy", "--version"], capture_output=True, text=True)
    assert probe.returncode == 0, "mypy is missing: it is in the test extra (pip install -e '.[test]')"
    done = _mypy(ROOT / ".mypy_cache")
    if done.returncode != 0:
        done = _mypy(tmp_path / "mypy_cache")
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert done.returncode == 0, f"{len(errors)} mypy error(s):\n" + (done.stdout + done.stderr)
