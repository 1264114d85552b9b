"""Building an outbox row's email when it is delivered, from the facts the row records.

``compose`` is ``render(gather(message))``: gathering reads the game as it stands, so an
email says the newest facts, and one whose moment has passed is not sent. Only what the
recipient may see goes in: their own cities while a round runs, every hand once scored.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from email.utils import parseaddr

from django.conf import settings
from django.db.models import Subquery
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext, ngettext

from accounts.models import normalize_email
from games import links, rules
from games.derived import snapshots
from games.models import Game
from games.pages.drawing import seat_colour, since_last_turn
from games.services import talk
from games.words import narration, places, suggestions, time_zones
from games.words import plans as plan_words
from games.words.city_names import city_names
from games.words.languages import language_for, language_for_address
from helpers.text import and_list, one_line
from notifications import (
    board_picture,
    channels,
    digests,
    emails,
    plan_mail,
    reply_addresses,
    reply_grammar,
)
from notifications.models import Channel, Message

log = logging.getLogger(__name__)

# What each kind's List-Id calls its list (RFC 2919): players filter on it.
LISTS = {
    emails.INVITATION: "invitations",
    emails.LOGIN_LINK: "sign-in links",
    emails.YOUR_TURN: "turn emails",
    emails.REMINDER: "reminders",
    emails.ROUND_SCORED: "round results",
    emails.GAME_OVER: "game results",
    emails.BOT_TOOK_OVER: "seat changes",
    emails.DIGEST: "daily digests",
    emails.REPLY_ANSWER: "answers to replies",
    emails.REPLY_PLAYED: "moves played by reply",
    emails.CHANNEL_CONFIRM: "channel confirmations",
    emails.CHANNEL_OFF: "channel confirmations",
    emails.SEAT_DECLINED: "invitation answers",
}


# The emails about a game that carry its table talk since the reader's last email.
TALK_KINDS = (
    emails.YOUR_TURN,
    emails.REMINDER,
    emails.ROUND_SCORED,
    emails.GAME_OVER,
    emails.BOT_TOOK_OVER,
)


def talk_news(seat) -> list:
    """The table talk ``seat``'s player has not been emailed about this game yet."""
    last_sent = (
        Message.objects.filter(game_id=seat.game_id, to=seat.email, status=Message.Status.SENT)
        .order_by("-sent_at")
        .values("sent_at")[:1]
    )
    return talk.news_for(seat, Subquery(last_sent))


@dataclass
class Draft:
    """What an email says, gathered for its recipient: ready to render."""

    subject: str
    template: str
    context: dict
    headers: dict[str, str]
    images: dict[str, bytes] = field(default_factory=dict)  # Content-ID -> PNG
    language: str = settings.LANGUAGE_CODE  # the recipient's: render in it too


@dataclass
class Composed:
    """An email ready to send."""

    subject: str
    text: str
    html: str
    headers: dict[str, str] = field(default_factory=dict)
    images: dict[str, bytes] = field(default_factory=dict)  # inline, by Content-ID


PICTURE_ID = "board@railmail"


class NotNeeded(Exception):
    """The email's moment has passed (the player moved, saw it, or the link died)."""


def mail_domain() -> str:
    """The domain of the sender's address: Message-IDs and List-Ids are made under it."""
    return parseaddr(settings.DEFAULT_FROM_EMAIL)[1].partition("@")[2] or "localhost"


def message_id(message: Message) -> str:
    """The row's Message-ID: the same for every try."""
    return f"<{message.token}@{mail_domain()}>"


def thread_root(game: Game) -> str:
    """A Message-ID of no sent email that every email of ``game`` refers to, to thread them."""
    return f"<game-{game.thread_token}@{mail_domain()}>"


def list_id(kind: str) -> str:
    slug = kind.replace("_", "-")
    return f"{settings.SITE_NAME} {LISTS.get(kind, kind)} <{slug}.{mail_domain()}>"


def reply_to(message: Message) -> str:
    """Where a reply goes: a game email's own reply address, else the operator."""
    if message.seat is not None and message.game is not None:
        version = message.facts.get("version") or message.game.version
        address = reply_addresses.reply_address(message.seat, version)
        if address:
            return address
    return settings.RAILMAIL_REPLY_TO


def compose(message: Message) -> Composed | None:
    """The email of outbox row ``message``, or None when it is no longer needed."""
    draft = gather(message)
    return None if draft is None else render(draft)


def language_of(message: Message) -> str:
    """The language the recipient of ``message`` reads."""
    if message.seat is not None and message.seat.email == message.to:
        return language_for(message.seat)
    return language_for_address(message.to, message.game, message.facts.get("language", ""))


def gather(message: Message) -> Draft | None:
    """What the email of ``message`` says, in its recipient's language, or None."""
    language = language_of(message)
    with translation.override(language):
        draft = _gather(message)
    if draft is not None:
        draft.language = language
    return draft


def _gather(message: Message) -> Draft | None:
    if message.seat is not None and message.to != normalize_email(message.seat.email):
        return None  # the seat changed hands (or its player left): not theirs to read now
    try:
        subject, template, context = BUILDERS[message.kind](message)
    except NotNeeded:
        return None
    if message.kind in TALK_KINDS and message.seat is not None and message.game.last_talk_at:
        context["talk"] = talk_news(message.seat)
    if message.seat is not None and message.game is not None:
        upto = message.facts.get("version", message.game.version)
        context["plan_played"] = plan_mail.played_since(message.seat, upto, before=message.pk)
    unsubscribe = emails.unsubscribe_url(message.to, message.kind)
    context = {
        "site_name": settings.SITE_NAME,
        "site_url": settings.SITE_URL,
        "game": message.game,
        "unsubscribe_url": unsubscribe,
        "subject": subject,
        **context,
    }
    headers = {
        "Message-ID": message_id(message),
        # RFC 3834: an automatic email; auto-replies (out of office) must not answer it.
        "Auto-Submitted": "auto-generated",
        "X-Auto-Response-Suppress": "All",
        "List-Id": list_id(message.kind),
        "Reply-To": reply_to(message),
    }
    if message.kind != emails.LOGIN_LINK:  # asked for there and then: nothing to stop
        # RFC 8058: the provider or mail client may POST here to unsubscribe in one click.
        headers["List-Unsubscribe"] = f"<{unsubscribe}>"
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    if message.game is not None:
        root = thread_root(message.game)
        headers |= {"In-Reply-To": root, "References": root}
        answered = message.facts.get("in_reply_to", "")
        if answered and "\n" not in answered and "\r" not in answered:
            # An answer to the player's reply: threaded under it, and under the game.
            headers |= {"In-Reply-To": answered, "References": f"{root} {answered}"}
    images = {}
    if "picture" in context:
        images[PICTURE_ID] = context.pop("picture")
        context["picture_id"] = PICTURE_ID
    # Names and titles go into the subject: never a line break in a header.
    return Draft(one_line(subject)[:250], template, context, headers, images)


def render(draft: Draft) -> Composed:
    """Draw a gathered email in its recipient's language."""
    with translation.override(draft.language):
        return Composed(
            subject=draft.subject,
            text=render_to_string(f"emails/{draft.template}.txt", draft.context).strip() + "\n",
            html=render_to_string(f"emails/{draft.template}.html", draft.context),
            headers=draft.headers | {"Content-Language": draft.language},
            images=draft.images,
        )


def _zone(seat, game: Game) -> str:
    """The time zone the recipient reads deadlines in."""
    account = getattr(seat.user, "timezone", "")
    return time_zones.zone_name_for(account, game, seat.browser_time_zone)


def _joined_with(state, position: int, names: list[str]) -> list[str]:
    """The other players whose track ``position``'s network now reaches."""
    mine = rules.network(state, position)
    return [
        names[other]
        for other, start in enumerate(state.starts)
        if other != position and start is not None and start in mine
    ]


def _picture(state, position: int, names, *, highlight=None, public_hands=None, moved=()):
    """The picture of the board for the recipient at ``position``, and its words."""
    marked = state.hands[position] if public_hands is None else public_hands
    if not board_picture.FONT.exists():
        # Without the project's font, the email goes without its picture, not at all.
        log.warning("no picture of the board in emails: %s is missing", board_picture.FONT)
        return {}
    return {
        "picture": board_picture.picture(
            state, position, highlight=highlight, marked_cities=marked, seat_names=names
        ),
        "picture_alt": board_picture.alt_text(state, position, marked, moved),
        "picture_key": [
            {"name": name, "colour": seat_colour(seat)} for seat, name in enumerate(names)
        ],
        "picture_parts": gettext(
            "on top, your part of the board, large; under it, the whole board, your part framed"
        ),
        "picture_ringed": (
            gettext("every player's cities are ringed")
            if public_hands is not None
            else gettext("your cities are ringed")
        ),
        "picture_highlight": (
            gettext("what %(players)s built since your last turn is marked in yellow")
            % {"players": and_list(moved)}
            if moved
            else ""
        ),
    }


def _movers_since(events, position: int, names) -> list[str]:
    """Who moved since ``position``'s last move this round, in order, once each."""
    movers = (names[event["seat"]] for event in rules.moves_since_last_turn(events, position))
    return list(dict.fromkeys(movers))


def _round_rows(scoring: dict, names: list[str]) -> list[dict]:
    """A scored round's table: each player's cities, loss and score."""
    return [
        {
            "name": names[position],
            "cities": city_names(scoring["hands"][position]),
            "joined": position in scoring["connected"],
            "loss": scoring["losses"][position],
            "score": scoring["scores"][position],
        }
        for position in range(len(names))
    ]


def _subject(game: Game, what: str) -> str:
    return f"{what} · {game.display_name}"


def _table(scores, names) -> list[dict]:
    return [{"name": name, "score": score} for name, score in zip(names, scores, strict=True)]


def _invitation(message: Message):
    seat, game, facts = message.seat, message.game, message.facts
    if seat is None:
        raise NotNeeded
    nonce = facts.get("nonce", "")
    if nonce not in (seat.link_nonce, seat.pending_link_nonce):
        raise NotNeeded  # a newer link replaced this one, and its own email says so
    reminder, fresh = facts.get("reminder", False), facts.get("fresh_link", False)
    inviter = game.created_by.get_full_name() if game.created_by else ""
    others = [name for position, name in enumerate(game.seat_names()) if position != seat.position]
    if seat.joined_at is None and not fresh:
        what = gettext("Reminder: you're invited") if reminder else gettext("You're invited")
    else:
        what = gettext("Your link to the board")
    return (
        _subject(game, what),
        "invitation",
        {
            "seat": seat,
            "inviter": inviter,
            "others": others,
            "reminder": reminder,
            "joined": seat.joined_at is not None,
            "seat_url": links.url_with_nonce(seat, nonce),
            "time_per_move": game.time_per_move,
            "board_title": game.board_title,
            **_about_game(game),
        },
    )


def _about_game(game: Game) -> dict:
    """What an invitation says of the game besides its table."""
    language = translation.get_language()
    rules_url = f"{settings.SITE_URL}{reverse('games:rules', args=[game.board])}?lang={language}"
    coloured = ""
    if game.options.get("exclusive_tracks"):
        path = reverse("games:rules", args=["coloured-track"])
        coloured = f"{settings.SITE_URL}{path}?lang={language}"
    return {
        "rules_url": rules_url,
        "coloured_url": coloured,
        # Read only for a game that follows another: most invitations read no other game.
        "again_after": game.follows.display_name if game.follows_id else "",
    }


def _seat_declined(message: Message):
    game, facts = message.game, message.facts
    if game.status != Game.Status.SETUP:
        raise NotNeeded  # started meanwhile: the invitation is moot
    manage = game.created_by is not None and message.to == normalize_email(game.created_by.email)
    if manage:
        url = settings.SITE_URL + reverse("games:manage", args=[game.pk])
    elif message.seat is not None:
        url = links.seat_url(message.seat)
    else:
        raise NotNeeded
    what = gettext("%(name)s declined") % {"name": facts["name"]}
    return (
        _subject(game, what),
        "seat_declined",
        {"name": facts["name"], "manage": manage, "url": url},
    )


def _login_link(message: Message):
    subject = gettext("Sign in to %(site)s") % {"site": settings.SITE_NAME}
    return subject, "login_link", {"url": message.facts["url"]}


def _your_turn(message: Message):
    game, seat, version = message.game, message.seat, message.facts["version"]
    moved = game.version != version and game.moved_since(version)
    if seat is None or moved:
        raise NotNeeded
    if digests.reads_digest(seat):
        raise NotNeeded  # the reader chose the day's digest, which lists this turn
    if message.facts.get("after_a_look"):
        # They looked and left: sent, unless the turn's own email went out after all.
        sent_before = Message.objects.filter(
            game_id=game.pk, to=message.to, kind=emails.YOUR_TURN, event=f"v{version}"
        ).filter(status=Message.Status.SENT)
        if sent_before.exists():
            raise NotNeeded
    elif seat.seen_version >= version:
        raise NotNeeded  # seen: the email after a look comes if they leave without moving
    snapshot = snapshots.at(game, version, message.facts.get("digest", ""))
    state, position = snapshot.state, seat.position
    names = game.seat_names()
    # The strong bot's ideas: the costliest part of the email, worked out once.
    offered = suggestions.suggestions(state, position, names)
    return (
        _subject(game, gettext("Your turn")),
        "your_turn",
        {
            "seat": seat,
            "since": narration.since_last_turn(state, position, list(snapshot.round_events), names),
            "cities": city_names(state.hands[position]),
            "missing_cost": (
                rules.missing_cost(state, position) if state.starts[position] is not None else None
            ),
            "round": state.round,
            "scores": _table(state.scores, names),
            "deadline": game.deadline,
            "zone": _zone(seat, game),
            "joined_with": _joined_with(state, position, names),
            "seat_url": links.seat_url(seat),
            "suggestions": _offers(seat, version, offered),
            "still_to_join": suggestions.missing_cities(state, position),
            "reply_hint": (
                _hint(state, position, offered) if settings.RAILMAIL_INBOUND_DOMAIN else ""
            ),
            "plan_offers": plan_mail.offers(seat, state),
            "plan_stopped": (
                plan_words.why_stopped(message.facts["plan_stopped"])
                if message.facts.get("plan_stopped")
                else ""
            ),
            **_picture(
                state,
                position,
                names,
                highlight=since_last_turn(state, snapshot.round_events, position),
                moved=_movers_since(snapshot.round_events, position, names),
            ),
        },
    )


def _round_scored(message: Message):
    game, seat, facts = message.game, message.seat, message.facts
    state = snapshots.at(game, facts["version"]).state
    scoring, names = state.last_scoring, game.seat_names()
    rows = _round_rows(scoring, names)
    return (
        _subject(game, gettext("Round %(round)s scored") % {"round": facts["round"]}),
        rules.ROUND_SCORED,
        {
            "seat": seat,
            "round": facts["round"],
            "rows": rows,
            "ends_at": scoring["game_ends_at_score"],
            "game_ends_at_first": state.board.game_ends_at_score,
            "moved_after": state.board.barrier_moves_after_round,
            "closer": and_list(names[p] for p in scoring["connected"]),
            "closer_count": len(scoring["connected"]),
            **_picture(
                state,
                seat.position,
                names,
                public_hands=[c for hand in scoring["hands"] for c in hand],
            ),
            "seat_url": links.seat_url(seat),
        },
    )


def _game_over(message: Message):
    game, seat = message.game, message.seat
    state = snapshots.at(game, message.facts["version"]).state
    names = game.seat_names()
    if message.facts.get("reason") == rules.ENDED_BY_AGREEMENT:
        return _game_ended_early(game, seat, state, names)
    winners = [names[position] for position in state.winners]
    table = sorted(_table(state.scores, names), key=lambda row: -row["score"])
    return (
        _subject(game, gettext("Game over: %(winners)s won") % {"winners": and_list(winners)}),
        "game_over",
        {
            "seat": seat,
            "winners": winners,
            "winner_count": len(winners),
            "won": seat.position in state.winners,
            "table": table,
            "round": state.last_scoring["round"],
            "rows": _round_rows(state.last_scoring, names),
            "closer": and_list(names[p] for p in state.last_scoring["connected"]),
            "closer_count": len(state.last_scoring["connected"]),
            **_picture(
                state,
                seat.position,
                names,
                public_hands=[c for hand in state.last_scoring["hands"] for c in hand],
            ),
            "replay_url": links.replay_url(game),
            "again_url": links.play_again_url(seat),
        },
    )


def _game_ended_early(game: Game, seat, state, names):
    """The game-over email of a game ended by agreement: no picture of the dropped round."""
    winners = [names[position] for position in state.winners]
    scoring = state.last_scoring
    return (
        _subject(
            game,
            gettext("Game over by agreement: %(winners)s won") % {"winners": and_list(winners)},
        ),
        "game_ended_early",
        {
            "seat": seat,
            "winners": winners,
            "won": seat.position in state.winners,
            "table": sorted(_table(state.scores, names), key=lambda row: -row["score"]),
            "round": scoring["round"] if scoring else None,
            "replay_url": links.replay_url(game),
            "again_url": links.play_again_url(seat),
        },
    )


def _bot_took_over(message: Message):
    game, seat = message.game, message.seat
    taken = next(s for s in game.seats.all() if s.position == message.facts["seat"])
    return (
        _subject(game, gettext("A bot now plays for %(name)s") % {"name": taken.name}),
        "bot_took_over",
        {
            "seat": seat,
            "taken": taken,
            "yours": seat.pk == taken.pk,
            "timeouts": game.bot_takeover_after,
            "seat_url": links.seat_url(seat),
        },
    )


def _reminder(message: Message):
    if "nudged_by" in message.facts:
        return _nudge(message)
    game, seat, hours = message.game, message.seat, message.facts["hours"]
    return (
        _subject(
            game,
            ngettext(
                "Reminder: your move is due within %(hours)s hour",
                "Reminder: your move is due within %(hours)s hours",
                hours,
            )
            % {"hours": hours},
        ),
        "reminder",
        {
            "seat": seat,
            "hours": hours,
            "deadline": game.deadline,
            "zone": _zone(seat, game),
            "on_timeout": game.on_timeout,
            "seat_url": links.seat_url(seat),
        },
    )


def _nudge(message: Message):
    """A player's nudge: sent only while it is still the reader's turn."""
    game, seat = message.game, message.seat
    if game.status != Game.Status.ACTIVE or game.seat_to_move != seat.position:
        raise NotNeeded  # they have moved since
    name = game.seat_names()[message.facts["nudged_by"]]
    return (
        _subject(game, gettext("%(name)s reminds you of your move") % {"name": name}),
        "nudge",
        {
            "seat": seat,
            "name": name,
            "deadline": game.deadline,
            "zone": _zone(seat, game),
            "seat_url": links.seat_url(seat),
        },
    )


def _digest(message: Message):
    seats = digests.waiting_seats(message.facts["address"])
    if not seats:
        raise NotNeeded  # every game moved on since the digest was queued
    games = []
    for seat in seats:
        state = snapshots.current(seat.game).state
        started = state.starts[seat.position] is not None
        games.append(
            {
                "game": seat.game,
                "talk": talk_news(seat) if seat.game.last_talk_at else [],
                "round": state.round,
                "missing_cost": rules.missing_cost(state, seat.position) if started else None,
                "deadline": seat.game.deadline,
                "seat_url": links.seat_url(seat),
                "plan_played": plan_mail.played_since(
                    seat, seat.game.version, digest_to=message.to
                ),
            }
        )
    count = len(games)
    return (
        ngettext(
            "%(count)s game waiting for your move", "%(count)s games waiting for your move", count
        )
        % {"count": count},
        "digest",
        {"user": seats[0].user, "games": games, "zone": _zone(seats[0], seats[0].game)},
    )


def _offers(seat, version: int, offered) -> list[dict]:
    """The suggestions ``offered`` to ``seat`` at ``version``, each with its link."""
    return [
        {
            "number": offer.number,
            "words": offer.words,
            "url": links.suggestion_url(seat, version, offer.number),
        }
        for offer in offered
    ]


def _reply_answer(message: Message):
    game, seat = message.game, message.seat
    state = snapshots.current(game).state
    position = seat.position
    yours = state is not None and state.seat_to_move == position and not state.is_over
    to_move = state.seat_to_move if state is not None else None
    if message.facts["code"] == "done-consent":  # a command by reply, done
        return (
            _subject(game, gettext("Done")),
            "command_done",
            {"seat": seat, "done": message.facts["why"], "seat_url": links.seat_url(seat)},
        )
    if message.facts["code"].startswith("plan-"):  # an answer to "plan:" (plan_reply)
        return (
            _subject(game, gettext("Your plan")),
            "plan_answer",
            {"seat": seat, "why": message.facts["why"], "seat_url": links.seat_url(seat)},
        )
    offered = suggestions.suggestions(state, position, game.seat_names()) if yours else []
    return (
        _subject(game, gettext("Your reply was not played")),
        "reply_answer",
        {
            "seat": seat,
            "why": message.facts["why"],
            "yours": yours,
            "cities": city_names(state.hands[position]) if state and state.hands else [],
            "to_move": game.seat_names()[to_move] if to_move is not None else "",
            "over": state is not None and state.is_over,
            "seat_url": links.seat_url(seat),
            "suggestions": _offers(seat, game.version, offered),
            "hint": _hint(state, position if yours else None, offered),
        },
    )


def _reply_played(message: Message):
    game, seat, facts = message.game, message.seat, message.facts
    state = snapshots.current(game).state
    position = seat.position
    started = state.starts[position] is not None if state.starts else False
    to_move = state.seat_to_move
    return (
        _subject(game, gettext("Your move was played")),
        "reply_played",
        {
            "seat": seat,
            "words": facts["words"],
            "ignored": facts.get("ignored", ""),
            "cities": city_names(state.hands[position]) if state.hands else [],
            "missing_cost": rules.missing_cost(state, position) if started else None,
            "round": state.round,
            "over": state.is_over,
            "to_move": game.seat_names()[to_move] if to_move is not None else "",
            "yours": to_move == position and not state.is_over,
            "seat_url": links.seat_url(seat),
            "stop_url": emails.unsubscribe_url(message.to, emails.REPLY_PLAYED),
        },
    )


def _channel_confirm(message: Message):
    channel = Channel.objects.filter(pk=message.facts["channel"], confirmed_at=None).first()
    if channel is None or channel.seat_id != message.seat_id:
        raise NotNeeded  # confirmed already, or removed
    return (
        _subject(message.game, gettext("Confirm your channel")),
        "channel_confirm",
        {
            "seat": message.seat,
            "where": channels.masked(channel.url),
            "confirm_url": settings.SITE_URL
            + reverse("notifications:confirm_channel", args=[channel.token]),
        },
    )


def _channel_off(message: Message):
    channel = Channel.objects.filter(pk=message.facts["channel"]).first()
    if channel is None:
        raise NotNeeded
    subject = gettext("A channel of yours is turned off")
    if message.game is not None:
        subject = _subject(message.game, subject)
    return subject, "channel_off", {"where": channels.masked(channel.url)}


def _hint(state, position: int | None = None, offered=None) -> str:
    """How to play by reply, with a legal move for ``position`` as the example if any."""

    example = ""
    if position is not None and state.seat_to_move == position and not state.is_over:
        if offered is None:
            offered = suggestions.suggestions(state, position)
        if offered:
            example = reply_grammar.move_text(offered[0].move, state.board)
    return reply_grammar.hint(example or places.example_line(state.board))


BUILDERS = {
    emails.INVITATION: _invitation,
    emails.LOGIN_LINK: _login_link,
    emails.YOUR_TURN: _your_turn,
    emails.REMINDER: _reminder,
    emails.ROUND_SCORED: _round_scored,
    emails.GAME_OVER: _game_over,
    emails.BOT_TOOK_OVER: _bot_took_over,
    emails.DIGEST: _digest,
    emails.REPLY_ANSWER: _reply_answer,
    emails.REPLY_PLAYED: _reply_played,
    emails.CHANNEL_CONFIRM: _channel_confirm,
    emails.CHANNEL_OFF: _channel_off,
    emails.SEAT_DECLINED: _seat_declined,
}
