"""Django's SMTP backend, able to say whether a send that failed may still have delivered.

Once the final dot of DATA has gone out, a lost answer may hide an accepted message (RFC
1047); before it, nothing can have been delivered and trying again is safe.
"""

import smtplib

from django.core.mail.backends.smtp import EmailBackend as DjangoEmailBackend

END_OF_DATA = b"\r\n.\r\n"


class _NotesTheEnd:
    """For smtplib.SMTP: notes when a message's end goes out on the connection."""

    data_ended = False

    def send(self, s):
        if isinstance(s, bytes) and s.endswith(END_OF_DATA):
            self.data_ended = True  # before sending: part of it may reach the server
        return super().send(s)


class _SMTP(_NotesTheEnd, smtplib.SMTP):
    pass


class _SMTP_SSL(_NotesTheEnd, smtplib.SMTP_SSL):  # noqa: N801 (smtplib's name)
    pass


class EmailBackend(DjangoEmailBackend):
    """Django's SMTP backend, with ``may_have_sent()`` for a send that raised."""

    @property
    def connection_class(self):
        return _SMTP_SSL if self.use_ssl else _SMTP

    def send_messages(self, email_messages) -> int:
        if self.connection is not None:
            self.connection.data_ended = False
        return super().send_messages(email_messages)

    def may_have_sent(self) -> bool:
        """Whether the last message sent had gone out whole, its answer unknown."""
        return bool(getattr(self.connection, "data_ended", False))
