"""setup.py's compiled modules: the suite runs them as a server does, built from the
sources as they are now."""

import ast
import importlib
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def compiled_sources() -> list[str]:
    """setup.py's ``COMPILED``, read without running setup.py."""
    for node in ast.parse((ROOT / "setup.py").read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "COMPILED":
            return ast.literal_eval(node.value)
    raise AssertionError("setup.py names no COMPILED modules")


@pytest.mark.parametrize("source", compiled_sources())
def test_each_compiled_module_is_imported_compiled_from_its_current_source(source):
    module = importlib.import_module(source.removesuffix(".py").replace("/", "."))
    loaded = Path(module.__file__)
    assert loaded.name.endswith(tuple(EXTENSION_SUFFIXES)), (
        f"{module.__name__} runs as Python here, not as a server runs it: run `make setup`"
    )
    assert loaded.stat().st_mtime >= (ROOT / source).stat().st_mtime, (
        f"{loaded.name} was built from an older {source}: run `make setup`"
    )
