"""A path for every page a player meets: for the tests that look at each page as a reader
does (the phone's browser with axe-core, the pseudo-language)."""

from django.urls import reverse

from games.links import make_token, seat_path
from games.services import load_state
from notifications import emails
from tests.conftest import play_turn
from tests.factories import GameFactory, second_round_events, simulated_game


def pages(user) -> dict[str, str]:
    """A path for every page a player meets, the board page in each of its states."""
    placing = GameFactory(created_by=user)
    placing.seats.filter(position=0).update(user=user, email=user.email)
    to_move = placing.seats.get(position=load_state(placing).seat_to_move)
    waiting = placing.seats.exclude(pk=to_move.pk).first()
    building = GameFactory()
    for _ in range(3):
        building = play_turn(building)
    builder = building.seats.get(position=load_state(building).seat_to_move)
    finished = simulated_game()
    new_round = simulated_game(until=second_round_events(moves=0))  # round 1 just scored
    summary_seat = new_round.seats.get(position=load_state(new_round).seat_to_move)
    setup = GameFactory(started=False)
    invited = setup.seats.get(position=1)
    return {
        "home": reverse("games:home"),
        "login": reverse("accounts:login"),
        "preferences": reverse("accounts:preferences"),
        "new-game": reverse("games:new"),
        "manage": reverse("games:manage", args=[placing.pk]),
        "finished-games": reverse("games:history"),
        "replay": reverse("games:replay", args=[finished.pk]),
        "board-placing": seat_path(to_move),
        "board-waiting": seat_path(waiting),
        "board-building": seat_path(builder),
        "board-finished": seat_path(finished.seats.first()),
        "board-round-summary": seat_path(summary_seat),
        "seat-history": reverse("games:seat_replay", args=[make_token(to_move)]),
        # A finished game's, which offers to play again.
        "seat-history-finished": reverse(
            "games:seat_replay", args=[make_token(finished.seats.first())]
        ),
        # The list of every move as a page of its own (the board page's, without scripts).
        "every-move": reverse("games:seat_moves", args=[make_token(builder)]),
        # The one-tap suggestions of a your-turn email: a start marker, then lines.
        "suggestion-start": reverse(
            "games:suggested", args=[make_token(to_move), placing.version, 1]
        ),
        "suggestion-lines": reverse(
            "games:suggested", args=[make_token(builder), building.version, 1]
        ),
        "invitation": seat_path(invited),
        "play-again": reverse("games:play_again", args=[make_token(finished.seats.first())]),
        "rules-transamerica": reverse("games:rules", args=["transamerica"]),
        "rules-transeuropa": reverse("games:rules", args=["transeuropa"]),
        "rules-coloured-track": reverse("games:rules", args=["coloured-track"]),
        "unsubscribe": reverse(
            "notifications:unsubscribe", args=[emails.unsubscribe_token(user.email, "your_turn")]
        ),
        "vacation": reverse("notifications:vacation"),
        "channels": reverse("notifications:channels"),
    }
