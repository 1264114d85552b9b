import os
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

# Playwright's sync API runs an event loop in the test's thread; the ORM calls the test
# makes between browser steps are ordinary synchronous code all the same.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = "/usr/bin/chromium"  # Debian's, installed by scripts/install-system-deps
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


@pytest.fixture(scope="session")
def chromium():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/install-system-deps")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture
def artifacts():
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


# Reported by the page when the Content-Security-Policy blocks something; Chromium also
# logs each violation to the console ("Refused to ... Content Security Policy").
REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || "inline"}`
    + ` at ${event.sourceFile}:${event.lineNumber}`);
});
"""


class CheckedBrowser:
    """The browser, whose every context records Content-Security-Policy violations."""

    def __init__(self, browser):
        self.browser = browser
        self.violations: list[str] = []

    def new_context(self, **kwargs):
        context = self.browser.new_context(**kwargs)
        context.add_init_script(REPORT_VIOLATIONS)
        context.on("console", self.on_console)
        return context

    def on_console(self, message) -> None:
        text = message.text
        if text.startswith("CSP violation") or "Content Security Policy" in text:
            self.violations.append(text)


@pytest.fixture
def browser(chromium):
    """The browser for one test, which fails on any Content-Security-Policy violation."""
    checked = CheckedBrowser(chromium)
    yield checked
    assert checked.violations == [], "Content-Security-Policy violations"
