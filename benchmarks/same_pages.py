"""Board pages here and in another tree: byte for byte the same? (a check, not a test: it
needs a second worktree).

    .venv/bin/python benchmarks/same_pages.py --before /work/wt-before

Games are made here as players make them (benchmarks/form_games.py: the new-game form,
the write path), 6-player TransEuropa, untimed and a day a move, stopped early in round 1,
at the start of a later round (the ended round's summary shows; its table has talked) and
later on, and one played to its end. Each tree then reads every seat's board page in
English and in German, twice (the first view renders it, the second comes from the page
cache), in a process of its own with the benchmark's production settings
(``BENCH_DATABASE_URL``, made afresh). The CSRF token, new on every request, is masked.
Exit status 1 on any difference.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_web import DEFAULT_DB, HOST, service_env
from stack import fresh_database

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]
TOKEN = re.compile(rb'name="csrfmiddlewaretoken" value="([^"]+)"')
HEADERS = ("Content-Type", "Content-Language", "Cache-Control")


def make_games() -> list[int]:
    """The games whose pages are compared (made in this tree): their keys."""
    from datetime import timedelta

    import form_games
    from django.utils import timezone

    from games.models import Event, TalkMessage
    from games.services import talk

    def round_began(game) -> int:
        started = Event.objects.filter(game=game, type="round_started").order_by("-seq").first()
        return started.seq if started else 0

    def until(game, stop):
        for game in form_games.play(game, 2000):  # noqa: B020 (the last one is the answer)
            if stop(game):
                break
        return game

    made = []
    for timed in (False, True):
        kind = "timed" if timed else "untimed"
        made.append(form_games.played(form_games.new_game("transeuropa", 6, timed, f"{kind}-a"), 4))
        # The first move of a later round is in: the others see the ended round.
        game = until(
            form_games.new_game("transeuropa", 6, timed, f"{kind}-b"),
            lambda game: game.round >= 2 and game.version == round_began(game) + 1,
        )
        made.append(game)
        # A table that has talked (its panel is filled in per request), a month ago: the
        # trees read it minutes apart, and the panel says how long ago.
        said = talk.post(game.seats.get(position=1), "Good luck, everyone.")
        TalkMessage.objects.filter(pk=said.pk).update(created_at=timezone.now() - timedelta(30))
        game = until(
            form_games.new_game("transeuropa", 6, timed, f"{kind}-c"),
            lambda game: game.round >= 3 and game.version >= round_began(game) + 15,
        )
        made.append(game)
    finished = form_games.new_game("transeuropa", 4, False, "finished")
    made.append(form_games.played(finished, 5000))
    return [game.pk for game in made]


def pages(game_ids: list[int]) -> dict[str, str]:
    """Each seat's board page of each game, in each language, first view and cached, as
    digests of the body (CSRF token masked) and of the headers that say what it is."""
    from django.test import Client

    from accounts.models import User
    from games.links import seat_path
    from games.models import Seat

    client = Client(HTTP_HOST=HOST, HTTP_X_FORWARDED_PROTO="https")
    seen = {}
    for game_id in game_ids:
        for language in ("en", "de"):
            # An account's language comes first: the creator's seat reads it too.
            Seat.objects.filter(game_id=game_id).update(language=language)
            User.objects.filter(seats__game_id=game_id).update(language=language)
            for seat in Seat.objects.filter(game_id=game_id).order_by("position"):
                path = seat_path(seat)
                for view in ("first", "cached"):
                    client.cookies.clear()
                    answer = client.get(path)
                    body = answer.content
                    for token in set(TOKEN.findall(body)):
                        body = body.replace(token, b"CSRF")
                    head = [f"{answer.status_code}"] + [f"{h}: {answer.get(h)}" for h in HEADERS]
                    digest = hashlib.sha256("\n".join(head).encode() + b"\n" + body).hexdigest()
                    seen[f"game {game_id} seat {seat.position} {language} {view}"] = digest
    return seen


def child(tree: Path, env: dict[str, str], *args: str) -> str:
    """This script's step ``args`` run with ``tree``'s code (and its static files); its
    last line of output."""
    env = {**env, "PYTHONPATH": f"{tree}:{ROOT / 'benchmarks'}"}
    env["STATIC_ROOT"] = str(Path(env["STATIC_ROOT"]) / tree.name)
    done = subprocess.run(
        [str(tree / ".venv/bin/python"), str(HERE), *args],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    if done.returncode:
        sys.exit(f"{' '.join(args)} in {tree} failed:\n{done.stderr[-3000:]}")
    return done.stdout.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="a worktree of the code to compare with")
    parser.add_argument("--make", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--read", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.make or args.read:
        import django

        django.setup()
        print(json.dumps(make_games() if args.make else pages(json.loads(args.read))))
        return
    if not args.before:
        parser.error("--before is required")
    database_url = os.getenv("BENCH_DATABASE_URL", DEFAULT_DB)
    env = service_env(database_url)
    with tempfile.TemporaryDirectory() as scratch:
        env["STATIC_ROOT"] = scratch
        fresh_database(database_url, env)
        for tree in (ROOT, args.before.resolve()):
            subprocess.run(
                [str(tree / ".venv/bin/python"), "manage.py", "collectstatic", "--no-input", "-v0"],
                cwd=tree,
                env={**env, "PYTHONPATH": str(tree), "STATIC_ROOT": f"{scratch}/{tree.name}"},
                check=True,
                timeout=300,
            )
        game_ids = child(ROOT, env, "--make")
        before = json.loads(child(args.before.resolve(), env, "--read", game_ids))
        now = json.loads(child(ROOT, env, "--read", game_ids))
    differ = [name for name in now if before.get(name) != now[name]]
    for name in differ:
        print(f"DIFFERENT: {name}")
    print(f"board pages: {len(now) - len(differ)} of {len(now)} the same")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
