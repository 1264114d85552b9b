"""A worker loads what every email needs when it starts, not while it sends the first."""

from notifications import board_picture
from pbem import celery


def test_a_starting_worker_loads_the_boards_layers(settings):
    settings.CACHES = {
        **settings.CACHES,
        "shared": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "w"},
    }
    board_picture.board_layer.cache_clear()
    celery.warm()
    # Both boards' lines and crossing points at the whole board's scale, in memory.
    assert board_picture.board_layer.cache_info().currsize == 4
