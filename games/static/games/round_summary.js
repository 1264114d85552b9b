// The summary of the round just ended: shown until the player goes on to the next round
// (remembered in this browser; the server is not told: a GET changes nothing).
(function () {
  "use strict";
  const summary = document.getElementById("round-summary");
  if (!summary) return;
  const key = summary.dataset.key;
  try {
    if (window.localStorage.getItem(key)) summary.open = false;
  } catch (error) {
    /* no storage: it simply stays open */
  }
  const done = document.getElementById("summary-done");
  if (done) {
    done.addEventListener("click", () => {
      summary.open = false;
      try {
        window.localStorage.setItem(key, "seen");
      } catch (error) {
        /* no storage */
      }
    });
  }
})();
