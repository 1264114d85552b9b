"""The language menu at the foot of every page.

    {% load language_menu %}{% language_menu action_url %}

Each language is offered by its own name ("Deutsch", "English"), as settings.LANGUAGES
gives it, untranslated: a reader finds theirs whatever language the page is in.
"""

from django import template
from django.conf import settings
from django.utils import translation

register = template.Library()


@register.inclusion_tag("_language_menu.html", takes_context=True)
def language_menu(context: template.Context, action: str) -> dict:
    request = context.get("request")
    return {
        "action": action,
        "next": request.get_full_path() if request is not None else "/",
        "languages": settings.LANGUAGES,
        "current": translation.get_language(),
        "csrf_token": context.get("csrf_token"),
    }
