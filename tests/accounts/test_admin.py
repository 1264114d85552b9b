import pytest
from django.urls import reverse

from accounts.models import User
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_staff_can_list_search_and_open_accounts(staff_client):
    user = UserFactory(email="margaret@example.com", name="Margaret")
    page = staff_client.get(reverse("admin:accounts_user_changelist"), {"q": "margaret"})
    assert page.status_code == 200
    assert b"margaret@example.com" in page.content
    page = staff_client.get(reverse("admin:accounts_user_change", args=[user.pk]))
    assert page.status_code == 200


def test_staff_can_add_an_account_by_email(staff_client):
    response = staff_client.post(
        reverse("admin:accounts_user_add"),
        {
            "email": "New.Player@Example.com",
            "name": "New",
            "password1": "a-long-enough-pass-42",
            "password2": "a-long-enough-pass-42",
            "usable_password": "true",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    user = User.objects.get(email="new.player@example.com")
    assert user.check_password("a-long-enough-pass-42")
