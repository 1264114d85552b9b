"""The email that tells a game's creator an invited player declined (games.services.seats)."""

from django.dispatch import receiver

from games.signals import seat_declined
from notifications import emails


@receiver(seat_declined, dispatch_uid="notifications.write_decline")
def write_decline(sender, seat, **kwargs) -> None:
    """Write the creator's email in the transaction that records the decline."""
    emails.seat_declined(seat)
