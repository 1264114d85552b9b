"""The site's own error pages (429, 503, 500) and /favicon.ico."""

import logging
import sys

from django.db import InterfaceError, OperationalError
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponsePermanentRedirect,
    HttpResponseServerError,
)
from django.shortcuts import render
from django.template import loader
from django.templatetags.static import static

log = logging.getLogger(__name__)

RATE_LIMIT_RETRY_AFTER = 600
# Long enough for the database to restart.
OUTAGE_RETRY_AFTER = 30


def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico whatever a page links; the address follows the stored
    static files."""
    return HttpResponsePermanentRedirect(static("favicon.svg"))


def rate_limited(request: HttpRequest, exception: Exception) -> HttpResponse:
    """The page for a request over a rate limit (RATELIMIT_VIEW)."""
    response = render(request, "429.html", status=429)
    response["Retry-After"] = str(RATE_LIMIT_RETRY_AFTER)
    return response


def service_unavailable(request: HttpRequest, exception: Exception) -> HttpResponse:
    """The database is unreachable: rendered without the request's context, whose
    processors read the session and user from that database."""
    log.error("Database unavailable for %s %s: %s", request.method, request.path, exception)
    body = loader.get_template("503.html").render({"retry_after": OUTAGE_RETRY_AFTER})
    response = HttpResponse(body, status=503)
    response["Retry-After"] = str(OUTAGE_RETRY_AFTER)
    return response


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: the 503 page when the error was the database's, else a plain 500."""
    exception = sys.exc_info()[1]
    if isinstance(exception, OperationalError | InterfaceError):
        return service_unavailable(request, exception)
    return HttpResponseServerError(loader.get_template("500.html").render({}))
