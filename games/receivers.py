"""Where the games app listens: bots move after each commit; a sign-in claims seats."""

from django.dispatch import receiver

from accounts.signals import signed_in_by_link
from games import autoplay, services, tasks
from games.signals import events_appended


@receiver(events_appended, dispatch_uid="games.queue_bot_turn")
def queue_bot_turn(sender, game, **kwargs) -> None:
    """After a commit, queue the bot's turn if a bot is to move."""
    if autoplay.needs_bot_task(game):
        tasks.play_bot_turn.delay(game.pk, game.version)


@receiver(signed_in_by_link, dispatch_uid="games.claim_seats")
def claim_seats(sender, user, **kwargs) -> None:
    """Signing in by link proves the address: its seats played by link join the account."""
    services.claim_seats(user)
