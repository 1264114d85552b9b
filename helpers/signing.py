"""Signed tokens that carry no time: the same payload always signs to the same token.

``django.core.signing.dumps`` stamps each token with the second it was signed, so a link
made twice differs when a second passes between the two: an email built again for a retry,
a page compared with the link it should hold, a reply checked for the seat's own link.
Where a token's validity does not depend on its age (a seat link dies with its nonce, an
unsubscribe link never), these sign without the stamp. Sign-in links, which do expire by
age, keep using ``django.core.signing`` with ``max_age``.

Tokens made before (payload:timestamp:signature, under the plain salt) are still read:
they are in players' mailboxes. The timeless ones are signed under a salt of their own,
so neither kind can pass for the other.
"""

from typing import Any

from django.core import signing

# Appended to the caller's salt for timeless tokens (payload:signature).
TIMELESS = ".timeless"


def dumps(obj: Any, *, salt: str, compress: bool = False) -> str:
    """``obj`` signed under ``salt``, as a URL-safe token that depends on nothing else."""
    return signing.Signer(salt=salt + TIMELESS).sign_object(obj, compress=compress)


def loads(token: str, *, salt: str) -> Any:
    """What ``token`` signs under ``salt``, timeless or stamped the old way (its age is
    never checked); raises ``signing.BadSignature`` for anything else."""
    try:
        return signing.Signer(salt=salt + TIMELESS).unsign_object(token)
    except signing.BadSignature:
        pass
    # A token from before: signing.loads checks its signature (and ignores its age).
    try:
        return signing.loads(token, salt=salt)
    except ValueError as exc:
        # Signed under the plain salt but with no time in it: not a token of ours.
        raise signing.BadSignature("not a token of this kind") from exc
