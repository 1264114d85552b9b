"""Build plans at the table: setting and cancelling them, and playing their turns.

A plan is a seat's standing order, private like its hand and never in the log. At the
seat's turn a holding plan's step is played through the one write path, as a bot's turn
is; a ``PlanTurn`` row marks the move, so a finished game's record can say which turns a
plan played. Plans end at the engine's word, a move by hand, a cancel, a change of hands,
the round's end, or when the log they were set at is no longer the game's (a restore).
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Iterable, Sequence

from django.db import transaction
from django.utils.translation import gettext

from games import rules
from games.derived import snapshots
from games.derived.projection import log_digest
from games.models import Event, Game, Plan, PlanTurn, Seat
from games.services.event_log import GameMovedOn
from games.services.moves import submit_move
from games.signals import plan_changed

logger = logging.getLogger(__name__)

STOP_REASONS = rules.plans.STOP_REASONS
BY_HAND = "by_hand"  # the player moved by hand
CANCELLED = "cancelled"  # the player cancelled it
HANDOVER = "handover"  # the seat changed hands
STALE = "stale"  # the log it was set at is no longer the game's
REASONS = (*STOP_REASONS, BY_HAND, CANCELLED, HANDOVER, STALE)
# A seat's player leaves it: its plan goes, with nobody left to tell.
GONE_EVENTS = (rules.SEAT_LEFT, rules.SEAT_HANDED_OVER)

# The seat (game id, position) whose plan is playing in this thread.
_playing: contextvars.ContextVar[tuple[int, int] | None] = contextvars.ContextVar(
    "playing_plan", default=None
)


class PlanError(ValueError):
    """A plan that cannot be set: its message says why, for the player."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def set_plan(
    seat: Seat,
    form: str,
    *,
    city: str | None = None,
    route: Sequence[int] = (),
    coloured: Iterable[int] = (),
    starts: Sequence[int] = (),
) -> Plan:
    """Give ``seat`` a plan (replacing any it had), at the game's version now, or raise
    PlanError; on the seat's turn it plays at once (after the commit)."""
    game = Game.objects.get(pk=seat.game_id)
    snapshot = snapshots.current(game)
    state = snapshot.state
    position = seat.position
    if state is None or state.phase not in (rules.PLACING, rules.BUILDING):
        raise PlanError("no_round", gettext("A plan is set during a round."))
    if seat.is_bot or seat.autopilot:
        raise PlanError("bot_seat", gettext("A bot plays this seat."))
    board = state.board
    route = [int(line) for line in route]
    coloured = sorted({int(line) for line in coloured})
    starts = [int(point) for point in starts]
    if form == rules.plans.CITY:
        if city not in state.hands[position]:
            raise PlanError("not_your_city", gettext("A plan heads for a city of your own."))
    else:
        city = None
    if form == rules.plans.ROUTE:
        if not route or len(set(route)) != len(route):
            raise PlanError("bad_route", gettext("A route is a list of different lines."))
        if any(not 0 <= line < len(board.lines) for line in route):
            raise PlanError("bad_route", gettext("A route is made of the board's lines."))
        if any(line in state.built for line in route):
            raise PlanError("line_taken", gettext("A line of that route is built already."))
        if not set(coloured) <= set(route):
            raise PlanError("bad_route", gettext("Only the route's own lines can be coloured."))
        if coloured and len(coloured) > state.exclusive_left[position]:
            raise PlanError(
                "no_coloured_track", gettext("You have not that many coloured tracks left.")
            )
    else:
        route, coloured = [], []
    if starts:
        if state.phase != rules.PLACING or state.start_point(position) is not None:
            raise PlanError("start_placed", gettext("Your start marker is on the board already."))
        if any(not 0 <= point < len(board.points) for point in starts):
            raise PlanError("bad_start", gettext("A start marker goes on a crossing point."))
    if form == rules.plans.START and not starts:
        raise PlanError("bad_start", gettext("Choose where your start marker goes."))
    slack = rules.plans.route_slack(state, position, tuple(route)) if route else None
    try:
        rules.Plan(form, state.round, route=route, coloured=coloured, city=city, starts=starts)
    except ValueError as exc:
        raise PlanError("bad_plan", gettext("That plan cannot be set.")) from exc
    with transaction.atomic():
        plan, _created = Plan.objects.update_or_create(
            seat=seat,
            defaults={
                "form": form,
                "round": state.round,
                "route": route,
                "coloured": coloured,
                "city": city or "",
                "starts": starts,
                "slack": slack,
                "version": snapshot.version,
                "log_digest": snapshot.digest,
                "stopped": "",
                "stopped_version": None,
            },
        )
        Seat.objects.filter(pk=seat.pk).update(has_plan=True)
        seat.has_plan = True
        transaction.on_commit(
            lambda: plan_changed.send(sender=Plan, game=game, seat=seat), robust=True
        )
    return plan


def cancel_plan(seat: Seat) -> bool:
    """End ``seat``'s plan at the player's word; return whether one was holding."""
    plan = Plan.objects.filter(seat=seat, stopped="").first()
    if plan is None:
        return False
    end_plan(plan, CANCELLED, Game.objects.values_list("version", flat=True).get(pk=seat.game_id))
    return True


def end_plan(plan: Plan, reason: str, version: int) -> bool:
    """Stop ``plan`` for ``reason`` at ``version``; whether it was holding."""
    ended = Plan.objects.filter(pk=plan.pk, stopped="", version=plan.version).update(
        stopped=reason, stopped_version=version
    )
    plan.stopped, plan.stopped_version = reason, version
    if ended:
        logger.info("plan stopped", extra={"seat": plan.seat_id, "reason": reason})
    return bool(ended)


def holding_plan(seat: Seat) -> Plan | None:
    """The seat's plan, if it holds."""
    return Plan.objects.filter(seat=seat, stopped="").first()


def next_step(plan: Plan, position: int, snapshot: snapshots.Snapshot) -> rules.Move | str:
    """What ``plan`` does at ``snapshot``: its move, or the reason it stops."""
    if plan.stopped:
        return plan.stopped
    state = snapshot.state
    if plan.round != state.round:
        return rules.plans.ROUND_ENDED
    if not set_on_this_log(plan, snapshot):
        return STALE
    try:
        found = rules.plan_step(state, position, plan.engine_plan())
    except (ValueError, KeyError, IndexError):
        # A row the engine cannot read (set by hand in the admin, say) never fails a move.
        logger.exception("plan of seat %s cannot be read", plan.seat_id)
        return rules.plans.BLOCKED
    return found.reason if isinstance(found, rules.Stop) else found


def set_on_this_log(plan: Plan, snapshot: snapshots.Snapshot) -> bool:
    """Whether the log at ``snapshot`` continues the log ``plan`` was set at (a plan
    lives within one round, so the round's events suffice)."""
    if plan.version > snapshot.version:
        return False
    if plan.version == snapshot.version:
        return plan.log_digest == snapshot.digest
    later = [event for event in snapshot.round_events if event["seq"] > plan.version]
    if len(later) != snapshot.version - plan.version:
        return False
    return log_digest(later, plan.log_digest) == snapshot.digest


def planned_seat(game: Game, seats: Sequence[Seat]) -> Seat | None:
    """The seat to move, if the game is on and that seat's plan holds."""
    if game.status != Game.Status.ACTIVE or game.seat_to_move is None:
        return None
    seat = seats[game.seat_to_move]
    if seat.is_bot or seat.autopilot or not seat.has_plan:
        return None  # read with the table: no query for a seat without a plan
    return seat if Plan.objects.filter(seat=seat, stopped="").exists() else None


def play_turn(game: Game, seat: Seat, expected_version: int) -> Game | None:
    """Play ``seat``'s plan for its turn if the game is still at ``expected_version``;
    the game after the move, or None."""
    plan = holding_plan(seat)
    if plan is None or game.version != expected_version:
        return None
    snapshot = snapshots.current(game)
    if snapshot.state.seat_to_move != seat.position:
        return None
    found = next_step(plan, seat.position, snapshot)
    if isinstance(found, str):
        end_plan(plan, found, expected_version)
        return None
    token = _playing.set((game.pk, seat.position))
    try:
        moved = submit_move(game, seat, found, expected_version)
    except GameMovedOn:
        return None
    except rules.IllegalMove:  # the step checks its moves: never expected
        logger.exception("plan move refused in game %s", game.pk)
        end_plan(plan, rules.plans.BLOCKED, expected_version)
        return None
    finally:
        _playing.reset(token)
    logger.info("plan moved", extra={"game": game.pk, "seat": seat.position})
    return moved


def plan_turn_rows(game: Game, events: Sequence[Event]) -> list[PlanTurn]:
    """The PlanTurn rows of ``events``, when a plan is playing the move."""
    playing = _playing.get()
    if playing is None or playing[0] != game.pk:
        return []
    return [
        PlanTurn(game=game, seq=event.seq, seat=playing[1])
        for event in events
        if event.type in rules.MOVE_EVENTS and event.data.get("seat") == playing[1]
    ]


def after_commit(
    game: Game, events: Sequence[Event], written: Iterable, seats: Sequence[Seat]
) -> None:
    """What ``events``, now committed, do to plans: a move by hand drops the seat's plan
    (the player knows), and a change of hands ends it."""

    by_plan = {row.seq for row in written if isinstance(row, PlanTurn)}
    moved: dict[int, int] = {}  # seat -> its last move by hand
    kept: dict[int, int] = {}  # seat -> when a bot took it
    gone: dict[int, int] = {}  # seat -> when its player left it, or it was handed over
    for event in events:
        seat = event.data.get("seat")
        if event.type in rules.MOVE_EVENTS and event.seq not in by_plan:
            moved[seat] = event.seq
        elif event.type == rules.SEAT_TAKEN_BY_BOT:
            kept[seat] = event.seq
        elif event.type in GONE_EVENTS:
            gone[seat] = event.seq
    concerned = set(moved) | set(kept) | set(gone)
    concerned = {p for p in concerned if p < len(seats) and seats[p].has_plan}
    if not concerned:
        return
    found = Plan.objects.filter(seat__game=game, seat__position__in=concerned)
    for plan in found.select_related("seat"):
        position = plan.seat.position
        if position in gone and plan.version < gone[position]:
            drop(plan)
        elif position in kept and plan.version < kept[position]:
            end_plan(plan, HANDOVER, kept[position])
        elif position in moved and plan.version < moved[position]:
            drop(plan)


def drop(plan: Plan) -> None:
    """Remove a plan its player no longer needs to hear of."""
    with transaction.atomic():
        Plan.objects.filter(pk=plan.pk, version=plan.version).delete()
        if not Plan.objects.filter(seat_id=plan.seat_id).exists():
            Seat.objects.filter(pk=plan.seat_id).update(has_plan=False)


def end_for_handover(seat: Seat) -> None:
    """The seat changes hands: its plan ends."""
    plan = holding_plan(seat)
    if plan is not None:
        version = Game.objects.values_list("version", flat=True).get(pk=seat.game_id)
        end_plan(plan, HANDOVER, version)


def played_by_plan(game: Game) -> set[int]:
    """The seqs of ``game``'s move events that plans played."""
    return set(PlanTurn.objects.filter(game=game).values_list("seq", flat=True))
