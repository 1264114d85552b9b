from django.urls import path

from games.views import play, setup

app_name = "games"

urlpatterns = [
    path("s/<str:token>/", play.seat, name="seat"),
    path("s/<str:token>/join/", play.join, name="join"),
    path("s/<str:token>/fresh-link/", play.fresh_link, name="fresh_link"),
    path("new/", setup.new_game, name="new"),
    path("games/<int:game_id>/manage/", setup.manage, name="manage"),
    path("games/<int:game_id>/seats/<int:position>/remind/", setup.remind, name="remind"),
    path("games/<int:game_id>/seats/<int:position>/replace/", setup.replace, name="replace"),
    path("games/<int:game_id>/start/", setup.start, name="start"),
]
