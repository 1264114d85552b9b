from django.urls import include, path

from notifications import views

app_name = "notifications"

urlpatterns = [
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path("resume/", views.resume, name="resume"),
    path("seat/<str:token>/take-back/", views.take_seat_back, name="take_seat_back"),
    path("vacation/", views.vacation, name="vacation"),
    path("vacation/end/", views.end_vacation, name="end_vacation"),
    path("mailbox/", views.mailbox, name="mailbox"),
    path("mailbox/<int:pk>/", views.mailbox_message, name="mailbox_message"),
    # The provider's tracking webhook (bounces, complaints), secured with
    # ANYMAIL_WEBHOOK_SECRET: mail/anymail/<esp>/tracking/.
    path("anymail/", include("anymail.urls")),
]
