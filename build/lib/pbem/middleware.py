"""The database being down is an outage, not a bug: a friendly 503 with Retry-After.

A view whose query fails because the database is unreachable or restarting (django.db's
OperationalError or InterfaceError) gets ``pbem.views.service_unavailable`` here. The
same error raised outside a view (in another middleware, such as the session's) reaches
Django's error handler instead, ``handler500`` (``pbem.views.server_error``), which answers
the same page.
"""

from django.db import InterfaceError, OperationalError

from pbem.views import service_unavailable


class DatabaseUnavailableMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, OperationalError | InterfaceError):
            return service_unavailable(request, exception)
        return None
