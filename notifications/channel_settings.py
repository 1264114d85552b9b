"""Adding, confirming, testing and removing channels (the writes behind the pages).

A seat's channel waits for confirmation from the seat's email: a link can be forwarded,
the mailbox cannot.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext

from games.models import Game, Seat
from helpers import clock_source
from notifications import channel_delivery, channels, emails
from notifications.models import Channel

# Channels one seat may have (confirmed or waiting for it).
SEAT_CHANNELS = 3


class Refused(ValueError):
    """A channel change that is not allowed now; the message says why."""


def add_for_seat(seat: Seat, url: str) -> Channel:
    """A channel for ``seat``'s notices, confirmed from the seat's email before use."""
    if seat.is_bot or not seat.email:
        raise Refused(gettext("This seat has no player to send notices to."))
    if Channel.objects.filter(seat=seat).count() >= SEAT_CHANNELS:
        # Each one mails the seat's address a confirmation: a forwarded link must not
        # flood the player's mailbox.
        raise Refused(gettext("This seat has as many channels as it may: remove one first."))
    url = channels.check_url(url)
    with transaction.atomic():
        channel = Channel.objects.create(url=url, seat=seat)
        Seat.objects.filter(pk=seat.pk).update(has_channels=True)
        emails.channel_confirm(seat, channel)
    return channel


def add_for_account(user, url: str) -> Channel:
    """A channel for every seat of a signed-in account: confirmed by signing in."""
    url = channels.check_url(url)
    with transaction.atomic():
        channel = Channel.objects.create(url=url, user=user, confirmed_at=clock_source.now())
        mark_account_seats(user)
    return channel


def mark_account_seats(user) -> None:
    """The seats of ``user`` (theirs, or at their address) may have channels: their moves
    ask for them."""
    if Channel.objects.filter(user=user).exists():
        Seat.objects.filter(Q(user=user) | Q(email__iexact=user.email)).update(has_channels=True)


def add_for_table(game: Game, by: Seat, url: str) -> Channel:
    """The table's shared channel, given by the game's creator (it replaces one before)."""
    creator = game.created_by
    if creator is None or not (
        by.user_id == creator.pk or by.email.lower() == creator.email.lower()
    ):
        raise Refused(gettext("Only the game's creator may give the table a channel."))
    url = channels.check_url(url)
    with transaction.atomic():
        Channel.objects.filter(game=game).delete()
        Game.objects.filter(pk=game.pk).update(has_channel=True)
        return Channel.objects.create(url=url, game=game, confirmed_at=clock_source.now())


def confirm(token: str) -> Channel | None:
    """Confirm the channel named by ``token`` (from the seat's email); None if unknown."""
    channel = Channel.objects.filter(token=token).first()
    if channel is not None and channel.confirmed_at is None:
        Channel.objects.filter(pk=channel.pk).update(confirmed_at=clock_source.now())
        channel.confirmed_at = clock_source.now()
    return channel


def remove(channel: Channel) -> None:
    channel.delete()


def send_test(channel: Channel) -> bool:
    """Send a test notice (once a minute; only once confirmed: before, the URL is only what
    someone holding the link typed); return whether it arrived."""
    if channel.confirmed_at is None:
        raise Refused(gettext("Confirm the channel from your email first, then test it."))
    now = clock_source.now()
    recent = now - channel_delivery.TEST_EVERY
    claimed = (
        Channel.objects.filter(pk=channel.pk)
        .exclude(last_test_at__gt=recent)
        .update(last_test_at=now)
    )
    if not claimed:
        raise Refused(gettext("A test was sent less than a minute ago: wait a little."))
    notice = channels.Notice(
        gettext("Railmail test"), gettext("This channel works: your notices will come here.")
    )
    return channels.send(channel.url, notice)


def drop_seat_channels(seat: Seat) -> int:
    """The seat's links were renewed or it changed hands: its channels go."""
    dropped = Channel.objects.filter(seat=seat).delete()[0]
    theirs = Q(user__email__iexact=seat.email)
    if seat.user_id:
        theirs |= Q(user_id=seat.user_id)
    has = bool(seat.email) and Channel.objects.filter(theirs).exists()
    Seat.objects.filter(pk=seat.pk).update(has_channels=has)
    seat.has_channels = has
    return dropped


def of_seat(seat: Seat) -> list[Channel]:
    """The channels a seat's page lists: its own (confirmed or not) and the table's."""
    # The flags read with the seat and its game: most have neither, and ask nothing.
    listed = []
    if seat.has_channels:
        listed += Channel.objects.filter(seat=seat).order_by("pk")
    if seat.game.has_channel:
        listed += Channel.objects.filter(game_id=seat.game_id).order_by("pk")
    return listed
