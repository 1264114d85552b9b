// The replay page's steps. Every step is an ordinary link (?move=N), so the page works the
// same without this script. With it, a step fetches only what changes (the frame: the
// steps around the move, the move in words, the board and the players; see
// games/_replay_frame.html), swaps those parts in place, marks the move in the list and
// records the step in the browser's history, so that Back and Forward step too. The left
// and right arrows step, Home and End jump to the first and the last move.
(function () {
  "use strict";
  var root = document.querySelector(".replay[data-frame-url]");
  var list = document.querySelector(".move-list ol");

  // The list of every move opens at the move shown (it scrolls within itself).
  function centre(link) {
    if (link && list) {
      list.scrollTop = link.offsetTop - list.offsetTop - list.clientHeight / 2;
    }
  }
  centre(document.querySelector(".move-list a[aria-current]"));
  if (!root) {
    return;
  }

  function moveOf(href) {
    var url = new URL(href, window.location.href);
    if (url.origin !== window.location.origin || url.pathname !== window.location.pathname) {
      return null;
    }
    var move = url.searchParams.get("move");
    return move && /^[0-9]+$/.test(move) ? move : null;
  }

  function markInList(move) {
    if (!list) {
      return;
    }
    var links = list.querySelectorAll("a");
    for (var i = 0; i < links.length; i++) {
      if (moveOf(links[i].href) === move) {
        links[i].setAttribute("aria-current", "step");
        centre(links[i]);
      } else {
        links[i].removeAttribute("aria-current");
      }
    }
  }

  // A step's board comes without the layers that are the same at every step (every line
  // and crossing point of the board): they move over from the board shown.
  function keepStaticLayers(old, fresh) {
    ["g.lines", "g.points"].forEach(function (selector) {
      var from = old.querySelector("svg.board > " + selector);
      var to = fresh.querySelector("svg.board > " + selector);
      if (from && to && !to.firstElementChild) {
        while (from.firstChild) {
          to.appendChild(from.firstChild);
        }
      }
    });
  }

  function swap(html) {
    var fresh = new DOMParser().parseFromString(html, "text/html");
    var event = fresh.querySelector('[data-frame-part="event"]');
    // The game moved on since the page was drawn: the list needs the new moves too.
    if (!event || event.dataset.lastSeq !== root.dataset.lastSeq) {
      return false;
    }
    var focusedRel = null;
    var active = document.activeElement;
    if (active && active.closest && active.closest('[data-frame-part="nav"]')) {
      focusedRel = active.getAttribute("rel");
    }
    var parts = fresh.querySelectorAll("[data-frame-part]");
    for (var i = 0; i < parts.length; i++) {
      var name = parts[i].dataset.framePart;
      var old = document.querySelector('[data-frame-part="' + name + '"]');
      if (!old) {
        return false;
      }
      if (name === "event") {
        // Kept in place: a live region that says the move shown.
        old.textContent = parts[i].textContent;
        old.dataset.seq = parts[i].dataset.seq;
      } else {
        var part = document.importNode(parts[i], true);
        if (name === "board") {
          keepStaticLayers(old, part);
        }
        old.replaceWith(part);
      }
    }
    if (focusedRel) {
      var again = document.querySelector('[data-frame-part="nav"] a[rel="' + focusedRel + '"]');
      (again || document.querySelector('[data-frame-part="nav"] a')).focus();
    }
    return true;
  }

  var pending = null;

  function step(href, push, showBoard) {
    var move = moveOf(href);
    if (move === null && !push) {
      // Back to the address without a move: the latest.
      var url = new URL(href, window.location.href);
      var shownNow = document.querySelector('[data-frame-part="event"]');
      if (url.pathname === window.location.pathname && !url.searchParams.has("move") && shownNow) {
        move = shownNow.dataset.lastSeq;
      }
    }
    if (move === null) {
      window.location.assign(href);
      return;
    }
    if (pending) {
      pending.abort();
    }
    var controller = new AbortController();
    pending = controller;
    fetch(root.dataset.frameUrl + "?move=" + move, {
      credentials: "same-origin",
      signal: controller.signal,
    })
      .then(function (response) {
        if (!response.ok) {
          throw new Error(String(response.status));
        }
        return response.text();
      })
      .then(function (html) {
        pending = null;
        if (!swap(html)) {
          window.location.assign(href);
          return;
        }
        markInList(move);
        // What the address asked for is shown now: a message that it was not is stale.
        var stale = root.querySelector(".message.error");
        if (stale) {
          stale.remove();
        }
        if (showBoard) {
          // As a page loaded afresh would: the whole board in view (on a phone it is above the
          // list), with the steps and the words above it.
          // The steps count too: with the board in view but the steps above the top, the
          // next tap would have nothing to press.
          var nav = document.querySelector('[data-frame-part="nav"]');
          var board = document.querySelector('[data-frame-part="board"]');
          var top = nav.getBoundingClientRect().top;
          if (top < -1 || board.getBoundingClientRect().bottom > window.innerHeight) {
            nav.scrollIntoView({ block: "start" });
          }
        }
        if (push && href !== window.location.href) {
          window.history.pushState({ move: move }, "", href);
        }
      })
      .catch(function (error) {
        if (error.name !== "AbortError") {
          // Whatever went wrong, the whole page says it.
          window.location.assign(href);
        }
      });
  }

  document.addEventListener("click", function (event) {
    if (event.defaultPrevented || event.button !== 0) {
      return;
    }
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) {
      return; // a new tab or window: the browser's own way
    }
    var link = event.target.closest ? event.target.closest("a[href]") : null;
    if (!link || !link.closest(".replay") || link.hasAttribute("download")) {
      return;
    }
    if (moveOf(link.href) === null) {
      return;
    }
    event.preventDefault();
    // A link away from the steps (the list, the scoring) may leave the board out of view.
    step(link.href, true, !link.closest('[data-frame-part="nav"]'));
  });

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) {
      return;
    }
    var target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) {
      return;
    }
    var nav = document.querySelector("[data-replay-nav]");
    var link = nav && nav.querySelector('a[data-key="' + event.key + '"]');
    if (link) {
      event.preventDefault();
      step(link.href, true);
    }
  });

  // Back and Forward: show the move of the address the browser went to.
  var shown = document.querySelector('[data-frame-part="event"]');
  window.history.replaceState({ move: shown ? shown.dataset.seq : null }, "", window.location.href);
  window.addEventListener("popstate", function () {
    step(window.location.href, false, false);
  });
})();
