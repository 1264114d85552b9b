from django.urls import path

from accounts import views

app_name = "accounts"

urlpatterns = [
    path("login/", views.login, name="login"),
    path("login/sent/", views.login_sent, name="login_sent"),
    path("login/<str:token>/", views.login_confirm, name="login_confirm"),
    path("logout/", views.logout, name="logout"),
    path("preferences/", views.preferences, name="preferences"),
    path("language/", views.language, name="language"),
]
