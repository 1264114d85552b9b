// Zoom and pan, on every seat's board whether or not it is the seat's turn (a player
// picks a plan's route while others move): the buttons step the zoom, the frame pans.
// Other scripts ask for a zoom with a "board-zoom" event on the frame ({level, centre}
// in SVG units), as plan.js does when a route is picked on a phone.
(function () {
  "use strict";
  const frame = document.getElementById("board-frame");
  const svg = frame && frame.querySelector("svg.board");
  const zoomControls = document.getElementById("zoom-controls");
  if (!svg || !zoomControls) return;
  const dataNode = document.getElementById("pick-data");
  const centre = dataNode ? JSON.parse(dataNode.textContent).centre : null;
  const PHONE = window.matchMedia("(max-width: 48rem)");
  let zoom = 1;

  function scale() { return svg.getScreenCTM().a; } // screen pixels per SVG unit

  function setZoom(level, around) {
    const middle = around || [
      (frame.scrollLeft + frame.clientWidth / 2) / scale(),
      (frame.scrollTop + frame.clientHeight / 2) / scale(),
    ];
    zoom = Math.max(1, Math.min(3, level));
    frame.classList.remove("zoom-2", "zoom-3");
    if (zoom > 1) frame.classList.add("zoom-" + zoom);
    frame.scrollLeft = middle[0] * scale() - frame.clientWidth / 2;
    frame.scrollTop = middle[1] * scale() - frame.clientHeight / 2;
  }

  zoomControls.hidden = false;
  // Zoomed, the frame scrolls: the keyboard must reach it too. On the seat's turn the
  // board itself takes the focus; otherwise the frame does (arrow keys pan it).
  if (!svg.hasAttribute("tabindex")) {
    frame.tabIndex = 0;
    frame.setAttribute("role", "group");
    const wrap = frame.closest("[aria-label]");
    if (wrap) frame.setAttribute("aria-label", wrap.getAttribute("aria-label"));
  }
  zoomControls.addEventListener("click", (event) => {
    const button = event.target.closest("[data-zoom]");
    if (button) setZoom(zoom + Number(button.dataset.zoom));
  });
  frame.addEventListener("board-zoom", (event) => {
    const { level, centre: around } = event.detail || {};
    if (level) setZoom(level, around || null);
  });
  // On its turn a phone starts close up, on the player's own network; otherwise on the
  // whole board, what the others built in view.
  if (PHONE.matches && dataNode) setZoom(3, centre);
})();

// Picking on the board: clicks fill the same form fields the page offers without
// JavaScript, so the server sees one kind of request. Nothing is sent until "Build".
(function () {
  "use strict";
  const dataNode = document.getElementById("pick-data");
  const form = document.getElementById("move-form");
  const frame = document.getElementById("board-frame");
  // The live board, never another drawing on the page (the summary of the round just
  // ended is one, above it).
  const svg = frame && frame.querySelector("svg.board");
  if (!dataNode || !form || !svg) return;
  const data = JSON.parse(dataNode.textContent);
  const first = new Set(data.first.map(String));
  // The server's list of the second lines the rules allow after each first line.
  const seconds = (table) => new Map(Object.entries(table || {}).map(([id, ids]) => [id, new Set(ids)]));
  const after = seconds(data.after);
  const afterColoured = data.after_coloured ? seconds(data.after_coloured) : null;
  const pointSelect = form.querySelector("select[name=point]");
  const line1 = form.querySelector("select[name=line1]");
  const line2 = form.querySelector("select[name=line2]");
  const colour1 = form.querySelector("input[name=colour1]");
  const costNode = document.getElementById("pick-cost");
  const PHONE = window.matchMedia("(max-width: 48rem)");

  // What is picked, the button that plays it and any refusal: in a bar kept in view
  // under the board (on a phone the form is far below it).
  const bar = document.getElementById("pick-bar");
  const say = document.getElementById("pick-say");
  const refusals = [document.getElementById("pick-refusal"), document.getElementById("form-refusal")];
  if (bar) bar.hidden = false;

  let fromPoint = null; // on a phone: the crossing point tapped, whose lines are offered

  function cost(id) { return data.lines[id] ? data.lines[id][2] : 0; }

  function picks() {
    return [line1 && line1.value, line2 && line2.value].filter(Boolean);
  }

  // May this line be the next pick, given the lines already picked?
  function allowed(id, current) {
    if (current.length === 0) return first.has(id);
    if (current.length >= 2) return false;
    const table = afterColoured && colour1 && colour1.checked ? afterColoured : after;
    const next = table.get(current[0]);
    return Boolean(next && next.has(id));
  }

  function lineWords(id) {
    const [a, b] = data.lines[id];
    return fill(data.words.line, { one: data.names[a], other: data.names[b] });
  }

  function sayPicks(current) {
    if (!say) return;
    if (data.placing) {
      const point = pointSelect && pointSelect.value;
      say.textContent = point ? fill(data.words.place_picked, { point: data.names[point] }) : data.words.place;
    } else if (first.size === 0) {
      say.textContent = data.words.pass;
    } else if (current.length === 0) {
      say.textContent = PHONE.matches ? data.words.build_tap : data.words.build_click;
    } else {
      const total = current.reduce((sum, id) => sum + cost(id), 0);
      let words = fill(data.words.picked, { lines: current.map(lineWords).join("; "), cost: total });
      if (current.length === 1 && (after.get(current[0]) || new Set()).size) words += " " + data.words.may_add;
      say.textContent = words;
    }
  }

  function render() {
    refusals.forEach((node) => { if (node) node.hidden = true; });
    const current = picks();
    sayPicks(current);
    if (data.placing) {
      svg.querySelectorAll(".point.pickable").forEach((node) => {
        node.classList.toggle("picked", Boolean(pointSelect) && node.dataset.point === pointSelect.value);
      });
      return;
    }
    svg.querySelectorAll(".pick").forEach((node) => {
      const id = node.dataset.line;
      node.classList.toggle("picked", current.includes(id));
      node.classList.toggle("available", !current.includes(id) && allowed(id, current));
    });
    // Marked: on a phone only the lines from the point just tapped (all of them would
    // cover the board once networks join); with a mouse, every line that may be picked.
    svg.querySelectorAll(".mark").forEach((node) => {
      const id = node.dataset.mark;
      const ends = data.lines[id] || [];
      const near = !PHONE.matches || (fromPoint !== null && ends.slice(0, 2).includes(fromPoint));
      node.classList.toggle("available", near && !current.includes(id) && allowed(id, current));
    });
    if (costNode) costNode.textContent = current.reduce((sum, id) => sum + cost(id), 0);
  }

  function setPicks(list) {
    if (line1) line1.value = list[0] || "";
    if (line2) line2.value = list[1] || "";
    render();
  }

  function toggleLine(id) {
    let current = picks();
    if (current.includes(id)) {
      current = current.filter((x) => x !== id);
      // A second line left alone must itself touch the network.
      if (current.length === 1 && !first.has(current[0])) current = [];
    } else if (allowed(id, current)) {
      current.push(id);
    } else {
      return;
    }
    setPicks(current);
  }

  function activate(node) {
    if (node.dataset.line !== undefined) toggleLine(node.dataset.line);
    else if (node.dataset.point !== undefined && pointSelect) {
      pointSelect.value = pointSelect.value === node.dataset.point ? "" : node.dataset.point;
      render();
    }
  }

  svg.addEventListener("click", (event) => {
    const node = event.target.closest("[data-line], [data-point]");
    if (node) activate(node);
  });

  form.addEventListener("change", render);
  form.addEventListener("reset", () => setTimeout(render, 0));
  const clear = document.getElementById("pick-clear");
  if (clear) clear.addEventListener("click", () => { form.reset(); closeDirections(); });
  render();

  // Nothing picked: said beside the button that was pressed, and nothing is sent.
  form.addEventListener("submit", (event) => {
    let why = null;
    if (data.placing && !(pointSelect && pointSelect.value)) why = data.words.no_point;
    else if (!data.placing && first.size > 0 && picks().length === 0) why = data.words.no_line;
    if (!why) return;
    event.preventDefault();
    const inBar = bar && event.submitter && bar.contains(event.submitter);
    const node = refusals[inBar ? 0 : 1];
    if (!node) return;
    node.textContent = why;
    node.hidden = false;
    node.scrollIntoView({ block: "nearest" });
  });

  // --- A phone's way: tap a point, then one of its lines by direction (zoom: above) ---
  const panel = document.getElementById("directions");
  const SCALE = 40; // SVG units between neighbouring crossing points (games/board.py)

  function directionsFrom(point) {
    const current = picks();
    const [col, row] = data.coords[point];
    return Object.keys(data.lines)
      .filter((id) => data.lines[id][0] === point || data.lines[id][1] === point)
      .filter((id) => current.includes(id) || allowed(id, current))
      .map((id) => {
        const [a, b, lineCost] = data.lines[id];
        const other = a === point ? b : a;
        const step = (data.coords[other][0] - col) + "," + (data.coords[other][1] - row);
        // The directions' words come from the server (games/places.py), like the names.
        const words = data.directions[step];
        return { id, words: lineCost === 2 ? fill(data.words.double, { direction: words }) : words, to: other };
      });
  }

  // A sentence from the server's catalogue (data.words) with its %(name)s filled in.
  function fill(sentence, facts) {
    return sentence.replace(/%\((\w+)\)s/g, (_, name) => facts[name]);
  }

  function showDirections(point) {
    const choices = directionsFrom(point);
    const buttons = document.getElementById("direction-buttons");
    buttons.replaceChildren();
    document.getElementById("directions-from").textContent = fill(
      choices.length ? data.words.from : data.words.nothing_from,
      { point: data.names[point] },
    );
    choices.forEach((choice) => {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = choice.words;
      button.title = fill(data.words.line, { one: data.names[point], other: data.names[choice.to] });
      if (picks().includes(choice.id)) button.classList.add("secondary");
      button.addEventListener("click", () => {
        closeDirections();
        toggleLine(choice.id);
        if (document.activeElement === button || !document.activeElement) svg.focus({ preventScroll: true });
      });
      buttons.appendChild(button);
    });
    panel.hidden = false;
    fromPoint = point;
    render();
  }

  function closeDirections() {
    if (panel) panel.hidden = true;
    fromPoint = null;
    render();
  }

  function nearestPoint(event) {
    const at = new DOMPoint(event.clientX, event.clientY).matrixTransform(
      svg.getScreenCTM().inverse()
    );
    let best = null;
    let bestDistance = Infinity;
    data.positions.forEach(([x, y], point) => {
      const distance = Math.hypot(x - at.x, y - at.y);
      if (distance < bestDistance) {
        best = point;
        bestDistance = distance;
      }
    });
    return bestDistance <= SCALE / 2 ? best : null;
  }

  // --- The keyboard: the board is one tab stop; arrows move a cursor between points ---
  const KEYS = {
    ArrowRight: [1, 0], ArrowLeft: [-1, 0],
    ArrowUp: [0, -1], ArrowDown: [0, 1], // north-east, south-west
    "Shift+ArrowUp": [-1, -1], "Shift+ArrowDown": [1, 1], // north-west, south-east
  };
  const byCoords = new Map(data.coords.map(([c, r], point) => [c + "," + r, point]));
  const cursor = document.createElementNS("http://www.w3.org/2000/svg", "circle");
  cursor.setAttribute("class", "cursor");
  cursor.setAttribute("r", "11");
  let at = null;

  function moveCursor(point) {
    at = point;
    cursor.setAttribute("cx", data.positions[point][0]);
    cursor.setAttribute("cy", data.positions[point][1]);
    if (!cursor.isConnected) svg.appendChild(cursor);
    svg.setAttribute("aria-label", fill(data.words.at, { point: data.names[point] }));
  }

  function startPoint() {
    const [x, y] = data.centre || data.positions[0];
    let best = 0;
    data.positions.forEach(([px, py], point) => {
      if (Math.hypot(px - x, py - y) < Math.hypot(data.positions[best][0] - x, data.positions[best][1] - y)) best = point;
    });
    return best;
  }

  svg.addEventListener("focus", () => { if (at === null) moveCursor(startPoint()); });
  svg.addEventListener("keydown", (event) => {
    const key = (event.shiftKey ? "Shift+" : "") + event.key;
    if (KEYS[key] || KEYS[event.key]) {
      event.preventDefault();
      const [dc, dr] = KEYS[key] || KEYS[event.key];
      const [c, r] = data.coords[at === null ? startPoint() : at];
      const next = byCoords.get((c + dc) + "," + (r + dr));
      if (next !== undefined) moveCursor(next);
    } else if ((event.key === "Enter" || event.key === " ") && at !== null) {
      event.preventDefault();
      if (data.placing) {
        if (pointSelect && [...pointSelect.options].some((o) => o.value === String(at))) {
          pointSelect.value = String(at);
          render();
        }
      } else if (panel) {
        showDirections(at);
        const first = document.querySelector("#direction-buttons button");
        if (first) first.focus();
      }
    } else if (event.key === "Escape" && panel) {
      closeDirections();
    }
  });

  if (panel && !data.placing) {
    // On a phone, lines are too close to tap: a tap picks the nearest crossing point.
    svg.addEventListener("click", (event) => {
      if (!PHONE.matches) return;
      const point = nearestPoint(event);
      if (point !== null) {
        event.stopPropagation();
        showDirections(point);
      }
    }, true);
  }
})();
