"""Who has played with whom: an invitation from an account the address has never played
with is limited more strictly (pbem/ratelimits.py), against spam sent from our domain."""

from django.db.models import Q

from accounts.models import normalize_email
from games.models import Seat


def have_played_together(user, address: str) -> bool:
    """Whether ``address`` is the user's own or has joined a game of theirs; an invitation
    it never accepted does not count."""
    address = normalize_email(address)
    if address == normalize_email(user.email):
        return True
    joined = Seat.objects.filter(email__iexact=address, joined_at__isnull=False).values("game")
    return (
        Seat.objects.filter(game__in=joined)
        .filter(Q(user=user) | Q(email__iexact=user.email))
        .exists()
    )
