"""Substitutes before bots: a player may leave, and someone else may take over a seat.

A bot plays a seat that was left until a substitute takes it. The creator invites the
substitute, or, once the creator has left, a majority of the others backs the invitation.
A seat changes hands at once and the old player's links die with it. Each change is an
event in the log, and none names an address.
"""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext

from accounts.models import User
from games import rules
from games.derived import snapshots
from games.links import rotate_link
from games.models import Game, Plan, Seat, TalkMute
from games.services import clock
from games.services.event_log import append_to_log, lock_game, seats_at_table
from games.services.seats import invite


class Refused(ValueError):
    """A change of seat that is not allowed; the message says why."""


def leave(seat: Seat) -> Game:
    """``seat``'s player leaves the game: a bot plays the seat until a substitute takes it."""
    with transaction.atomic():
        game = lock_game(seat.game)
        seat = Seat.objects.select_for_update().get(pk=seat.pk)
        if game.status != Game.Status.ACTIVE:
            raise Refused(gettext("The game is not running."))
        if seat.is_bot or has_left(game, seat.position):
            raise Refused(gettext("This seat has no player to leave."))
        seat.autopilot = True
        # No mail about the seat, no way back to it, and the bot plays it, not their plan.
        seat.email, seat.user, seat.has_plan = "", None, False
        seat.save(update_fields=["autopilot", "email", "user", "has_plan"])
        Plan.objects.filter(seat=seat).delete()
        rotate_link(seat)
        event = {"type": rules.SEAT_LEFT, "seat": seat.position}
        append_to_log(game, snapshots.current(game), [event], seats_at_table(game))
    return game


def invite_substitute(by: Seat, seat: Seat, name: str, email: str) -> Seat | None:
    """``by``'s player invites ``name`` at ``email`` to take over ``seat``; returns the seat
    handed over, or None when the backing is noted but no majority has backed it yet."""
    email = email.strip().lower()
    with transaction.atomic():
        game = lock_game(seat.game)
        by = Seat.objects.get(pk=by.pk)
        seat = Seat.objects.select_for_update().get(pk=seat.pk)
        if game.status != Game.Status.ACTIVE:
            raise Refused(gettext("The game is not running."))
        if by.game_id != game.pk or by.is_bot or by.autopilot or by.pk == seat.pk:
            raise Refused(gettext("Only another person at the table may invite a substitute."))
        if seat.is_bot or not (seat.autopilot or seat.timeouts_in_a_row):
            raise Refused(
                gettext("Only a seat that has timed out, or whose player left, can be taken over.")
            )
        if game.seats.filter(email__iexact=email).exists():
            raise Refused(gettext("That address already holds a seat in this game."))
        before = snapshots.current(game)
        if creator_seat(game) is None:
            backing = {"type": rules.SUBSTITUTE_BACKED, "seat": by.position, "for": seat.position}
            backers = backed(game, seat.position) | {by.position}
            if not has_majority(game, seat, backers):
                if by.position not in backed(game, seat.position):
                    append_to_log(game, before, [backing], seats_at_table(game))
                return None
            events = [] if by.position in backed(game, seat.position) else [backing]
        elif creator_seat(game).pk != by.pk:
            raise Refused(gettext("Only the game's creator may invite a substitute."))
        else:
            events = []
        events.append({"type": rules.SEAT_HANDED_OVER, "seat": seat.position, "name": name})
        newcomer = User.objects.filter(email__iexact=email).first()
        _hand_over(seat, name, email, newcomer)
        # The newcomer's zone and quiet hours time the seat's turns from now on.
        clock_event = clock.newcomer_quiet_hours(game, seat, newcomer)
        if clock_event is not None:
            events.append(clock_event)
        append_to_log(game, before, events, seats_at_table(game))
        invite(seat)
    return seat


def _hand_over(seat: Seat, name: str, email: str, newcomer: User | None) -> None:
    """The seat's row as the newcomer's: nothing of the old player's stays."""
    seat.name, seat.email, seat.user = name, email, None
    seat.joined_at = None
    seat.autopilot = True  # the bot plays on until the newcomer takes the seat
    seat.timeouts_in_a_row = 0
    seat.language = newcomer.language if newcomer is not None else ""
    seat.browser_time_zone = ""
    seat.seen_version = 0
    seat.notices_muted = False
    seat.has_plan = False
    seat.save()
    Plan.objects.filter(seat=seat).delete()
    rotate_link(seat)  # every old link and reply address dies now, and the seat's channels
    TalkMute.objects.filter(seat=seat).delete()


def creator_seat(game: Game) -> Seat | None:
    """The seat of the game's creator, while they are still at the table."""
    creator = game.created_by
    if creator is None:
        return None
    for seat in game.seats.filter(is_bot=False).select_related("user"):
        mine = seat.user_id == creator.pk or seat.email.lower() == creator.email.lower()
        if mine and not has_left(game, seat.position):
            return seat
    return None


def has_left(game: Game, position: int) -> bool:
    """Whether the seat's player left, and no substitute has taken it since."""
    last = (
        game.events.filter(type__in=[rules.SEAT_LEFT, rules.SEAT_HANDED_OVER], data__seat=position)
        .order_by("-seq")
        .first()
    )
    return last is not None and last.type == rules.SEAT_LEFT


def backed(game: Game, position: int) -> set[int]:
    """The seats that backed a substitute for ``position`` since it last changed hands."""
    since = (
        game.events.filter(type=rules.SEAT_HANDED_OVER, data__seat=position)
        .order_by("-seq")
        .values_list("seq", flat=True)
        .first()
    ) or 0
    backings = game.events.filter(seq__gt=since, type=rules.SUBSTITUTE_BACKED)
    return {e.data["seat"] for e in backings if e.data.get("for") == position}


def has_majority(game: Game, seat: Seat, backers: set[int]) -> bool:
    """Whether ``backers`` are more than half of the other people (not bots) at the table."""
    others = set(
        game.seats.filter(is_bot=False, autopilot=False)
        .exclude(pk=seat.pk)
        .values_list("position", flat=True)
    )
    return len(backers & others) * 2 > len(others)
