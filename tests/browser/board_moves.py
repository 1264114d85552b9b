"""Moves made on the board page as a player makes them: by mouse on a desktop, by thumb on
a phone (a tap on a crossing point, then a direction button), through the live board (the
one in ``#board-frame``, never the drawing of the round just ended above it)."""

from __future__ import annotations

import json

from games import rules

BOARD = "#board-frame svg.board"


def pick_data(page) -> dict:
    return json.loads(page.locator("#pick-data").text_content())


def in_view(page, selector: str) -> bool:
    """Whether the whole of the element is inside the viewport, as the page is scrolled."""
    return page.evaluate(
        """(selector) => {
          const node = document.querySelector(selector);
          if (!node || !node.getClientRects().length) return false;
          const box = node.getBoundingClientRect();
          // A pixel's slack: scrolled to the top by scrollIntoView, a box laid out at a
          // fraction of a pixel starts a fraction above it.
          return box.top >= -1 && box.left >= -1 && box.bottom <= window.innerHeight + 1
            && box.right <= window.innerWidth + 1;
        }""",
        selector,
    )


def board_place_at(page, x: float, y: float) -> tuple[float, float]:
    """Scroll the frame (and the page, as a thumb would) to the board's coordinates
    ``(x, y)`` of the live board; where they are on the screen."""
    return page.evaluate(
        """([selector, x, y]) => {
          const svg = document.querySelector(selector);
          const frame = document.getElementById("board-frame");
          const s = svg.getScreenCTM().a;
          frame.scrollLeft = x * s - frame.clientWidth / 2;
          frame.scrollTop = y * s - frame.clientHeight / 2;
          let at = new DOMPoint(x, y).matrixTransform(svg.getScreenCTM());
          if (at.y < 0 || at.y > window.innerHeight * 0.6) {
            window.scrollBy(0, at.y - window.innerHeight * 0.4);
            at = new DOMPoint(x, y).matrixTransform(svg.getScreenCTM());
          }
          return [at.x, at.y];
        }""",
        [BOARD, x, y],
    )


def board_point_at(page, point: int) -> tuple[float, float]:
    """Scroll ``point`` of the live board into view; where it is on the screen."""
    x, y = page.evaluate(
        """(point) => JSON.parse(document.getElementById("pick-data").textContent)
          .positions[point]""",
        point,
    )
    return board_place_at(page, x, y)


def tap_point(page, point: int) -> None:
    page.touchscreen.tap(*board_point_at(page, point))


def click_point(page, point: int) -> None:
    """A real mouse click on a crossing point of the live board."""
    page.mouse.click(*board_point_at(page, point))


def click_line(page, line_id: int) -> None:
    """A real mouse click at the middle of a line of the live board (a flat line has no
    height, which Playwright's own click refuses as invisible)."""
    node = page.locator(f'{BOARD} line.pick[data-line="{line_id}"]')
    node.evaluate("n => n.scrollIntoView({block: 'center', inline: 'center'})")
    box = node.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def tap_line(page, data: dict, line_id: int, network: set[int]) -> None:
    """Pick a line by thumb: tap its end on ``network`` (the points the player's track
    reaches, with the first line's when it is the second), then its direction."""
    a, b, _cost = data["lines"][str(line_id)]
    start, other = (a, b) if a in network else (b, a)
    tap_point(page, start)
    title = data["words"]["line"] % {"one": data["names"][start], "other": data["names"][other]}
    # One look at the buttons (each question to the browser takes a while).
    found = page.evaluate(
        """([title, selector]) => {
          const buttons = [...document.querySelectorAll(selector)];
          const panel = document.getElementById("directions").getBoundingClientRect();
          return {
            index: buttons.findIndex((button) => button.title === title),
            offered: document.getElementById("directions").innerText,
            inView: panel.top >= 0 && panel.bottom <= window.innerHeight,
          };
        }""",
        [title, "#direction-buttons button"],
    )
    assert found["index"] >= 0, f"no button for {title}: {found['offered']}"
    assert found["inView"], "the direction buttons are out of view"
    page.locator("#direction-buttons button").nth(found["index"]).tap()


def play_move(page, state: rules.GameState, seat: int, move, *, touch: bool, shot=None) -> None:
    """Make ``move`` on the page (a start marker or lines) and press the button in the bar
    under the board; waits for the answer. ``shot``: where to save a screenshot of the
    screen just before the button is pressed."""
    board = state.board
    data = pick_data(page)
    if isinstance(move, rules.PlaceStart):
        point = board.point_index[move.point]
        (tap_point if touch else click_point)(page, point)
        assert page.locator("select[name=point]").input_value() == str(point)
    elif isinstance(move, rules.Build):
        built = state
        for n, line in enumerate(move.lines):
            line_id = board.line_id(line)
            if touch:
                tap_line(page, data, line_id, set(rules.network(built, seat)))
            else:
                click_line(page, line_id)
            if n == 0 and len(move.lines) == 2:
                # The second line touches the network as it is once the first is built
                # (which may join other players' track to it): the engine's.
                for event in rules.decide(built, seat, rules.Build((line,))):
                    built = rules.apply(built, event)
        picked = [page.locator(f"select[name=line{n}]").input_value() for n in (1, 2)]
        assert picked[: len(move.lines)] == [str(board.line_id(line)) for line in move.lines]
    assert in_view(page, "#pick-confirm"), "the button that plays the move is out of view"
    if shot:
        page.screenshot(path=str(shot))
    with page.expect_navigation():
        if touch:
            page.locator("#pick-confirm").tap()
        else:
            page.locator("#pick-confirm").click()
