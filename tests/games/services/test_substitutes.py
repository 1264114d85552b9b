"""Substitutes before bots (games.services.substitutes): leaving, and a seat taken over
mid-round by someone invited by email."""

import re
from datetime import timedelta

import pytest

from games import rules, services
from games.links import BadLink, make_token, seat_for_token, seat_path
from games.models import Game, Plan, Seat, TalkMute
from games.services import autoplay, clock, substitutes
from notifications import compose, emails, reply_addresses
from notifications.models import Message
from tests.conftest import play_turn
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def inbound_domain(settings):
    settings.RAILMAIL_INBOUND_DOMAIN = "in.railmail.example.org"


def table(people: int = 3) -> Game:
    """A running game of ``people`` created by the player of seat 0, in which a bot takes a
    seat after one timeout."""
    creator = UserFactory(email="seat0@example.com")
    players = [services.SeatSpec(f"Player {n}", f"seat{n}@example.com") for n in range(people)]
    game = services.create_game("transamerica", None, players, creator, timedelta(days=1))
    Game.objects.filter(pk=game.pk).update(bot_takeover_after=1)
    game = services.start_game(Game.objects.get(pk=game.pk))
    return play_turn(game)  # the creator, seat 0, has moved: seat 1 is to move


def seat(game: Game, position: int) -> Seat:
    return Seat.objects.get(game=game, position=position)


def time_out(game: Game) -> Seat:
    """The player to move lets their deadline pass; the bot takes the seat and plays."""
    game = Game.objects.get(pk=game.pk)
    late = seat(game, game.seat_to_move)
    clock.apply_deadline(game.pk, game.deadline + timedelta(seconds=1))
    late.refresh_from_db()
    assert late.autopilot
    return late


def test_a_substitute_takes_a_timed_out_seat_mid_round():
    game = table()
    late = time_out(game)
    old_token = make_token(late)
    old_reply = reply_addresses.reply_address(late, game.version)
    TalkMute.objects.create(seat=late, muted=seat(game, 0))
    handed = substitutes.invite_substitute(seat(game, 0), late, "Newcomer", "New@Example.com")
    assert handed.email == "new@example.com" and handed.name == "Newcomer"
    # The old player's links and reply addresses die at once, and their mutes go.
    with pytest.raises(BadLink):
        seat_for_token(old_token)
    with pytest.raises(reply_addresses.BadReplyAddress):
        reply_addresses.read(old_reply)
    assert not TalkMute.objects.filter(seat=late).exists()
    game = Game.objects.get(pk=game.pk)
    last = game.events.order_by("-seq").first()
    assert last.type == rules.SEAT_HANDED_OVER and last.data == {
        "seat": late.position,
        "name": "Newcomer",
    }
    # The newcomer is invited by email, with a link to the seat.
    [invited] = Message.objects.filter(kind=emails.INVITATION, to="new@example.com")
    [link] = re.findall(r"/s/([^/\s]+)/", compose.compose(invited).text)
    assert seat_for_token(link).pk == late.pk
    # The bot keeps the seat until the newcomer takes it.
    assert Seat.objects.get(pk=late.pk).autopilot
    services.take_seat_back(Seat.objects.get(pk=late.pk))
    taken = Seat.objects.get(pk=late.pk)
    assert not taken.autopilot and taken.joined_at is not None


def test_the_old_players_channels_plan_and_clock_go_and_the_newcomers_apply(settings):
    from datetime import time

    from games.derived.projection import sleep_of
    from games.services import plans
    from games.words.languages import language_for
    from notifications import channel_delivery, channel_settings
    from notifications.models import Channel

    settings.RAILMAIL_CHANNELS_ALLOW_PRIVATE = True  # no name resolves here
    game = table(people=4)
    to_move = seat(game, game.seat_to_move)
    plans.set_plan(to_move, rules.plans.ALL)
    clock.set_quiet_hours(to_move, "Europe/Berlin", time(20, 0), time(9, 0))
    channel = channel_settings.add_for_seat(to_move, "ntfys://ntfy.example.org/old-topic")
    channel_settings.confirm(channel.token)
    late = time_out(game)
    assert Plan.objects.filter(seat=late).exists()
    newcomer = UserFactory(
        email="new@example.com",
        language="de",
        timezone="America/New_York",
        quiet_start=time(23, 30),
        quiet_end=time(6, 0),
    )
    theirs = channel_settings.add_for_account(newcomer, "ntfys://ntfy.example.org/new-topic")
    substitutes.invite_substitute(seat(game, 0), late, "Neu", "new@example.com")
    handed = Seat.objects.get(pk=late.pk)
    assert not Channel.objects.filter(pk=channel.pk).exists()
    assert channel_delivery.personal_channels(handed) == [theirs]  # the newcomer's own
    # A seat that had none asks for channels once a newcomer with some takes it.
    fourth = substitutes.leave(seat(game, 3)) and seat(game, 3)
    assert not fourth.has_channels
    owner = UserFactory(email="owner@example.com")
    owned = channel_settings.add_for_account(owner, "ntfys://ntfy.example.org/owner")
    substitutes.invite_substitute(seat(game, 0), fourth, "Owner", "owner@example.com")
    assert channel_delivery.personal_channels(seat(game, 3)) == [owned]
    assert not Plan.objects.filter(seat=handed).exists() and not handed.has_plan
    game = Game.objects.get(pk=game.pk)
    rest = sleep_of(game, handed.position, upto=game.version)
    assert (rest.zone, rest.quiet) == ("America/New_York", (time(23, 30), time(6, 0)))
    assert language_for(handed) == "de"
    # Without an account, the game's zone and the site's quiet hours, not the old player's.
    other = substitutes.leave(seat(game, 2)) and seat(game, 2)
    clock.set_quiet_hours(other, "Asia/Tokyo", time(1, 0), time(8, 0))
    substitutes.invite_substitute(seat(game, 0), other, "Plain", "plain@example.com")
    game = Game.objects.get(pk=game.pk)
    rest = sleep_of(game, other.position, upto=game.version)
    assert rest.zone == (game.time_zone or "UTC") and rest.quiet is None  # the tests' site


def test_the_newcomer_sees_only_the_seats_own_hand(client):
    game = table()
    late = time_out(game)
    substitutes.invite_substitute(seat(game, 0), late, "Newcomer", "new@example.com")
    handed = Seat.objects.get(pk=late.pk)
    record = client.get(seat_path(handed) + "record.json").json()
    state = services.load_state(game)
    [dealt] = [e for e in record["events"] if e["type"] == "round_started"][-1:]
    assert dealt["hands"][handed.position] == list(state.hands[handed.position])
    assert [h for n, h in enumerate(dealt["hands"]) if n != handed.position] == [None, None]
    page = client.get(seat_path(handed))
    assert page.status_code == 200
    assert "A bot is playing this seat" in page.content.decode()


def test_mail_for_the_old_player_is_dropped_once_the_seat_changed_hands():
    game = table()
    late = time_out(game)
    pending = emails.queue(
        emails.REMINDER,
        late.email,
        game=game,
        seat=late,
        event="test-pending",
        facts={"hours": 2, "version": game.version},
    )
    assert compose.compose(pending) is not None
    substitutes.invite_substitute(seat(game, 0), late, "Newcomer", "new@example.com")
    pending.refresh_from_db()
    assert compose.compose(pending) is None


def test_an_address_already_at_the_table_cannot_be_invited():
    game = table()
    late = time_out(game)
    with pytest.raises(substitutes.Refused, match="already holds a seat"):
        substitutes.invite_substitute(seat(game, 0), late, "Two", "SEAT2@example.com")


def test_only_the_creator_invites_while_at_the_table_and_only_for_a_seat_that_needs_it():
    game = table()
    late = time_out(game)
    other = next(s for s in game.seats.all() if s.position not in (0, late.position))
    with pytest.raises(substitutes.Refused, match="creator"):
        substitutes.invite_substitute(other, late, "New", "new@example.com")
    with pytest.raises(substitutes.Refused, match="timed out"):
        substitutes.invite_substitute(seat(game, 0), other, "New", "new@example.com")


def test_when_the_creator_left_a_majority_of_the_others_invites():
    game = table(people=4)
    substitutes.leave(seat(game, 0))
    late = time_out(game)
    others = [s for s in game.seats.order_by("position") if s.position not in (0, late.position)]
    assert len(others) == 2
    first = substitutes.invite_substitute(others[0], late, "New", "new@example.com")
    assert first is None  # one of two is no majority
    assert substitutes.backed(game, late.position) == {others[0].position}
    handed = substitutes.invite_substitute(others[1], late, "New", "new@example.com")
    assert handed is not None and handed.email == "new@example.com"
    types = list(game.events.order_by("seq").values_list("type", flat=True))
    assert types[-3:] == [rules.SUBSTITUTE_BACKED, rules.SUBSTITUTE_BACKED, rules.SEAT_HANDED_OVER]


def test_a_player_who_leaves_is_replaced_by_the_greedy_bot_and_cannot_come_back():
    game = table()
    to_move = seat(game, game.seat_to_move)
    token = make_token(to_move)
    services.plans.set_plan(to_move, rules.plans.ALL)  # a plan of theirs goes with them
    substitutes.leave(to_move)
    left = Seat.objects.get(pk=to_move.pk)
    assert left.autopilot and left.email == "" and left.user is None
    assert not Plan.objects.filter(seat=left).exists()
    with pytest.raises(BadLink):
        seat_for_token(token)
    assert autoplay.bot_for(left) is autoplay.BOTS["greedy"]
    game = Game.objects.get(pk=game.pk)
    moved = autoplay.play_turn(game, left, game.version)
    assert moved.events.order_by("-seq").first().data["played_by"] == "bot"
    services.take_seat_back(left)
    assert Seat.objects.get(pk=left.pk).autopilot  # nobody to take it back
    with pytest.raises(substitutes.Refused, match="no player to leave"):
        substitutes.leave(left)
    assert substitutes.has_left(game, left.position)
