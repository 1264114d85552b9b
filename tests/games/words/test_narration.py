"""Events in words, for the replay page and every email."""

from games import rules
from games.words import narration


class TestDescribe:
    def describe(self, event, names=("Ada", "Grace")):
        state = rules.replay([rules.game_created("transamerica", 2)])
        return narration.describe(event, state, list(names))

    def test_moves_are_told_in_words(self):
        assert self.describe({"type": "turn_passed", "seat": 1}) == "Grace cannot build and passes."
        built = {"type": "track_built", "seat": 0, "lines": [[[0, 0], [1, 0]], [[1, 0], [2, 0]]]}
        where = "Seattle to 1 east of Seattle and 1 east of Seattle to 1 north-west of Helena"
        assert self.describe(built) == f"Ada builds 2 tracks: {where}."
        built["exclusive"] = [1]
        coloured = "1 east of Seattle to 1 north-west of Helena (coloured)"
        assert (
            self.describe(built)
            == f"Ada builds 2 tracks: Seattle to 1 east of Seattle and {coloured}."
        )

    def test_a_start_marker_in_a_city_names_it(self):
        board = rules.get_board("transamerica")
        city = board.cities[0]
        event = {"type": "start_placed", "seat": 0, "point": list(city.point)}
        assert self.describe(event) == f"Ada places their start marker in {city.name}."

    def test_events_the_engine_passes_over_are_still_shown(self):
        assert self.describe({"type": "turn_timed_out", "seat": 1}) == "Grace ran out of time."

    def test_the_end_names_the_winners(self):
        event = {"type": "game_ended", "scores": [3, 3], "winners": [0, 1]}
        assert self.describe(event) == "The game is over: Ada and Grace share the win."
