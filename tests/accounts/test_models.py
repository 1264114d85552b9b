import pytest
from django.contrib.auth import authenticate, get_user_model
from django.db import IntegrityError, transaction

from accounts.models import User
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db


def test_the_project_uses_the_custom_user_model():
    assert get_user_model() is User
    assert User.USERNAME_FIELD == "email"


def test_create_user_stores_the_email_trimmed_and_lowercased():
    user = User.objects.create_user(" Ada@Example.ORG ", "s3cret-pass", name="Ada")
    user.refresh_from_db()
    assert user.email == "ada@example.org"
    assert user.check_password("s3cret-pass")
    assert not user.is_staff
    assert not user.is_superuser
    assert user.is_active


def test_login_ignores_the_case_of_the_address():
    user = UserFactory(email="grace@example.com")
    assert authenticate(username="GRACE@example.com", password=PASSWORD) == user
    assert authenticate(username="grace@example.com", password="wrong") is None


def test_two_accounts_cannot_share_an_address_in_any_case():
    UserFactory(email="linus@example.com")
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user("LINUS@example.com", "whatever-pass")


def test_the_database_refuses_a_case_variant_written_around_the_model():
    user = UserFactory(email="ken@example.com")
    UserFactory(email="other@example.com")
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.filter(email="other@example.com").update(email="KEN@example.com")
    assert User.objects.get(pk=user.pk).email == "ken@example.com"


def test_create_user_needs_an_email():
    with pytest.raises(ValueError, match="email"):
        User.objects.create_user("", "pass")


def test_create_superuser_sets_the_flags():
    admin = User.objects.create_superuser("root@example.com", "pass-word-1")
    assert admin.is_staff
    assert admin.is_superuser


def test_create_superuser_refuses_to_make_a_non_staff_superuser():
    with pytest.raises(ValueError):
        User.objects.create_superuser("root@example.com", "pass-word-1", is_staff=False)


def test_names_fall_back_to_the_address():
    assert User(email="barbara@example.com").get_short_name() == "barbara"
    assert User(email="barbara@example.com", name="Barbara").get_full_name() == "Barbara"
    assert str(User(email="barbara@example.com")) == "barbara@example.com"
