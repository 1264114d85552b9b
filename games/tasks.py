"""Celery tasks for games: small, idempotent wrappers around games.autoplay."""

from celery import shared_task

from games import autoplay

# Bot turns per task run. With a worker, a table of bots moves on in batches of this many,
# each batch a new task, so one game never holds a worker for long.
BOT_TURNS_PER_TASK = 20
# Run in-process (no broker), a task cannot queue its follow-up without recursing: it
# plays on in its loop instead, up to a whole game (far more turns than any real game).
BOT_TURNS_IN_PROCESS = 2000


@shared_task(bind=True, acks_late=True, ignore_result=True)
def play_bot_turn(self, game_id: int, version: int) -> int:
    """Play the bot turns due in game ``game_id`` at ``version``; return how many.

    Does nothing if the game has moved on or no bot is to move.
    """
    eager = bool(self.request.is_eager)
    limit = BOT_TURNS_IN_PROCESS if eager else BOT_TURNS_PER_TASK
    played, game = autoplay.play_bot_turns(game_id, version, limit=limit)
    if not eager and played == limit and game is not None and autoplay.bot_to_move(game):
        play_bot_turn.delay(game.pk, game.version)
    return played
