"""Setting up a game: creating it, and the creator's page for invitations."""

import dataclasses
from contextlib import suppress

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from games import services
from games.forms import NewGameForm, PlayerFormSet, ReplacePlayerForm
from games.links import seat_path
from games.models import Game, Seat
from games.services.invitations import have_played_together
from pbem import ratelimits


def _may_invite(request: HttpRequest, address: str) -> bool:
    together = have_played_together(request.user, address)
    return ratelimits.may_invite(request, request.user, address, together)


def not_invited(names: str, count: int) -> str:
    """What the creator is told of ``count`` players (``names``) left uninvited."""
    return ngettext(
        "Not invited, as that address has had too many invitations today from people it has "
        "never played with: %(names)s. Remind them from this page tomorrow, or give their "
        "seat to someone else.",
        "Not invited, as each address has had too many invitations today from people it has "
        "never played with: %(names)s. Remind them from this page tomorrow, or give their "
        "seat to someone else.",
        count,
    ) % {"names": names}


@login_required
@ratelimits.per_client("invite-client", account_group="invite-account")
def new_game(request: HttpRequest) -> HttpResponse:
    """Choose the board, options and time limits, and invite the players; an address over
    its invitation limits gets a seat but no invitation, and the creator is told."""
    initial = {
        "time_zone": request.user.timezone,
        "language": translation.get_language(),
        "creator_name": request.user.get_short_name(),
    }
    form = NewGameForm(request.POST or None, initial=initial)
    players = PlayerFormSet(request.POST or None, prefix="players")
    if request.method == "POST" and form.is_valid() and players.is_valid():
        user = request.user
        specs = players.seat_specs(
            creator=user if form.cleaned_data["creator_plays"] else None,
            creator_name=form.cleaned_data["creator_name"],
        )
        if not 2 <= len(specs) <= 6:
            form.add_error(None, _("A game has 2 to 6 players, you included if you play."))
        else:
            specs = [
                dataclasses.replace(spec, invite=False)
                if spec.email and not spec.joined and not _may_invite(request, spec.email)
                else spec
                for spec in specs
            ]
            game = services.open_game(form.settings(), specs, created_by=user)
            messages.success(request, _("The game is set up and the invitations are on their way."))
            skipped = [spec for spec in specs if not spec.invite]
            if skipped:
                names = ", ".join(f"{spec.name} ({spec.email})" for spec in skipped)
                messages.warning(request, not_invited(names, len(skipped)))
            return redirect("games:manage", game_id=game.pk)
    return render(request, "games/new.html", {"form": form, "players": players})


def _own_game(request: HttpRequest, game_id: int) -> Game:
    game = get_object_or_404(Game, pk=game_id)
    if game.created_by_id != request.user.pk:
        raise Http404("Only the game's creator manages it.")
    return game


@login_required
def manage(request: HttpRequest, game_id: int) -> HttpResponse:
    """The creator's page: who has joined, reminders, replacements, starting now."""
    game = _own_game(request, game_id)
    seats = list(game.seats.select_related("user"))
    own = next((s for s in seats if s.user_id == request.user.pk), None)
    context = {
        "game": game,
        "seats": seats,
        "own_seat_path": seat_path(own) if own else None,
        "blank_form": ReplacePlayerForm(),
    }
    return render(request, "games/manage.html", context)


def _invited_seat(request: HttpRequest, game_id: int, position: int) -> Seat:
    game = _own_game(request, game_id)
    seat = get_object_or_404(game.seats, position=position)
    if seat.joined_at is not None or seat.is_bot:
        raise Http404("That player has already joined.")
    return seat


@login_required
@require_POST
@ratelimits.per_client("invite-client", account_group="invite-account")
def remind(request: HttpRequest, game_id: int, position: int) -> HttpResponse:
    seat = _invited_seat(request, game_id, position)
    if not _may_invite(request, seat.email):
        messages.error(request, not_invited(seat.name, 1))
        return redirect("games:manage", game_id=game_id)
    services.remind_invited(seat)
    messages.success(request, _("%(name)s has been reminded.") % {"name": seat.name})
    return redirect("games:manage", game_id=game_id)


@login_required
@require_POST
@ratelimits.per_client("invite-client", account_group="invite-account")
def replace(request: HttpRequest, game_id: int, position: int) -> HttpResponse:
    seat = _invited_seat(request, game_id, position)
    form = ReplacePlayerForm(request.POST)
    status = 400
    if form.is_valid() and not _may_invite(request, form.cleaned_data["email"]):
        form.add_error(
            "email",
            _(
                "This address has had too many invitations today from people it has never "
                "played with: try again tomorrow."
            ),
        )
        status = 429
    if not form.is_valid():
        game = seat.game
        seats = list(game.seats.all())
        context = {
            "game": game,
            "seats": seats,
            "blank_form": ReplacePlayerForm(),
            "replace_form": form,
            "replace_position": position,
        }
        return render(request, "games/manage.html", context, status=status)
    services.replace_invited(seat, form.cleaned_data["name"], form.cleaned_data["email"])
    messages.success(
        request,
        _("%(name)s is invited in %(old)s's place.")
        % {"name": form.cleaned_data["name"], "old": seat.name},
    )
    return redirect("games:manage", game_id=game_id)


@login_required
@require_POST
def start(request: HttpRequest, game_id: int) -> HttpResponse:
    """Start without waiting: players who have not joined play through their links."""
    game = _own_game(request, game_id)
    if game.status == Game.Status.SETUP:
        # Started a moment ago by the last player joining: that is fine too.
        with suppress(services.GameMovedOn):
            services.start_game(game)
        messages.success(request, _("The game has started."))
    return redirect("games:manage", game_id=game_id)
