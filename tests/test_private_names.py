"""No module reaches into another's private names (those starting with one underscore).

A private name is free to change with its module; code elsewhere, tests included, goes
through the public names instead.
"""

import ast
from pathlib import Path

from scripts.layering import ROOT, imports_of, project_modules

# Django's documented API, despite the underscore.
PUBLIC = {"_meta"}


def is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name not in PUBLIC


def private_uses(module: str, source: str) -> list[str]:
    """The other modules' private names that ``source`` (the text of ``module``) uses."""
    found = []
    tree = ast.parse(source)
    imported_modules = {}  # local name -> project module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or node.level):
            for alias in node.names:
                if is_private(alias.name):
                    found.append(f"{module} imports {alias.name} from {node.module or '.'}")
                else:
                    full = f"{node.module}.{alias.name}" if node.module else alias.name
                    imported_modules[alias.asname or alias.name] = full
        elif isinstance(node, ast.Import):
            for alias in node.names:
                imported_modules[alias.asname or alias.name.split(".")[0]] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and is_private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in imported_modules
            and imports_of(module, f"import {imported_modules[node.value.id]}")
        ):
            found.append(f"{module} uses {node.value.id}.{node.attr}")
    return found


def scanned_files() -> dict[str, Path]:
    files = dict(project_modules())
    for folder in ("tests", "benchmarks"):
        for path in (ROOT / folder).rglob("*.py"):
            files[".".join(path.relative_to(ROOT).with_suffix("").parts)] = path
    return files


def test_no_module_uses_another_modules_private_names():
    found = []
    for module, path in sorted(scanned_files().items()):
        found += private_uses(module, path.read_text())
    assert found == []


def test_the_check_sees_private_imports_and_attributes():
    assert private_uses("tests.x", "from games.services import _lock") != []
    assert private_uses("tests.x", "from games import services\nservices._record(1)") != []
    assert private_uses("tests.x", "from games import services\nservices.append_events(1)") == []
    assert private_uses("tests.x", "import json\njson._default_decoder") == []  # not ours
