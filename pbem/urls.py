from django.contrib import admin
from django.urls import include, path

admin.site.site_header = "Railmail administration"
admin.site.site_title = "Railmail"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("mail/", include("notifications.urls")),
    path("", include("games.urls")),
]

# A database error outside any view (in a middleware) still gets the friendly 503 page.
handler500 = "pbem.views.server_error"
