"""The picture of the board in emails: small, the same bytes every time, and never a hand
its recipient may not see."""

import io
import random

import pytest
from django.core.cache import caches
from PIL import Image, ImageChops

from games import bots, rules
from games.pages.drawing import layout, render_svg, since_last_turn
from notifications import board_picture
from tests.conftest import delivered
from tests.factories import GameFactory


def late_position() -> tuple[rules.GameState, list[dict]]:
    """Six players on TransEuropa, late in a round: the most the picture ever shows."""
    events = bots.simulate("transeuropa", 6, random.Random(3))
    starts = [n for n, event in enumerate(events) if event["type"] == rules.ROUND_STARTED]
    cut = starts[1] - 3
    return rules.replay(events[:cut]), events[:cut]


def draw(state, events, viewer):
    return board_picture.picture(state, viewer, highlight=since_last_turn(state, events, viewer))


def test_the_largest_picture_is_a_small_png_600_pixels_wide():
    state, events = late_position()
    png = draw(state, events, state.seat_to_move)
    assert png.startswith(b"\x89PNG") and len(png) <= board_picture.MAX_BYTES
    assert Image.open(io.BytesIO(png)).size[0] == board_picture.WIDTH


def test_the_same_position_gives_the_same_bytes():
    state, events = late_position()
    assert draw(state, events, 0) == draw(state, events, 0)


def test_no_other_hand_changes_a_single_byte():
    state, events = late_position()
    viewer = state.seat_to_move
    mine = draw(state, events, viewer)
    swapped = state.copy()
    others = [p for p in range(state.seat_count) if p != viewer]
    hands = list(swapped.hands)
    for a, b in zip(others, others[1:] + others[:1], strict=True):
        hands[a] = state.hands[b]
    swapped.hands = hands
    assert draw(swapped, events, viewer) == mine
    # ...while the viewer's own cities do show.
    changed = state.copy()
    changed.hands = [state.hands[others[0]] if p == viewer else h for p, h in enumerate(hands)]
    assert draw(changed, events, viewer) != mine


def test_a_scored_round_rings_every_hand():
    state, events = late_position()
    everyone = [city for hand in state.hands for city in hand]
    own = draw(state, events, 0)
    public = board_picture.picture(state, 0, marked_cities=everyone)
    assert public != own


@pytest.mark.django_db
@pytest.mark.usefixtures("anymail_backend")
def test_the_turn_email_carries_it_inline_with_words():
    from django.core import mail

    from notifications.models import Message

    GameFactory()
    row = delivered(Message.objects.get(kind="your_turn"))
    assert row.status == Message.Status.SENT
    [email] = mail.outbox
    message = email.message()
    assert message.get_content_type() == "multipart/related"
    [image] = [part for part in message.walk() if part.get_content_type() == "image/png"]
    assert image["Content-ID"] == "<board@railmail>"
    assert len(image.get_payload(decode=True)) <= board_picture.MAX_BYTES
    assert 'src="cid:board@railmail"' in row.body_html
    assert 'alt="The TransAmerica board, round 1. Ringed: ' in row.body_html


PHONE = 390  # the width many phones' mail apps show an email's picture at
CITY_TEXT = 9  # a city's name, in drawing units (games/static/games/board.css)


@pytest.mark.parametrize("cut_back", [3, 60])
def test_the_readers_part_of_the_board_is_readable_on_a_phone(cut_back):
    events = bots.simulate("transamerica", 4, random.Random(5))
    starts = [n for n, event in enumerate(events) if event["type"] == rules.ROUND_STARTED]
    state = rules.replay(events[: starts[1] - cut_back])
    viewer = state.seat_to_move
    region = board_picture.detail_region(state, viewer)
    # A city's name is over 10 pixels high on the phone.
    assert CITY_TEXT * PHONE / region.width >= 10
    # The part shows the reader's start marker, and the board's edge bounds it.
    pos, width, height = layout(state.board)
    x, y = pos[state.start_point(viewer)]
    assert region.x <= x <= region.x + region.width and region.y <= y <= region.y + region.height
    assert region.x >= 0 and region.x + region.width <= width
    # Drawn on top at the picture's full width, the whole board small under it.
    image = Image.open(io.BytesIO(board_picture.picture(state, viewer)))
    detail = board_picture.WIDTH * region.height / region.width
    assert image.size[0] == board_picture.WIDTH and image.size[1] > detail + 100


def drawn_at_once(markup: str, width: int, style_sheet: str | None = None) -> Image.Image:
    """``markup`` drawn whole by resvg ``width`` pixels wide (by default with the
    stylesheet's rules that may match it): what the picture's layers are held to."""
    if style_sheet is None:
        style_sheet = board_picture.stylesheet_for(board_picture.classes_in(markup))
    drawn = board_picture.rasterise(
        markup, style_sheet, width=width, background=board_picture.PAPER
    )
    return Image.open(io.BytesIO(drawn)).convert("RGB")


def part_markup(svg: dict, region) -> str:
    """The markup of the reader's part drawn at once: ``detail_part``'s drawing, viewed
    through ``region``."""
    whole = f'viewBox="0 0 {svg["width"]} {svg["height"]}"'
    view = f'viewBox="{region.x} {region.y} {region.width} {region.height}"'
    return str(render_svg(board_picture.detail_part(svg, region))).replace(whole, view, 1)


@pytest.mark.parametrize("exclusive", [0, 3])
def test_the_part_and_the_whole_are_drawn_as_from_the_whole_markup_and_stylesheet(exclusive):
    """The picture leaves out what cannot show in the reader's part, and the stylesheet's
    rules that match nothing: the same pixels as drawing everything."""
    from games.pages.drawing import board_svg

    events = bots.simulate(
        "transamerica", 4, random.Random(5), rules.Options(exclusive_tracks=exclusive)
    )
    for cut in (12, len(events) // 3, len(events) // 2):
        state = rules.replay(events[:cut])
        for viewer in range(4):
            svg = board_svg(
                state,
                viewer,
                highlight=since_last_turn(state, events[:cut], viewer),
                seat_names=["A", "B", "C", "D"],
            )
            markup = str(render_svg(svg))
            region = board_picture.detail_region(state, viewer)
            whole = f'viewBox="0 0 {svg["width"]} {svg["height"]}"'
            view = f'viewBox="{region.x} {region.y} {region.width} {region.height}"'
            everything = board_picture.stylesheet()
            expected = drawn_at_once(
                markup.replace(whole, view, 1), board_picture.WIDTH, everything
            )
            drawn = drawn_at_once(part_markup(svg, region), board_picture.WIDTH)
            assert drawn.tobytes() == expected.tobytes(), (cut, viewer)
            small = board_picture.OVERVIEW_WIDTH
            assert (
                drawn_at_once(markup, small).tobytes()
                == drawn_at_once(markup, small, everything).tobytes()
            )


def positions_of_every_kind():
    """Both boards, three to six players, every phase: start markers being placed, early
    and late track, a later round; coloured (dashed) track in half the games."""
    for players, board in zip(range(3, 7), ["transamerica", "transeuropa"] * 2, strict=True):
        options = rules.Options(exclusive_tracks=3 * (players % 2))
        events = bots.simulate(board, players, random.Random(players), options)
        starts = [n for n, event in enumerate(events) if event["type"] == rules.ROUND_STARTED]
        for cut in (players // 2 + 2, starts[1] // 3, starts[1] - 2, starts[1] + players + 4):
            state = rules.replay(events[:cut])
            if state.seat_to_move is not None:
                yield state, events[:cut]


def differences(drawn: Image.Image, expected: Image.Image) -> list[int]:
    """How many of the pixels' colour values differ by each amount, 0 to 255."""
    assert drawn.size == expected.size
    counts = [0] * 256
    for band in ImageChops.difference(drawn, expected).split():
        counts = [a + b for a, b in zip(counts, band.histogram(), strict=True)]
    return counts


@pytest.mark.parametrize("language", ["en", "de"])
def test_drawn_in_layers_it_is_the_whole_markup_drawn_at_once(language):
    """The picture lays the board's layers drawn once per process under and over what a
    game changes: the pixels the whole markup gives, but for a few levels of a colour
    where anti-aliased edges overlap (each layer's rounding), and a rare edge pixel of a
    name more (a glyph's stem on a pixel's edge lands either side)."""
    from django.utils import translation

    from games.pages.drawing import board_svg

    with translation.override(language):
        for state, events in positions_of_every_kind():
            viewer = state.seat_to_move
            svg = board_svg(state, viewer, highlight=since_last_turn(state, events, viewer))
            region = board_picture.detail_region(state, viewer)
            # The part's corner is on a whole pixel of the board drawn at its scale.
            box = board_picture.detail_box(region)
            assert abs(region.x * board_picture.DETAIL.sx - box[0]) < 1e-9
            assert abs(region.y * board_picture.DETAIL.sy - box[1]) < 1e-9
            part = board_picture.detail_part(svg, region)
            detail = board_picture.layered(part, "detail", box)
            counts = differences(detail, drawn_at_once(part_markup(svg, region), 600))
            assert sum(counts[17:]) < sum(counts) / 2000, counts
            assert sum(counts[4:]) < sum(counts) / 200, counts
            _, width, height = board_picture.board_scale(svg["board"], "overview")
            overview = board_picture.layered(svg, "overview", (0, 0, width, height))
            counts = differences(overview, drawn_at_once(str(render_svg(svg)), 300))
            assert not any(counts[17:]), counts


def test_a_process_reads_the_boards_layers_another_process_drew(settings, monkeypatch):
    """The grid, the crossing points, and each element a game puts on the board (a track,
    a start marker, a city) are drawn by the first process that needs them and kept in
    the cache the deployment's processes share: the next process draws nothing, and the
    same picture."""
    settings.CACHES = {
        **settings.CACHES,
        "shared": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "p"},
    }

    def new_process() -> None:
        for kept in (board_picture.tiles_kept, board_picture.board_layer, board_picture.kept):
            kept.cache_clear()

    state, events = late_position()
    drawn = []
    rasterise = board_picture.rasterise
    monkeypatch.setattr(
        board_picture,
        "rasterise",
        lambda markup, *a, **k: drawn.append(markup) or rasterise(markup, *a, **k),
    )
    new_process()
    first = draw(state, events, 0)
    # The first process drew the game's elements, each on a canvas of its own.
    elements = [markup for markup in drawn if 'class="track ' in markup]
    assert elements and all(markup.count('class="track ') == 1 for markup in elements)
    drawn.clear()
    new_process()
    assert draw(state, events, 0) == first
    assert not drawn


def test_the_paper_keeps_its_colour_in_the_small_palette():
    state, events = late_position()
    image = Image.open(io.BytesIO(draw(state, events, state.seat_to_move))).convert("RGB")
    [(_count, colour)] = sorted(image.getcolors(board_picture.COLOURS), reverse=True)[:1]
    assert colour == (0xFF, 0xFD, 0xF7) and board_picture.PAPER == "#fffdf7"


def test_a_position_gives_the_same_bytes_whatever_the_shared_cache_held(settings):
    """A stamp drawn when the shared cache lacks it has the same pixels whichever others
    are drawn with it: each picture drawn from an empty cache is the one drawn after the
    pictures before it filled the cache (which drew only the stamps they lacked)."""
    settings.CACHES = {
        **settings.CACHES,
        "shared": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "h"},
    }

    def new_deployment() -> None:
        # The stamps are forgotten; the board's own layers, the same for every position,
        # stay in the process (drawing them again is most of a picture's time).
        caches[settings.RAILMAIL_SHARED_CACHE].clear()
        board_picture.kept.cache_clear()

    positions = list(positions_of_every_kind())
    new_deployment()
    after_others = [draw(state, events, state.seat_to_move) for state, events in positions]
    differ = []
    for n, ((state, events), expected) in enumerate(zip(positions, after_others, strict=True)):
        new_deployment()
        if draw(state, events, state.seat_to_move) != expected:
            differ.append(n)
    assert not differ, f"{len(differ)} of {len(positions)} pictures differ: {differ}"
