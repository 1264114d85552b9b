"""The project's modules depend in one direction only (DESIGN.md, "Layers").

Inner layers, innermost first: ``helpers`` (code with no domain: it imports only the
standard library, Django, Celery and kombu), ``games.rules`` (the pure engine: it imports
nothing of the project and no library), ``games.bots`` (players that use only the engine),
``accounts``, ``games``, ``notifications``. A module may import
its own layer and the layers inside it, never one outside it. Views, URLs, admin, template
tags, app configs, management commands, migrations and ``pbem`` are the outer layer and may
import anything. Task modules may import logic and other task modules; logic never imports
a task module (work is queued from receivers or on-commit hooks).

Every import counts, those inside functions included. The layers and the import reader
live in scripts/layering.py, which scripts/call-walk reads too.
"""

import sys

import pytest

from scripts.layering import LAYERS, PACKAGES, all_imports_of, imports_of, layer_of, project_modules

# What the innermost layers may import besides the standard library.
ALLOWED_LIBRARIES = {"helpers": {"django", "celery", "kombu"}, "games.rules": set()}
# Modules that may queue work, and so import task modules.
QUEUERS = {"tasks", "receivers"}


def is_task_module(module: str) -> bool:
    return module.rpartition(".")[2] == "tasks"


def violation(source: str, target: str) -> str | None:
    """Why ``source`` may not import ``target``, or None when it may."""
    src, dst = layer_of(source), layer_of(target)
    if src == "outer":
        return None
    if dst == "outer":
        return f"{source} ({src}) imports the outer layer's {target}"
    if src in ALLOWED_LIBRARIES and dst != src:
        return f"{source} ({src}) imports the project's {target}: it may import only itself"
    if LAYERS.index(dst) > LAYERS.index(src):
        return f"{source} ({src}) imports {target} ({dst}), a layer outside it"
    if is_task_module(target) and source.rpartition(".")[2] not in QUEUERS:
        return f"{source} is logic and imports the task module {target}: queue from a receiver"
    return None


def all_violations() -> list[str]:
    modules = project_modules()
    found = []
    for module, path in sorted(modules.items()):
        targets = imports_of(module, path.read_text(), path.name == "__init__.py")
        for target in sorted(targets):
            # "from games import rules" names the package only on the way to games.rules.
            if any(other.startswith(target + ".") for other in targets):
                continue
            if target in modules and (why := violation(module, target)):
                found.append(why)
    return found


def test_no_module_imports_outwards():
    assert all_violations() == []


@pytest.mark.parametrize(
    ("source", "text", "wrong"),
    [
        ("games.rules.turns", "from games.bots import greedy", True),
        ("games.rules.turns", "from ..bots import greedy", True),  # games.bots
        ("games.rules.turns", "from .network import network", False),
        ("games.rules.turns", "from games.models import Game", True),
        ("accounts.models", "def f():\n    from games.models import Seat", True),
        ("games.services", "from notifications import emails", True),
        ("games.services", "import games.tasks", True),
        ("games.receivers", "from games import tasks", False),
        ("games.services", "from accounts.models import User", False),
        ("games.services.moves", "from helpers.claims import Claim", False),
        ("helpers.claims", "from games.models import Game", True),
        ("helpers.text", "from accounts import models", True),
        ("games.rules.turns", "from helpers import text", True),
        ("notifications.emails", "from games import links", False),
        ("games.services", "from games.views import play", True),
        ("games.views.play", "from notifications import emails", False),
        ("games.bots.strong", "from games import rules", False),
    ],
)
def test_the_rule_catches_outward_imports(source, text, wrong):
    """The checker itself: an outward import, even one inside a function, is flagged."""
    targets = imports_of(source, text)
    flagged = [t for t in targets if t.count(".") and violation(source, t)]
    assert bool(flagged) == wrong, targets


def library_violations() -> list[str]:
    """Imports of libraries by the innermost layers beyond what ALLOWED_LIBRARIES lets in."""
    found = []
    for module, path in sorted(project_modules().items()):
        allowed = ALLOWED_LIBRARIES.get(layer_of(module))
        if allowed is None:
            continue
        for name in all_imports_of(module, path.read_text(), path.name == "__init__.py"):
            top = name.split(".")[0]
            if top and top not in PACKAGES and top not in sys.stdlib_module_names | allowed:
                found.append(f"{module} ({layer_of(module)}) imports the library {name}")
    return found


def test_the_innermost_layers_import_only_what_they_may():
    """helpers: the standard library, Django, Celery and kombu; the engine: the standard
    library alone (and nothing of the project: see violation())."""
    assert library_violations() == []


def test_every_module_is_in_a_layer():
    for module in project_modules():
        layer_of(module)
