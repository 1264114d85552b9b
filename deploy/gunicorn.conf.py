# gunicorn settings for Railmail: `gunicorn -c /srv/railmail/gunicorn.conf.py pbem.wsgi`.
# Behind nginx (deploy/nginx-railmail.conf) on loopback; scale out with more machines.
bind = "127.0.0.1:8000"
workers = 3  # about two per core
timeout = 30
# The access log, with the tokens of seat, sign-in and unsubscribe links redacted.
accesslog = "-"
logger_class = "pbem.gunicorn_logger.RedactingLogger"
# Only nginx on this machine may say who the client is (X-Forwarded-For, -Proto).
forwarded_allow_ips = "127.0.0.1"
