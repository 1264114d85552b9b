# gunicorn settings for Railmail: `gunicorn -c /srv/railmail/gunicorn.conf.py pbem.wsgi`.
# Behind nginx (deploy/nginx-railmail.conf) on loopback; scale out with more machines.
import multiprocessing
import os

bind = "127.0.0.1:8000"
# gunicorn's advice, (2 x cores) + 1: a sync worker waiting for a move's commit to reach the
# disk leaves its core to the others. WEB_CONCURRENCY (gunicorn's own name) overrides it.
workers = int(os.getenv("WEB_CONCURRENCY", multiprocessing.cpu_count() * 2 + 1))
timeout = 30
# The access log, with the tokens of seat, sign-in and unsubscribe links redacted.
accesslog = "-"
logger_class = "pbem.gunicorn_logger.RedactingLogger"
# Only nginx on this machine may say who the client is (X-Forwarded-For, -Proto).
forwarded_allow_ips = "127.0.0.1"
