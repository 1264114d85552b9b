// The replay page's keys: left and right arrows step through the moves, Home and End
// jump to the first and the last. Every step is an ordinary link, so the page works
// the same without this script.
(function () {
  "use strict";
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
