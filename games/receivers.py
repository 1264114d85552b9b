"""Where the games app listens: bots move after each commit; a sign-in claims seats."""

import logging

from django.dispatch import receiver

from accounts.signals import signed_in_by_link
from games import services, tasks
from games.services import autoplay, plans
from games.services.event_log import seats_at_table
from games.signals import events_appended, events_recorded, plan_changed
from helpers import clock_source

log = logging.getLogger(__name__)


@receiver(events_appended, dispatch_uid="games.queue_bot_turn")
def queue_bot_turn(sender, game, seats, **kwargs) -> None:
    """After a commit, queue the bot's turn if a bot is to move."""
    seat = autoplay.seat_for_bot_task(game, seats)
    if seat is None:
        return
    try:
        due = autoplay.turn_due(game, seat, seats)
        now = clock_source.now()
        if due > now:
            # It waits for a take-back (games.derived.projection); a bot's the scan plays
            # then too, a plan's at the seat's own deadline should the task be lost.
            # A countdown in wall seconds: the broker waits on wall time.
            wait = clock_source.real_seconds(due - now)
            tasks.play_bot_turn.apply_async((game.pk, game.version), countdown=wait)
        else:
            tasks.play_bot_turn.delay(game.pk, game.version)
    except Exception:
        # The move is committed: a broker that is down (kombu's OperationalError), or a
        # bot that failed in-process, must not turn it into an error page. The bot's turn
        # is due at once (games.derived.projection), so the minute scan plays it.
        log.exception("Could not queue the bot's turn in game %s; the scan will play it", game.pk)


@receiver(plan_changed, dispatch_uid="games.play_a_new_plan")
def play_a_new_plan(sender, game, seat, **kwargs) -> None:
    """A plan set on the seat's own turn plays at once."""
    game = type(game).objects.get(pk=game.pk)
    queue_bot_turn(sender, game=game, seats=seats_at_table(game))


@receiver(events_recorded, dispatch_uid="games.record_plan_turns")
def record_plan_turns(sender, game, events, **kwargs) -> list:
    """A plan's move is marked as such, in the statement that appends it."""
    return plans.plan_turn_rows(game, events)


@receiver(events_appended, dispatch_uid="games.end_plans")
def end_plans(sender, game, events, written, seats, **kwargs) -> None:
    """A move by hand, or a seat a bot now keeps, ends the seat's plan."""
    plans.after_commit(game, events, written, seats)


@receiver(signed_in_by_link, dispatch_uid="games.claim_seats")
def claim_seats(sender, user, **kwargs) -> None:
    """Signing in by link proves the address: its seats played by link join the account."""
    services.claim_seats(user)
