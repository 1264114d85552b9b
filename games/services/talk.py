"""Table talk: short messages between the players of a game, from the board page or a
reply. Talk belongs to the players: the public pages and record of a game never show it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import Expression, Q, QuerySet
from django.db.models.lookups import IsNull
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.models import Game, Seat, TalkBlock, TalkMessage, TalkMute, TalkReport
from games.signals import talk_reported
from helpers import clock_source
from helpers.text import is_control

MAX_LENGTH = 500
# Messages a seat may write in an hour: enough to talk, too few to flood a table.
PER_HOUR = 20
# A line of an email we sent, found again in a reply, means the quoted email (which may
# hold the reader's cities) was not stripped: lines shorter than this prove nothing.
QUOTED_LINE = 12


class Refused(ValueError):
    """A message that was not posted, and why (for the writer)."""


def post(
    seat: Seat, text: str, *, via: str = TalkMessage.Via.BOARD, sent_text: str = ""
) -> TalkMessage:
    """Post ``text`` from ``seat`` to its table; ``sent_text`` is the email a reply
    answers (its quoted lines must not come back). Raises Refused, posting nothing."""
    text = _clean(text)
    if seat.is_bot:
        raise Refused(_("Bots do not talk."))
    if not text:
        raise Refused(_("Write something first."))
    if sent_text and quotes(text, sent_text):  # first: the likeliest reason it is long
        raise Refused(
            _(
                "Your reply still holds our email below it (we could not cut the quoted part "
                "off), and that may show your cities: it was not posted. Write your message "
                "on its own, or on the board page."
            )
        )
    if len(text) > MAX_LENGTH:
        raise Refused(
            ngettext(
                "A message is at most %(max)s character; yours has %(length)s.",
                "A message is at most %(max)s characters; yours has %(length)s.",
                MAX_LENGTH,
            )
            % {"max": MAX_LENGTH, "length": len(text)}
        )
    if seat.email and TalkBlock.objects.filter(address=seat.email.lower()).exists():
        raise Refused(_("Table talk from this address has been stopped by the site's staff."))
    with transaction.atomic():
        # The seat's row, locked: two messages at once count one after the other.
        Seat.objects.select_for_update().filter(pk=seat.pk).first()
        hour_ago = clock_source.now() - timedelta(hours=1)
        if TalkMessage.objects.filter(seat=seat, created_at__gte=hour_ago).count() >= PER_HOUR:
            raise Refused(
                ngettext(
                    "You have written %(count)s message in the last hour: wait a little.",
                    "You have written %(count)s messages in the last hour: wait a little.",
                    PER_HOUR,
                )
                % {"count": PER_HOUR}
            )
        message = TalkMessage.objects.create(game_id=seat.game_id, seat=seat, text=text, via=via)
        Game.objects.filter(pk=seat.game_id).update(last_talk_at=message.created_at)
        return message


def _clean(text: str) -> str:
    """Line breaks kept (a message may have lines), every other control character gone,
    trailing spaces and blank lines at either end dropped."""
    lines = "".join(c for c in text.replace("\r\n", "\n") if c == "\n" or not is_control(c))
    return "\n".join(line.rstrip() for line in lines.split("\n")).strip()


def quotes(text: str, sent_text: str) -> bool:
    """Whether ``text`` holds a line of ``sent_text`` (quote marks and spaces aside)."""
    ours = {
        line
        for line in (_bare(line) for line in sent_text.splitlines())
        if len(line) >= QUOTED_LINE
    }
    return any(_bare(line) in ours for line in text.splitlines())


def _bare(line: str) -> str:
    return " ".join(line.lstrip("> \t").split())


def visible_to(seat: Seat) -> QuerySet[TalkMessage]:
    """The messages of ``seat``'s game that its player reads: not hidden by staff, not
    from a player they muted; oldest first."""
    muted = TalkMute.objects.filter(seat=seat).values("muted")
    return (
        TalkMessage.objects.filter(game_id=seat.game_id, hidden_at__isnull=True)
        .exclude(seat__in=muted)
        .select_related("seat")
        .order_by("created_at", "pk")
    )


def news_for(seat: Seat, since: datetime | Expression | None) -> list[TalkMessage]:
    """What the others said that ``seat``'s player has not been sent yet, after ``since``
    (None: everything)."""
    found = visible_to(seat).exclude(seat=seat)
    if since is not None:
        found = found.filter(Q(created_at__gt=since) | Q(IsNull(since, True)))
    return list(found)


def mute(seat: Seat, other: Seat) -> None:
    if other.game_id != seat.game_id or other.pk == seat.pk:
        raise Refused(_("You can mute only another player at your table."))
    try:
        with transaction.atomic():
            TalkMute.objects.create(seat=seat, muted=other)
    except IntegrityError:
        pass  # muted already


def unmute(seat: Seat, other: Seat) -> None:
    TalkMute.objects.filter(seat=seat, muted=other).delete()


def report(seat: Seat, message: TalkMessage) -> bool:
    """Tell staff that ``seat``'s player finds ``message`` abusive; once per player and
    message. Return whether this was a new report."""
    if message.game_id != seat.game_id:
        raise Refused(_("You can report only a message at your own table."))
    _report, created = TalkReport.objects.get_or_create(message=message, seat=seat)
    if created:
        transaction.on_commit(
            lambda: talk_reported.send(sender=TalkMessage, message=message, seat=seat),
            robust=True,
        )
    return created
