"""The project's layers and a reader of its imports, shared by the layering test
(tests/test_layers.py, which states the rule) and scripts/call-walk (which measures how
often a request's calls climb back out through them).

Read with ``ast`` only: nothing of the project is imported, so it reads any checkout.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("helpers", "accounts", "games", "notifications", "pbem")
# Innermost first: a module may import from its own layer and those before it.
LAYERS = ("helpers", "games.rules", "games.bots", "accounts", "games", "notifications")
OUTER = "outer"
OUTER_PARTS = {"views", "urls", "admin", "templatetags", "apps", "management", "migrations"}


def project_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every Python module of the project under ``root``, by dotted name."""
    found = {}
    for package in PACKAGES:
        for path in (root / package).rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def imports_of(module: str, source: str, is_package: bool = False) -> set[str]:
    """The project modules ``source`` (the text of ``module``) imports, anywhere in it."""
    return {
        name
        for name in all_imports_of(module, source, is_package)
        if name.split(".")[0] in PACKAGES
    }


def all_imports_of(module: str, source: str, is_package: bool = False) -> set[str]:
    """Every module ``source`` (the text of ``module``) imports, anywhere in it."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = absolute(module, node, is_package)
            found.add(base)
            # "from games import rules" imports the module games.rules.
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def absolute(module: str, node: ast.ImportFrom, is_package: bool = False) -> str:
    """The dotted name an ``from ... import`` in ``module`` reads from, relative or not."""
    base = node.module or ""
    if not node.level:
        return base
    anchor = (module if is_package else module.rpartition(".")[0]).split(".")
    anchor = anchor[: len(anchor) - (node.level - 1)]
    return ".".join(anchor + ([base] if base else []))


def layer_of(module: str) -> str:
    """The layer a module belongs to: one of LAYERS, or OUTER."""
    parts = module.split(".")
    if parts[0] == "pbem" or OUTER_PARTS & set(parts):
        return OUTER
    for layer in LAYERS:
        if module == layer or module.startswith(layer + "."):
            return layer
    raise AssertionError(f"{module} belongs to no layer: add it to LAYERS")


def depth(layer: str) -> int:
    """How far out ``layer`` lies: 0 for the innermost, the outer layer last."""
    return len(LAYERS) if layer == OUTER else LAYERS.index(layer)
