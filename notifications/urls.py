from django.urls import path

from notifications import views

app_name = "notifications"

urlpatterns = [
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path("resume/", views.resume, name="resume"),
    path("seat/<str:token>/take-back/", views.take_seat_back, name="take_seat_back"),
    path("vacation/", views.vacation, name="vacation"),
    path("vacation/end/", views.vacation_end, name="vacation_end"),
    path("mailbox/", views.mailbox, name="mailbox"),
    path("mailbox/<int:pk>/", views.mailbox_message, name="mailbox_message"),
    # The configured provider's webhooks only (bounces, complaints), secured with
    # ANYMAIL_WEBHOOK_SECRET and, where anymail checks one, the provider's own signature:
    # mail/anymail/<esp>/tracking/. Every other provider's address answers 404.
    path("anymail/<str:esp>/<path:rest>", views.provider_webhook, name="provider_webhook"),
]
