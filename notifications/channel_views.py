"""Channels besides email, from a seat's board page and the account's page. The
confirmation page confirms only on POST, as mail scanners open links."""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST

from games.links import seat_path
from games.models import Seat
from games.pages import page_cache
from games.views.seat_link import seat_link
from notifications import channel_settings, channels
from notifications.models import Channel


class ChannelForm(forms.Form):
    url = forms.CharField(
        max_length=2000,
        label=gettext_lazy("Apprise address"),
        help_text=gettext_lazy("Such as ntfys://ntfy.sh/your-topic or tgram://bot-token/chat-id"),
    )


def panel(
    request: HttpRequest, seat: Seat, token: str, csrf_token: str | None = None
) -> SafeString:
    """The channels part of ``seat``'s board page, filled in per request: its CSRF token
    always, the whole of it when the seat or table has channels to list."""
    if seat.is_bot or not seat.email:
        return SafeString("")
    listed = [
        {"channel": channel, "where": channels.masked(channel.url), "table": channel.game_id}
        for channel in channel_settings.of_seat(seat)
    ]
    creator = _creator(seat)
    if not listed:
        # Most seats list none: the same panel for every request through this link (in its
        # language), rendered once; its two forms took most of a cached board page's time.
        fragment = page_cache.cached(
            "channels-none",
            (token, creator),
            lambda holes: {"panel": _render(token, [], creator, holes.csrf_token)},
        )
        return fragment.fill("panel", request, csrf_token)
    return _render(token, listed, creator, csrf_token or get_token(request))


def fixed(seat: Seat) -> tuple | None:
    """What ``seat``'s panel shows besides the CSRF token when that is all that changes
    it from one visit through the seat's link to the next (it lists no channel); else
    None. A cached page holds such a panel."""
    if seat.is_bot or not seat.email:
        return ("none",)
    # The flags read with the seat: with either set, the panel asks what to list.
    if seat.has_channels or seat.game.has_channel:
        return None
    return ("unlisted", _creator(seat))


def _render(token: str, listed: list[dict], creator: bool, csrf_token: str) -> SafeString:
    context = {
        "token": token,
        "listed": listed,
        # Two forms on one page need ids of their own.
        "form": ChannelForm(auto_id="id_channel_%s"),
        "table_form": ChannelForm(auto_id="id_table_channel_%s"),
        "creator": creator,
        "csrf_token": csrf_token,
    }
    return render_to_string("notifications/_channels.html", context)


def _back(seat: Seat) -> HttpResponse:
    return redirect(seat_path(seat) + "#channels-heading")


def _add(request: HttpRequest, seat: Seat, add) -> HttpResponse:
    form = ChannelForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Give the channel's Apprise address."))
        return _back(seat)
    try:
        add(form.cleaned_data["url"])
    except (channels.ChannelRefused, channel_settings.Refused) as refused:
        messages.error(request, str(refused))
    else:
        messages.success(request, _("The channel is added."))
    return _back(seat)


@require_POST
@seat_link
def add_for_seat(request: HttpRequest, seat: Seat) -> HttpResponse:
    response = _add(request, seat, lambda url: channel_settings.add_for_seat(seat, url))
    if Channel.objects.filter(seat=seat, confirmed_at=None).exists():
        messages.info(request, _("Confirm it with the link we emailed to your seat's address."))
    return response


@require_POST
@seat_link
def add_for_table(request: HttpRequest, seat: Seat) -> HttpResponse:
    return _add(request, seat, lambda url: channel_settings.add_for_table(seat.game, seat, url))


def _own(seat: Seat, channel_id: int) -> Channel:
    channel = Channel.objects.filter(pk=channel_id).first()
    mine = channel is not None and (
        channel.seat_id == seat.pk or (channel.game_id == seat.game_id and _creator(seat))
    )
    if not mine:
        raise Http404("No such channel of this seat.")
    return channel


def _creator(seat: Seat) -> bool:
    creator = seat.game.created_by
    return creator is not None and (
        seat.user_id == creator.pk or seat.email.lower() == creator.email.lower()
    )


@require_POST
@seat_link
def test(request: HttpRequest, seat: Seat, channel_id: int) -> HttpResponse:
    channel = _own(seat, channel_id)
    try:
        arrived = channel_settings.send_test(channel)
    except channel_settings.Refused as refused:
        messages.error(request, str(refused))
    else:
        if arrived:
            messages.success(request, _("The test was sent."))
        else:
            messages.error(request, _("The service did not take the test."))
    return _back(seat)


@require_POST
@seat_link
def remove(request: HttpRequest, seat: Seat, channel_id: int) -> HttpResponse:
    channel_settings.remove(_own(seat, channel_id))
    messages.success(request, _("The channel is removed."))
    return _back(seat)


@require_http_methods(["GET", "HEAD", "POST"])
def confirm(request: HttpRequest, token: str) -> HttpResponse:
    channel = Channel.objects.filter(token=token, seat__isnull=False).first()
    if channel is None:
        raise Http404("No such channel.")
    if request.method == "POST":
        channel_settings.confirm(token)
        messages.success(request, _("The channel is confirmed: your notices go there too."))
    return render(
        request,
        "notifications/channel_confirm.html",
        {"channel": channel, "where": channels.masked(channel.url)},
    )


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def account(request: HttpRequest) -> HttpResponse:
    """A signed-in player's own channels, for every seat of their account."""
    user = request.user
    form = ChannelForm(request.POST or None)
    if request.method == "POST":
        action, pk = request.POST.get("action", "add"), request.POST.get("channel", "")
        channel = Channel.objects.filter(pk=pk, user=user).first() if pk.isdigit() else None
        if action == "add" and form.is_valid():
            try:
                channel_settings.add_for_account(user, form.cleaned_data["url"])
            except channels.ChannelRefused as refused:
                messages.error(request, str(refused))
            else:
                messages.success(request, _("The channel is added."))
        elif action == "test" and channel is not None:
            try:
                sent = channel_settings.send_test(channel)
            except channel_settings.Refused as refused:
                messages.error(request, str(refused))
            else:
                if sent:
                    messages.success(request, _("The test was sent."))
                else:
                    messages.error(request, _("The service did not take the test."))
        elif action == "remove" and channel is not None:
            channel_settings.remove(channel)
            messages.success(request, _("The channel is removed."))
        elif action == "add":
            messages.error(request, _("Give the channel's Apprise address."))
        return redirect("notifications:channels")
    listed = [
        {"channel": channel, "where": channels.masked(channel.url)}
        for channel in Channel.objects.filter(user=user).order_by("pk")
    ]
    return render(request, "notifications/channels.html", {"listed": listed, "form": form})
