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
from games.pages import plan_panel
from games.pages.drawing import board_svg, render_svg
from games.services import clock, load_state, plans
from games.views.seat_link import seat_link
from games.words import places, time_zones
from games.words.city_names import city_name


class PlanForm(forms.Form):
    what = forms.ChoiceField(choices=[(w, w) for w in ("city", "all", "route", "start", "stop")])
    city = forms.CharField(max_length=64, required=False)
    route = forms.CharField(max_length=2000, required=False)  # line ids, comma-separated
    coloured = forms.CharField(max_length=2000, required=False)
    starts = forms.CharField(max_length=200, required=False)  # point ids, in preference

    def ids(self, name: str) -> list[int]:
        """The ids of field ``name``: comma-separated, or one per box ticked (a route's
        lines marked as coloured track on its page)."""
        text = ",".join(self.data.getlist(name)) if name in self.data else ""
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
    """A plan asked once before it is set (``number`` 0: all my cities, else the city's
    place in the hand; with ``start=1``, a start marker there, then all my cities): one
    button to confirm, as a GET changes nothing (mail scanners open links). The board's
    offers and the one-tap links of emails open it; the board's script asks in the panel."""
    token = request.resolver_match.kwargs["token"]
    state = load_state(seat.game)
    hand = state.hands[seat.position] if state.hands else []
    start = request.GET.get("start") == "1"
    if not 0 <= number <= len(hand) or (start and not number):
        return render(
            request, "games/plan_confirm.html", {"seat": seat, "missing": True}, status=404
        )
    city = hand[number - 1] if number else ""
    what = "city" if city else "all"
    point = None
    if start:
        placing = state.phase == rules.PLACING and state.start_point(seat.position) is None
        if not placing:
            return render(
                request,
                "games/plan_confirm.html",
                {"seat": seat, "token": token, "placed": True},
                status=409,
            )
        what, point = "start", state.board.city_point(city)
    return render(
        request,
        "games/plan_confirm.html",
        {
            "seat": seat,
            "token": token,
            "what": what,
            "city": city if what == "city" else "",
            "city_name": city_name(city) if city else "",
            "starts": point,
        },
    )


class ThenForm(forms.Form):
    """What the turn's lines are followed by: nothing, a plan toward the city at that
    place of the seat's hand (1 to 5), all my cities, or a route to pick next."""

    then = forms.RegexField(regex=r"^(|all|route|[1-9])$", required=False)


def after_move(request: HttpRequest, seat: Seat, token: str) -> HttpResponse | None:
    """The page that asks once for the plan chosen with a move by hand for the next turns
    (for a route, its page to pick it on); None when no plan was chosen."""
    if not request.POST.get("then"):
        return None  # the usual move: no form for a choice not sent
    form = ThenForm(request.POST)
    then = form.cleaned_data["then"] if form.is_valid() else ""
    if not then:
        return None
    if then == "route":
        return redirect("games:plan_route", token)
    # A plan by tap asks once: the move is in, and the plan's own page asks before it is set.
    number = 0 if then == "all" else int(then)
    if number > len(load_state(seat.game).hands[seat.position]):
        messages.error(request, gettext("A plan heads for a city of your own."))
        return None
    messages.success(request, gettext("Your move is in."))
    return redirect("games:plan_confirm", token, number)


class RouteDraftForm(forms.Form):
    """A route being picked, carried in the page's address (a GET changes nothing):
    ``lines`` so far, in order, and a line to ``add`` or the last to ``undo``."""

    lines = forms.CharField(max_length=2000, required=False)
    coloured = forms.CharField(max_length=2000, required=False)  # lines marked so
    add = forms.IntegerField(required=False)
    undo = forms.BooleanField(required=False)


@require_http_methods(["GET"])
@seat_link
def route(request: HttpRequest, seat: Seat) -> HttpResponse:
    """A route picked line by line, then confirmed once; the board's script sends its route
    here to confirm, and a player without scripts picks it here from a list."""
    token = request.resolver_match.kwargs["token"]
    state = load_state(seat.game)
    position = seat.position
    if state.phase != rules.BUILDING or not rules.network(state, position) or seat.is_bot:
        return render(
            request, "games/plan_route.html", {"seat": seat, "token": token, "closed": True}
        )
    form = RouteDraftForm(request.GET)
    data = form.cleaned_data if form.is_valid() else {}
    asked = list(_ids(data.get("lines") or ""))
    if data.get("add") is not None:
        asked.append(data["add"])
    draft, refused = [], ""
    for line in asked:
        if line not in plan_panel.route_next(state, position, draft):
            refused = gettext("That line does not continue your route: pick one from its end.")
            break
        draft.append(line)
    if data.get("undo") and draft:
        draft.pop()
    # Coloured track only where the player marked it, and only in a game that has it.
    may_colour = plan_panel.coloured_left(state, position) > 0
    marked = set(_ids(data.get("coloured") or "")) if may_colour else set()
    marked &= set(draft)
    board = state.board
    names = [places.line_name(board, line) for line in draft]
    next_words = ""
    if draft:
        slack = rules.plans.route_slack(state, position, tuple(draft))
        probe = rules.Plan(
            rules.plans.ROUTE, state.round, route=draft, coloured=marked, slack=slack
        )
        next_words = plan_panel.next_turn(state, position, probe)
    svg = board_svg(state, position, seat_names=seat.game.seat_names(), planned=draft)
    return render(
        request,
        "games/plan_route.html",
        {
            "seat": seat,
            "token": token,
            "svg": render_svg(svg),
            "draft": ",".join(map(str, draft)),
            "marked": ",".join(str(line) for line in draft if line in marked),
            "names": names,
            "route": [
                {"id": line, "name": name, "coloured": line in marked}
                for line, name in zip(draft, names, strict=True)
            ],
            "may_colour": may_colour,
            "coloured_left": plan_panel.coloured_left(state, position),
            "cost": sum(board.lines[line][2] for line in draft),
            "next_words": next_words,
            "choices": [
                (line, places.line_label(board, line))
                for line in plan_panel.route_next(state, position, draft)
            ],
            "refused": refused,
        },
        status=400 if refused else 200,
    )


def _ids(text: str) -> list[int]:
    """Line ids from "3,17,20"; what is not a number is left out (a draft in an address
    may be typed over: the lines are checked one by one after)."""
    return [int(part) for part in text.split(",") if part.strip().isdigit()]


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
