"""Consent at the table: take back a turn, give more time, end early by agreement, nudge.

Each is an event appended under the game's row lock, so replay and the record agree and a
race has one winner: a take-back and the next move both need the version they saw.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from django.db import transaction
from django.utils.translation import gettext

from games import rules
from games.derived import snapshots
from games.derived.projection import TIME_GIVEN_HOURS
from games.models import Game, Seat
from games.services.event_log import append_to_log, lock_game, seats_at_table
from helpers import clock_source

# A nudge to a game's player to move: at most one per game in this time.
NUDGE_EVERY = timedelta(days=1)


class Refused(ValueError):
    """A consent action that is not allowed now; the message says why."""


def take_back(seat: Seat) -> Game:
    """``seat``'s player takes back their last turn; returns the game after it."""
    with transaction.atomic():
        game = _locked_for(seat)
        before = snapshots.current(game)
        try:
            events, after = rules.take_back(before.state, seat.position)
        except rules.IllegalMove as refused:
            raise Refused(_take_back_refusal(refused)) from None
        append_to_log(game, before, events, seats_at_table(game), played=after)
    return game


def _take_back_refusal(refused: rules.IllegalMove) -> str:
    return {
        "no_take_backs": gettext("This game does not allow taking back a turn."),
        "round_ended": gettext("A move that ended a round cannot be taken back."),
        "not_your_last_move": gettext(
            "Only your own last turn can be taken back, and only until the next player acts."
        ),
        "nothing_to_take_back": gettext("You have no turn to take back."),
    }.get(refused.rule, gettext("The game is over."))


def give_time(seat: Seat) -> Game:
    """Give the player to move 24 more hours, from ``seat``'s player (once per turn)."""
    with transaction.atomic():
        game = _locked_for(seat)
        if game.time_per_move is None:
            raise Refused(gettext("This game has no time limit: there is no time to give."))
        to_move = _to_move(game, seat)
        turn_start = _turn_start(game)
        if game.events.filter(seq__gt=turn_start, type=rules.TIME_GIVEN).exists():
            raise Refused(gettext("Someone has already given more time this turn."))
        event = {
            "type": rules.TIME_GIVEN,
            "seat": seat.position,
            "to": to_move.position,
            "hours": TIME_GIVEN_HOURS,
        }
        append_to_log(game, snapshots.current(game), [event], seats_at_table(game))
    return game


def agree_to_end(seat: Seat) -> Game:
    """``seat``'s player agrees to end the game now; the last person to agree ends it
    (``game_ended`` with the reason "agreed"). Returns the game after it."""
    with transaction.atomic():
        game = _locked_for(seat)
        before = snapshots.current(game)
        agreed = agreements(before)
        if seat.position in agreed:
            raise Refused(gettext("You have already agreed to end this game."))
        events = [{"type": rules.END_AGREED, "seat": seat.position}]
        after = before.then(events)
        seats = seats_at_table(game)
        if set(people(seats)) <= agreed | {seat.position}:
            ended, _state = rules.end_early(after.state)
            events += ended
        append_to_log(game, before, events, seats)
    return game


def nudge(seat: Seat, now=None) -> Game:
    """Send the player to move a short reminder from ``seat``'s player (one a day a game)."""
    now = now or clock_source.now()
    with transaction.atomic():
        game = _locked_for(seat)
        to_move = _to_move(game, seat)
        last = game.events.filter(type=rules.NUDGED).order_by("-seq").first()
        if last is not None and last.created_at > now - NUDGE_EVERY:
            raise Refused(gettext("Someone has already nudged in this game today."))
        event = {"type": rules.NUDGED, "seat": seat.position, "to": to_move.position}
        append_to_log(game, snapshots.current(game), [event], seats_at_table(game))
    return game


def people(seats: Sequence) -> list[int]:
    """The seats whose players must agree to end the game: every person at the table
    (not a bot's seat, nor one a bot keeps). ``seats``: the table's seats or rows."""
    return [seat.position for seat in seats if not (seat.is_bot or seat.autopilot)]


def agreements(snapshot: snapshots.Snapshot) -> set[int]:
    """The seats that agreed to end the game in the round ``snapshot`` is in."""
    return {e["seat"] for e in snapshot.round_events if e["type"] == rules.END_AGREED}


def _locked_for(seat: Seat) -> Game:
    """The seat's game, locked, if a person in it may act: it is running and the seat is
    played by its person."""
    game = lock_game(seat.game)
    if game.status != Game.Status.ACTIVE:
        raise Refused(gettext("The game is not running."))
    seat = Seat.objects.get(pk=seat.pk)
    if seat.is_bot or seat.autopilot:
        raise Refused(gettext("A bot plays this seat now."))
    return game


def _to_move(game: Game, seat: Seat) -> Seat:
    """The person to move, who is not ``seat``; else Refused."""
    if game.seat_to_move is None:
        raise Refused(gettext("Nobody is to move now."))
    if game.seat_to_move == seat.position:
        raise Refused(gettext("It is your own turn."))
    to_move = game.seats.get(position=game.seat_to_move)
    if to_move.is_bot or to_move.autopilot:
        raise Refused(gettext("A bot is to move: it needs neither time nor reminders."))
    return to_move


def _turn_start(game: Game) -> int:
    """The seq of the event that began the current turn (consent and clock events begin
    none)."""
    return (
        game.events.exclude(type__in=rules.STARTS_NO_TURN)
        .order_by("-seq")
        .values_list("seq", flat=True)
        .first()
    ) or 0
