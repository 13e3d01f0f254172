"""The code stays ruff-clean: part of the suite so CI and the README's command check it."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(
    shutil.which("ruff") is None and not (ROOT / ".venv/bin/ruff").exists(), reason="ruff missing"
)
def test_ruff_check_is_clean():
    ruff = shutil.which("ruff") or str(ROOT / ".venv/bin/ruff")
    done = subprocess.run(
        [ruff, "check", "--output-format", "concise", str(ROOT)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.skipif(
    shutil.which("ruff") is None and not (ROOT / ".venv/bin/ruff").exists(), reason="ruff missing"
)
def test_ruff_format_is_clean():
    ruff = shutil.which("ruff") or str(ROOT / ".venv/bin/ruff")
    done = subprocess.run([ruff, "format", "--check", str(ROOT)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
