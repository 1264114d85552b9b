"""ASGI entry point, for uvicorn and friends: ``uvicorn pbem.asgi:application``."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pbem.settings")

application = get_asgi_application()
