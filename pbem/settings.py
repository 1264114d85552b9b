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
    # The site itself: its template tags and stylesheet (pbem/templatetags, pbem/static);
    # the site-wide templates are in the top-level templates/ (SITE_TEMPLATES).
    "pbem",
]

MIDDLEWARE = [
    # Health checks answer before anything looks at the host or the scheme (pbem/health.py).
    "pbem.health.HealthCheckMiddleware",
    # One line per request, with the path's tokens redacted (pbem/logs.py).
    "pbem.logs.RequestLogMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Static files, from the app itself (whitenoise), right after the security headers.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language of a page (issue 19): the reader's cookie (the language menu), else
    # their browser's Accept-Language; an account's choice and a seat's (games.words.languages)
    # come after it.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.middleware.AccountLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # The database being down answers a friendly 503 with Retry-After (pbem/middleware.py).
    "pbem.middleware.DatabaseUnavailableMiddleware",
    # A request over a limit gets a clear page (429) rather than django-ratelimit's 403.
    "django_ratelimit.middleware.RatelimitMiddleware",
    # Content-Security-Policy on every page (CONTENT_SECURITY_POLICY below).
    "csp.middleware.CSPMiddleware",
]

ROOT_URLCONF = "pbem.urls"
WSGI_APPLICATION = "pbem.wsgi.application"

# The site-wide templates (base page, error pages, the email layout): the checkout's
# top-level templates/, or, installed from the wheel, the copy it carries as data.
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
    """The database: DATABASE_URL (postgres://user:password@host:5432/name in production),
    or without it an SQLite file in the checkout, which needs no server at all."""
    database = dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=int(os.getenv("DB_CONN_MAX_AGE", "0")),
        conn_health_checks=True,
    )
    options = database.setdefault("OPTIONS", {})
    if database["ENGINE"] == "django.db.backends.postgresql":
        # Django's backend, whose health check skips a connection that served a request
        # moments ago (helpers/postgresql/base.py).
        database["ENGINE"] = "helpers.postgresql"
        # A statement run DB_PREPARE_THRESHOLD times (default 5) is prepared, so the
        # server plans it once; that needs parameters bound on the server. "off" turns
        # both off, as a pooler that passes one client's statements to several server
        # connections needs (PgBouncer in transaction mode without
        # max_prepared_statements).
        prepare_threshold = os.getenv("DB_PREPARE_THRESHOLD", "5")
        if prepare_threshold != "off":
            options.update(server_side_binding=True, prepare_threshold=int(prepare_threshold))
    elif database["ENGINE"] == "django.db.backends.sqlite3":
        # The embedded default takes concurrent requests: WAL (readers never wait for the
        # writer), every transaction taking the write lock when it begins (two never
        # deadlock upgrading a read lock), and a writer waiting for the lock, not failing.
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

# English, and German in the terms of the German rulebook (issue 19). The catalogues are
# pbem/locale/<language>/LC_MESSAGES/django.po and djangojs.po (the board's script),
# committed compiled; `make messages` extracts and `make catalogues` compiles them.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("de", "Deutsch")]
LOCALE_PATHS = [BASE_DIR / "pbem" / "locale"]
# The language menu's choice, for a reader without an account: kept for a year, read by
# the server only (Django's set_language writes it with these).
LANGUAGE_COOKIE_AGE = 60 * 60 * 24 * 365
LANGUAGE_COOKIE_HTTPONLY = True
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.getenv("STATIC_ROOT", BASE_DIR / "staticfiles"))
# In production the files are collected (manage.py collectstatic) under hashed names,
# compressed, and served by whitenoise with far-future cache headers; locally they are
# served from the apps as they are.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if PRODUCTION
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
# Locally, whitenoise serves the apps' files as they are, found anew on each request.
WHITENOISE_USE_FINDERS = WHITENOISE_AUTOREFRESH = not PRODUCTION

# Celery. Without a broker, tasks run in-process when they are queued, so a developer
# needs no Redis; with CELERY_BROKER_URL (redis://host:6379/0) a worker runs them.
CELERY_BROKER_URL = os.getenv("CELERY_BROKER_URL", "")
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
if not CELERY_BROKER_URL:
    CELERY_BROKER_URL = "memory://localhost/"  # a host named, so kombu does not warn
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TIMEZONE = TIME_ZONE
# Celery beat (production: `celery -A pbem beat`, see deploy/). Locally, `make run` runs
# the same jobs with `manage.py run_periodic` instead.
CELERY_BEAT_SCHEDULE = {
    "scan-clock": {"task": "games.tasks.scan_clock", "schedule": 60.0},
    "send-reminders-and-digests": {
        "task": "notifications.tasks.send_reminders_and_digests",
        "schedule": 60.0,
    },
    "sweep-outbox": {"task": "notifications.tasks.sweep_outbox", "schedule": 60.0},
}
# Mounts a bare "ok" view at /bench/ok/ for benchmarks/bench_web.py: the floor every page
# is measured against, behind the same middleware. Never on in a real deployment.
RAILMAIL_BENCHMARK = envbool("RAILMAIL_BENCHMARK", "false")

# The hour (UTC) from which the daily digests go out.
RAILMAIL_DIGEST_HOUR = int(os.getenv("RAILMAIL_DIGEST_HOUR", "7"))
# Seconds a your-turn email waits before it is built: if the player sees the new position
# on their board page meanwhile (or moves), it is not sent.
RAILMAIL_TURN_EMAIL_GRACE = int(os.getenv("RAILMAIL_TURN_EMAIL_GRACE", "120"))
# Seconds between an open board page's checks for a new move (only while it is visible).
RAILMAIL_BOARD_POLL_SECONDS = int(os.getenv("RAILMAIL_BOARD_POLL_SECONDS", "15"))

# Email. ANYMAIL_ESP names an anymail provider ("mailgun", "postmark", "amazon_ses", ...);
# every other ANYMAIL_* variable goes into the ANYMAIL dict without its prefix, so
# ANYMAIL_MAILGUN_API_KEY becomes ANYMAIL["MAILGUN_API_KEY"]. EMAIL_BACKEND, when set,
# wins. Locally, emails land as files in var/mail where a developer can read them.
ANYMAIL_ESP = os.getenv("ANYMAIL_ESP", "")
ANYMAIL = {
    key.removeprefix("ANYMAIL_"): value
    for key, value in os.environ.items()
    if key.startswith("ANYMAIL_") and key != "ANYMAIL_ESP"
}
# Plain SMTP, for operators without a provider: EMAIL_HOST and the rest (Django's names).
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
# Where a reply to an email goes when it is not a reply the site reads itself: the
# operator's address, never a mailbox nobody reads.
RAILMAIL_REPLY_TO = os.getenv("RAILMAIL_REPLY_TO", SERVER_EMAIL)
# The domain whose mail the site reads (replies with moves and table talk): the provider's
# inbound route or `manage.py receive_mail` behind the MTA receive reply+...@ it. Empty:
# the site reads no mail, and replies go to RAILMAIL_REPLY_TO.
RAILMAIL_INBOUND_DOMAIN = os.getenv("RAILMAIL_INBOUND_DOMAIN", "").strip().lower()
ADMINS = [("Admin", address) for address in envlist("ADMINS")]

if PRODUCTION:
    # Behind a reverse proxy that terminates TLS and sets X-Forwarded-Proto.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", "true")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    LANGUAGE_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.getenv("SECURE_HSTS_SECONDS", "31536000"))
    # Off unless asked for: other hosts of the domain may not all speak HTTPS, and HSTS
    # would lock their users out for a year (this is check --deploy's security.W005).
    SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", "false")
    # Preloading is a promise to the browsers' lists that the operator makes by hand, at
    # hstspreload.org, not one a setting should make for them (security.W021).
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

# Logs go to standard error (systemd's journal in production): one key=value line per
# request (railmail.requests) and per task (railmail.tasks), with tokens redacted
# (pbem/logs.py). Errors go to ADMINS by email, without the request's details, and stay
# in the log as ERROR lines to alert on.
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
        # Django's own request errors: to the log, and to ADMINS by email (redacted).
        "django.request": {"handlers": ["mail_admins"], "level": "ERROR"},
        # Celery logs every task's result at INFO, repr and all: our own line replaces it.
        "celery.app.trace": {"level": "WARNING"},
        # Locally (make run), runserver's own line per request says it already.
        "railmail.requests": {"level": os.getenv("LOG_LEVEL", "INFO") if PRODUCTION else "WARNING"},
    },
}

# --- Faults, floods and hostile input (issue 13) -----------------------------------------
# Kept together here so that the other settings' owners can tell these apart.

# A mail server that takes the connection and never answers must not hold a worker: the
# connection and every SMTP step give up after this many seconds, and so does each of
# anymail's HTTP calls unless ANYMAIL_REQUESTS_TIMEOUT says otherwise. A batch stops at
# the first such timeout (notifications/outbox.py), so a silent server costs one timeout,
# not one per email. The delivery task also has time limits (notifications/tasks.py).
EMAIL_TIMEOUT = int(os.getenv("EMAIL_TIMEOUT", "10"))
ANYMAIL["REQUESTS_TIMEOUT"] = float(ANYMAIL.get("REQUESTS_TIMEOUT") or EMAIL_TIMEOUT)
# The email header that carries each outbox row's key (the same on every try of the row)
# for a provider that drops a second message with the same key: Brevo's API reads
# "idempotencyKey" (kept 15 minutes), Resend's SMTP relay "Resend-Idempotency-Key" (24
# hours). See deploy/README.md; empty sends none.
RAILMAIL_IDEMPOTENCY_HEADER = os.getenv(
    "RAILMAIL_IDEMPOTENCY_HEADER",
    "idempotencyKey"
    if ANYMAIL_ESP in ("brevo", "sendinblue")
    else "Resend-Idempotency-Key"
    if EMAIL_HOST.lower() == "smtp.resend.com"
    else "",
)

# Rate limits on everything that sends email (pbem/ratelimits.py, django-ratelimit). They
# count in a cache alias of their own, shared by every web process: Redis in production
# (RATELIMIT_REDIS_URL, else the broker's Redis), else a file cache under var/ that the
# processes of one machine share. (django_ratelimit is not in INSTALLED_APPS: its system
# check refuses any cache but memcached and Redis, and the local file cache may let a
# burst of simultaneous requests slip one or two past a limit, which is fine locally.)
RATELIMIT_REDIS_URL = os.getenv("RATELIMIT_REDIS_URL") or (
    CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else ""
)
if PRODUCTION and not RATELIMIT_REDIS_URL:
    raise ImproperlyConfigured(
        "Production needs Redis for its rate limits: a redis:// CELERY_BROKER_URL, or "
        "RATELIMIT_REDIS_URL"
    )
# Where a local run keeps its files (the rate limits' and shared caches, below).
VAR_DIR = Path(os.getenv("RAILMAIL_VAR_DIR", BASE_DIR / "var"))
CACHES = {
    # Whatever the other caches are (Django's default when none is set above).
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
            # Past MAX_ENTRIES files the cache deletes a third of them at random, counts
            # in progress included: far more than one machine's clients ever make.
            "OPTIONS": {"MAX_ENTRIES": 100_000},
        }
    ),
}
RATELIMIT_USE_CACHE = "ratelimit"
# What every process must see alike, such as when the minute scan last ran (for the health
# check): the same Redis as the rate limits in production, files under var/ locally.
CACHES["shared"] = {
    **CACHES["ratelimit"],
    "KEY_PREFIX": "railmail-shared",
    **({} if RATELIMIT_REDIS_URL else {"LOCATION": str(VAR_DIR / "shared")}),
}
RAILMAIL_SHARED_CACHE = "shared"

# django-ratelimit's page for a request over a limit.
RATELIMIT_VIEW = "pbem.views.rate_limited"
# The request.META key holding the client's address, set by the trusted reverse proxy
# (e.g. HTTP_X_REAL_IP or HTTP_X_FORWARDED_FOR; see deploy/README.md). REMOTE_ADDR when
# the web processes face the clients themselves.
RAILMAIL_CLIENT_IP_HEADER = os.getenv("RAILMAIL_CLIENT_IP_HEADER", "REMOTE_ADDR")

# The provider's webhook stops mail to an address: in production it must be authenticated.
# Only the configured provider's webhooks are mounted (notifications/urls.py); each needs
# ANYMAIL_WEBHOOK_SECRET (basic auth), and where anymail checks the provider's own
# signature, the provider's signing key as well.
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

# Content-Security-Policy on every page (django-csp): scripts and styles only from our own
# static files, never inline. The local mailbox's email view has a policy of its own
# (notifications/views.py).
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
