from django.urls import path

from games.views import consent, history, home, language, play, setup, suggested, talk, watch

app_name = "games"

urlpatterns = [
    path("", home.home, name="home"),
    path("history/", history.history_list, name="history"),
    path("games/<int:game_id>/replay/", history.replay, name="replay"),
    path("games/<int:game_id>/record.json", history.record, name="record"),
    path("s/<str:token>/history/", history.seat_replay, name="seat_replay"),
    path("s/<str:token>/record.json", history.seat_record, name="seat_record"),
    path("s/<str:token>/", play.seat, name="seat"),
    path("s/<str:token>/join/", play.join, name="join"),
    path("s/<str:token>/fresh-link/", play.fresh_link, name="fresh_link"),
    path("s/<str:token>/version/", watch.version, name="version"),
    path("s/<str:token>/play/<int:version>/<int:number>/", suggested.play, name="suggested"),
    path("s/<str:token>/seen/", watch.seen, name="seen"),
    path("s/<str:token>/language/", language.seat_language, name="seat_language"),
    path("s/<str:token>/talk/", talk.write, name="talk"),
    path("s/<str:token>/talk/mute/<int:position>/", talk.mute, name="talk_mute"),
    path("s/<str:token>/talk/report/<int:message_id>/", talk.report, name="talk_report"),
    path("s/<str:token>/table/take-back/", consent.take_back, name="take_back"),
    path("s/<str:token>/table/more-time/", consent.more_time, name="more_time"),
    path("s/<str:token>/table/end/", consent.end_game, name="end_game"),
    path("s/<str:token>/table/nudge/", consent.nudge, name="nudge"),
    path("s/<str:token>/table/leave/", consent.leave, name="leave"),
    path("s/<str:token>/table/mute/", consent.mute, name="mute_game"),
    path("s/<str:token>/table/substitute/<int:position>/", consent.substitute, name="substitute"),
    path("new/", setup.new_game, name="new"),
    path("games/<int:game_id>/manage/", setup.manage, name="manage"),
    path("games/<int:game_id>/seats/<int:position>/remind/", setup.remind, name="remind"),
    path("games/<int:game_id>/seats/<int:position>/replace/", setup.replace, name="replace"),
    path("games/<int:game_id>/start/", setup.start, name="start"),
]
