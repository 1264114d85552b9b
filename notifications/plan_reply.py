"""Build plans by reply: a first line ``plan: <city>``, ``plan: all`` or ``plan: stop``
(in English or German) sets or cancels the seat's plan. It is stale only once the round
of the email it answers has ended, as plans never carry over."""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.utils.translation import gettext

from games import rules
from games.derived import snapshots
from games.models import Seat
from games.services import plans
from games.words import places
from games.words.city_names import city_name
from notifications import emails

PLAN = re.compile(r"^plan\s*:\s*(.*)$", re.IGNORECASE)
ALL_WORDS = ("all", "alle")
STOP_WORDS = ("stop", "stopp", "cancel")


@dataclass(frozen=True)
class PlanRequest:
    """What a ``plan:`` reply asks: ``what`` is "all", "stop" or a city as written."""

    what: str


def read(text: str) -> PlanRequest | None:
    """The plan a reply's first line asks for, or None when it is not about a plan."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    match = PLAN.match(first)
    return PlanRequest(match[1].strip()) if match else None


def city_in_hand(state: rules.GameState, position: int, written: str) -> str | None:
    """The board's name of the city in the seat's hand that ``written`` names."""
    wanted = " ".join(written.split()).casefold()
    for name in state.hands[position]:
        city = state.board.city_by_name[name]
        if wanted in {name.casefold(), (city.name_de or name).casefold()}:
            return name
    return None


def handle(seat: Seat, version: int, request: PlanRequest) -> tuple[str, str]:
    """Set or cancel ``seat``'s plan, answer the player; (outcome code, detail)."""
    game = seat.game
    game.refresh_from_db()
    now = snapshots.current(game).state
    then = snapshots.at(game, version).state
    if now is None or then is None or now.round != then.round or now.is_over:
        return answer(seat, "plan-stale", gettext("That round has ended: plans never carry over."))
    what = request.what.strip().casefold()
    if what in STOP_WORDS:
        if plans.cancel_plan(seat):
            return answer(seat, "plan-cancelled", gettext("Your plan is cancelled."))
        return answer(seat, "plan-none", gettext("You had no plan to cancel."))
    try:
        if "," in what or ";" in what:
            # Start markers in order of preference, then all my cities.
            try:
                starts = [
                    places.point_named(now.board, part)
                    for part in re.split(r"[;,]", request.what)
                    if part.strip()
                ]
            except places.UnknownPlace as unknown:
                return answer(seat, "plan-unclear", str(unknown))
            plans.set_plan(seat, rules.plans.ALL, starts=starts)
            named = ", ".join(places.point_name(now.board, point) for point in starts)
            return answer(
                seat,
                "plan-set",
                gettext("Your plan is set: your start marker at %(points)s, then all your cities.")
                % {"points": named},
            )
        if what in ALL_WORDS:
            plans.set_plan(seat, rules.plans.ALL)
            return answer(seat, "plan-set", gettext("Your plan is set: all your cities."))
        city = city_in_hand(now, seat.position, request.what)
        if city is None:
            return answer(
                seat,
                "plan-unclear",
                gettext(
                    'Name a city of yours after "plan:", or "all", or "stop" to cancel your plan.'
                ),
            )
        plans.set_plan(seat, rules.plans.CITY, city=city)
    except plans.PlanError as refused:
        return answer(seat, "plan-refused", str(refused))
    return answer(
        seat,
        "plan-set",
        gettext("Your plan is set: toward %(city)s.") % {"city": city_name(city)},
    )


def answer(seat: Seat, code: str, words: str) -> tuple[str, str]:
    """Tell the player, and only them, what became of their ``plan:`` reply."""
    emails.reply_answer(seat, code, words)
    return code, words
