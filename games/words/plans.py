"""Build plans in words: why a plan stopped, and what it will do, for its owner only."""

from __future__ import annotations

from django.utils.translation import gettext, pgettext
from django.utils.translation import gettext_lazy as _

from games import rules

STOPPED = {
    rules.plans.LINE_TAKEN: _("Your plan stopped: another player built on a line of your route."),
    rules.plans.CHEAPER_WAY: _(
        "Your plan stopped: other players' track opened a cheaper way to the end of your route."
    ),
    rules.plans.JOINED: _("Your plan is done: it has joined what it was heading for."),
    rules.plans.ROUND_ENDED: _("Your plan ended with the round: plans never carry over a deal."),
    rules.plans.START_TAKEN: _(
        "Your plan stopped: every start point it named holds another marker."
    ),
    rules.plans.START_NEEDED: _("Your plan waits for you: place your start marker first."),
    rules.plans.UNREACHABLE: _("Your plan stopped: its city cannot be reached any more."),
    rules.plans.BLOCKED: _("Your plan stopped: the next line of your route cannot be built now."),
    "by_hand": _("Your plan stopped because you moved by hand."),
    "cancelled": _("You cancelled your plan."),
    "handover": _("Your plan ended because the seat changed hands."),
    "stale": _("Your plan stopped: it was set on a position this game no longer has."),
}


def why_stopped(reason: str) -> str:
    """Why a plan stopped, in the active language."""
    return str(STOPPED.get(reason, _("Your plan stopped.")))


def describe(form: str, city: str = "") -> str:
    """A holding plan in words (``city``: its target's name, for a plan toward a city)."""
    if form == rules.plans.CITY:
        return gettext("Your plan: keep building toward %(city)s.") % {"city": city}
    if form == rules.plans.ALL:
        return gettext("Your plan: build toward all your cities.")
    if form == rules.plans.ROUTE:
        return gettext("Your plan: follow your route.")
    return gettext("Your plan: place your start marker.")


def next_build(lines: list[str]) -> str:
    """What a plan builds on its next turn."""
    return gettext("Its next turn builds %(lines)s.") % {"lines": "; ".join(lines)}


def line(name: str, coloured: bool) -> str:
    """A route's line by name, said to be coloured track when the plan builds it so."""
    if not coloured:
        return name
    return pgettext("a line of a build plan", "%(line)s (coloured track)") % {"line": name}
