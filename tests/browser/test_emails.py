"""Every kind of email as a phone's mail app shows it: Chromium at 390 px, no sideways
scroll, the picture of the board in place, a screenshot of each in test-artifacts/."""

import base64

import pytest
from django.core import mail

from notifications.models import Message
from tests.conftest import delivered
from tests.notifications.every_kind import every_kind

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db,
    pytest.mark.usefixtures("anymail_backend"),
]

PHONE = {"width": 390, "height": 844}


def html_with_inline_images(email) -> str:
    """The HTML part with each cid: picture as a data: URL, as a mail app shows it."""
    html = next(body for body, kind in email.alternatives if kind == "text/html")
    message = email.message()
    for part in message.walk():
        if part.get_content_type() == "image/png":
            cid = part["Content-ID"].strip("<>")
            data = base64.b64encode(part.get_payload(decode=True)).decode()
            html = html.replace(f"cid:{cid}", f"data:image/png;base64,{data}")
    return html


def test_every_kind_reads_well_on_a_phone(chromium, artifacts, settings):
    settings.RAILMAIL_INBOUND_DOMAIN = "in.railmail.example.org"
    folder = artifacts / "emails"
    folder.mkdir(exist_ok=True)
    context = chromium.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    page = context.new_page()
    for kind, row in every_kind().items():
        mail.outbox.clear()
        assert delivered(row).status == Message.Status.SENT, kind
        [email] = mail.outbox
        assert email.body.strip(), f"{kind} has no text part"
        page.set_content(html_with_inline_images(email))
        widths = page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert widths[0] <= widths[1], f"{kind} scrolls sideways: {widths}"
        if "cid:" in next(body for body, k in email.alternatives if k == "text/html"):
            loaded = page.evaluate(
                "Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)"
            )
            assert loaded, f"{kind}: the picture does not show"
        page.screenshot(path=str(folder / f"{kind}-phone.png"), full_page=True)
    context.close()
