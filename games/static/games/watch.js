// Keeps an open board page current (games/views/watch.py).
//
// While the page is visible: say once per version that the player has seen it (a POST:
// a GET never counts, and a tab in the background is not looking), and ask every few
// seconds whether the game has moved on; if it has, load the new position. A hidden tab
// asks nothing, and an unanswered request only waits for the next turn of the loop.
(function () {
  "use strict";
  const watch = document.getElementById("watch");
  if (!watch) return;
  const version = Number(watch.dataset.version);
  const every = 1000 * (Number(watch.dataset.every) || 15); // between polls of a visible page
  let seenSent = false;
  let timer = null;

  function visible() {
    return document.visibilityState === "visible";
  }

  function saySeen() {
    if (seenSent || !visible()) return;
    seenSent = true;
    const body = new URLSearchParams({ version: String(version) });
    try {
      // For deadlines in the player's own time, when they have no account to say it.
      body.set("time_zone", Intl.DateTimeFormat().resolvedOptions().timeZone || "");
    } catch (error) {
      /* an old browser: the game's zone it is */
    }
    fetch(watch.dataset.seenUrl, {
      method: "POST",
      body: body,
      headers: { "X-CSRFToken": watch.querySelector("[name=csrfmiddlewaretoken]").value },
      credentials: "same-origin",
      keepalive: true,
    }).catch(function () {
      seenSent = false; // try again when the page is next shown
    });
  }

  function poll() {
    timer = null;
    if (!visible()) return;
    fetch(watch.dataset.versionUrl, { credentials: "same-origin", cache: "no-store" })
      .then(function (response) {
        return response.ok ? response.json() : null;
      })
      .then(function (now) {
        if (now && now.version !== version) {
          window.location.reload();
          return;
        }
        schedule();
      })
      .catch(schedule);
  }

  function schedule() {
    if (timer === null && visible()) timer = window.setTimeout(poll, every);
  }

  document.addEventListener("visibilitychange", function () {
    if (visible()) {
      saySeen();
      poll(); // at once: the tab may have been hidden for hours
    } else if (timer !== null) {
      window.clearTimeout(timer);
      timer = null;
    }
  });
  saySeen();
  schedule();
})();

