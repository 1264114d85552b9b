from types import SimpleNamespace

import pytest
from django.conf import settings
from django.utils import translation

from games import rules
from games.services import load_state
from games.words import places, suggestions
from notifications import reply_grammar
from notifications.reply_grammar import Mistyped, Named, Pick, read
from tests.conftest import play_turn
from tests.factories import GameFactory


@pytest.mark.parametrize(
    "text, wanted",
    [
        ("1", Pick(1)),
        ("  2.\nthanks", Pick(2, "thanks")),
        ("3)", Pick(3)),
        ("7", Pick(7)),  # answered: there is no suggestion 7
        ("move: 2", Pick(2)),
        ("move: Denver to 1 east of Denver", Named("Denver to 1 east of Denver")),
        ("MOVE:  a to b ; c to d", Named("a to b ; c to d")),
        ("Move: Denver", Named("Denver")),
        ("move:", Named("")),  # answered: name the lines
        ("\n\nNice move, Bea!", None),
        ("I move: later", None),
        ("", None),
        # A move runs to the first blank line: wrapped lines are joined, the rest ignored.
        ("move: a to b and\nc to d\n\nThanks!\nAda", Named("a to b and c to d", "Thanks!\nAda")),
        ("move: a to b;\nc to d", Named("a to b; c to d")),
        # A block of own words under a quote may hold the move (the quote cut off between).
        ("Hi Bea,\n\nmove: a to b", Named("a to b")),
        ("mvoe: a to b", Mistyped("mvoe: a to b")),
        ("zgu: a bis b", Mistyped("zgu: a bis b")),
        ("move a to b", None),  # without a board: it may be talk ("Move over, Bea")
        ("Note: I am away till Monday", None),
        ("More later!", None),
    ],
)
def test_a_reply_says_whether_it_is_a_move(text, wanted):
    assert read(text) == wanted


def test_every_languages_move_word_starts_a_move():
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            word = reply_grammar.move_word()
        assert word in reply_grammar.MOVE_WORDS
        assert reply_grammar.read(f"{word.upper()}: Denver to 1 east of Denver") == (
            reply_grammar.Named("Denver to 1 east of Denver")
        )


def test_coloured_track_is_read_in_every_language():
    assert reply_grammar.is_coloured("Denver to 1 east of Denver (coloured)")
    assert reply_grammar.is_coloured("Denver bis 1 östlich von Denver (Farbschiene)")
    assert not reply_grammar.is_coloured("Denver to 1 east of Denver")


@pytest.fixture
def building(db):
    """A game where the player to move builds (every start marker placed)."""
    game = GameFactory()
    for _ in range(3):
        game = play_turn(game)
    state = load_state(game)
    assert state.phase == rules.BUILDING
    return state


def two_lines(state) -> rules.Build:
    """A legal move of two lines for the seat to move."""
    seat = state.seat_to_move
    for first in rules.legal_line_ids(state, seat):
        if state.board.lines[first][2] != 1:
            continue
        seconds = rules.legal_second_line_ids(state, seat, first)
        if seconds:
            ids = (first, seconds[0])
            return rules.Build(tuple(state.board.line_points(i) for i in ids), frozenset())
    raise AssertionError("no two-line move")


@pytest.mark.parametrize("language", ["en", "de"])
def test_what_the_emails_print_reads_back_as_that_move(building, language):
    state, seat = building, building.seat_to_move
    with translation.override(language):
        offered = suggestions.suggestions(state, seat)
        assert offered
        for offer in offered:  # a suggestion copied whole, with its "2 tracks, towards"
            assert reply_grammar.requested(state, offer.words) == offer.move
        move = two_lines(state)
        written = reply_grammar.move_text(move, state.board)  # what the hint shows
        joined = " und " if language == "de" else " and "
        assert joined in written
        assert reply_grammar.requested(state, written) == move
        # The old forms: ";" or "," between, a dash between a line's ends, either order.
        names = [places.line_name(state.board, state.board.line_id(line)) for line in move.lines]
        for old in ("; ".join(names), ", ".join(names), " and ".join(names), " und ".join(names)):
            assert reply_grammar.requested(state, old) == move


@pytest.mark.parametrize("language", ["en", "de"])
def test_a_point_whose_name_holds_and_does_not_split_a_move(building, language):
    state = building
    board = state.board
    with translation.override(language):
        joined = " und " if language == "de" else " and "
        both = [
            line
            for line in range(len(board.lines))
            if places.line_name(board, line).count(joined) == 2
        ]
        ids = (both[0], both[-1])  # each end of each line named by two directions
        move = rules.Build(tuple(board.line_points(line) for line in ids), frozenset())
        written = reply_grammar.move_text(move, board)
    assert written.count(joined) == 5
    assert reply_grammar.requested(state, written) == move


def test_three_lines_or_an_unknown_place_are_refused_with_why(building):
    state = building
    board = state.board
    names = [places.line_name(board, line) for line in range(3)]
    with pytest.raises(reply_grammar.Unclear, match="one or two lines"):
        reply_grammar.requested(state, " and ".join(names))
    with pytest.raises(reply_grammar.Unclear, match="not a city"):
        reply_grammar.requested(state, "Atlantis to 1 east of Atlantis")
    with pytest.raises(reply_grammar.Unclear, match="not neighbours"):
        reply_grammar.requested(state, "Seattle to Boston")


def test_a_wrapped_two_line_move_is_read_whole_never_in_part(building):
    state = building
    move = two_lines(state)
    written = reply_grammar.move_text(move, state.board)
    words = written.split(" and ")
    space = written.index(" ", 30)
    # The break falls just after the join, or inside a line's name: both read whole.
    for text in (
        f"move: {words[0]} and\n{' and '.join(words[1:])}",
        f"move: {written[:space]}\n{written[space + 1 :]}",
    ):
        request = read(text)
        assert isinstance(request, Named)
        assert reply_grammar.requested(state, request.text) == move
    # The first line alone is never a move of its own once the second is there.
    cut = read(f"move: {words[0]} and\n{' and '.join(words[1:])}").text
    assert len(reply_grammar.requested(state, cut).lines) == 2


def test_a_line_of_place_names_is_a_mistyped_move(building):
    board = building.board
    name = places.line_name(board, 0)
    assert read(name, board) == Mistyped(name)
    assert read(f"moev {name}", board) == Mistyped(f"moev {name}")
    assert read(f"move {name}", board) == Mistyped(f"move {name}")
    assert read("Denver", board) == Mistyped("Denver")
    assert read("Well played, Bea! See you in Denver.", board) is None


def test_a_move_that_reads_two_ways_is_refused_with_both_readings():
    """No published board has such names (every pair of neighbouring lines on both boards,
    in both languages, reads one way), so a board of our own: cities whose names hold
    "and" make "A to B and C and C and D to E" two moves."""
    names = ["A", "B", "B and C", "C and D", "C and C and D", "E"]
    cities = tuple(rules.City(name, "red", (n, 0), False) for n, name in enumerate(names))
    crossing = (len(names), 0)  # one point that is not a city, as every board has
    index = {name: n for n, name in enumerate(names)}
    pairs = [("A", "B"), ("A", "B and C"), ("C and D", "E"), ("C and C and D", "E")]
    board = rules.Board(
        name="ambiguous",
        title="Ambiguous",
        points=(*(city.point for city in cities), crossing),
        lines=tuple((index[a], index[b], 1) for a, b in pairs),
        cities=cities,
        tracks_in_supply=10,
        starting_score=13,
        game_ends_at_score=0,
        barrier_moves_after_round=None,
    )
    state = SimpleNamespace(board=board, phase=rules.BUILDING)
    with pytest.raises(reply_grammar.Unclear) as unclear:
        reply_grammar.requested(state, "A to B and C and C and D to E")
    assert set(unclear.value.readings) == {
        "A to B; C and C and D to E",
        "A to B and C; C and D to E",
    }
    for reading in unclear.value.readings:
        assert f'"{reading}"' in str(unclear.value)
    assert "more than one way" in str(unclear.value)
    # Written with ";" between the lines, it reads one way.
    move = reply_grammar.requested(state, "A to B and C; C and D to E")
    assert len(move.lines) == 2
