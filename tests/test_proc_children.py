"""A process tree read from /proc/PID/task/TID/children equals psutil's scan of /proc."""

from __future__ import annotations

import subprocess
import time

import psutil
import pytest

from referee.seats.process.sandbox import reaping


@pytest.mark.slow
def test_the_children_files_give_the_tree_psutil_finds(monkeypatch):
    # Three children of a shell, one of them with a child of its own.
    shell = subprocess.Popen(["sh", "-c", "sleep 30 & sleep 30 & (sleep 30; true) & wait"])
    try:
        deadline = time.monotonic() + 10
        while len(psutil.Process(shell.pid).children(recursive=True)) < 4 and time.monotonic() < deadline:
            time.sleep(0.02)
        scanned = sorted(p.pid for p in psutil.Process(shell.pid).children(recursive=True))
        direct = sorted(p.pid for p in psutil.Process(shell.pid).children())
        assert len(scanned) == 4
        if reaping.descendant_pids(shell.pid) is None:
            pytest.skip("this kernel has no /proc/PID/task/TID/children")
        assert sorted(reaping.child_pids(shell.pid, recursive=True)) == scanned
        assert sorted(reaping.child_pids(shell.pid)) == direct
        # Without the files, psutil's scan gives the same.
        monkeypatch.setattr(reaping, "_CHILDREN_FILES", False)
        assert reaping.descendant_pids(shell.pid) is None
        assert sorted(reaping.child_pids(shell.pid, recursive=True)) == scanned
    finally:
        for proc in psutil.Process(shell.pid).children(recursive=True):
            proc.kill()
        shell.kill()
        shell.wait()
