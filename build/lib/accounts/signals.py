from django.dispatch import Signal

# Sent inside the transaction of a sign-in by emailed link, with ``user``: the link proved
# that the address is theirs (the games app gives them the seats played under it).
signed_in_by_link = Signal()
