"""The language menu of a board page: a player who has only links chooses their language
there, for the page and for every email about this seat."""

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.forms import LanguageForm
from games.links import seat_path
from games.models import Seat
from games.views.seat_link import seat_link


@require_POST
@seat_link
def seat_language(request: HttpRequest, seat: Seat) -> HttpResponse:
    """Save the seat's language (an account's own choice still comes first)."""
    form = LanguageForm(request.POST)
    if not form.is_valid():
        return HttpResponseBadRequest(_("Choose one of the languages offered."))
    Seat.objects.filter(pk=seat.pk).update(language=form.cleaned_data["language"])
    return redirect(seat_path(seat))
