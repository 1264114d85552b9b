"""Play again: a finished game's table starts a new game, once.

The seats turn by one so another player starts; each goes to whoever holds it now. Asking
again, from any seat, leads to the same game. No invitation limit applies: the addresses
are the finished table's.

A seat without an address (a player with only its link) plays again too: nobody can invite
it, so it is seated as joined and its player reaches the new game through the link they
have to this one. Only a seat whose player left (the log says so) goes to a bot.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import translation
from django.utils.translation import gettext

from games import rules
from games.bots import COVER_BOT
from games.models import Game, Seat
from games.services.event_log import lock_game
from games.services.new_games import GameSettings, SeatSpec, open_game
from games.services.substitutes import has_left
from games.words import bot_levels


class NotAgain(ValueError):
    """Playing again is not possible from this seat or game; the message says why."""


def may_ask(seat: Seat) -> bool:
    """Whether ``seat``'s player may start the next game of its table: a person's seat
    (not a bot's, nor one whose player left) in a finished game, with an address or not."""
    game = seat.game
    # An empty address does not mean the player left: a seat may be played by link alone.
    return (
        game.status == Game.Status.FINISHED
        and not seat.is_bot
        and not has_left(game, seat.position)
    )


def play_again(seat: Seat, account=None) -> tuple[Seat, bool]:
    """Start the next game of ``seat``'s table, or find it; return the player's seat in it
    and whether it is new. ``account`` creates it (and is told if an invitee declines)."""
    if not may_ask(seat):
        if seat.game.status != Game.Status.FINISHED:
            raise NotAgain(gettext("The game is not over yet."))
        raise NotAgain(gettext("Only a player at the table may start the next game."))
    with transaction.atomic():
        # The finished game's row lock orders two presses; the one-to-one ``follows`` is
        # the backstop (a second next game fails to insert).
        game = lock_game(seat.game)
        created = next_game_of(game) is None
        if created:
            _open_next(game, seat, account or seat.user)
    return seat_in_successor(game, seat), created


def next_game_of(game: Game) -> Game | None:
    """The game ``game``'s table started after it, if any."""
    return Game.objects.filter(follows=game).first()


def seat_in_successor(game: Game, seat: Seat) -> Seat:
    """``seat``'s place in ``game``'s next game (the seats turned by one)."""
    count = game.seats.count()
    return Seat.objects.get(game__follows=game, position=(seat.position - 1) % count)


def next_table(game: Game, asking: Seat, account=None) -> list[SeatSpec]:
    """The seats of ``game``'s next game, in play order: turned by one, so that the
    player after the last game's first player starts."""
    seats = list(game.seats.select_related("user").order_by("position"))
    specs = []
    with translation.override(game.language):
        cover_name = bot_levels.bot_name(COVER_BOT)
    names = {seat.name for seat in seats}
    for seat in seats[1:] + seats[:1]:
        if seat.is_bot:
            specs.append(SeatSpec(seat.name, is_bot=True, bot_level=seat.bot_level))
        elif has_left(game, seat.position):  # the bot that covered the seat plays it
            name = cover_name if cover_name not in names else f"{cover_name} {seat.position + 1}"
            specs.append(SeatSpec(name, is_bot=True, bot_level=COVER_BOT))
        else:
            asks = seat.pk == asking.pk
            user = account if asks and account is not None else seat.user
            # Without an address nobody can be invited: the seat is theirs at once, as
            # it was in this game, and its link is on this game's pages.
            joined = asks or not seat.email
            specs.append(SeatSpec(seat.name, seat.email, user, joined=joined))
    return specs


def _open_next(game: Game, asking: Seat, account) -> Game:
    settings = GameSettings(
        board=game.board,
        options=rules.Options.from_dict(dict(game.options)),
        title=game.title,
        time_per_move=game.time_per_move,
        reminder_hours=tuple(game.reminder_hours),
        on_timeout=game.on_timeout,
        bot_takeover_after=game.bot_takeover_after,
        time_zone=game.time_zone,
        language=game.language,
        weekend_pause=game.weekend_pause,
        follows=game,
    )
    return open_game(settings, next_table(game, asking, account), created_by=account)
