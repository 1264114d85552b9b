"""WSGI entry point, for gunicorn and friends: ``gunicorn pbem.wsgi``."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pbem.settings")

application = get_wsgi_application()
