"""Deciding what to build and run in a submission (referee.grade.detect).

Every test writes a submission folder in ``tmp_path`` and calls :func:`detect` on it;
nothing is compiled or run.  :func:`_detect` also checks what holds for every result:
``why`` and ``reason`` are one line, and the folder is left exactly as it was.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.grade.detect import Detected, NotDetected, detect


def _folder(tmp_path: Path, files: dict[str, str]) -> Path:
    """A submission folder holding ``files`` (relative path → text)."""
    folder = tmp_path / "sub"
    folder.mkdir()
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _detect(tmp_path: Path, files: dict[str, str]) -> Detected | NotDetected:
    """``detect`` on a folder of ``files``, checking the promises every result keeps."""
    folder = _folder(tmp_path, files)
    before = _tree(folder)
    result = detect(folder)
    assert _tree(folder) == before, "detect changed the folder"
    text = result.why if isinstance(result, Detected) else result.reason
    assert text and "\n" not in text and "\r" not in text
    return result


def _found(tmp_path: Path, files: dict[str, str]) -> Detected:
    result = _detect(tmp_path, files)
    assert isinstance(result, Detected), result
    return result


def _refused(tmp_path: Path, files: dict[str, str], outcome: str) -> str:
    """The reason of a NotDetected with ``outcome``."""
    result = _detect(tmp_path, files)
    assert isinstance(result, NotDetected), result
    assert result.outcome == outcome, result
    return result.reason


# --------------------------------------------------------------------------- rule 1: bot.toml


def test_manifest_wins_over_everything(tmp_path: Path) -> None:
    """A bot.toml is used even beside a Makefile and sources of several kinds; its build
    becomes a shell command (as ``referee match --build`` runs it), its run stays relative."""
    result = _found(
        tmp_path,
        {
            "bot.toml": 'name = "x"\nrun = "python3 src/play.py --fast"\nbuild = "make -C src && strip x"\n',
            "Makefile": "bot:\n\tcc -o bot bot.c\n",
            "bot.c": "int main(void){return 0;}\n",
            "main.py": "",
            "src/play.py": "",
        },
    )
    assert result.kind == "manifest"
    assert result.build == ["sh", "-c", "make -C src && strip x"]
    assert result.run == ["python3", "src/play.py", "--fast"]
    assert result.why.startswith("bot.toml found:")


def test_manifest_without_build(tmp_path: Path) -> None:
    """A manifest with no build command has nothing to build."""
    result = _found(tmp_path, {"bot.toml": 'run = "./bot.sh"\n', "bot.sh": "#!/bin/sh\n"})
    assert (result.kind, result.build, result.run) == ("manifest", None, ["./bot.sh"])


@pytest.mark.parametrize(
    ("manifest", "says"),
    [
        ('name = "x"\n', "run"),  # no run command
        ('run = "python3 main.py"\ncolour = "red"\n', "colour"),  # a field botspec does not know
        ("run = \n", ""),  # not TOML
        ('run = ""\n', "empty"),
        ('run = "python3 \'main.py"\n', "quotation"),  # shlex cannot split it
        ('run = "python3 ../other/secret.py"\n', "outside"),  # names a file outside the folder
    ],
)
def test_bad_manifest(tmp_path: Path, manifest: str, says: str) -> None:
    """A manifest botspec refuses is bad-manifest, with botspec's message on one line and
    the grader's path to the folder shortened to bot.toml."""
    if "../other" in manifest:
        (tmp_path / "other").mkdir()
        (tmp_path / "other" / "secret.py").write_text("")
    reason = _refused(tmp_path, {"bot.toml": manifest, "main.py": ""}, "bad-manifest")
    assert says in reason
    assert str(tmp_path) not in reason.replace(str(tmp_path / "other"), "")
    assert reason.startswith("bot.toml")


# --------------------------------------------------------------------------- rule 2: Makefile


def test_makefile_with_bot_target(tmp_path: Path) -> None:
    """A Makefile with a ``bot`` rule: make, then ./bot — and it wins over the sources."""
    makefile = (
        "CFLAGS := -O2 -Wall\n.PHONY: all clean\nall: bot\n\n"
        "bot: a.c b.c\n\t$(CC) -o $@ $^\nclean:\n\trm -f bot\n"
    )
    result = _found(tmp_path, {"Makefile": makefile, "a.c": "", "b.c": "", "tool.py": ""})
    assert (result.kind, result.build, result.run) == ("makefile", ["make"], ["./bot"])


def test_makefile_first_target(tmp_path: Path) -> None:
    """Without a ``bot`` rule, the first plain target that is not phony nor an object file."""
    makefile = (
        "X ::= a:b\nCC = gcc\n.PHONY: all\nall: player\n"
        "main.o: main.c\n\tcc -c main.c\nplayer: main.o\n\tcc -o player main.o\n"
    )
    result = _found(tmp_path, {"makefile": makefile, "main.c": ""})
    assert (result.build, result.run) == (["make"], ["./player"])
    assert "player" in result.why


def test_makefile_without_a_recognisable_target(tmp_path: Path) -> None:
    """A Makefile whose targets are all variables or patterns falls back to ./bot."""
    result = _found(tmp_path, {"GNUmakefile": "$(OUT): %.o\n\tcc -o $@ $^\n%.o: %.c\n\tcc -c $<\n"})
    assert result.run == ["./bot"]


# --------------------------------------------------------------------------- rules 3-8


def test_single_c(tmp_path: Path) -> None:
    """One .c file (headers beside it do not count) is compiled to ./bot with libm."""
    result = _found(tmp_path, {"player.c": "", "util.h": ""})
    assert result.kind == "c"
    assert result.build == ["cc", "-O2", "-o", "bot", "player.c", "-lm"]
    assert result.run == ["./bot"]


def test_single_cpp(tmp_path: Path) -> None:
    """One .cpp (or .cc) file is compiled as C++17."""
    result = _found(tmp_path, {"bot.cc": "", "board.hpp": ""})
    assert result.kind == "cpp"
    assert result.build == ["c++", "-O2", "-std=c++17", "-o", "bot", "bot.cc"]
    assert result.run == ["./bot"]


def test_main_py_among_helpers(tmp_path: Path) -> None:
    """main.py is the entry point among other modules; Python has nothing to build."""
    result = _found(tmp_path, {"main.py": "", "strategy.py": "", "util.py": ""})
    assert (result.kind, result.build, result.run) == ("python", None, ["python3", "main.py"])
    assert result.why == "main.py found: run with python3 main.py"


def test_single_py(tmp_path: Path) -> None:
    """A lone .py file is the bot, whatever its name."""
    result = _found(tmp_path, {"my bot.py": ""})
    assert result.run == ["python3", "my bot.py"]
    assert "'my bot.py'" in result.why  # quoted as a shell would need it


def test_java_public_class(tmp_path: Path) -> None:
    """A .java file runs as its public class."""
    source = "import java.util.*;\n\npublic final class Bot {\n  public static void main(String[] a) {}\n}\n"
    result = _found(tmp_path, {"Bot.java": source})
    assert result.kind == "java"
    assert result.build == ["javac", "-d", ".", "Bot.java"]
    assert result.run == ["java", "-cp", ".", "Bot"]


def test_java_with_package(tmp_path: Path) -> None:
    """A package declaration qualifies the class (javac -d . puts it in its package folder)."""
    source = "// my bot\npackage edu.course.bots;\n\npublic class Player {}\n"
    result = _found(tmp_path, {"Player.java": source})
    assert result.run == ["java", "-cp", ".", "edu.course.bots.Player"]


def test_java_without_public_class(tmp_path: Path) -> None:
    """No public class: the file's stem names the class."""
    assert _found(tmp_path, {"Solver.java": "class Solver {}\n"}).run == ["java", "-cp", ".", "Solver"]


def test_main_js(tmp_path: Path) -> None:
    """main.js is run with node, beside other scripts."""
    result = _found(tmp_path, {"main.js": "", "lib.js": ""})
    assert (result.kind, result.build, result.run) == ("javascript", None, ["node", "main.js"])


def test_go_module(tmp_path: Path) -> None:
    """A go.mod builds the whole module to ./bot."""
    result = _found(tmp_path, {"go.mod": "module bot\n", "main.go": "", "eval.go": ""})
    assert (result.kind, result.build, result.run) == ("go", ["go", "build", "-o", "bot", "."], ["./bot"])


def test_single_go_file(tmp_path: Path) -> None:
    """A lone .go file without go.mod is built by name (go build . needs a module)."""
    assert _found(tmp_path, {"bot.go": ""}).build == ["go", "build", "-o", "bot", "bot.go"]


def test_cargo_package_name(tmp_path: Path) -> None:
    """Cargo builds offline in release mode; the binary is named after the package."""
    cargo = '[package]\nname = "yahtzee-bot"\nversion = "0.1.0"\n\n[dependencies]\n'
    result = _found(tmp_path, {"Cargo.toml": cargo, "Cargo.lock": "", "src/main.rs": ""})
    assert result.kind == "rust-cargo"
    assert result.build == ["cargo", "build", "--release", "--offline"]
    assert result.run == ["./target/release/yahtzee-bot"]


def test_cargo_bin_name(tmp_path: Path) -> None:
    """A single [[bin]] names the binary instead of the package."""
    cargo = '[package]\nname = "pkg"\n\n[[bin]]\nname = "player"\npath = "src/p.rs"\n'
    assert _found(tmp_path, {"Cargo.toml": cargo}).run == ["./target/release/player"]


@pytest.mark.parametrize(
    "cargo", ["[package\n", '[workspace]\nmembers = ["a"]\n', '[package]\nname = "../../bin/sh"\n']
)
def test_bad_cargo_toml(tmp_path: Path, cargo: str) -> None:
    """A Cargo.toml that does not parse, names no binary, or names a path is bad-manifest."""
    assert _refused(tmp_path, {"Cargo.toml": cargo}, "bad-manifest").startswith("Cargo.toml")


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("files", "named"),
    [
        ({"bot.c": "", "main.py": ""}, ["C (bot.c)", "Python (main.py)"]),
        ({"a.py": "", "b.py": ""}, ["a.py, b.py", "main.py"]),
        ({"a.c": "", "b.c": ""}, ["a.c, b.c", "Makefile"]),
        ({"A.java": "", "B.java": ""}, ["A.java, B.java"]),
        ({"a.go": "", "b.go": ""}, ["go.mod"]),
        ({"go.mod": "", "main.go": "", "viz.js": ""}, ["Go (go.mod)", "JavaScript (viz.js)"]),
        ({"x.c": "", "y.cpp": ""}, ["C (x.c)", "C++ (y.cpp)"]),
    ],
)
def test_ambiguous(tmp_path: Path, files: dict[str, str], named: list[str]) -> None:
    """Several kinds, or several files of one kind with no entry point, are ambiguous:
    the reason names what was found and advises a bot.toml."""
    reason = _refused(tmp_path, files, "ambiguous")
    for text in named:
        assert text in reason
    assert "bot.toml" in reason


def test_nothing_recognised(tmp_path: Path) -> None:
    """No entry point: the reason lists up to 5 files seen (nested ones too), says what was
    expected, and advises a bot.toml."""
    files = {f"src/m{i}.py": "" for i in range(7)} | {"notes.odt": ""}
    reason = _refused(tmp_path, files, "no-entry-point")
    assert "notes.odt, src/m0.py, src/m1.py, src/m2.py, src/m3.py and 3 more" in reason
    assert "main.py" in reason and "bot.toml" in reason


def test_empty_folder(tmp_path: Path) -> None:
    """An empty folder says so."""
    assert "no files" in _refused(tmp_path, {}, "no-entry-point")


def test_junk_ignored(tmp_path: Path) -> None:
    """READMEs, documents, hidden files and folders, __pycache__ and deeper files are not
    candidates: the single main.c still decides."""
    files = {
        "main.c": "",
        "README": "",
        "README.py": "",
        "notes.md": "",
        "out.txt": "",
        "report.pdf": "",
        ".hidden.py": "",
        ".git/hook.py": "",
        "__pycache__/x.py": "",
        "tests/test_x.py": "",
    }
    assert _found(tmp_path, files).kind == "c"


def test_only_junk_is_no_entry_point(tmp_path: Path) -> None:
    """Junk is not listed among the files seen either; a README alone is named, as not a
    program (a student who handed in only their write-up is told so, not "no files")."""
    reason = _refused(tmp_path, {"README.md": "", ".x.py": "", "__pycache__/a.py": ""}, "no-entry-point")
    assert "only README.md, which is not a program" in reason and ".x.py" not in reason


def test_control_characters_in_names_stay_on_one_line(tmp_path: Path) -> None:
    """A file name with a newline (an archive can carry one) cannot break the one-line why."""
    result = _found(tmp_path, {"evil\nname.py": ""})
    assert result.run == ["python3", "evil\nname.py"]
    assert "?" in result.why
