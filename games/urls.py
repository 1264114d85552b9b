from django.urls import path

from games.views import play

app_name = "games"

urlpatterns = [
    path("s/<str:token>/", play.seat, name="seat"),
    path("s/<str:token>/join/", play.join, name="join"),
    path("s/<str:token>/fresh-link/", play.fresh_link, name="fresh_link"),
]
