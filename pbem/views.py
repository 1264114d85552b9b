"""The site's own error pages: too many requests (429) and the database being down (503)."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

# How long a client over a rate limit is asked to wait before trying again.
RATE_LIMIT_RETRY_AFTER = 600


def rate_limited(request: HttpRequest, exception: Exception) -> HttpResponse:
    """The page for a request over a rate limit (RATELIMIT_VIEW)."""
    response = render(request, "429.html", status=429)
    response["Retry-After"] = str(RATE_LIMIT_RETRY_AFTER)
    return response
