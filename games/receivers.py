"""Where the games app listens: bots move after each commit; a sign-in claims seats."""

import logging

from django.dispatch import receiver

from accounts.signals import signed_in_by_link
from games import services, tasks
from games.services import autoplay
from games.signals import events_appended

log = logging.getLogger(__name__)


@receiver(events_appended, dispatch_uid="games.queue_bot_turn")
def queue_bot_turn(sender, game, seats, **kwargs) -> None:
    """After a commit, queue the bot's turn if a bot is to move."""
    if not autoplay.needs_bot_task(game, seats):
        return
    try:
        tasks.play_bot_turn.delay(game.pk, game.version)
    except Exception:
        # The move is committed: a broker that is down (kombu's OperationalError), or a
        # bot that failed in-process, must not turn it into an error page. The bot's turn
        # is due at once (games.derived.projection), so the minute scan plays it.
        log.exception("Could not queue the bot's turn in game %s; the scan will play it", game.pk)


@receiver(signed_in_by_link, dispatch_uid="games.claim_seats")
def claim_seats(sender, user, **kwargs) -> None:
    """Signing in by link proves the address: its seats played by link join the account."""
    services.claim_seats(user)
