"""The three suggestions: the strong bot's best different ideas, said as what they do."""

import random

import pytest
from django.utils import translation

from games import rules
from games.bots import simulate, strong_move
from games.words import places, suggestions
from games.words.city_names import city_name
from tests.games.bots.positions import positions

NAMES = ["Ada", "Bruno", "Cy", "Dora"]


def building_positions(board, options=None):
    events = simulate(board, 4, random.Random(3), options)
    for state in positions(events, every=5):
        if state.phase == rules.BUILDING and state.round == 1:
            yield state


@pytest.mark.parametrize("board", rules.BOARD_NAMES)
def test_three_different_ideas_the_bots_own_first(board):
    checked = 0
    for state in building_positions(board, rules.Options(exclusive_tracks=3)):
        seat = state.seat_to_move
        offered = suggestions.suggestions(state, seat, NAMES)
        assert offered[0].move == strong_move(state, seat)
        lines = [set(offer.move.lines) for offer in offered]
        for i, one in enumerate(lines):
            for other in lines[i + 1 :]:
                assert not one & other, "two suggestions share a line"
        for offer in offered:
            rules.decide(state, seat, offer.move)  # legal
        checked += len(offered)
    assert checked > 12


def test_at_most_two_head_for_the_same_city_and_toward_means_toward():
    checked = 0
    for state in building_positions("transamerica"):
        seat = state.seat_to_move
        board = state.board
        with translation.override("en"):
            offered = suggestions.suggestions(state, seat, NAMES)
        heads = []
        start = state.start_point(seat)
        before_net = rules.reach(board, state.built, seat, [start])
        before = rules.distances(rules.cost_graph(board, state.built, seat), before_net)
        for offer in offered:
            after_state = state.copy()
            for line in offer.move.lines:
                after_state.built[board.line_id(line)] = rules.Track(seat, False)
            net = rules.reach(board, after_state.built, seat, [start])
            after = rules.distances(rules.cost_graph(board, after_state.built, seat), net)
            for name in state.hands[seat]:
                point = board.city_point(name)
                if f"toward {city_name(name)} " in offer.words + " ":
                    heads.append(name)
                    assert after[point] < before[point], offer.words
                if f"joins {city_name(name)}" in offer.words:
                    heads.append(name)
                    assert point in net and point not in before_net
            checked += 1
        assert all(heads.count(name) <= 2 for name in heads)
    assert checked > 6


def test_the_words_start_with_the_lines_as_a_reply_names_them_joined_by_and():
    state = next(building_positions("transeuropa"))
    seat = state.seat_to_move
    board = state.board
    for language, word in (("en", " and "), ("de", " und ")):
        with translation.override(language):
            for offer in suggestions.suggestions(state, seat, NAMES):
                names = [places.line_name(board, board.line_id(line)) for line in offer.move.lines]
                assert offer.words.startswith(word.join(names) + ", ")
                # Each name reads back as its line.
                for name, line in zip(names, offer.move.lines, strict=True):
                    assert board.line_points(places.line_named(board, name)) == line


def test_each_city_still_to_join_comes_with_tracks_and_turns():
    state = next(building_positions("transamerica"))
    seat = state.seat_to_move
    with translation.override("en"):
        missing = suggestions.missing_cities(state, seat)
    assert missing and all("track" in text and "turn" in text for text in missing)
    assert suggestions.turns(3) == 2 and suggestions.turns(4) == 2 and suggestions.turns(1) == 1


def test_a_start_marker_says_how_far_the_cities_are_from_it():
    events = simulate("transamerica", 4, random.Random(3))
    state = rules.replay(events[:2])
    with translation.override("en"):
        offered = suggestions.suggestions(state, state.seat_to_move)
    assert offered[0].move == strong_move(state, state.seat_to_move)
    assert all("your cities" in offer.words and "turns" in offer.words for offer in offered)
