from django.contrib import admin
from django.urls import path

admin.site.site_header = "Railmail administration"
admin.site.site_title = "Railmail"

urlpatterns = [
    path("admin/", admin.site.urls),
]
