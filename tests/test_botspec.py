"""Naming bots: executables, commands, manifest directories, unique names."""

import os
import sys

import pytest

from referee.botspec import BotSpecError, resolve, unique_names
from referee.limits import Limits


def test_executable_file(tmp_path):
    bot = tmp_path / "alpha.sh"
    bot.write_text("#!/bin/sh\n")
    bot.chmod(0o755)
    spec = resolve(str(bot))
    assert spec.name == "alpha" and spec.argv == [str(bot.resolve())] and spec.home == str(tmp_path.resolve())


def test_non_executable_file_is_refused_with_a_hint(tmp_path):
    bot = tmp_path / "beta.py"
    bot.write_text("print(1)\n")
    with pytest.raises(BotSpecError, match=r"not executable.*python3"):
        resolve(str(bot))


def test_command_line_makes_file_words_absolute(tmp_path):
    (tmp_path / "gamma.py").write_text("")
    spec = resolve("python3 gamma.py --level 3", cwd=tmp_path)
    assert spec.argv == ["python3", str(tmp_path / "gamma.py"), "--level", "3"]
    assert spec.name == "gamma" and spec.home == str(tmp_path)


def test_unknown_command(tmp_path):
    with pytest.raises(BotSpecError, match="no such file"):
        resolve("definitely-not-a-program-xyz", cwd=tmp_path)


def test_manifest_directory(tmp_path):
    (tmp_path / "main.py").write_text("")
    (tmp_path / "bot.toml").write_text(
        'name = "delta"\nrun = "python3 main.py"\nbuild = "true"\n[limits]\ndecision_s = 2.5\nmemory_bytes = 1000000\n'
    )
    spec = resolve(str(tmp_path))
    assert (
        spec.name == "delta" and spec.argv == ["python3", str(tmp_path / "main.py")] and spec.build == "true"
    )
    limits = Limits().merged(spec.limits)
    assert (
        limits.decision_s == 2.5 and limits.memory_bytes == 1000000 and limits.startup_s == Limits().startup_s
    )


def test_manifest_errors_are_one_line(tmp_path):
    with pytest.raises(BotSpecError, match=r"bot\.toml"):
        resolve(str(tmp_path))
    (tmp_path / "bot.toml").write_text('run = "x"\n[limits]\nbogus = 1\n')
    with pytest.raises(BotSpecError, match="bogus"):
        resolve(str(tmp_path))


def test_unique_names(tmp_path):
    specs = [resolve(f"{sys.executable} -c pass", cwd=tmp_path) for _ in range(2)]
    specs.append(resolve(os.path.realpath(sys.executable)))
    names = [s.name for s in unique_names(specs)]
    assert len(set(names)) == 3


def test_a_manifest_may_not_name_files_outside_its_directory(tmp_path):
    """Every file a command names is made visible to the bot in its sandbox, and a
    manifest is the bot author's: naming another directory's file (``..`` or absolute)
    would widen its own sandbox (docs/security.md).  System files stay allowed."""
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "secret.txt").write_text("x")
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "main.py").write_text("pass\n")
    for run in ("python3 main.py ../other/secret.txt", f"python3 main.py {tmp_path}/other/secret.txt"):
        (bot / "bot.toml").write_text(f'run = "{run}"\n')
        with pytest.raises(BotSpecError, match="outside the bot's directory"):
            resolve(str(bot))
    (bot / "bot.toml").write_text('run = "/usr/bin/env python3 main.py"\n')
    assert resolve(str(bot)).argv[:2] == ["/usr/bin/env", "python3"]
