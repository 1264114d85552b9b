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
