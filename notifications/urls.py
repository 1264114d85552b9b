from django.urls import path

from notifications import channel_views, views

app_name = "notifications"

urlpatterns = [
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path("resume/", views.resume, name="resume"),
    path("seat/<str:token>/take-back/", views.take_seat_back, name="take_seat_back"),
    path("seat/<str:token>/channels/", channel_views.add_for_seat, name="add_channel"),
    path("seat/<str:token>/channels/table/", channel_views.add_for_table, name="add_table_channel"),
    path(
        "seat/<str:token>/channels/<int:channel_id>/test/", channel_views.test, name="test_channel"
    ),
    path(
        "seat/<str:token>/channels/<int:channel_id>/remove/",
        channel_views.remove,
        name="remove_channel",
    ),
    path("channels/confirm/<str:token>/", channel_views.confirm, name="confirm_channel"),
    path("channels/", channel_views.account, name="channels"),
    path("vacation/", views.vacation, name="vacation"),
    path("vacation/end/", views.vacation_end, name="vacation_end"),
    path("mailbox/", views.mailbox, name="mailbox"),
    path("mailbox/<int:pk>/", views.mailbox_message, name="mailbox_message"),
    # The configured provider's webhooks only (bounces, complaints), secured with
    # ANYMAIL_WEBHOOK_SECRET and, where anymail checks one, the provider's own signature:
    # mail/anymail/<esp>/tracking/. Every other provider's address answers 404.
    path("anymail/<str:esp>/<path:rest>", views.provider_webhook, name="provider_webhook"),
]
