// The build-plan panel's scripts (games/templates/games/_plan.html).
//
// Asking once: each offer's link opens a page that asks before the plan is set; here the
// question opens in the panel instead, under its link, with the same button.
(function () {
  "use strict";
  const links = document.querySelectorAll("#build-plan a.plan-offer[data-ask]");
  const asks = [];
  links.forEach((link) => {
    const ask = document.getElementById(link.dataset.ask);
    if (!ask) return;
    asks.push([link, ask]);
    link.setAttribute("aria-controls", ask.id);
    link.setAttribute("aria-expanded", "false");
    link.addEventListener("click", (event) => {
      event.preventDefault();
      const opening = ask.hidden;
      asks.forEach(([other, form]) => {
        form.hidden = true;
        other.setAttribute("aria-expanded", "false");
      });
      if (!opening) return;
      ask.hidden = false;
      link.setAttribute("aria-expanded", "true");
      ask.querySelector("button[type=submit]").focus();
    });
    ask.querySelector(".plan-ask-close").addEventListener("click", () => {
      ask.hidden = true;
      link.setAttribute("aria-expanded", "false");
      link.focus();
    });
  });
})();

// A route to follow, picked on the board (games.pages.plan_panel.route_data): taps add
// the line nearest to them among those that continue the route, drawn as they come; in a
// game with coloured track each picked line may be marked to be built with it (nobody's
// else is ever used). "Review" opens the route's own page, which says its next turn in
// words and asks once before it is set. Without this script the panel's link opens that
// page directly, to pick the lines from a list. Nothing is sent until the player confirms.
// On a phone, picking zooms the board in on the network (board.js's zoom, at any turn).
(function () {
  "use strict";
  const dataNode = document.getElementById("route-data");
  const startLink = document.getElementById("route-start");
  const frame = document.getElementById("board-frame");
  const svg = frame && frame.querySelector("svg.board");
  if (!dataNode || !startLink || !svg) return;
  const data = JSON.parse(dataNode.textContent);
  const built = new Set(data.built);
  const network = new Set(data.network);
  const NS = "http://www.w3.org/2000/svg";
  const REACH = 40 * 0.6; // SVG units: how far from a line a tap still picks it
  let route = null; // the lines picked, in order; null while not picking
  const marked = new Set(); // the picked lines to build with coloured track
  const PHONE = window.matchMedia("(max-width: 48rem)");

  // A sentence from the server's catalogue with its %(name)s filled in.
  function fill(sentence, facts) {
    return sentence.replace(/%\((\w+)\)s/g, (_, name) => facts[name]);
  }

  function button(words, kind) {
    const node = document.createElement("button");
    node.type = "button";
    node.textContent = words;
    if (kind) node.className = kind;
    return node;
  }

  // What is picked, the refusal and the buttons: in a bar under the board, kept in view.
  const bar = document.createElement("div");
  bar.className = "route-bar";
  bar.id = "route-bar";
  bar.hidden = true;
  const say = document.createElement("p");
  say.id = "route-say";
  say.setAttribute("aria-live", "polite");
  const refusal = document.createElement("p");
  refusal.className = "move-errors";
  refusal.id = "route-refusal";
  refusal.setAttribute("role", "alert");
  refusal.hidden = true;
  const actions = document.createElement("p");
  actions.className = "route-actions";
  const review = button(data.words.review);
  review.id = "route-review";
  const undo = button(data.words.undo, "secondary");
  undo.id = "route-undo";
  const cancel = button(data.words.cancel, "secondary");
  cancel.id = "route-cancel";
  actions.append(review, undo, cancel);
  // The picked lines, each with its box to mark it coloured (a game with coloured track).
  const colourHelp = document.createElement("p");
  colourHelp.id = "route-coloured-help";
  colourHelp.hidden = true;
  const list = document.createElement("ol");
  list.className = "route-list";
  list.id = "route-list";
  list.hidden = true;
  bar.append(say, colourHelp, list, refusal, actions);
  frame.after(bar);

  let layer = svg.querySelector("g.plan-path");
  if (!layer) {
    layer = document.createElementNS(NS, "g");
    layer.setAttribute("class", "plan-path");
    svg.appendChild(layer);
  }

  // Where the next line may start: the network, then the far end of the last line.
  function tip() {
    if (route.length === 0) return network;
    const [a, b] = data.lines[route[route.length - 1]];
    const before = route.length > 1 ? new Set(data.lines[route[route.length - 2]].slice(0, 2)) : network;
    const ends = [a, b].filter((p) => !before.has(p));
    return new Set(ends.length ? ends : [a, b]);
  }

  function nextLines() {
    const from = tip();
    const found = [];
    data.lines.forEach(([a, b], id) => {
      if ((from.has(a) || from.has(b)) && !built.has(id) && !route.includes(id)) found.push(id);
    });
    return found;
  }

  function drawLine(id, kind) {
    const [a, b] = data.lines[id];
    const node = document.createElementNS(NS, "line");
    node.setAttribute("class", kind);
    node.setAttribute("x1", data.positions[a][0]);
    node.setAttribute("y1", data.positions[a][1]);
    node.setAttribute("x2", data.positions[b][0]);
    node.setAttribute("y2", data.positions[b][1]);
    node.dataset.routeLine = String(id);
    layer.appendChild(node);
  }

  function lineWords(id) {
    const [a, b] = data.lines[id];
    return fill(data.words.line, { one: data.names[a], other: data.names[b] });
  }

  function renderList() {
    const colouring = data.coloured_left > 0 && route.length > 0;
    list.hidden = colourHelp.hidden = !colouring;
    list.replaceChildren();
    if (!colouring) return;
    const full = marked.size >= data.coloured_left;
    colourHelp.textContent = full
      ? data.words.coloured_used_up
      : fill(data.words.coloured_left, { left: data.coloured_left - marked.size });
    route.forEach((id) => {
      const item = document.createElement("li");
      const label = document.createElement("label");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.dataset.routeLine = String(id);
      box.checked = marked.has(id);
      box.disabled = full && !box.checked;
      box.addEventListener("change", () => {
        if (box.checked) marked.add(id);
        else marked.delete(id);
        render();
        const again = list.querySelector(`input[data-route-line="${id}"]`);
        if (again) again.focus();
      });
      label.append(box, " " + data.words.coloured);
      item.append(lineWords(id) + " ", label);
      list.appendChild(item);
    });
  }

  function render() {
    layer.querySelectorAll(".route-pick, .route-next").forEach((node) => node.remove());
    if (route === null) return;
    nextLines().forEach((id) => drawLine(id, "route-next"));
    route.forEach((id) => drawLine(id, marked.has(id) ? "route-pick coloured" : "route-pick"));
    renderList();
    if (route.length === 0) {
      say.textContent = data.words.start;
    } else {
      const cost = route.reduce((sum, id) => sum + data.lines[id][2], 0);
      // With coloured track the lines are listed below, each with its box.
      say.textContent = data.coloured_left > 0
        ? fill(data.words.picked_listed, { cost: cost })
        : fill(data.words.picked, { lines: route.map(lineWords).join("; "), cost: cost });
    }
    undo.disabled = route.length === 0;
  }

  function refuse(words) {
    refusal.textContent = words;
    refusal.hidden = false;
  }

  function start() {
    route = [];
    marked.clear();
    bar.hidden = false;
    refusal.hidden = true;
    svg.classList.add("route-picking");
    render();
    frame.scrollIntoView({ block: "start" });
    if (PHONE.matches && network.size) {
      // Close up on the network, where a route starts (board.js zooms, at any turn).
      const around = [...network].map((p) => data.positions[p]);
      const centre = [0, 1].map((i) => around.reduce((sum, at) => sum + at[i], 0) / around.length);
      frame.dispatchEvent(new CustomEvent("board-zoom", { detail: { level: 3, centre } }));
    }
  }

  function stop() {
    route = null;
    bar.hidden = true;
    svg.classList.remove("route-picking");
    render();
  }

  // From a point to the segment a-b, in SVG units.
  function distance([x, y], [x1, y1], [x2, y2]) {
    const dx = x2 - x1;
    const dy = y2 - y1;
    const t = Math.max(0, Math.min(1, ((x - x1) * dx + (y - y1) * dy) / (dx * dx + dy * dy)));
    return Math.hypot(x - (x1 + t * dx), y - (y1 + t * dy));
  }

  startLink.addEventListener("click", (event) => {
    event.preventDefault();
    start();
  });
  cancel.addEventListener("click", stop);
  undo.addEventListener("click", () => {
    marked.delete(route.pop());
    refusal.hidden = true;
    render();
  });
  review.addEventListener("click", () => {
    if (route.length === 0) return refuse(data.words.empty);
    const coloured = route.filter((id) => marked.has(id));
    window.location.assign(
      data.url + "?lines=" + route.join(",") + (coloured.length ? "&coloured=" + coloured.join(",") : "")
    );
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && route !== null) stop();
  });

  // While picking, a tap on the board is the route's (caught before the move picker's).
  frame.addEventListener("click", (event) => {
    if (route === null || !svg.contains(event.target)) return;
    event.preventDefault();
    event.stopPropagation();
    const at = new DOMPoint(event.clientX, event.clientY).matrixTransform(svg.getScreenCTM().inverse());
    let best = null;
    let bestDistance = Infinity;
    nextLines().forEach((id) => {
      const [a, b] = data.lines[id];
      const d = distance([at.x, at.y], data.positions[a], data.positions[b]);
      if (d < bestDistance) {
        best = id;
        bestDistance = d;
      }
    });
    if (best === null || bestDistance > REACH) return refuse(data.words.not_next);
    refusal.hidden = true;
    route.push(best);
    render();
  }, true);
})();
