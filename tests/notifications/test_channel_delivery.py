"""Channels besides email end to end: added from the board page, confirmed from the seat's
email, written with the events that cause them and delivered through their outbox to a
local ntfy server (and a Gotify one for the table); retried with backoff, never twice, and
turned off with an email to the owner when a channel keeps failing."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from games.links import seat_path
from games.models import Game
from games.services import SeatSpec, create_game, load_state, start_game
from notifications import channel_delivery, channel_settings, emails
from notifications.models import Channel, ChannelNotice, Message
from tests.conftest import play_turn
from tests.factories import UserFactory
from tests.notifications.test_channels import Service

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("turn_emails_at_once")]


@pytest.fixture(autouse=True)
def private_allowed(settings):
    settings.RAILMAIL_CHANNELS_ALLOW_PRIVATE = True


@pytest.fixture
def servers():
    made = []

    def start(**kwargs):
        made.append(Service(**kwargs))
        return made[-1]

    yield start
    for server in made:
        server.close()


@pytest.fixture
def game():
    creator = UserFactory(email="ada@example.com")
    people = [SeatSpec("Ada", "ada@example.com"), SeatSpec("Bo", "bo@example.com")]
    return start_game(create_game("transamerica", None, people, creator))


def test_a_seat_channel_is_confirmed_from_the_seats_email_then_gets_turn_notices(
    client, game, servers, django_capture_on_commit_callbacks
):
    ntfy = servers(answer=b'{"id":"1"}')
    bo = game.seats.get(position=1)
    path = seat_path(bo)
    answer = client.post(
        path.replace("/s/", "/mail/seat/") + "channels/",
        {"url": f"ntfy://127.0.0.1:{ntfy.port}/bo-railmail"},
        follow=True,
    )
    assert "The channel is added." in answer.content.decode()
    channel = Channel.objects.get(seat=bo)
    assert channel.confirmed_at is None
    page = client.get(path).content.decode()
    assert "ntfy://127.0.0.1/…" in page and "bo-railmail" not in page
    # Unconfirmed: the seat's turn sends nothing there.
    with django_capture_on_commit_callbacks(execute=True):
        game = play_turn(game)
    assert not ChannelNotice.objects.exists()
    # The confirmation comes to the seat's email; its page confirms only by POST.
    [mail] = Message.objects.filter(kind=emails.CHANNEL_CONFIRM, to=bo.email)
    from notifications.compose import compose

    [link] = re.findall(r"https?://\S+/channels/confirm/\S+/", compose(mail).text)
    confirm = link.split("://", 1)[1].split("/", 1)[1]
    client.get("/" + confirm)
    assert Channel.objects.get(pk=channel.pk).confirmed_at is None
    client.post("/" + confirm)
    assert Channel.objects.get(pk=channel.pk).confirmed_at is not None


def test_turn_notices_reach_the_seat_and_the_table_without_a_hand(
    game, servers, django_capture_on_commit_callbacks
):
    ntfy, gotify = servers(answer=b'{"id":"1"}'), servers(answer=b'{"id":1}')
    ada, bo = game.seats.order_by("position")
    mine = channel_settings.add_for_seat(bo, f"ntfy://127.0.0.1:{ntfy.port}/bo-railmail")
    channel_settings.confirm(mine.token)
    channel_settings.add_for_table(game, ada, f"gotify://127.0.0.1:{gotify.port}/TableToken")
    game.refresh_from_db()  # as a move reads it
    with django_capture_on_commit_callbacks(execute=True):
        game = play_turn(game)  # Ada places her marker: Bo's turn
    notices = ChannelNotice.objects.order_by("kind")
    assert [(n.kind, n.status) for n in notices] == [("table_turn", "sent"), ("your_turn", "sent")]
    [(_path, _headers, personal)] = ntfy.requests
    [(path, headers, table)] = gotify.requests
    assert "/s/" in personal["message"]  # Bo's own channel carries his link
    assert "/s/" not in table["message"] and "http" not in table["message"]
    assert headers["X-Gotify-Key"] == "TableToken"
    state = load_state(game)
    for hand in state.hands:
        for body in (personal, table):
            assert sum(city in body["message"] for city in hand) < len(hand)
    # Delivering again sends nothing more.
    for notice in notices:
        assert channel_delivery.deliver(notice.pk) == "not pending"
    assert len(ntfy.requests) == 1 and len(gotify.requests) == 1


def test_a_failing_channel_is_retried_with_backoff_then_turned_off_and_its_owner_told(game):
    from tests.faults import closed_port

    ada, bo = game.seats.order_by("position")
    port = closed_port()
    channel = channel_settings.add_for_seat(bo, f"json://127.0.0.1:{port}/")
    channel_settings.confirm(channel.token)
    now = timezone.now() + timedelta(seconds=1)
    for n in range(channel_delivery.FAILURES_BEFORE_OFF):
        notice = ChannelNotice.objects.create(
            channel=channel,
            game=game,
            seat=bo,
            kind="table_turn",
            event=f"t{n}",
            facts={"version": game.version},
        )
        status = channel_delivery.deliver(notice.pk, now)
        if n == 0:
            notice.refresh_from_db()
            assert status == "pending" and notice.next_attempt_at > now + timedelta(seconds=30)
            assert channel_delivery.deliver(notice.pk, now) == "not pending"  # not due yet
    channel.refresh_from_db()
    assert not channel.active
    [told] = Message.objects.filter(kind=emails.CHANNEL_OFF, to=bo.email)
    from notifications.compose import compose

    text = compose(told).text
    assert "json://127.0.0.1/…" in text and str(port) not in text


def test_the_test_button_sends_once_a_minute_and_only_once_the_channel_is_confirmed(
    client, game, servers
):
    hook = servers()
    bo = game.seats.get(position=1)
    channel = channel_settings.add_for_seat(bo, f"json://127.0.0.1:{hook.port}/")
    test_path = seat_path(bo).replace("/s/", "/mail/seat/") + f"channels/{channel.pk}/test/"

    def press() -> str:
        return client.post(test_path, follow=True).content.decode()

    assert "Confirm the channel from your email first" in press()
    assert not hook.requests  # an address only typed through a link gets nothing
    channel_settings.confirm(channel.token)
    assert "The test was sent." in press()
    assert "less than a minute ago" in press()
    assert len(hook.requests) == 1
    assert hook.requests[0][2]["title"] == "Railmail test"


def test_a_seat_may_have_three_channels_each_confirmed_by_an_email(game):
    bo = game.seats.get(position=1)
    for n in range(channel_settings.SEAT_CHANNELS):
        channel_settings.add_for_seat(bo, f"ntfys://ntfy.example.org/topic-{n}")
    with pytest.raises(channel_settings.Refused, match="as many channels as it may"):
        channel_settings.add_for_seat(bo, "ntfys://ntfy.example.org/one-more")
    confirmations = Message.objects.filter(kind=emails.CHANNEL_CONFIRM, to=bo.email)
    assert confirmations.count() == channel_settings.SEAT_CHANNELS


def test_a_seats_channels_go_when_it_changes_hands_or_its_links_are_renewed(game):
    from games.links import rotate_link

    bo = game.seats.get(position=1)
    channel_settings.add_for_seat(bo, "ntfys://ntfy.example.org/topic")
    rotate_link(bo)
    assert not Channel.objects.filter(seat=bo).exists()
    assert Game.objects.get(pk=game.pk)


def test_the_admin_shows_a_channel_by_its_service_never_its_url(admin_client, game):
    bo = game.seats.get(position=1)
    channel = channel_settings.add_for_seat(bo, "ntfys://ntfy.example.org/bo-secret-topic")
    listing = admin_client.get("/admin/notifications/channel/").content.decode()
    page = admin_client.get(f"/admin/notifications/channel/{channel.pk}/change/").content.decode()
    assert "ntfys://ntfy.example.org/…" in listing
    assert "bo-secret-topic" not in listing and "bo-secret-topic" not in page


def test_an_account_adds_a_channel_for_all_its_seats(client, game, servers):
    hook = servers()
    ada_user = game.created_by
    client.force_login(ada_user)
    url = f"json://127.0.0.1:{hook.port}/ada"
    answer = client.post("/mail/channels/", {"action": "add", "url": url}, follow=True)
    assert "The channel is added." in answer.content.decode()
    channel = Channel.objects.get(user=ada_user)
    assert channel.confirmed_at is not None
    assert "json://127.0.0.1/…" in answer.content.decode() and "/ada" not in answer.content.decode()
    ada = game.seats.get(position=0)
    ada.refresh_from_db()
    assert ada.has_channels  # her moves ask for channels now
    assert channel in channel_delivery.personal_channels(ada)
    client.post("/mail/channels/", {"action": "remove", "channel": channel.pk})
    assert not Channel.objects.filter(user=ada_user).exists()


def test_a_players_notices_and_nudges_wait_for_the_end_of_their_quiet_hours(
    game, servers, django_capture_on_commit_callbacks, mailoutbox
):
    from games.services import clock, consent
    from notifications import tasks
    from tests.notifications.test_channels import no_hand_in

    ntfy, gotify = servers(answer=b'{"id":"1"}'), servers(answer=b'{"id":1}')
    ada, bo = game.seats.order_by("position")
    mine = channel_settings.add_for_seat(bo, f"ntfy://127.0.0.1:{ntfy.port}/bo-railmail")
    channel_settings.confirm(mine.token)
    channel_settings.add_for_table(game, ada, f"gotify://127.0.0.1:{gotify.port}/TableToken")
    now = timezone.now()
    awake = (now + timedelta(hours=2)).replace(second=0, microsecond=0)
    clock.set_quiet_hours(bo, "UTC", (now - timedelta(hours=1)).time(), awake.time())
    game.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        game = play_turn(game)  # Ada places her marker: Bo's turn, in his quiet hours
    with django_capture_on_commit_callbacks(execute=True):
        consent.nudge(ada)
    # The table's channel is nobody's: it hears at once. Bo's waits for him to wake.
    assert len(gotify.requests) == 1 and not ntfy.requests
    waiting = ChannelNotice.objects.filter(channel=mine).order_by("kind")
    assert [(n.kind, n.status, n.next_attempt_at) for n in waiting] == [
        ("nudge", "pending", awake),
        ("your_turn", "pending", awake),
    ]
    assert all(n.attempts == 0 for n in waiting)  # waiting is not a failed attempt
    [nudge_mail] = Message.objects.filter(to=bo.email, event__startswith="nudge")
    assert nudge_mail.next_attempt_at == awake
    sent_before = len(mailoutbox)
    # The minute's sweep just before he wakes sends nothing of his; at the end, all.
    tasks.sweep_outbox((awake - timedelta(minutes=1)).isoformat())
    assert not ntfy.requests and len(mailoutbox) == sent_before
    tasks.sweep_outbox(awake.isoformat())
    assert {n.status for n in ChannelNotice.objects.filter(channel=mine)} == {"sent"}
    assert len(ntfy.requests) == 2
    bodies = [body["message"] for _path, _headers, body in ntfy.requests]
    assert any("reminds you of your move" in body for body in bodies)
    for body in bodies:
        no_hand_in(body, game)
    assert len(mailoutbox) == sent_before + 1
    assert "reminds you of your move" in mailoutbox[-1].subject


def test_a_turn_notice_waits_the_emails_grace_and_a_look_at_the_board_drops_it(
    game, servers, settings, django_capture_on_commit_callbacks
):
    from games.services.seats import record_seen
    from notifications import tasks
    from tests.notifications.test_channels import no_hand_in

    settings.RAILMAIL_TURN_EMAIL_GRACE = 120
    hook = servers()  # Apprise's JSON webhook, through the outbox
    bo = game.seats.get(position=1)
    mine = channel_settings.add_for_seat(bo, f"json://127.0.0.1:{hook.port}/hooks/bo")
    channel_settings.confirm(mine.token)
    game.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        game = play_turn(game)  # Bo's turn
    [turn] = ChannelNotice.objects.filter(channel=mine)
    assert turn.next_attempt_at > timezone.now() + timedelta(seconds=100)
    bo.refresh_from_db()  # as his board page reads it
    with django_capture_on_commit_callbacks(execute=True):
        record_seen(bo, game.version)  # he looks at his board, and leaves without moving
    later = timezone.now() + timedelta(minutes=3)
    tasks.sweep_outbox(later.isoformat())
    turn.refresh_from_db()
    assert turn.status == "dropped" and not hook.requests
    # An hour after his look, as his email does, his channel hears of the turn after all.
    [after_a_look] = ChannelNotice.objects.filter(channel=mine, event__endswith="-seen")
    tasks.sweep_outbox((later + timedelta(hours=1)).isoformat())
    after_a_look.refresh_from_db()
    assert after_a_look.status == "sent" and len(hook.requests) == 1
    [(path, headers, body)] = hook.requests
    assert path == "/hooks/bo" and headers["Content-Type"].startswith("application/json")
    assert body["title"].startswith("Your turn") and "/s/" in body["message"]
    no_hand_in(body["message"], game)


def test_a_digest_reader_gets_no_turn_notice_on_his_channel(
    game, servers, django_capture_on_commit_callbacks
):
    from notifications.models import MailPreference

    hook = servers()
    bo = game.seats.get(position=1)
    channel = channel_settings.add_for_seat(bo, f"json://127.0.0.1:{hook.port}/")
    channel_settings.confirm(channel.token)
    MailPreference.objects.create(address=bo.email, digest=True)
    game.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        play_turn(game)  # Bo's turn: he reads a digest, asked when the notice is delivered
    [turn] = ChannelNotice.objects.filter(channel=channel, kind="your_turn")
    assert turn.status == "dropped" and not hook.requests


def test_a_muted_game_sends_no_news_to_the_players_channels_but_still_their_turn(game):
    from games import rules
    from games.models import Event, Seat

    ada, bo = game.seats.order_by("position")
    for seat in (ada, bo):
        channel = channel_settings.add_for_seat(seat, "ntfys://ntfy.example.org/topic")
        channel_settings.confirm(channel.token)
    Seat.objects.filter(pk=bo.pk).update(notices_muted=True)  # as the board page mutes
    seats = list(game.seats.order_by("position"))
    scored = Event(game=game, seq=game.version + 1, type=rules.ROUND_SCORED, data={"round": 1})
    rows = channel_delivery.notices_for(game, load_state(game), [scored], seats)
    assert [(row.seat.position, row.kind) for row in rows] == [(0, "news")]
    [turn] = channel_delivery.your_turn_notices(game, seats[1], game.version)
    assert turn.kind == "your_turn" and turn.seat == seats[1]
