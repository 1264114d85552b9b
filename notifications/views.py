"""Pages about email and time: one-click unsubscribe, turning mail back on, vacations,
the local mailbox."""

from csp.decorators import csp_replace
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core import signing
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import Resolver404, resolve
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from games import links, services
from games.models import Seat
from games.views.seat_link import seat_link
from helpers import clock_source
from notifications import emails, preferences
from notifications.forms import ResumeMailForm, UnsubscribeForm, VacationForm
from notifications.models import MailPreference, Message, Suppression


@csrf_exempt  # RFC 8058: the mail provider POSTs here with no session and no token.
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """GET offers the choices and changes nothing (mail scanners open links); a POST
    without a choice is RFC 8058's one-click."""
    try:
        address, kind = emails.unsubscribe_request(token)
    except signing.BadSignature:
        return render(request, "notifications/unsubscribe_bad.html", status=400)
    offered = preferences.choices_for(kind)
    if request.method == "POST":
        form = UnsubscribeForm(request.POST, offered=offered)
        if "choice" not in request.POST:
            choice = preferences.one_click(kind)
        elif form.is_valid():
            choice = form.cleaned_data["choice"]
        else:
            context = {"address": address, "form": form}
            return render(request, "notifications/unsubscribe.html", context, status=400)
        done = preferences.choose(address, kind, choice)
        return render(
            request, "notifications/unsubscribed.html", {"address": address, "done": done}
        )
    form = UnsubscribeForm(offered=offered, initial={"choice": offered[0][0]})
    context = {"address": address, "form": form, "stopped": Suppression.for_address(address)}
    return render(request, "notifications/unsubscribe.html", context)


@csrf_exempt  # providers send no CSRF token: their shared secret and signature secure it
def provider_webhook(request: HttpRequest, esp: str, rest: str) -> HttpResponse:
    """The configured provider's anymail webhook; 404 for any other, whose webhook would
    know none of our secrets."""
    if not settings.ANYMAIL_ESP or esp != settings.ANYMAIL_ESP:
        raise Http404("No webhook for that provider here.")
    try:
        match = resolve(f"/{esp}/{rest}", urlconf="anymail.urls")
    except Resolver404:
        raise Http404("No such webhook.") from None
    return match.func(request, *match.args, **match.kwargs)


@require_POST
def resume(request: HttpRequest) -> HttpResponse:
    """Turn mail to an address back on (the banner's button on the board page)."""
    form = ResumeMailForm(request.POST)
    if form.is_valid():
        address = form.cleaned_data["token"]
        Suppression.objects.filter(address=address).delete()
        MailPreference.objects.filter(address=address).delete()
        messages.success(request, _("Emails to %(address)s are on again.") % {"address": address})
        target = form.cleaned_data["next"]
        if target and url_has_allowed_host_and_scheme(
            target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        ):
            return redirect(target)
        return render(request, "notifications/resumed.html", {"address": address})
    return render(request, "notifications/unsubscribe_bad.html", status=400)


def _debug_only() -> None:
    if not settings.DEBUG:
        raise Http404("The mailbox exists only in debug mode.")


def mailbox(request: HttpRequest) -> HttpResponse:
    """Every email the outbox holds, newest first: the local developer's inbox."""
    _debug_only()
    rows = Message.objects.select_related("game").only(
        "pk", "kind", "to", "subject", "status", "created_at", "next_attempt_at", "game"
    )[:200]
    return render(request, "notifications/mailbox.html", {"messages_list": rows})


@never_cache  # emails show a player's hand
# The sandboxed srcdoc frame inherits this page's policy: emails need inline styles.
@csp_replace(
    {
        "default-src": ["'none'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "script-src": ["'none'"],
        "form-action": ["'none'"],
    }
)
def mailbox_message(request: HttpRequest, pk: int) -> HttpResponse:
    _debug_only()
    message = get_object_or_404(Message, pk=pk)
    return render(request, "notifications/mailbox_message.html", {"message": message})


@require_POST
@seat_link
def take_seat_back(request: HttpRequest, seat: Seat) -> HttpResponse:
    """The player takes their seat back from the bot (the button on their board page)."""
    if seat.autopilot:
        services.take_seat_back(seat)
        messages.success(request, _("Your seat is yours again: the bot no longer plays it."))
    return redirect(links.seat_path(seat))


@login_required
@require_http_methods(["GET", "POST"])
def vacation(request: HttpRequest) -> HttpResponse:
    """Start a vacation: the player's clocks stop in all their games for that many days."""
    user = request.user
    on_vacation = user.vacation_until is not None and user.vacation_until > clock_source.now()
    form = VacationForm(request.POST or None, user=user)
    if request.method == "POST" and not on_vacation and form.is_valid():
        try:
            services.start_vacation(user, form.cleaned_data["days"])
        except services.VacationError as exc:  # e.g. the same form sent twice from two tabs
            form.add_error(None, str(exc))
        else:
            messages.success(request, _("Enjoy your vacation: your clocks are paused."))
            return redirect("notifications:vacation")
    return render(
        request, "notifications/vacation.html", {"form": form, "on_vacation": on_vacation}
    )


@login_required
@require_POST
def vacation_end(request: HttpRequest) -> HttpResponse:
    """End one's vacation early; the whole days not begun go back to the allowance."""
    if request.user.vacation_until is not None:
        returned = services.end_vacation(request.user)
        messages.success(
            request,
            ngettext(
                "Welcome back: your clocks run again, and %(returned)s day went back to "
                "your allowance.",
                "Welcome back: your clocks run again, and %(returned)s days went back to "
                "your allowance.",
                returned,
            )
            % {"returned": returned},
        )
    return redirect("notifications:vacation")
