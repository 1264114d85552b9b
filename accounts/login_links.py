"""One-time sign-in links, sent by email instead of a password.

A link signs the account's last sign-in time, so signing in spends every older link.
An address without an account gets a link too, so the form never tells whether it has one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import login
from django.core import signing
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.urls import reverse
from django.utils.crypto import constant_time_compare
from django.utils.http import url_has_allowed_host_and_scheme

from accounts.models import User, normalize_email
from accounts.signals import signed_in_by_link

SALT = "accounts.login_links"
MAX_AGE = timedelta(hours=1)
# Signing in by link needs no password; the account's backend is named for login().
BACKEND = "django.contrib.auth.backends.ModelBackend"


class BadLoginLink(Exception):
    """A sign-in link that cannot be used: "expired", "used", "tampered" or "inactive"."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"bad sign-in link: {reason}")
        self.reason = reason


@dataclass(frozen=True)
class LoginRequest:
    """What a valid sign-in link asks for."""

    email: str
    next_path: str
    stamp: str  # the account's last sign-in when the link was made


def _stamp(last_login: datetime | None) -> str:
    # Microseconds: two sign-ins within one second must still change the stamp.
    return "" if last_login is None else str(int(last_login.timestamp() * 1_000_000))


def _current_stamp(email: str) -> str:
    user = User.objects.filter(email=email).only("last_login").first()
    return _stamp(user.last_login if user else None)


def safe_next(next_path: str | None) -> str:
    """``next_path`` if it is a path on this site, else "" (no open redirects)."""
    if not next_path or not next_path.startswith("/") or next_path.startswith("//"):
        return ""
    if not url_has_allowed_host_and_scheme(next_path, allowed_hosts=None):
        return ""  # such as "/\\evil.example", which browsers read as another host
    return next_path


def make_token(email: str, next_path: str = "") -> str:
    email = normalize_email(email)
    payload = {"e": email, "l": _current_stamp(email), "n": safe_next(next_path)}
    return signing.dumps(payload, salt=SALT, compress=True)


def login_url(email: str, next_path: str = "") -> str:
    """The absolute URL of the sign-in confirmation page for ``email``, as emailed."""
    path = reverse("accounts:login_confirm", args=[make_token(email, next_path)])
    return settings.SITE_URL + path


def check_token(token: str) -> LoginRequest:
    """The sign-in a token asks for, or BadLoginLink (expired, used or tampered)."""
    try:
        payload = signing.loads(token, salt=SALT, max_age=MAX_AGE)
    except signing.SignatureExpired:
        raise BadLoginLink("expired") from None
    except signing.BadSignature:
        raise BadLoginLink("tampered") from None
    if not isinstance(payload, dict):
        raise BadLoginLink("tampered")
    email, stamp, next_path = payload.get("e"), payload.get("l"), payload.get("n", "")
    if not isinstance(email, str) or not isinstance(stamp, str) or not isinstance(next_path, str):
        raise BadLoginLink("tampered")
    if not constant_time_compare(stamp, _current_stamp(email)):
        raise BadLoginLink("used")
    return LoginRequest(email=email, next_path=safe_next(next_path), stamp=stamp)


def sign_in(request: HttpRequest, token: str) -> tuple[User, LoginRequest]:
    """Sign in with the link ``token``, making the account on first use; raises BadLoginLink."""
    asked = check_token(token)
    try:
        return _sign_in(request, asked)
    except IntegrityError:
        # Two clicks made the same new account at once: the other one won.
        raise BadLoginLink("used") from None


def _sign_in(request: HttpRequest, asked: LoginRequest) -> tuple[User, LoginRequest]:
    with transaction.atomic():
        # Locked, so that two clicks on one link cannot both get through.
        user = User.objects.select_for_update().filter(email=asked.email).first()
        if user is None:
            user = User.objects.create_user(asked.email)  # no password: links only
        elif not constant_time_compare(_stamp(user.last_login), asked.stamp):
            raise BadLoginLink("used")
        if not user.is_active:
            raise BadLoginLink("inactive")
        # login() sets last_login, which is what makes every older link stop working.
        login(request, user, backend=BACKEND)
        signed_in_by_link.send(sender=User, user=user)
    return user, asked
