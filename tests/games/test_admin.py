import pytest
from django.urls import reverse

from games.models import Event
from tests.factories import GameFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def game():
    return GameFactory()


def test_the_game_list_shows_the_projection(staff_client, game):
    page = staff_client.get(reverse("admin:games_game_changelist"), {"status": "active"})
    assert page.status_code == 200
    assert reverse("admin:games_game_change", args=[game.pk]).encode() in page.content
    finished = staff_client.get(reverse("admin:games_game_changelist"), {"status": "finished"})
    assert reverse("admin:games_game_change", args=[game.pk]).encode() not in finished.content


def test_a_game_page_shows_its_seats_and_events(staff_client, game):
    page = staff_client.get(reverse("admin:games_game_change", args=[game.pk]))
    assert page.status_code == 200
    assert b"Player 2" in page.content
    assert b"round_started" in page.content


def test_games_are_not_added_or_deleted_in_the_admin(staff_client, game):
    assert staff_client.get(reverse("admin:games_game_add")).status_code == 403
    assert staff_client.get(reverse("admin:games_game_delete", args=[game.pk])).status_code == 403


def test_a_seats_email_can_be_corrected(staff_client, game):
    seat = game.seats.get(position=1)
    response = staff_client.post(
        reverse("admin:games_seat_change", args=[seat.pk]),
        {"name": "Player 1", "email": "fixed@example.com", "user": ""},
    )
    assert response.status_code == 302
    seat.refresh_from_db()
    assert seat.email == "fixed@example.com"


def test_events_can_be_viewed_but_not_added_changed_or_deleted(staff_client, game):
    event = game.events.get(seq=2)
    assert staff_client.get(reverse("admin:games_event_changelist")).status_code == 200
    page = staff_client.get(reverse("admin:games_event_change", args=[event.pk]))
    assert page.status_code == 200
    assert b"round_started" in page.content
    assert b'name="_save"' not in page.content

    assert staff_client.get(reverse("admin:games_event_add")).status_code == 403
    delete_url = reverse("admin:games_event_delete", args=[event.pk])
    assert staff_client.post(delete_url, {"post": "yes"}).status_code == 403
    staff_client.post(
        reverse("admin:games_event_change", args=[event.pk]),
        {"seq": 99, "type": "forged", "data": "{}"},
    )
    assert Event.objects.get(pk=event.pk).type == "round_started"
