"""gunicorn's access log without the tokens in seat, sign-in and unsubscribe links.

deploy/gunicorn.conf.py names this class; only gunicorn imports it.
"""

from gunicorn.glogging import Logger

from pbem.logs import redact_path, redact_path_in


class RedactingLogger(Logger):
    """The access log's request line, path and referrer, with tokens redacted."""

    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        atoms["r"] = redact_path_in(atoms["r"])
        atoms["U"] = redact_path(atoms["U"])
        atoms["f"] = redact_path_in(atoms["f"])  # the referrer: often the board page
        return atoms
