"""No page, fragment, JSON or email that a seat can reach shows another seat's cities
before the round is scored.

The test deals two games identically for the viewing seat and differently for everyone
else, plays the same moves in both, and renders everything the viewer can reach: the
outputs must not differ at all (once game numbers, links and CSRF tokens are set aside).
Whatever an output depends on, it does not depend on the others' hands.

It runs twice: with nothing cached, and with every cache (states, rendered pages) warmed
first by every other seat opening everything it can, so that nothing one seat's view
leaves in a cache reaches another seat.
"""

import re
from urllib.parse import urlsplit

import pytest
from django.core.cache import cache
from django.urls import NoReverseMatch, reverse

from games import links, rules, services
from games.derived import snapshots
from games.links import seat_path
from games.models import Game
from games.services import plans, random_deal
from games.words import suggestions
from notifications import channel_delivery, emails
from notifications.models import ChannelNotice
from tests.conftest import delivered

pytestmark = pytest.mark.django_db

VIEWER = 0


def hands_for(board, others_variant):
    """The viewer's fixed hand, and one of two different hands for each other seat."""
    viewer = [
        next(c.name for c in board.cities if c.colour == colour and not c.dashed)
        for colour in rules.COLOURS
    ]
    taken = set(viewer)
    hands = [viewer]
    for _seat in range(2):
        hand = []
        for colour in rules.COLOURS:
            cities = [
                c.name
                for c in board.cities
                if c.colour == colour and c.name not in taken and not c.dashed
            ]
            pick = cities[others_variant] if others_variant < len(cities) else cities[-1]
            hand.append(pick)
            taken.add(pick)
        hands.append(hand)
    return hands


def route_from(start, steps):
    """Line ids of a walk from ``start`` along flat lines, ``steps`` long (board-only)."""
    board = rules.get_board("transamerica")
    point, seen, lines = board.point_index[start], {board.point_index[start]}, []
    for _step in range(steps):
        line = next(
            line
            for line in board.point_lines[point]
            if board.lines[line][2] == 1 and not seen & set(board.lines[line][:2]) - {point}
        )
        a, b, _cost = board.lines[line]
        point = b if a == point else a
        seen.add(point)
        lines.append(line)
    return lines


# Seats 1 and 2 build from their markers (12,5) and (8,8).
ROUTES = {1: route_from((12, 5), 8), 2: route_from((8, 8), 8)}


def make_game(monkeypatch, variant):
    board = rules.get_board("transamerica")
    hands = hands_for(board, variant)
    monkeypatch.setattr(random_deal, "deal_round", lambda state: rules.round_started(state, hands))
    players = [(f"Player {n}", f"seat{n}@example.com") for n in range(3)]
    game = services.create_game("transamerica", None, players)
    game.title = "Hidden"
    game.save(update_fields=["title"])
    game = services.start_game(game)
    seats = list(game.seats.all())
    # The same moves in both games: start markers, then one line for the first builder.
    for point in [(5, 3), (12, 5), (8, 8)]:
        state = services.load_state(game)
        seat = seats[state.seat_to_move]
        game = services.submit_move(game, seat, rules.PlaceStart(point), game.version)
    state = services.load_state(game)
    seat = seats[state.seat_to_move]
    line = rules.legal_lines(state, seat.position)[0]
    game = services.submit_move(game, seat, rules.Build([line]), game.version)
    # The other seats hold build plans: routes that play the same lines under both deals,
    # played at once when their turns come, and still holding when the viewer looks.
    for other in seats:
        if other.position != VIEWER:
            plans.set_plan(other, rules.plans.ROUTE, route=ROUTES[other.position])
    while (state := services.load_state(game)).seat_to_move != VIEWER:
        game = plans.play_turn(game, seats[state.seat_to_move], game.version)
    for other in seats:
        if other.position != VIEWER:
            assert plans.holding_plan(other) is not None
    return game


def normalise(text: str, game: Game) -> str:
    text = re.sub(r"/s/[^/\"'\s]+/", "/s/TOKEN/", text)
    # Signed values wherever they appear, e.g. wrapped: payload:signature, or
    # payload:timestamp:signature as signing.dumps makes them (sign-in links).
    text = re.sub(r"[\w-]+(?::[\w-]{6})?:[\w-]{43}", "SIGNED", text)
    text = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", text)
    text = re.sub(r"link-[\w-]+", "link-NONCE", text)
    return text.replace(f"/games/{game.pk}/", "/games/N/")


def warm_caches(client, game, viewer):
    """Every other seat opens everything it can, twice (the second time from the cache)."""
    for seat in game.seats.exclude(position=viewer):
        path = seat_path(seat)
        for _ in range(2):
            client.get(path)
            client.get(path + "history/")
            client.get(path + "history/?move=2")
            client.get(path + "record.json")
            client.get(path + "moves/")
            client.get(path + "moves/list/")
            client.get(path + "history/frame/?move=2")
            client.get(path + f"history/frame/?move={game.version}")
            client.get(path + "plan/route/")


def reachable(client, game, viewer):
    """Everything the viewing seat can open or be sent, as text."""
    seat = game.seats.get(position=viewer)
    path = seat_path(seat)
    token = path.split("/")[2]
    out = {"board": client.get(path).content.decode()}
    state = services.load_state(game)
    if state.seat_to_move == viewer:
        out["illegal"] = client.post(path, {"version": game.version, "line1": 0}).content.decode()
    out["stale"] = client.post(path, {"version": 0, "point": 0}).content.decode()
    # The list of every move (its page, and as the board page fetches it) and the
    # replay's steps, the latest included.
    for name in ("games:seat_moves", "games:seat_move_list"):
        out[name] = client.get(reverse(name, args=[token])).content.decode()
    frame = reverse("games:seat_replay_frame", args=[token])
    for move in (2, game.version):
        out[f"step {move}"] = client.get(frame, {"move": move}).content.decode()
    for name in ("games:seat_replay", "games:seat_record", "games:plan_route"):
        try:
            url = reverse(name, args=[token])
        except NoReverseMatch:
            continue
        out[name] = client.get(url).content.decode()
    # Emails are built when delivered: build each kind this seat can get now.
    rows = [emails.invitation(seat)]
    if state.seat_to_move == viewer:
        rows.append(emails.write(emails.your_turn(game, seat, game.version, game.log_digest)))
        rows.append(emails.reminder(game, seat, 12))
    for row in rows:
        message = delivered(row)
        assert message.status == message.Status.SENT, message.error
        out[f"email {message.kind}"] = message.subject + message.body_text + message.body_html
    # Channel messages, built as their delivery builds them (notifications.channel_delivery):
    # the seat's own turn notice and a nudge, the table's, and news of the latest event.
    kinds = [
        (channel_delivery.TABLE_TURN, None, {"version": game.version}),
        (channel_delivery.NEWS, seat, {"seq": game.version}),
    ]
    if state.seat_to_move == viewer:
        kinds.append((channel_delivery.YOUR_TURN, seat, {"version": game.version}))
        other = (viewer + 1) % len(state.scores)
        kinds.append((channel_delivery.NUDGE, seat, {"by": other, "seq": game.version}))
    for kind, reader, facts in kinds:
        notice = channel_delivery.build(
            ChannelNotice(game=game, seat=reader, kind=kind, facts=facts)
        )
        assert notice is not None, kind
        out[f"channel {kind}"] = notice.title + notice.body
    return {key: normalise(value, game) for key, value in out.items()}


@pytest.mark.parametrize("warm", [False, True], ids=["cold caches", "warm caches"])
def test_nothing_a_seat_can_reach_depends_on_the_other_hands(client, monkeypatch, warm):
    viewer = VIEWER
    first = make_game(monkeypatch, 0)
    second = make_game(monkeypatch, 1)
    cache.clear()
    snapshots.forget_all()
    if warm:
        warm_caches(client, first, viewer)
        warm_caches(client, second, viewer)
    one, two = reachable(client, first, viewer), reachable(client, second, viewer)
    assert one.keys() == two.keys()
    for key in one:
        assert one[key] == two[key], f"{key} depends on another seat's hand"
    if warm:
        # And what the viewer gets from the cache is what it got rendered afresh.
        assert reachable(client, first, viewer) == one
        cache.clear()
        snapshots.forget_all()
        assert reachable(client, first, viewer) == one


@pytest.mark.parametrize("rounds", [1, 2], ids=["rendered", "from the cache"])
def test_only_the_viewers_own_cities_are_marked(client, monkeypatch, rounds):
    game = make_game(monkeypatch, 0)
    state = services.load_state(game)
    for seat in list(game.seats.all()) * rounds:
        page = client.get(seat_path(seat)).content.decode()
        marked = re.findall(r'<g class="city \w+ mine">.*?<text[^>]*>([^<]+)</text>', page)
        assert sorted(marked) == sorted(state.hands[seat.position])
        hand_list = page.split('id="hand-title"')[1].split("</section>")[0]
        for other, hand in enumerate(state.hands):
            if other != seat.position:
                for city in hand:
                    assert city not in hand_list


def play_to_the_viewer(game: Game) -> Game:
    """The same moves in either game until the viewer is to move: every other seat builds
    the first line open to it (a public choice)."""
    seats = list(game.seats.all())
    state = services.load_state(game)
    while state.seat_to_move != VIEWER:
        seat = seats[state.seat_to_move]
        line = rules.legal_lines(state, seat.position)[0]
        game = services.submit_move(game, seat, rules.Build([line]), game.version)
        state = services.load_state(game)
    return game


def suggestions_as_offered(client, game: Game) -> dict:
    """The viewer's suggestions: their moves and words, the email offering them, and the
    page each one's link opens."""
    state = services.load_state(game)
    seat = game.seats.get(position=VIEWER)
    offered = suggestions.suggestions(state, VIEWER, game.seat_names())
    out = {"offered": [(offer.number, offer.move, offer.words) for offer in offered]}
    message = delivered(emails.write(emails.your_turn(game, seat, game.version, game.log_digest)))
    out["email"] = message.body_text + message.body_html
    for offer in offered:
        url = links.suggestion_url(seat, game.version, offer.number)
        path = urlsplit(url).path
        out[f"page {offer.number}"] = client.get(path).content.decode()
    return {key: normalise(str(value), game) for key, value in out.items()}


def worked_out_once_per_state(monkeypatch) -> list:
    """The strong bot's ideas worked out once for each whole state it is asked about, and
    given again when asked about an equal one: the email, each suggestion's page and the
    test all ask about the same position, which costs a few seconds each time.

    Equal means every field of the state, the other seats' hands included, so each game's
    ideas come from its own deal: a dependence on the others' hands still makes the two
    games' ideas differ. What a repeat of the same question adds, that the answer is the
    same, is the strong bot's determinism (tests/games/bots/test_strong.py). Returns the
    states worked out."""
    worked_out: list[tuple[rules.GameState, int, int, list]] = []
    work_out = suggestions.strong_suggestions

    def strong_suggestions(state: rules.GameState, seat: int, count: int = 3) -> list:
        for known, known_seat, known_count, ideas in worked_out:
            if (known_seat, known_count) == (seat, count) and known == state:
                return list(ideas)
        ideas = work_out(state, seat, count)
        worked_out.append((state.copy(), seat, count, ideas))
        return list(ideas)

    monkeypatch.setattr(suggestions, "strong_suggestions", strong_suggestions)
    return worked_out


def test_suggestions_do_not_depend_on_the_other_hands(client, monkeypatch):
    """Two deals that differ only in the other seats' hands: the viewer is offered the
    same three moves in the same words, in the email and on each suggestion's page, at a
    building turn and again a round of turns later."""
    worked_out = worked_out_once_per_state(monkeypatch)
    games = [play_to_the_viewer(make_game(monkeypatch, variant)) for variant in (0, 1)]
    assert services.load_state(games[0]).hands != services.load_state(games[1]).hands
    for _turn in range(2):
        one, two = (suggestions_as_offered(client, game) for game in games)
        assert len(one["offered"]) > 1
        for key in one:
            assert one[key] == two[key], f"{key} depends on another seat's hand"
        # The viewer plays its first suggestion in both games; the others answer alike.
        moved = []
        for game in games:
            state = services.load_state(game)
            seat = game.seats.get(position=VIEWER)
            move = suggestions.suggestions(state, VIEWER)[0].move
            moved.append(play_to_the_viewer(services.submit_move(game, seat, move, game.version)))
        games = moved
    # Each game's own position at each of the two turns, never one game's for the other.
    assert len(worked_out) == 4
