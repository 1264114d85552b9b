from django.conf import settings
from django.contrib import admin
from django.http import HttpResponse
from django.urls import include, path

from pbem import views

admin.site.site_header = "Railmail administration"
admin.site.site_title = "Railmail"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("mail/", include("notifications.urls")),
    path("", include("games.urls")),
    # Asked for by browsers and feed readers whatever the page says (the pages link it).
    path("favicon.ico", views.favicon),
]

if settings.RAILMAIL_BENCHMARK:
    # The floor of benchmarks/bench_web.py: the least a view can do behind our middleware.
    urlpatterns.append(path("bench/ok/", lambda request: HttpResponse("ok"), name="bench_ok"))

# A database error outside any view (in a middleware) still gets the friendly 503 page.
handler500 = "pbem.views.server_error"
