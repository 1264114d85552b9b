"""The outbox of channels besides email: which notices go where, and their delivery.

A ChannelNotice row is written with the events that cause it, claimed by one conditional
UPDATE, and its text built only then, so it says the newest facts; a row left "sending" by
a dead worker is never sent again. The rules of email apply alike (grace, seen, digest
readers, muted games, quiet hours for a player's own notices); a channel that keeps
failing is turned off, and its owner told by email.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import F, Q
from django.utils import translation
from django.utils.translation import gettext

from games import links, rules
from games.derived import snapshots
from games.models import Event, Game, Seat
from games.services.clock import quiet_hours_end
from games.words import narration
from games.words.languages import language_for
from helpers import clock_source
from notifications import channels, digests, emails
from notifications.models import Channel, ChannelNotice
from notifications.outbox import MAX_ATTEMPTS, backoff

log = logging.getLogger(__name__)

YOUR_TURN = "your_turn"
TABLE_TURN = "table_turn"
NEWS = "news"  # a round scored, the game over, a bot taking a seat: said in the log's words
NUDGE = "nudge"

# Failed sends in a row after which a channel is turned off.
FAILURES_BEFORE_OFF = 5
# How often a channel's "send a test" may be pressed.
TEST_EVERY = timedelta(minutes=1)


def personal_channels(seat: Seat) -> list[Channel]:
    """The confirmed, active channels of ``seat``'s player: the seat's and the account's."""
    if seat.is_bot or not seat.email or not seat.has_channels:
        return []  # the usual case, known from the row the move read: no query
    mine = Q(seat=seat) | Q(user__email__iexact=seat.email)
    if seat.user_id:
        mine |= Q(user_id=seat.user_id)
    return list(Channel.objects.filter(mine, active=True, confirmed_at__isnull=False))


def table_channels(game: Game) -> list[Channel]:
    if not game.has_channel:
        return []
    return list(Channel.objects.filter(game=game, active=True, confirmed_at__isnull=False))


def notices_for(game: Game, state, events: Sequence[Event], seats: Sequence[Seat]) -> list:
    """The channel notices ``events`` cause: rows, unwritten."""
    rows = []
    now = clock_source.now()

    def notice(channel, kind, event, seat=None, **facts):
        rows.append(
            ChannelNotice(
                channel=channel,
                game=game,
                seat=seat,
                kind=kind,
                event=event,
                facts=facts,
                next_attempt_at=now,
            )
        )

    table = table_channels(game)
    for event in events:
        if event.type in (rules.ROUND_SCORED, rules.GAME_ENDED, rules.SEAT_TAKEN_BY_BOT):
            for channel in table:
                notice(channel, NEWS, f"v{event.seq}", seq=event.seq)
            # Only news goes to everyone: a move's seats are made models only then.
            for seat in seats:
                if seat.is_bot or not seat.email or seat.notices_muted:
                    continue
                for channel in personal_channels(seat):
                    notice(channel, NEWS, f"v{event.seq}", seat, seq=event.seq)
        elif event.type == rules.NUDGED:
            to = seats[event.data["to"]]
            for channel in personal_channels(to):
                notice(channel, NUDGE, f"v{event.seq}", to, by=event.data["seat"], seq=event.seq)
    types = {event.type for event in events}
    if state.is_over or state.seat_to_move is None:
        return rows
    if not (types & {*rules.MOVE_EVENTS, rules.ROUND_STARTED, rules.TURN_TAKEN_BACK}):
        return rows
    version = events[-1].seq
    for channel in table:
        notice(channel, TABLE_TURN, f"v{version}", version=version)
    return rows


def your_turn_notices(game: Game, seat: Seat, version: int) -> list[ChannelNotice]:
    """The your-turn notices of ``seat``'s own channels at ``version``: rows, unwritten;
    they wait the email's grace, so a player who has seen the board by then gets none."""
    due = clock_source.now() + timedelta(seconds=settings.RAILMAIL_TURN_EMAIL_GRACE)
    return [
        ChannelNotice(
            channel=channel,
            game=game,
            seat=seat,
            kind=YOUR_TURN,
            event=f"v{version}",
            facts={"version": version},
            next_attempt_at=due,
        )
        for channel in personal_channels(seat)
    ]


def your_turn_after_a_look(game: Game, seat: Seat, version: int) -> list[ChannelNotice]:
    """The player looked on their turn, dropping the notice still waiting its grace: as
    with email, their channels hear of the turn later unless they move."""
    due = clock_source.now() + emails.SEEN_BUT_NOT_PLAYED
    written = []
    for channel in personal_channels(seat):
        row, _new = ChannelNotice.objects.get_or_create(
            channel=channel,
            game=game,
            kind=YOUR_TURN,
            event=f"v{version}-seen",
            defaults={
                "seat": seat,
                "facts": {"version": version, "after_a_look": True},
                "next_attempt_at": due,
            },
        )
        written.append(row)
    return written


def deliver(notice_id: int, now: datetime | None = None) -> str:
    """Send notice ``notice_id`` if it is pending and due; how it ended. Twice sends once."""
    now = now or clock_source.now()
    claimed = ChannelNotice.objects.filter(
        pk=notice_id, status=ChannelNotice.Status.PENDING, next_attempt_at__lte=now
    ).update(status=ChannelNotice.Status.SENDING, attempts=F("attempts") + 1)
    if not claimed:
        return "not pending"
    row = ChannelNotice.objects.select_related("channel", "game", "seat").get(pk=notice_id)
    channel = row.channel
    if row.seat is not None:
        row.seat.game = row.game  # read with the row
    awake_at = quiet_hours_end(row.seat, now) if row.seat is not None else None
    if awake_at is not None and channel.active:
        # Quiet hours: waits (not an attempt); whether it is still needed is decided then.
        _finish(
            row, ChannelNotice.Status.PENDING, next_attempt_at=awake_at, attempts=row.attempts - 1
        )
        return "waiting"
    text = None if not channel.active else build(row)
    if text is None:
        _finish(row, ChannelNotice.Status.DROPPED)
        return row.status
    if channels.send(channel.url, text):
        _finish(row, ChannelNotice.Status.SENT, sent_at=clock_source.now())
        Channel.objects.filter(pk=channel.pk).update(failures_in_a_row=0)
        return row.status
    failures = channel.failures_in_a_row + 1
    Channel.objects.filter(pk=channel.pk).update(failures_in_a_row=failures)
    if failures >= FAILURES_BEFORE_OFF:
        turn_off(channel)
    if row.attempts >= MAX_ATTEMPTS or failures >= FAILURES_BEFORE_OFF:
        _finish(row, ChannelNotice.Status.FAILED, error="the service did not take it")
    else:
        _finish(
            row,
            ChannelNotice.Status.PENDING,
            next_attempt_at=now + backoff(row.attempts),
            error="the service did not take it",
        )
    log.info("channel notice %s: %s", row.pk, row.status)
    return row.status


def _finish(row: ChannelNotice, status: str, **fields) -> None:
    row.status = status
    for name, value in fields.items():
        setattr(row, name, value)
    ChannelNotice.objects.filter(pk=row.pk, status=ChannelNotice.Status.SENDING).update(
        status=status, **fields
    )


def due_notices(until: datetime) -> list[tuple[int, datetime]]:
    """The pending notices due by ``until``, soonest first, each with when it is due (the
    minute's sweep queues each)."""
    due = ChannelNotice.objects.filter(
        status=ChannelNotice.Status.PENDING, next_attempt_at__lte=until
    )
    return list(due.order_by("next_attempt_at").values_list("pk", "next_attempt_at")[:500])


def build(row: ChannelNotice) -> channels.Notice | None:
    """The text of ``row`` as it is now, in its reader's language; None when not needed."""
    game, seat = row.game, row.seat
    language = language_for(seat) if seat is not None else game.language
    with translation.override(language):
        if row.kind == YOUR_TURN:
            version = row.facts["version"]
            moved = game.version != version and game.moved_since(version)
            if moved or game.seat_to_move != seat.position or digests.reads_digest(seat):
                return None  # moved on, or they read a digest (asked here, as email does)
            if row.facts.get("after_a_look"):
                # Sent, unless the turn's own notice went out after all.
                if ChannelNotice.objects.filter(
                    channel_id=row.channel_id,
                    game_id=game.pk,
                    kind=YOUR_TURN,
                    event=f"v{version}",
                    status=ChannelNotice.Status.SENT,
                ).exists():
                    return None
            elif seat.seen_version >= version:
                return None  # seen: the notice after a look comes if they leave
            return channels.turn_notice(game, seat)
        if row.kind == TABLE_TURN:
            if game.version != row.facts["version"] and game.moved_since(row.facts["version"]):
                return None
            return channels.turn_notice(game)
        if row.kind == NUDGE:
            if game.seat_to_move != seat.position or game.status != Game.Status.ACTIVE:
                return None
            name = game.seat_names()[row.facts["by"]]
            what = gettext("%(name)s reminds you of your move") % {"name": name}
            return channels.Notice(game.display_name, f"{what}\n{links.seat_url(seat)}")
        if row.kind == NEWS:
            event = game.events.get(seq=row.facts["seq"]).as_engine_event()
            state = snapshots.at(game, event["seq"]).state
            return channels.news(
                game.display_name, narration.describe(event, state, game.seat_names())
            )
    return None


def turn_off(channel: Channel) -> None:
    """Turn off a channel that keeps failing, and tell its owner by email."""
    if not Channel.objects.filter(pk=channel.pk, active=True).update(active=False):
        return
    owner = owner_address(channel)
    if owner:
        emails.channel_off(owner, channel)


def owner_address(channel: Channel) -> str:
    """Who hears of the channel: its account, its seat, or its game's creator."""

    if channel.user_id:
        return channel.user.email
    if channel.seat_id:
        return channel.seat.email
    if channel.game_id and channel.game.created_by_id:
        return channel.game.created_by.email
    return ""
