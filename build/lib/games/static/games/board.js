// Picking on the board: clicks fill the same form fields the page offers without
// JavaScript, so the server sees one kind of request. Nothing is sent until "Build".
(function () {
  "use strict";
  const dataNode = document.getElementById("pick-data");
  const form = document.getElementById("move-form");
  const svg = document.querySelector("svg.board");
  if (!dataNode || !form || !svg) return;
  const data = JSON.parse(dataNode.textContent);
  const network = new Set(data.network);
  const first = new Set(data.first.map(String));
  const pointSelect = form.querySelector("select[name=point]");
  const line1 = form.querySelector("select[name=line1]");
  const line2 = form.querySelector("select[name=line2]");
  const costNode = document.getElementById("pick-cost");

  function cost(id) { return data.lines[id] ? data.lines[id][2] : 0; }

  function picks() {
    return [line1 && line1.value, line2 && line2.value].filter(Boolean);
  }

  // May this line be the next pick, given the lines already picked?
  function allowed(id, current) {
    if (current.length === 0) return first.has(id);
    if (current.length >= 2) return false;
    const p = current[0];
    if (id === p || cost(p) !== 1 || cost(id) !== 1) return false;
    const [a, b] = data.lines[id];
    const [pa, pb] = data.lines[p];
    return network.has(a) || network.has(b) || [pa, pb].includes(a) || [pa, pb].includes(b);
  }

  function render() {
    if (data.placing) {
      svg.querySelectorAll(".point.pickable").forEach((node) => {
        node.classList.toggle("picked", pointSelect && node.dataset.point === pointSelect.value);
      });
      return;
    }
    const current = picks();
    svg.querySelectorAll(".pick").forEach((node) => {
      const id = node.dataset.line;
      node.classList.toggle("picked", current.includes(id));
      node.classList.toggle("available", !current.includes(id) && allowed(id, current));
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
  svg.addEventListener("keydown", (event) => {
    const node = event.target.closest("[data-line], [data-point]");
    if (node && (event.key === "Enter" || event.key === " ")) {
      event.preventDefault();
      activate(node);
    }
  });
  form.addEventListener("change", render);
  form.addEventListener("reset", () => setTimeout(render, 0));
  render();
})();
