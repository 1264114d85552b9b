import datetime

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser, BaseUserManager
from django.contrib.auth.models import PermissionsMixin
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from helpers import clock_source


def normalize_email(email: str) -> str:
    """Return the address trimmed and lowercased, the form accounts are stored in.

    Railmail identifies players by address, so "Ada@Example.org" and "ada@example.org"
    must be the same account, though the local part is case-sensitive by the letter of
    RFC 5321: no real mail provider treats it so.
    """
    return email.strip().lower()


class UserManager(BaseUserManager):
    use_in_migrations = True

    def get_by_natural_key(self, email: str) -> "User":
        return self.get(email=normalize_email(email))

    def create_user(self, email: str, password: str | None = None, **extra_fields) -> "User":
        if not email:
            raise ValueError("An account needs an email address")
        user = self.model(email=normalize_email(email), **extra_fields)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_superuser(self, email: str, password: str | None = None, **extra_fields) -> "User":
        extra_fields.setdefault("is_staff", True)
        extra_fields.setdefault("is_superuser", True)
        if not extra_fields["is_staff"] or not extra_fields["is_superuser"]:
            raise ValueError("A superuser needs is_staff=True and is_superuser=True")
        return self.create_user(email, password, **extra_fields)


class User(AbstractBaseUser, PermissionsMixin):
    """An account. Email is the login; playing a game needs no account at all."""

    class EmailMode(models.TextChoices):
        EACH_TURN = "each_turn", _("An email on every turn")
        DAILY_DIGEST = "daily_digest", _("One daily digest of the games waiting for me")

    email = models.EmailField(_("email address"), unique=True)
    name = models.CharField(_("display name"), max_length=100, blank=True)
    is_staff = models.BooleanField(
        _("staff status"),
        default=False,
        help_text=_("Designates whether the user can log into the admin site."),
    )
    is_active = models.BooleanField(
        pgettext_lazy("account", "active"),
        default=True,
        help_text=_("Unselect this instead of deleting accounts."),
    )
    date_joined = models.DateTimeField(_("date joined"), default=clock_source.now)

    # Preferences. A seat played by link alone, without an account, gets the defaults.
    email_mode = models.CharField(
        _("turn emails"), max_length=16, choices=EmailMode.choices, default=EmailMode.EACH_TURN
    )
    reminders = models.BooleanField(
        _("deadline reminders"), default=True, help_text=_("Remind me before a move's deadline.")
    )
    timezone = models.CharField(
        _("time zone"), max_length=64, default="UTC", help_text=_("Deadlines are shown in it.")
    )
    # The hours of the night (in ``timezone``) that a turn's clock does not count.
    quiet_start = models.TimeField(
        _("quiet hours from"),
        null=True,
        blank=True,
        default=datetime.time(22, 0),
        help_text=_("Your turn's clock stops for the night: no deadline falls in it."),
    )
    quiet_end = models.TimeField(
        _("quiet hours until"), null=True, blank=True, default=datetime.time(7, 0)
    )
    # Empty until chosen: then each game's language is used (games.words.languages).
    language = models.CharField(
        _("language"),
        max_length=8,
        blank=True,
        choices=settings.LANGUAGES,
        help_text=_("Pages and emails are in it."),
    )
    # Vacation: days that pause this player's clocks in all their games.
    vacation_days_left = models.PositiveSmallIntegerField(default=14)
    vacation_until = models.DateTimeField(null=True, blank=True)

    objects = UserManager()

    EMAIL_FIELD = "email"
    USERNAME_FIELD = "email"
    REQUIRED_FIELDS: list[str] = []

    class Meta:
        verbose_name = _("user")
        verbose_name_plural = _("users")
        constraints = [
            # The save() path normalises; this holds for rows written any other way too.
            models.UniqueConstraint(Lower("email"), name="accounts_user_email_ci_unique"),
        ]
        indexes = [
            # The minute scans: vacations that end, clocks to pause, digest readers. Each
            # reads the few accounts concerned, not every account.
            models.Index(
                fields=["vacation_until"],
                condition=models.Q(vacation_until__isnull=False),
                name="accounts_user_on_vacation",
            ),
            models.Index(
                fields=["id"],
                condition=models.Q(email_mode="daily_digest"),
                name="accounts_user_digest_readers",
            ),
        ]

    def __str__(self) -> str:
        return self.email

    def clean(self) -> None:
        super().clean()
        self.email = normalize_email(self.email)

    def save(self, *args, **kwargs) -> None:
        self.email = normalize_email(self.email)
        super().save(*args, **kwargs)

    def get_full_name(self) -> str:
        return self.name or self.email

    def get_short_name(self) -> str:
        return self.name or self.email.partition("@")[0]
