"""Code with no domain: the one-statement claim, compiled queries, the PostgreSQL backend,
broker batching and text helpers. It imports only the standard library, Django, Celery and
kombu, never an app of the project (tests/test_layers.py)."""
