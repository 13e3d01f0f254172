"""Step 2 of ``referee grade``, the deciding half: what to build in a submission and how to run it.

:func:`detect` looks at one unpacked submission folder (``DEST/<id>/`` from
:mod:`referee.grade.unpack`: plain files, one top-level folder already flattened away) and
returns a :class:`Detected` — a build command (or none) and a run command, both argv lists
meant to run *in that folder*, and a one-line ``why`` for the student — or a
:class:`NotDetected` with a named outcome and a one-line reason that says how to fix it.
It only reads files: nothing is built or run here, so no sandbox is needed.

The rules
---------

A ``bot.toml`` or a ``Makefile`` is the student saying what to do, so those two win over
everything else, in this order.  The other rules are guesses from source files, and a
guess is only made when exactly **one** kind of source is present: a ``.c`` next to a
``.py`` could be a bot and its helper either way round, and picking one by a fixed order
would grade the wrong program without saying so.  Several kinds give ``ambiguous``.

====  ===============================  ===============================  =========================
rule  when (top level)                 build                            run
====  ===============================  ===============================  =========================
1     bot.toml                         sh -c BUILD (if any)             its run, split
2     GNUmakefile, makefile, Makefile  make                             ./bot or ./TARGET (below)
3     exactly one .c                   cc -O2 -o bot F.c -lm            ./bot
3'    exactly one .cpp, .cc or .cxx    c++ -O2 -std=c++17 -o bot F      ./bot
4     main.py, or exactly one .py      none                             python3 F
5     exactly one .java                javac -d . F                     java -cp . [PKG.]CLASS
6     main.js, or exactly one .js      none                             node F
7     go.mod, or exactly one .go       go build -o bot . (or F)         ./bot
8     Cargo.toml                       cargo build --release --offline  ./target/release/NAME
====  ===============================  ===============================  =========================

Commands are shown as typed; ``F`` is the file found.  Why each rule exists:

1. the manifest is the student's own words, and the one ``referee match`` reads: it must win;
2. a Makefile handles many files in any language, and is how C courses hand in;
3. the one-file C (or C++) bot is the most common first bot; ``-lm`` because bots use maths;
4. Python needs no build, and ``main.py`` is the usual entry point among helper modules;
5. the one-class Java bot, in a package or not;
6. JavaScript, as for Python;
7. a Go module builds as a whole, a lone ``.go`` file alone;
8. a Rust bot is a Cargo package; ``--offline`` because a build must fetch nothing.

Choices, and why
----------------

* **Top level only.**  Only the folder's own files count for rules 2–8 (``src/main.py``
  does not make a Python bot): the build and run commands run in the folder, and a file
  deeper down is as likely a test or an example as the entry point.  Java packages are
  supported from the top level: a ``Bot.java`` declaring ``package bots;`` compiles (with
  ``-d .``) to ``bots/Bot.class`` and runs as ``bots.Bot``.  Projects (``go.mod``,
  ``Cargo.toml``, a Makefile) may keep their sources anywhere; their tools find them.
* **Junk is not a candidate**: hidden files, ``README*``, ``*.md``, ``*.txt``, ``*.pdf``
  (and, in the "files seen" list, hidden folders and ``__pycache__``).
* **Several files of one kind** (two ``.c``, two ``.py`` and no ``main.py``, two
  ``.java``) are ``ambiguous`` too: compiling them together or choosing one is a guess;
  a Makefile or a ``bot.toml`` says it.  ``.h``/``.hpp`` headers are not counted.
* **The manifest** is checked by :func:`referee.core.botspec.resolve`, the reader
  ``referee match`` uses, so a manifest that passes here passes there (fields, an empty
  or unparsable ``run``, a file named outside the folder); its message, one line, with
  the folder's path shortened to ``bot.toml``, is the ``bad-manifest`` reason.  The
  manifest's ``build`` is a shell command line (``referee match --build`` runs it with a
  shell), so it becomes ``["sh", "-c", BUILD]``; ``run`` is split as botspec splits it,
  and left relative to the folder.
* **Makefile target**: ``./bot`` if the Makefile has a rule for ``bot``; otherwise the
  first rule at column 0 whose first target is a plain name (letters, digits, ``_ . + -
  /``; no ``$(VAR)``, no ``%`` pattern, not starting with a dot such as ``.PHONY``), that
  is not a conventional phony name (``all``, ``clean``, ``install``, ``test``, …) nor an
  object or source file (``x.o``, ``x.c``…); otherwise ``./bot``, the manifest-less
  convention.  Lines that assign a variable (``X := a:b``) are not rules.
* **Python is not compiled**: ``py_compile`` would write ``__pycache__`` into the
  submission and only catch syntax errors, which the next step's check shows anyway
  (the crash quotes the traceback).  ``build`` is None, so step 2 has nothing to do.
* **A lone ``.go`` without ``go.mod``** is built by file name: ``go build .`` refuses a
  folder outside a module.  Several ``.go`` without ``go.mod`` are ``ambiguous``.
* **Cargo**: ``NAME`` is the single ``[[bin]]``'s name when there is exactly one, else
  ``[package] name`` (the binary Cargo makes for ``src/main.rs``).  A ``Cargo.toml``
  that does not parse, has no name, or a name that is not a plain file name (it becomes
  a path) is ``bad-manifest``.
* **One line, always**: file names come from students and may hold newlines or control
  characters; every ``why`` and ``reason`` has them replaced by ``?``.
"""

from __future__ import annotations

import os
import re
import shlex
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import msgspec

from referee.core.botspec import MANIFEST, Manifest, resolve

#: Outcomes of :class:`NotDetected`.
NO_ENTRY_POINT = "no-entry-point"
AMBIGUOUS = "ambiguous"
BAD_MANIFEST = "bad-manifest"

#: What to advise whenever a guess cannot be made.
_ADVICE = f"add a {MANIFEST} naming the run command (and the build command, if any)"

#: How many file names a reason lists before "and N more".
_LIST_MAX = 5

#: At most this much of a Makefile or a Java file is read: enough for any real header.
_READ_MAX = 1 << 20


@dataclass(frozen=True)
class Detected:
    """What to build and how to run one submission; both commands run in its folder."""

    kind: str  #: "manifest", "makefile", "c", "cpp", "python", "java", "javascript", "go", "rust-cargo"
    build: list[str] | None  #: argv of the build command, or None when there is nothing to build
    run: list[str]  #: argv of the bot, paths relative to the submission folder
    why: str  #: one line for the student: what was found and what will be done


@dataclass(frozen=True)
class NotDetected:
    """Why no bot could be made out of a submission, and how the student can fix it."""

    outcome: str  #: "no-entry-point", "ambiguous" or "bad-manifest"
    reason: str  #: one line: what was found, what was expected, how to fix it


Result = Detected | NotDetected


# --------------------------------------------------------------------------- small helpers


def _line(text: str) -> str:
    """``text`` on one line: control characters (a newline in a file name) become ``?``."""
    return "".join("?" if ord(c) < 0x20 or ord(c) == 0x7F else c for c in text)


def _cmd(argv: list[str]) -> str:
    """An argv as a student would type it."""
    return shlex.join(argv)


def _names(names: list[str]) -> str:
    """``a, b, c`` — at most :data:`_LIST_MAX` names, then ``and N more``."""
    shown = ", ".join(names[:_LIST_MAX])
    more = len(names) - _LIST_MAX
    return f"{shown} and {more} more" if more > 0 else shown


def _detected(kind: str, build: list[str] | None, run: list[str], found: str) -> Detected:
    """A :class:`Detected` whose ``why`` reads "FOUND found: build with …, run with …"."""
    doing = f"build with {_cmd(build)}, run with {_cmd(run)}" if build else f"run with {_cmd(run)}"
    return Detected(kind=kind, build=build, run=run, why=_line(f"{found} found: {doing}"))


def _not(outcome: str, reason: str) -> NotDetected:
    return NotDetected(outcome=outcome, reason=_line(reason))


def _is_junk(name: str) -> bool:
    """Files that are never a bot's source: hidden files, READMEs, documents."""
    lower = name.lower()
    return name.startswith(".") or lower.startswith("readme") or lower.endswith((".md", ".txt", ".pdf"))


def _top_files(folder: Path) -> list[str]:
    """The names of the plain files at the folder's top level, junk left out, sorted."""
    with os.scandir(folder) as entries:
        names = [e.name for e in entries if e.is_file(follow_symlinks=False) and not _is_junk(e.name)]
    return sorted(names)


def _all_files(folder: Path) -> list[str]:
    """Every non-junk file under the folder, as relative paths (hidden folders and
    ``__pycache__`` skipped), sorted: what a ``no-entry-point`` reason lists."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
        rel = Path(root).relative_to(folder)
        found += [(rel / f).as_posix() for f in files if not _is_junk(f)]
    return sorted(found)


def _read(path: Path) -> str:
    """The start of a text file, undecodable bytes replaced (students' files are any encoding)."""
    with open(path, "rb") as f:
        return f.read(_READ_MAX).decode("utf-8", errors="replace")


def _with_suffix(files: list[str], *suffixes: str) -> list[str]:
    return [f for f in files if Path(f).suffix.lower() in suffixes]


# --------------------------------------------------------------------------- rule 1: bot.toml


def _manifest(folder: Path) -> Result:
    """Rule 1: check ``bot.toml`` with botspec's own reader, then take its commands."""
    manifest_path = folder / MANIFEST
    try:
        resolve(str(folder))
        manifest = msgspec.toml.decode(manifest_path.read_bytes(), type=Manifest)
        run = shlex.split(manifest.run)
    except (ValueError, msgspec.DecodeError) as exc:  # BotSpecError is a ValueError, as shlex's are
        message = " ".join(str(exc).replace(str(manifest_path), MANIFEST).split())
        if not message.startswith(MANIFEST):
            message = f"{MANIFEST}: 'run': {message}"  # shlex's own message names no file
        return _not(BAD_MANIFEST, f"{message} (see docs/writing-a-bot.md)")
    build = ["sh", "-c", manifest.build] if manifest.build and manifest.build.strip() else None
    return _detected("manifest", build, run, MANIFEST)


# --------------------------------------------------------------------------- rule 2: Makefile

#: make reads the first of these that exists.
_MAKEFILES = ("GNUmakefile", "makefile", "Makefile")

#: A rule's first target at column 0: a plain name, then ``:`` or ``::`` not followed by ``=``.
_RULE = re.compile(r"^([A-Za-z0-9_+][A-Za-z0-9_.+/-]*)[ \t]*(?:[ \t][^:=\n]*)?::?(?![:=])", re.MULTILINE)

#: Targets that are never the bot: conventional phony names.
_PHONY = {"all", "clean", "distclean", "install", "uninstall", "test", "tests", "check", "run", "default"}

#: Targets that are intermediate or source files, not programs.
_NOT_PROGRAMS = {".o", ".a", ".so", ".c", ".h", ".cpp", ".cc", ".hpp", ".class", ".py"}


def _make_target(text: str) -> str | None:
    """The program a Makefile makes: ``bot`` if it has that rule, else the first plain
    target that is not phony nor a file of another sort, else None."""
    targets = _RULE.findall(text)
    if "bot" in targets:
        return "bot"
    for target in targets:
        if target not in _PHONY and Path(target).suffix.lower() not in _NOT_PROGRAMS:
            return target
    return None


def _makefile(folder: Path, name: str) -> Result:
    """Rule 2: ``make``, then run the program it makes (``./bot`` unless it says otherwise)."""
    target = _make_target(_read(folder / name))
    if target is None or target == "bot":
        how = "its bot rule" if target else "no program target recognised, so the convention"
        return _detected("makefile", ["make"], ["./bot"], f"{name} ({how})")
    return _detected(
        "makefile", ["make"], [f"./{target.removeprefix('./')}"], f"{name} (first target {target})"
    )


# --------------------------------------------------------------------------- rules 3-8: one kind of source
#
# Each takes the folder and its top-level files and returns None when it does not apply,
# or its result — which may itself be "ambiguous" (two .c files) or "bad-manifest".


def _several(what: str, files: list[str], fix: str) -> NotDetected:
    return _not(AMBIGUOUS, f"{len(files)} {what} found ({_names(files)}): {fix}, or {_ADVICE}")


def _c(folder: Path, files: list[str]) -> Result | None:
    """Rule 3: exactly one ``.c`` file, compiled with the maths library."""
    sources = _with_suffix(files, ".c")
    if len(sources) > 1:
        return _several(".c files", sources, "add a Makefile that builds ./bot")
    if sources:
        return _detected("c", ["cc", "-O2", "-o", "bot", sources[0], "-lm"], ["./bot"], sources[0])
    return None


def _cpp(folder: Path, files: list[str]) -> Result | None:
    """Rule 3': exactly one C++ file."""
    sources = _with_suffix(files, ".cpp", ".cc", ".cxx")
    if len(sources) > 1:
        return _several("C++ files", sources, "add a Makefile that builds ./bot")
    if sources:
        return _detected("cpp", ["c++", "-O2", "-std=c++17", "-o", "bot", sources[0]], ["./bot"], sources[0])
    return None


def _script(kind: str, runner: str, suffix: str, files: list[str]) -> Result | None:
    """Rules 4 and 6: ``main.SUFFIX``, or the only ``.SUFFIX`` file, run by ``runner``."""
    sources = _with_suffix(files, suffix)
    main = f"main{suffix}"
    if main in sources:
        return _detected(kind, None, [runner, main], main)
    if len(sources) > 1:
        return _several(f"{suffix} files and no {main}", sources, f"name your entry point {main}")
    if sources:
        return _detected(kind, None, [runner, sources[0]], sources[0])
    return None


def _python(folder: Path, files: list[str]) -> Result | None:
    """Rule 4: Python, no build."""
    return _script("python", "python3", ".py", files)


def _javascript(folder: Path, files: list[str]) -> Result | None:
    """Rule 6: JavaScript, no build."""
    return _script("javascript", "node", ".js", files)


_JAVA_PACKAGE = re.compile(r"^\s*package\s+([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)\s*;", re.MULTILINE)
_JAVA_PUBLIC_CLASS = re.compile(r"\bpublic\s+(?:(?:final|abstract|strictfp)\s+)*class\s+([A-Za-z_$][\w$]*)")


def java_class(text: str, stem: str) -> str:
    """The class ``java`` must run for a source file: its public class (else the file's
    stem), qualified by its package.  ``javac -d .`` puts ``package a.b`` in ``a/b/``."""
    public = _JAVA_PUBLIC_CLASS.search(text)
    name = public.group(1) if public else stem
    package = _JAVA_PACKAGE.search(text)
    return f"{''.join(package.group(1).split())}.{name}" if package else name


def _java(folder: Path, files: list[str]) -> Result | None:
    """Rule 5: exactly one ``.java`` file."""
    sources = _with_suffix(files, ".java")
    if len(sources) > 1:
        return _several(".java files", sources, "put your bot in one file")
    if not sources:
        return None
    source = sources[0]
    klass = java_class(_read(folder / source), Path(source).stem)
    return _detected("java", ["javac", "-d", ".", source], ["java", "-cp", ".", klass], source)


def _go(folder: Path, files: list[str]) -> Result | None:
    """Rule 7: a Go module (``go.mod``), or one lone ``.go`` file."""
    if "go.mod" in files:
        return _detected("go", ["go", "build", "-o", "bot", "."], ["./bot"], "go.mod")
    sources = _with_suffix(files, ".go")
    if len(sources) > 1:
        return _several(".go files and no go.mod", sources, "add a go.mod (go mod init bot)")
    if sources:
        return _detected("go", ["go", "build", "-o", "bot", sources[0]], ["./bot"], sources[0])
    return None


_CARGO_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*")


def cargo_binary(cargo_toml: dict) -> str | None:
    """The binary ``cargo build`` makes: the single ``[[bin]]``'s name, else ``[package] name``."""
    bins = [b.get("name") for b in cargo_toml.get("bin", []) if isinstance(b, dict)]
    if len(bins) == 1 and isinstance(bins[0], str):
        return bins[0]
    package = cargo_toml.get("package")
    name = package.get("name") if isinstance(package, dict) else None
    return name if isinstance(name, str) else None


def _cargo(folder: Path, files: list[str]) -> Result | None:
    """Rule 8: a Cargo package, built offline in release mode."""
    if "Cargo.toml" not in files:
        return None
    try:
        name = cargo_binary(tomllib.loads(_read(folder / "Cargo.toml")))
    except tomllib.TOMLDecodeError as exc:
        return _not(BAD_MANIFEST, f"Cargo.toml does not parse: {' '.join(str(exc).split())}")
    if name is None or not _CARGO_NAME.fullmatch(name):
        return _not(
            BAD_MANIFEST, "Cargo.toml names no binary: give it a [package] name (letters, digits, _ -)"
        )
    build = ["cargo", "build", "--release", "--offline"]
    return _detected("rust-cargo", build, [f"./target/release/{name}"], "Cargo.toml")


#: Rules 3-8, with the kind each names in an "ambiguous" reason.
_SOURCE_RULES: list[tuple[str, Callable[[Path, list[str]], Result | None]]] = [
    ("C", _c),
    ("C++", _cpp),
    ("Python", _python),
    ("Java", _java),
    ("JavaScript", _javascript),
    ("Go", _go),
    ("Rust", _cargo),
]


def _evidence(result: Result) -> str:
    """What a rule found, for an "ambiguous" reason: its ``why`` up to "found"."""
    if isinstance(result, Detected):
        return result.why.split(" found:", 1)[0]
    return result.reason.split(":", 1)[0]


# --------------------------------------------------------------------------- detect


def detect(folder: Path) -> Detected | NotDetected:
    """Decide what to build in ``folder`` and how to run it, from its files alone (see the
    module's table).  ``folder`` must exist; nothing in it is run or changed."""
    folder = Path(folder)
    files = _top_files(folder)
    if MANIFEST in files:
        return _manifest(folder)
    makefile = next((name for name in _MAKEFILES if name in files), None)
    if makefile is not None:
        return _makefile(folder, makefile)
    found = [(kind, result) for kind, rule in _SOURCE_RULES if (result := rule(folder, files)) is not None]
    if len(found) > 1:
        kinds = "; ".join(f"{kind} ({_evidence(result)})" for kind, result in found)
        return _not(AMBIGUOUS, f"more than one kind of program found: {kinds}; {_ADVICE}")
    if found:
        return found[0][1]
    seen = _all_files(folder)
    if seen:
        listing = f"files seen: {_names(seen)}"
    else:
        docs = sorted(p.name for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
        what = "which is not a program" if len(docs) == 1 else "which are not programs"
        listing = f"only {_names(docs)}, {what}" if docs else "the submission has no files"
    return _not(
        NO_ENTRY_POINT,
        f"no bot found ({listing}); expected at the top level a {MANIFEST}, a Makefile, go.mod, Cargo.toml, "
        "main.py, main.js, or a single .c, .cpp, .py, .java, .js or .go file: move your files there, or "
        + _ADVICE,
    )
