"""Where the notifications app listens: games announce what happened, emails follow.

The game signals are sent inside the write transaction, so the outbox rows written here
commit or roll back with what caused them. Every new outbox row is queued for delivery
after the commit by one ``post_save`` receiver.
"""

from anymail.signals import EventType, inbound, tracking
from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts.models import normalize_email
from accounts.signals import signed_in_by_link
from games import rules
from games.signals import (
    events_recorded,
    seat_invited,
    seat_links_renewed,
    talk_reported,
    turn_seen,
)
from notifications import (
    channel_delivery,
    channel_settings,
    digests,
    emails,
    outbox,
    plan_mail,
    tasks,
)
from notifications import inbound as mail_in
from notifications.models import ChannelNotice, Message, Suppression


@receiver(post_save, sender=Message, dispatch_uid="notifications.queue_delivery")
@receiver(post_save, sender=ChannelNotice, dispatch_uid="notifications.queue_notice")
def queue_delivery(sender, instance: Message | ChannelNotice, created: bool, **kwargs) -> None:
    """Deliver a new outbox row once its transaction commits (helpers.claims sends
    post_save for the rows it inserts in one statement)."""
    if not created:
        return
    if isinstance(instance, ChannelNotice):
        tasks.deliver_channel_notice_after_commit(instance.pk, instance.next_attempt_at)
    elif instance.status == Message.Status.PENDING:  # a muted row is never delivered
        tasks.deliver_after_commit(instance.pk, instance.next_attempt_at)


@receiver(seat_invited, dispatch_uid="notifications.write_invitation")
def write_invitation(sender, seat, reminder: bool, fresh_link: bool = False, **kwargs) -> None:
    emails.invitation(seat, reminder=reminder, fresh_link=fresh_link)


@receiver(events_recorded, dispatch_uid="notifications.write_game_emails")
def write_game_emails(sender, game, state, events, snapshot, seats, **kwargs) -> list[Message]:
    """The outbox rows ``events`` cause, for the write path to insert with the events."""
    rows = []
    types = [event.type for event in events]
    for event in events:
        if event.type == rules.ROUND_SCORED:
            rows += emails.round_scored(game, seats, event.data["round"], event.seq)
        elif event.type == rules.GAME_ENDED:
            rows += emails.game_over(game, seats, event.seq, event.data.get("reason"))
        elif event.type == rules.NUDGED:
            to = seats[event.data["to"]]
            if to.email and not (to.is_bot or to.autopilot):
                rows.append(emails.nudge(game, to, event.data["seat"], event.seq))
        elif event.type == rules.SEAT_TAKEN_BY_BOT:
            rows += emails.bot_took_over(game, seats, seats[event.data["seat"]], event.seq)

    rows += channel_delivery.notices_for(game, state, events, seats)
    if state.is_over or state.seat_to_move is None:
        return rows
    turn_changed = rules.ROUND_STARTED in types or any(t in rules.MOVE_EVENTS for t in types)
    if not turn_changed:
        return rows
    seat = seats[state.seat_to_move]
    movers = [event.data["seat"] for event in events if event.type in rules.MOVE_EVENTS]
    # No email about one's own move; a player who ends the round may start the next.
    own_move = movers and movers[-1] == seat.position and rules.ROUND_STARTED not in types
    if own_move or seat.is_bot or seat.autopilot or not seat.email:
        return rows
    plan_plays, plan_stopped = plan_mail.at_turn(seat, snapshot)
    if plan_plays:
        return rows  # a plan's turn is played at once: nothing to tell
    # Whether the reader wants it is decided at delivery, in one place.
    rows += channel_delivery.your_turn_notices(game, seat, snapshot.version)
    row = emails.your_turn(game, seat, snapshot.version, snapshot.digest, plan_stopped)
    return [*rows, row] if row is not None else rows


@receiver(turn_seen, dispatch_uid="notifications.your_turn_after_a_look")
def your_turn_after_a_look(sender, seat, version: int, **kwargs) -> None:
    """A look at the board drops the waiting turn email: should the player leave without
    moving, it comes later all the same."""
    game = seat.game
    game.refresh_from_db()
    if game.version != version or game.seat_to_move != seat.position:
        return
    if game.status != game.Status.ACTIVE:
        return
    if seat.is_bot or seat.autopilot or not seat.email or digests.reads_digest(seat):
        return
    emails.your_turn_after_a_look(game, seat, version)
    channel_delivery.your_turn_after_a_look(game, seat, version)


@receiver(tracking, dispatch_uid="notifications.record_provider_event")
def record_provider_event(sender, event, esp_name: str, **kwargs) -> None:
    """Stop mail to an address after a hard bounce or a spam complaint (anymail calls a
    soft bounce "deferred": the mailbox is not gone)."""
    reasons = {
        EventType.BOUNCED: Suppression.Reason.BOUNCED,
        EventType.COMPLAINED: Suppression.Reason.COMPLAINED,
    }
    if event.event_type not in reasons or not event.recipient:
        return
    detail = event.description or event.mta_response or ""
    Suppression.objects.update_or_create(
        address=normalize_email(event.recipient),
        defaults={
            "reason": reasons[event.event_type],
            "detail": f"{esp_name}: {detail}".strip()[:2000],
        },
    )


@receiver(talk_reported, dispatch_uid="notifications.tell_staff_of_a_report")
def tell_staff_of_a_report(sender, message, seat, **kwargs) -> None:
    """Staff decide about a reported message in the admin: tell them there is one."""
    outbox.tell_operator(
        f"Table talk reported in game {message.game_id}",
        f"{seat.name} reported this message by {message.seat.name} in game "
        f"{message.game_id}:\n\n{message.text}\n\nHide it, and stop its writer from "
        "talking, in the admin: Games > Talk messages.\n",
    )


@receiver(inbound, dispatch_uid="notifications.read_a_reply")
def read_a_reply(sender, event, esp_name: str, **kwargs) -> None:
    """A reply through the provider's inbound webhook (anymail checks its secret)."""
    message = event.message
    envelope_to = [message.envelope_recipient] if message.envelope_recipient else []
    mail_in.receive(message, envelope_from=message.envelope_sender or "", envelope_to=envelope_to)


@receiver(seat_links_renewed, dispatch_uid="notifications.drop_seat_channels")
def drop_seat_channels(sender, seat, **kwargs) -> None:
    """A seat's channels go with its old links (a renewed link, a new player)."""
    channel_settings.drop_seat_channels(seat)


@receiver(signed_in_by_link, dispatch_uid="notifications.mark_account_seats")
def mark_account_seats(sender, user, **kwargs) -> None:
    """Seats that join an account with channels ask for them on their moves."""
    channel_settings.mark_account_seats(user)
