"""Rate limits on everything that sends email, so nobody can use us to send spam.

Limits count per recipient address, client IP or account in the shared "ratelimit"
cache (django-ratelimit); a request over one gets ``pbem.views.rate_limited``'s 429 page.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.http import HttpRequest
from django_ratelimit.core import is_ratelimited
from django_ratelimit.exceptions import Ratelimited
from redis import RedisError

log = logging.getLogger(__name__)

# django-ratelimit's notation; RAILMAIL_RATE_LIMITS may change any of them.
RATES = {
    # A person asks for a sign-in link once, maybe twice.
    "login-address": "5/h",
    "login-client": "20/h",
    "fresh-link-seat": "5/h",
    "fresh-link-address": "5/h",
    "fresh-link-client": "20/h",
    "invite-account": "30/h",
    "invite-client": "60/h",
    # Fewer from accounts an address has never played with: no spam from our domain.
    "invite-address": "10/d",
    "invite-stranger": "3/d",
}


def rate(group: str) -> str:
    return getattr(settings, "RAILMAIL_RATE_LIMITS", {}).get(group, RATES[group])


def client_ip(request: HttpRequest) -> str:
    """The client's address, from the trusted proxy's header only."""
    header = getattr(settings, "RAILMAIL_CLIENT_IP_HEADER", "REMOTE_ADDR")
    value = request.META.get(header, "") or ""
    # The proxy appends the address it saw to whatever the client sent: take the last.
    return value.split(",")[-1].strip() or "unknown"


def hit(request: HttpRequest, group: str, value: str) -> bool:
    """Count one more request of ``group`` for ``value``; return whether it is over.

    If the cache is unreachable the request goes through: a Redis restart must not stop
    people signing in, and what they send waits in the outbox anyway.
    """
    try:
        return is_ratelimited(
            request,
            group=group,
            key=lambda _group, _request: value,
            rate=rate(group),
            increment=True,
        )
    except (RedisError, OSError) as exc:
        log.error("Rate limit %s not counted, the cache is unreachable: %s", group, exc)
        return False


def check(request: HttpRequest, *limits: tuple[str, str]) -> None:
    """Count each (group, value); raise Ratelimited when any is over its limit."""
    over = [group for group, value in limits if hit(request, group, value)]
    if over:
        raise Ratelimited(f"over the rate limit: {', '.join(over)}")


def per_client(group: str, *, account_group: str = "") -> Callable:
    """A view decorator: each POST counts for the client (and, signed in, the account)."""

    def decorate(view: Callable) -> Callable:
        @wraps(view)
        def wrapper(request: HttpRequest, *args, **kwargs):
            if request.method == "POST":
                limits = [(group, client_ip(request))]
                if account_group and request.user.is_authenticated:
                    limits.append((account_group, str(request.user.pk)))
                check(request, *limits)
            return view(request, *args, **kwargs)

        return wrapper

    return decorate


def may_invite(request: HttpRequest, inviter, address: str, played_together: bool) -> bool:
    """Count an invitation to ``address``; whether it may be sent."""
    if not played_together and hit(request, "invite-stranger", address.lower()):
        return False
    return not hit(request, "invite-address", address.lower())
