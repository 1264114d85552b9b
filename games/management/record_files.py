"""Reading a game record's JSON file, for the commands that take one (replay, import_record)."""

from __future__ import annotations

import json
import sys

from django.core.management.base import CommandError


def read_record_file(file: str):
    """The JSON document in ``file`` (``-``: standard input), or a CommandError saying why
    it cannot be read."""
    try:
        if file == "-":
            return json.load(sys.stdin)
        with open(file, encoding="utf-8") as handle:
            return json.load(handle)
    except OSError as error:
        raise CommandError(f"cannot read {file}: {error.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise CommandError(f"{file} is not JSON: {error}") from None
