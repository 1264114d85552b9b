"""Bots are players, not rules: they use only the engine's public names, and the engine
knows nothing of them."""

import ast
from pathlib import Path

from games import rules

ROOT = Path(__file__).resolve().parents[3]


def sources(package: str) -> dict[str, ast.Module]:
    return {
        str(path.relative_to(ROOT)): ast.parse(path.read_text())
        for path in (ROOT / package).rglob("*.py")
    }


def engine_names_used(tree: ast.Module) -> tuple[set[str], set[str]]:
    """The modules a bot module imports from the engine, and the ``rules.X`` it uses."""
    modules, names = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 0 and (node.module or "").startswith("games.rules"):
                modules.add(node.module)
            if node.level == 0 and node.module == "games":
                modules.update(f"games.{alias.name}" for alias in node.names)
            if node.level > 1:
                modules.add("." * node.level + (node.module or ""))
        elif isinstance(node, ast.Import):
            modules.update(a.name for a in node.names if a.name.startswith("games.rules"))
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "rules"
        ):
            names.add(node.attr)
    return modules, names


def test_bots_use_the_engine_through_its_public_names_only():
    used = set()
    for path, tree in sources("games/bots").items():
        modules, names = engine_names_used(tree)
        # "from games import rules" and nothing deeper (no games.rules.scoring, no "..").
        assert modules <= {"games.rules", "games.bots"}, path
        used |= names
    assert used <= set(rules.__all__), sorted(used - set(rules.__all__))
    assert "cost_graph" in used  # the check sees the names the bots use


def test_the_engine_imports_nothing_of_the_bots():
    for path, tree in sources("games/rules").items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert not (node.module or "").startswith("games"), path
                assert node.level <= 1, path  # nothing outside games/rules
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("games") for a in node.names), path


def test_the_engine_exports_no_private_name():
    assert not [name for name in rules.__all__ if name.startswith("_")]
    for name in rules.__all__:
        getattr(rules, name)
