"""The game in words: places, city names, narration, explanations, suggestions, and the
language and time zone a reader reads them in."""
