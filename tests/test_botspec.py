"""Naming bots: executables, commands, manifest directories, unique names."""

import os
import sys

import pytest

from referee.core.botspec import BotSpecError, resolve, safe_name, unique_names
from referee.core.limits import Limits, LimitsOverride


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


def test_a_manifest_name_cannot_become_a_path(tmp_path):
    """The name goes into file names (its stderr file, its working directory): a
    manifest's ``name = "../../etc/x"`` must stay one harmless file name."""
    (tmp_path / "bot.toml").write_text('name = "../../etc/bash_completion.d/x"\nrun = "true"\n')
    name = resolve(str(tmp_path)).name
    assert "/" not in name and not name.startswith(".") and name
    assert safe_name("") == "bot" and safe_name("ok-name_1.2") == "ok-name_1.2"


def test_a_manifest_may_only_lower_its_limits():
    """A manifest is its author's: it may tighten a limit, never loosen one; the
    command line may do both (docs/limits-and-verdicts.md)."""
    game = Limits(decision_s=10.0, cpu_s=600.0, memory_bytes=2 << 30, stderr_bytes=1 << 20)
    asked = LimitsOverride(
        decision_s=1e9, cpu_s=5.0, memory_bytes=1 << 40, stderr_bytes=16 << 30, processes=8
    )
    got = game.lowered(asked)
    assert (got.decision_s, got.cpu_s, got.memory_bytes, got.stderr_bytes) == (10.0, 5.0, 2 << 30, 1 << 20)
    assert got.processes == 8
    assert Limits(cpu_s=None).lowered(LimitsOverride(cpu_s=3.0)).cpu_s == 3.0  # None: no limit at all
    assert game.lowered(asked).merged(LimitsOverride(decision_s=30.0)).decision_s == 30.0


def test_a_manifest_mistake_is_said_in_the_files_words(tmp_path):
    """A misspelt key names the key meant, and where (not msgspec's "Object contains
    unknown field ... - at `$.limits`")."""
    from referee.core.botspec import BotSpecError, resolve

    bot = tmp_path / "bot"
    bot.mkdir()
    cases = {
        'rnu = "./bot"\n': "unknown key `rnu` (did you mean `run`?)",
        'run = "./bot"\n[limits]\ndecison_s = 1\n': "unknown key `decison_s` in [limits] (did you mean `decision_s`?)",
        'name = "x"\n': "`run` is missing",
        'run = "./bot"\n[limits]\ndecision_s = "fast"\n': "limits.decision_s: must be a number, not a string",
    }
    for text, words in cases.items():
        (bot / "bot.toml").write_text(text)
        with pytest.raises(BotSpecError) as caught:
            resolve(str(bot))
        assert words in str(caught.value), str(caught.value)
