"""The layers of docs/architecture.md hold: no module imports from a higher layer.

The table under "Layers" in docs/architecture.md is the rule: every package (and the
two top-level modules) with its layer.  A module may import its own package and the
packages of lower layers only — not a package of its own layer, not one above.  Every
import counts: at the top of a module, inside a function (a lazy import is a dependency
all the same: it only moves the cost of loading) and under ``TYPE_CHECKING``.  The only
exceptions are the ones listed in the document's "Exceptions" list, each with its reason;
the test fails when one is no longer needed, so the list cannot rot.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
#: A row of the layer table: ``| 3 | `referee/seats/` | what it holds |``.
_ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*`([\w/.]+)`\s*\|")
#: An exception: ``- `referee.grade.compete` → `referee.cli.tournament`: why``.
_EXCEPTION = re.compile(r"^-\s*`([\w.]+)`\s*→\s*`([\w.]+)`:")


def documented() -> tuple[dict[str, int], set[tuple[str, str]]]:
    """The layer table (unit → layer) and the documented exceptions (module, import)."""
    layers: dict[str, int] = {}
    exceptions: set[tuple[str, str]] = set()
    section = None
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            section = line.strip("# ").lower()
            continue
        if section == "layers" and (row := _ROW.match(line)):
            layers[row.group(2)] = int(row.group(1))
        elif section == "exceptions" and (row := _EXCEPTION.match(line)):
            exceptions.add((row.group(1), row.group(2)))
    return layers, exceptions


def units() -> list[str]:
    """What the table must list: every package under referee/ (a folder with an
    ``__init__.py``), ``protocol/``, and referee's two top-level modules."""
    found = ["protocol/", "referee/__init__.py", "referee/__main__.py"]
    for init in sorted((ROOT / "referee").glob("*/__init__.py")):
        found.append(f"referee/{init.parent.name}/")
    return found


def unit_of(module: str) -> str | None:
    """The table's unit a dotted module name belongs to; None outside the project."""
    parts = module.split(".")
    if parts[0] == "protocol":
        return "protocol/"
    if parts[0] != "referee":
        return None
    if len(parts) > 1 and (ROOT / "referee" / parts[1] / "__init__.py").is_file():
        return f"referee/{parts[1]}/"
    if len(parts) > 1 and parts[1] == "__main__":
        return "referee/__main__.py"
    return "referee/__init__.py"  # ``referee`` itself, ``referee.__version__``


def modules() -> list[tuple[str, Path]]:
    out = []
    for path in sorted([*(ROOT / "referee").rglob("*.py"), *(ROOT / "protocol").rglob("*.py")]):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out.append((".".join(parts), path))
    return out


def imports(module: str, path: Path) -> list[tuple[int, str]]:
    """Every module ``module`` imports, anywhere in it: (line, dotted name).  ``from X
    import Y`` counts as ``X.Y`` (Y may be a module: ``from referee import games``)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def broken(layers: dict[str, int], source: str, target: str | None) -> str | None:
    """The rule an import from unit ``source`` of unit ``target`` breaks, or None: none
    for the project's outside, the own unit, or a lower layer."""
    if target is None or target == source or layers[target] < layers[source]:
        return None
    if layers[target] > layers[source]:
        return f"{target} is above {source} (layer {layers[target]} > {layers[source]})"
    return f"{target} and {source} share layer {layers[source]} and must not import each other"


def violations() -> tuple[list[str], set[tuple[str, str]]]:
    layers, exceptions = documented()
    bad: list[str] = []
    used: set[tuple[str, str]] = set()
    for module, path in modules():
        source = unit_of(module)
        assert source in layers, f"{module} belongs to {source}, which docs/architecture.md does not list"
        for line, name in imports(module, path):
            target = unit_of(name)
            assert target is None or target in layers, (
                f"{module} imports {name} of {target}, not in docs/architecture.md"
            )
            rule = broken(layers, source, target)
            if rule is None:
                continue
            # The imported module's own name: ``from a.b import C`` is a.b when a.b.C is
            # no module; exceptions name modules.
            imported = name
            while imported.count(".") > 1 and not _is_module(imported):
                imported = imported.rpartition(".")[0]
            if (module, imported) in exceptions:
                used.add((module, imported))
                continue
            bad.append(f"{path.relative_to(ROOT)}:{line}: {module} imports {name}: {rule}")
    return bad, exceptions - used


def _is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def test_every_package_has_a_layer():
    layers, _ = documented()
    assert layers, "docs/architecture.md has no layer table under 'Layers'"
    assert sorted(units()) == sorted(layers), (
        "the layer table of docs/architecture.md must list exactly the packages there are: "
        f"missing {sorted(set(units()) - set(layers))}, gone {sorted(set(layers) - set(units()))}"
    )


@pytest.mark.slow
def test_no_import_from_a_higher_layer():
    bad, _ = violations()
    assert not bad, "imports against the layers of docs/architecture.md:\n" + "\n".join(bad)


@pytest.mark.slow
def test_every_exception_is_still_needed():
    _, unused = violations()
    assert not unused, (
        f"documented exceptions no module needs any more (drop them from the doc): {sorted(unused)}"
    )


@pytest.mark.parametrize(
    ("source", "text", "caught"),
    [
        ("referee/core/x.py", "from referee.stats.sprt import SprtResult\n", True),
        ("referee/core/x.py", "def f():\n    from referee.seats import process\n", True),
        ("referee/seats/x.py", "from ..sinks import gamelog\n", True),  # a sibling of the same layer
        ("referee/seats/x.py", "from referee import games\n", False),
        ("referee/games/x.py", "from referee import __version__\n", False),
        ("protocol/x.py", "import referee.core.verdict\n", True),
    ],
)
def test_the_rule_itself(tmp_path, source, text, caught):
    """The checker's rule catches what it should in a planted module (and nothing more)."""
    module = ".".join(Path(source).with_suffix("").parts)
    planted = tmp_path / "x.py"
    planted.write_text(text)
    layers, _ = documented()
    own = unit_of(module)
    found = [name for _, name in imports(module, planted) if broken(layers, own, unit_of(name))]
    assert bool(found) is caught, found
