"""Setting and cancelling a seat's build plan from its board page, or by a one-tap link
from an email (which asks for one confirmation first, and names a number, never a city)."""

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods, require_POST

from games import rules
from games.models import Seat
from games.services import clock, load_state, plans
from games.views.seat_link import seat_link
from games.words import time_zones
from games.words.city_names import city_name


class PlanForm(forms.Form):
    what = forms.ChoiceField(choices=[(w, w) for w in ("city", "all", "route", "start", "stop")])
    city = forms.CharField(max_length=64, required=False)
    route = forms.CharField(max_length=2000, required=False)  # line ids, comma-separated
    coloured = forms.CharField(max_length=2000, required=False)
    starts = forms.CharField(max_length=200, required=False)  # point ids, in preference

    def ids(self, name: str) -> list[int]:
        text = self.cleaned_data.get(name) or ""
        try:
            return [int(part) for part in text.split(",") if part.strip()]
        except ValueError:
            raise plans.PlanError("bad_route", gettext("A route is a list of lines.")) from None


@require_POST
@seat_link
def plan(request: HttpRequest, seat: Seat) -> HttpResponse:
    """Set or cancel the seat's plan, then back to the board."""
    form = PlanForm(request.POST)
    if not form.is_valid():
        messages.error(request, gettext("That plan cannot be set."))
        return redirect("games:seat", request.resolver_match.kwargs["token"])
    what = form.cleaned_data["what"]
    try:
        if what == "stop":
            plans.cancel_plan(seat)
            messages.success(request, gettext("Your plan is cancelled."))
        elif what == "start":
            plans.set_plan(seat, rules.plans.ALL, starts=form.ids("starts"))
            messages.success(
                request, gettext("Your plan is set: your start marker, then all your cities.")
            )
        elif what == "all":
            plans.set_plan(seat, rules.plans.ALL)
            messages.success(request, gettext("Your plan is set: all your cities."))
        elif what == "route":
            plans.set_plan(
                seat, rules.plans.ROUTE, route=form.ids("route"), coloured=form.ids("coloured")
            )
            messages.success(request, gettext("Your plan is set: your route."))
        else:
            city = form.cleaned_data["city"]
            plans.set_plan(seat, rules.plans.CITY, city=city)
            messages.success(
                request, gettext("Your plan is set: toward %(city)s.") % {"city": city_name(city)}
            )
    except plans.PlanError as refused:
        messages.error(request, str(refused))
    return redirect("games:seat", request.resolver_match.kwargs["token"])


@require_http_methods(["GET"])
@seat_link
def confirm(request: HttpRequest, seat: Seat, number: int) -> HttpResponse:
    """A one-tap plan from an email: ``number`` 0 for all my cities, else the city's place
    in the seat's hand (1 to 5). Shows what it would set, with one button to confirm (a
    GET never changes anything: mail scanners open links)."""
    state = load_state(seat.game)
    hand = state.hands[seat.position] if state.hands else []
    if not 0 <= number <= len(hand):
        return render(
            request, "games/plan_confirm.html", {"seat": seat, "missing": True}, status=404
        )
    city = hand[number - 1] if number else ""
    return render(
        request,
        "games/plan_confirm.html",
        {
            "seat": seat,
            "token": request.resolver_match.kwargs["token"],
            "what": "city" if city else "all",
            "city": city,
            "city_name": city_name(city) if city else "",
        },
    )


class QuietHoursForm(forms.Form):
    start = forms.TimeField(required=False)
    end = forms.TimeField(required=False)
    zone = forms.CharField(max_length=64)

    def clean_zone(self) -> str:
        name = self.cleaned_data["zone"].strip()
        if time_zones.zone(name).key != name:
            raise forms.ValidationError(gettext("Choose a time zone this site knows."))
        return name


@require_POST
@seat_link
def quiet_hours(request: HttpRequest, seat: Seat) -> HttpResponse:
    """A player's quiet hours from their board page (for players without an account, or
    for one game): recorded in the game's log, so its deadlines follow them."""
    form = QuietHoursForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        clock.set_quiet_hours(seat, data["zone"], data["start"], data["end"])
        messages.success(request, gettext("Your quiet hours are saved."))
    else:
        messages.error(request, gettext("Those quiet hours cannot be saved."))
    return redirect("games:seat", request.resolver_match.kwargs["token"])
