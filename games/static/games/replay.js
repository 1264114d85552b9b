// The replay page's keys: left and right arrows step through the moves, Home and End
// jump to the first and the last. Every step is an ordinary link, so the page works
// the same without this script.
(function () {
  "use strict";
  // The list of every move opens at the move shown (it scrolls within itself).
  var shown = document.querySelector(".move-list a[aria-current]");
  if (shown) {
    var list = shown.closest("ol");
    list.scrollTop = shown.offsetTop - list.offsetTop - list.clientHeight / 2;
  }
  var nav = document.querySelector("[data-replay-nav]");
  if (!nav) {
    return;
  }
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) {
      return;
    }
    var target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) {
      return;
    }
    var link = nav.querySelector('a[data-key="' + event.key + '"]');
    if (link) {
      event.preventDefault();
      window.location.assign(link.href);
    }
  });
})();
