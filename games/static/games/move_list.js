// The board page's list of every move (games/_board_main.html, #every-move): opened, it
// fetches the list through the seat's link, as that seat may see it, and shows it in
// place, the latest move in view. Without this script the list opens on a link to its own
// page. Fetched afresh at each opening: the game may have moved on.
(function () {
  "use strict";
  var details = document.getElementById("every-move");
  if (!details || !window.fetch) {
    return;
  }
  details.addEventListener("toggle", function () {
    if (!details.open) {
      return;
    }
    details.setAttribute("aria-busy", "true");
    fetch(details.dataset.listUrl, { credentials: "same-origin", cache: "no-store" })
      .then(function (response) {
        if (!response.ok) {
          throw new Error(String(response.status));
        }
        return response.text();
      })
      .then(function (html) {
        var list = new DOMParser().parseFromString(html, "text/html").querySelector("ol");
        if (!list) {
          return;
        }
        // The link the page came with, or the list of an earlier opening.
        var ol = document.importNode(list, true);
        details.querySelector("ol, .move-list-body").replaceWith(ol);
        ol.scrollTop = ol.scrollHeight;
      })
      .catch(function () {
        // The link to the list's own page stays.
      })
      .finally(function () {
        details.removeAttribute("aria-busy");
      });
  });
})();
