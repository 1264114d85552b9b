"""Railmail settings, read from the environment.

With nothing set, the service runs as a local development copy: SQLite, Celery tasks run
in-process, and emails are written to files under var/mail. Set RAILMAIL_ENV=production
to run for real; production then insists on the settings that have no safe default.
"""

import os
import sysconfig
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def envbool(name: str, default: str) -> bool:
    value = os.getenv(name, default).strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off", ""):
        return False
    raise ImproperlyConfigured(f"{name} should be true or false, not {value!r}")


def envlist(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.getenv(name, default).split(",") if item.strip()]


RAILMAIL_ENV = os.getenv("RAILMAIL_ENV", "development")
if RAILMAIL_ENV not in ("development", "production"):
    raise ImproperlyConfigured("RAILMAIL_ENV should be 'development' or 'production'")
PRODUCTION = RAILMAIL_ENV == "production"

DEBUG = envbool("DEBUG", "false" if PRODUCTION else "true")

# Known to everybody who has read this file: fine on a laptop, never in production.
LOCAL_SECRET_KEY = "railmail-local-development-key-not-for-production"
SECRET_KEY = os.getenv("SECRET_KEY", LOCAL_SECRET_KEY)
if PRODUCTION and SECRET_KEY in ("", LOCAL_SECRET_KEY):
    raise ImproperlyConfigured("Production needs SECRET_KEY set to a long random value")

# The public address of the site, used to build the links inside emails.
SITE_URL = os.getenv("SITE_URL", "" if PRODUCTION else "http://127.0.0.1:8000").rstrip("/")
if PRODUCTION and not SITE_URL.startswith("https://"):
    raise ImproperlyConfigured("Production needs SITE_URL, the site's public https:// address")
SITE_NAME = os.getenv("SITE_NAME", "Railmail")

_site_host = urlsplit(SITE_URL).hostname or ""
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", _site_host if PRODUCTION else "127.0.0.1,localhost")
CSRF_TRUSTED_ORIGINS = [SITE_URL] if SITE_URL else []

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "anymail",
    "accounts",
    "games",
    "notifications",
    # The site's template tags and stylesheet; its templates are SITE_TEMPLATES.
    "pbem",
]

MIDDLEWARE = [
    # Health checks answer before anything looks at the host or the scheme (pbem/health.py).
    "pbem.health.HealthCheckMiddleware",
    # One line per request, with the path's tokens redacted (pbem/logs.py).
    "pbem.logs.RequestLogMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Right after the security headers, so static files get them too.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The cookie, else Accept-Language; an account's and a seat's language override it later.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.middleware.AccountLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # The database being down answers a friendly 503 with Retry-After (pbem/middleware.py).
    "pbem.middleware.DatabaseUnavailableMiddleware",
    # Over a limit: a clear 429 page rather than django-ratelimit's 403.
    "django_ratelimit.middleware.RatelimitMiddleware",
    "csp.middleware.CSPMiddleware",
]

ROOT_URLCONF = "pbem.urls"
WSGI_APPLICATION = "pbem.wsgi.application"

# The site-wide templates: the checkout's templates/, or the wheel's copy in its data.
SITE_TEMPLATES = next(
    (
        folder
        for folder in (
            BASE_DIR / "templates",
            Path(sysconfig.get_path("data")) / "share" / "railmail" / "templates",
        )
        if folder.is_dir()
    ),
    BASE_DIR / "templates",
)

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [SITE_TEMPLATES],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]


def database_from_environment() -> dict:
    """DATABASE_URL (PostgreSQL in production), else an SQLite file needing no server."""
    database = dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.getenv("DB_CONN_MAX_AGE", "0")),
        conn_health_checks=True,
    )
    options = database.setdefault("OPTIONS", {})
    if database["ENGINE"] == "django.db.backends.postgresql":
        # Skips the health check of a connection that served a request moments ago.
        database["ENGINE"] = "helpers.postgresql"
        # Repeated statements are prepared server-side; "off" for a pooler that spreads a
        # client's statements over server connections (PgBouncer in transaction mode).
        prepare_threshold = os.getenv("DB_PREPARE_THRESHOLD", "5")
        if prepare_threshold != "off":
            options.update(server_side_binding=True, prepare_threshold=int(prepare_threshold))
    elif database["ENGINE"] == "django.db.backends.sqlite3":
        # Concurrent requests: WAL so readers never wait, and the write lock taken at
        # BEGIN so two transactions never deadlock upgrading a read lock.
        options.update(
            transaction_mode="IMMEDIATE",
            timeout=20,
            init_command="PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
        )
    return database


DATABASES = {"default": database_from_environment()}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# German uses the terms of the German rulebook; the catalogues are committed compiled.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("de", "Deutsch")]
LOCALE_PATHS = [BASE_DIR / "pbem" / "locale"]
# The language menu's choice for a reader without an account; only the server reads it.
LANGUAGE_COOKIE_AGE = 60 * 60 * 24 * 365
LANGUAGE_COOKIE_HTTPONLY = True
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.getenv("STATIC_ROOT", BASE_DIR / "staticfiles"))
# Production: hashed, compressed names that can be cached for ever; locally as they are.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if PRODUCTION
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = WHITENOISE_AUTOREFRESH = not PRODUCTION

# Without a broker, tasks run in-process, so a developer needs no Redis.
CELERY_BROKER_URL = os.getenv("CELERY_BROKER_URL", "")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
if not CELERY_BROKER_URL:
    CELERY_BROKER_URL = "memory://localhost/"  # a host named, so kombu does not warn
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TIMEZONE = TIME_ZONE
# Seconds between the minute jobs (beat, or `manage.py run_periodic` locally); the soak
# test, on a faster clock, runs them more often.
RAILMAIL_MINUTE_JOBS_EVERY = float(os.getenv("RAILMAIL_MINUTE_JOBS_EVERY", "60"))
CELERY_BEAT_SCHEDULE = {
    "scan-clock": {"task": "games.tasks.scan_clock", "schedule": RAILMAIL_MINUTE_JOBS_EVERY},
    "send-reminders-and-digests": {
        "task": "notifications.tasks.send_reminders_and_digests",
        "schedule": RAILMAIL_MINUTE_JOBS_EVERY,
    },
    "sweep-outbox": {
        "task": "notifications.tasks.sweep_outbox",
        "schedule": RAILMAIL_MINUTE_JOBS_EVERY,
    },
}
# A file that puts every process on one simulated, faster clock (benchmarks/soak.py);
# empty, the wall clock. Never set in a real deployment.
RAILMAIL_CLOCK_FILE = os.getenv("RAILMAIL_CLOCK_FILE", "")
# Mounts /bench/ok/, the floor pages are benchmarked against. Never on in a real deployment.
RAILMAIL_BENCHMARK = envbool("RAILMAIL_BENCHMARK", "false")

# The hour (UTC) from which the daily digests go out.
RAILMAIL_DIGEST_HOUR = int(os.getenv("RAILMAIL_DIGEST_HOUR", "7"))
# Seconds a your-turn email waits, so a player who has seen the board meanwhile gets none.
RAILMAIL_TURN_EMAIL_GRACE = int(os.getenv("RAILMAIL_TURN_EMAIL_GRACE", "120"))
# Default quiet hours ("HH:MM-HH:MM", player's local time) the clock skips; "" for none.
RAILMAIL_QUIET_HOURS = tuple(os.getenv("RAILMAIL_QUIET_HOURS", "22:00-07:00").split("-", 1) + [""])[
    :2
]
# Whether a self-hosted channel may point at a private address (tests); off by default.
RAILMAIL_CHANNELS_ALLOW_PRIVATE = os.getenv("RAILMAIL_CHANNELS_ALLOW_PRIVATE", "") == "1"
# Seconds between an open board page's checks for a new move (only while it is visible).
RAILMAIL_BOARD_POLL_SECONDS = int(os.getenv("RAILMAIL_BOARD_POLL_SECONDS", "15"))

# ANYMAIL_ESP names an anymail provider; other ANYMAIL_* variables go into ANYMAIL without
# the prefix. EMAIL_BACKEND wins; locally, emails land as files in var/mail.
ANYMAIL_ESP = os.getenv("ANYMAIL_ESP", "")
ANYMAIL = {
    key.removeprefix("ANYMAIL_"): value
    for key, value in os.environ.items()
    if key.startswith("ANYMAIL_") and key != "ANYMAIL_ESP"
}
# Plain SMTP, for operators without a provider.
EMAIL_HOST = os.getenv("EMAIL_HOST", "")
EMAIL_PORT = int(os.getenv("EMAIL_PORT", "587"))
EMAIL_HOST_USER = os.getenv("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.getenv("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = envbool("EMAIL_USE_TLS", "false")
EMAIL_USE_SSL = envbool("EMAIL_USE_SSL", "false")
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfigured("Set EMAIL_USE_TLS (STARTTLS, port 587) or EMAIL_USE_SSL, not both")
if os.getenv("EMAIL_BACKEND"):
    EMAIL_BACKEND = os.environ["EMAIL_BACKEND"]
elif ANYMAIL_ESP:
    EMAIL_BACKEND = f"anymail.backends.{ANYMAIL_ESP}.EmailBackend"
elif EMAIL_HOST:
    # Django's, able to tell a send that may have delivered from one that cannot have.
    EMAIL_BACKEND = "notifications.smtp.EmailBackend"
elif PRODUCTION:
    raise ImproperlyConfigured(
        "Production needs a way to send email: ANYMAIL_ESP (a provider), EMAIL_HOST (an "
        "SMTP server) or EMAIL_BACKEND"
    )
else:
    EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
EMAIL_FILE_PATH = Path(os.getenv("EMAIL_FILE_PATH", BASE_DIR / "var" / "mail"))
DEFAULT_FROM_EMAIL = os.getenv(
    "DEFAULT_FROM_EMAIL", f"Railmail <railmail@{_site_host or 'localhost'}>"
)
SERVER_EMAIL = os.getenv("SERVER_EMAIL", DEFAULT_FROM_EMAIL)
# Replies the site does not read go to the operator, never to a mailbox nobody reads.
RAILMAIL_REPLY_TO = os.getenv("RAILMAIL_REPLY_TO", SERVER_EMAIL)
# The domain whose reply+...@ mail the site reads (moves, table talk); empty reads none.
RAILMAIL_INBOUND_DOMAIN = os.getenv("RAILMAIL_INBOUND_DOMAIN", "").strip().lower()
# The loopback port `manage.py receive_mail` listens on (`make run` starts it there).
RAILMAIL_RECEIVER_PORT = int(os.getenv("RAILMAIL_RECEIVER_PORT", "8025"))
ADMINS = [("Admin", address) for address in envlist("ADMINS")]

if PRODUCTION:
    # Behind a reverse proxy that terminates TLS and sets X-Forwarded-Proto.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", "true")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    LANGUAGE_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.getenv("SECURE_HSTS_SECONDS", "31536000"))
    # Off by default: HSTS would lock the domain's other non-HTTPS hosts out (W005).
    SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", "false")
    # Preloading is a promise the operator makes by hand, not a setting's (W021).
    SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", "false")
    if not SECURE_HSTS_INCLUDE_SUBDOMAINS or not SECURE_HSTS_PRELOAD:
        SILENCED_SYSTEM_CHECKS = [
            *(["security.W005"] if not SECURE_HSTS_INCLUDE_SUBDOMAINS else []),
            *(["security.W021"] if not SECURE_HSTS_PRELOAD else []),
        ]
    # Health checks come from load balancers over plain HTTP (pbem/health.py).
    SECURE_REDIRECT_EXEMPT = [r"^health/"]
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_REFERRER_POLICY = "same-origin"

# To standard error, one line per request and per task, tokens redacted; errors also go
# to ADMINS by email, without the request's details.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"line": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "line"},
        "mail_admins": {"class": "pbem.logs.RedactingAdminEmailHandler", "level": "ERROR"},
    },
    "root": {"handlers": ["console"], "level": os.getenv("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.request": {"handlers": ["mail_admins"], "level": "ERROR"},
        # Its INFO line holds each task's result repr; our own line replaces it.
        "celery.app.trace": {"level": "WARNING"},
        # Locally, runserver logs each request already.
        "railmail.requests": {"level": os.getenv("LOG_LEVEL", "INFO") if PRODUCTION else "WARNING"},
    },
}

# --- Faults, floods and hostile input ---------------------------------------------------

# Seconds each SMTP step or anymail HTTP call waits, so a silent mail server cannot hold
# a worker.
EMAIL_TIMEOUT = int(os.getenv("EMAIL_TIMEOUT", "10"))
# The delivery task's hard time limit in seconds; the outbox's other spans follow from it.
RAILMAIL_SEND_TIME_LIMIT = int(os.getenv("RAILMAIL_SEND_TIME_LIMIT", "150"))
ANYMAIL["REQUESTS_TIMEOUT"] = float(ANYMAIL.get("REQUESTS_TIMEOUT") or EMAIL_TIMEOUT)
# The header carrying each row's key for a provider that drops duplicates (Brevo,
# Resend; deploy/README.md), so a retry cannot send twice; empty sends none.
RAILMAIL_IDEMPOTENCY_HEADER = os.getenv(
    "RAILMAIL_IDEMPOTENCY_HEADER",
    "idempotencyKey"
    if ANYMAIL_ESP in ("brevo", "sendinblue")
    else "Resend-Idempotency-Key"
    if EMAIL_HOST.lower() == "smtp.resend.com"
    else "",
)

# Rate limits count in a cache every web process shares: Redis in production, files under
# var/ locally. django_ratelimit is not installed as an app: its check refuses file caches.
RATELIMIT_REDIS_URL = os.getenv("RATELIMIT_REDIS_URL") or (
    CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else ""
)
if PRODUCTION and not RATELIMIT_REDIS_URL:
    raise ImproperlyConfigured(
        "Production needs Redis for its rate limits: a redis:// CELERY_BROKER_URL, or "
        "RATELIMIT_REDIS_URL"
    )
# Where a local run keeps its cache files.
VAR_DIR = Path(os.getenv("RAILMAIL_VAR_DIR", BASE_DIR / "var"))
CACHES = {
    **globals().get(
        "CACHES", {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    ),
    "ratelimit": (
        {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": RATELIMIT_REDIS_URL,
            "KEY_PREFIX": "railmail-ratelimit",
        }
        if RATELIMIT_REDIS_URL
        else {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "ratelimit"),
            # Culling deletes counts at random: keep it far above one machine's clients.
            "OPTIONS": {"MAX_ENTRIES": 100_000},
        }
    ),
}
RATELIMIT_USE_CACHE = "ratelimit"
# What every process must see alike, such as the minute scan's last run (health check).
CACHES["shared"] = {
    **CACHES["ratelimit"],
    "KEY_PREFIX": "railmail-shared",
    **({} if RATELIMIT_REDIS_URL else {"LOCATION": str(VAR_DIR / "shared")}),
}
RAILMAIL_SHARED_CACHE = "shared"

RATELIMIT_VIEW = "pbem.views.rate_limited"
# The request.META key with the client's address, set by the trusted proxy; REMOTE_ADDR
# when the web processes face the clients.
RAILMAIL_CLIENT_IP_HEADER = os.getenv("RAILMAIL_CLIENT_IP_HEADER", "REMOTE_ADDR")

# The provider's webhook can stop mail to any address, so production requires its secret
# and, where anymail checks signatures, the signing key.
WEBHOOK_SIGNING_KEYS = {
    "mailersend": "MAILERSEND_SIGNING_SECRET",
    "mailgun": "MAILGUN_WEBHOOK_SIGNING_KEY",
    "mailtrap": "MAILTRAP_SIGNING_SECRET",
    "mandrill": "MANDRILL_WEBHOOK_KEY",
    "postal": "POSTAL_WEBHOOK_KEY",
    "resend": "RESEND_SIGNING_SECRET",
}
if PRODUCTION and ANYMAIL_ESP:
    if not ANYMAIL.get("WEBHOOK_SECRET"):
        raise ImproperlyConfigured(
            "Production needs ANYMAIL_WEBHOOK_SECRET (user:password) for the provider's "
            "webhook, which can stop mail to any address"
        )
    _signing_key = WEBHOOK_SIGNING_KEYS.get(ANYMAIL_ESP)
    if _signing_key and not ANYMAIL.get(_signing_key):
        raise ImproperlyConfigured(
            f"Production needs ANYMAIL_{_signing_key}: anymail checks {ANYMAIL_ESP}'s "
            "webhook signatures with it"
        )

# Scripts and styles only from our own static files, never inline.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
    }
}
