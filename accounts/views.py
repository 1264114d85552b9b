"""Signing in by emailed link, signing out, and a player's preferences."""

from django.contrib import messages
from django.contrib.auth import logout as auth_logout
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST
from django.views.i18n import set_language

from accounts import login_links
from accounts.forms import LanguageForm, LoginForm, PreferencesForm
from games.services import clock
from notifications import emails
from pbem import ratelimits

# Where the confirmation page of a bad link says what went wrong.
BAD_LINK_MESSAGES = {
    "expired": gettext_lazy("This sign-in link has expired: links work for an hour."),
    "used": gettext_lazy("This sign-in link has already been used: each link works once."),
    "tampered": gettext_lazy(
        "This sign-in link is not valid: it may have been cut short when copied."
    ),
    "inactive": gettext_lazy("This account is disabled. Please contact the site's operators."),
}


@require_http_methods(["GET", "POST"])
@ratelimits.per_client("login-client")
def login(request: HttpRequest) -> HttpResponse:
    """Email a sign-in link; every address gets the same answer, so none is given away."""
    if request.method == "POST":
        form = LoginForm(request.POST)
        if form.is_valid():
            email = form.cleaned_data["email"]
            ratelimits.check(request, ("login-address", email))
            url = login_links.login_url(email, form.cleaned_data["next"])
            emails.login_link(email, url)
            request.session["login_link_sent_to"] = email
            return redirect("accounts:login_sent")
    else:
        form = LoginForm(initial={"next": login_links.safe_next(request.GET.get("next"))})
    return render(request, "accounts/login.html", {"form": form})


def login_sent(request: HttpRequest) -> HttpResponse:
    """Tell the player to look in their inbox."""
    email = request.session.get("login_link_sent_to")
    if not email:
        return redirect("accounts:login")
    return render(request, "accounts/login_sent.html", {"email": email})


@require_http_methods(["GET", "POST"])
def login_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """The page a sign-in link opens. GET only shows a button (mail scanners open links,
    and opening one must not use it up); the POST of that button signs in."""
    try:
        if request.method == "POST":
            user, asked = login_links.sign_in(request, token)
        else:
            asked = login_links.check_token(token)
    except login_links.BadLoginLink as error:
        context = {"message": BAD_LINK_MESSAGES[error.reason], "form": LoginForm()}
        return render(request, "accounts/login_invalid.html", context, status=400)
    if request.method == "GET":
        return render(request, "accounts/login_confirm.html", {"email": asked.email})
    request.session.pop("login_link_sent_to", None)
    messages.success(request, _("You are signed in as %(email)s.") % {"email": user.email})
    return redirect(asked.next_path or "games:home")


@require_POST
def logout(request: HttpRequest) -> HttpResponse:
    auth_logout(request)
    messages.info(request, _("You are signed out."))
    return redirect("games:home")


@login_required
@require_http_methods(["GET", "POST"])
def preferences(request: HttpRequest) -> HttpResponse:
    """A player's name, turn emails, reminders, time zone and language."""
    form = PreferencesForm(request.POST or None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        form.save()
        if {"timezone", "quiet_start", "quiet_end"} & set(form.changed_data):
            # Each running game times this player's turns by them from now on (in its log).
            clock.quiet_hours_changed(form.instance)
        if form.instance.language:
            translation.activate(form.instance.language)  # say so in the chosen language
        messages.success(request, _("Your preferences are saved."))
        return redirect("accounts:preferences")
    return render(request, "accounts/preferences.html", {"form": form})


@require_POST
def language(request: HttpRequest) -> HttpResponse:
    """The language menu: saved in the cookie and, signed in, the account, so emails follow."""
    form = LanguageForm(request.POST)
    if not form.is_valid():
        return HttpResponseBadRequest(_("Choose one of the languages offered."))
    if request.user.is_authenticated:
        request.user.language = form.cleaned_data["language"]
        request.user.save(update_fields=["language"])
    return set_language(request)
