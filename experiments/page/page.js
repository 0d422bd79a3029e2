/* inev's drawing page (experiments/scene_html.py). Reads the scene from the JSON block
   #inev-data and draws each view into an SVG: the topology with its overlays (one per
   forwarding input or simulated type), the projection graph, or two of them side by side.
   Positions are world coordinates; the camera maps them to the screen, so zooming moves
   marks apart while markers, lines and labels keep their size in pixels. Labels are placed
   beside their marker where they overlap no marker and no other label (else they are left
   out, and the marker's tooltip says everything); the centralized node's frame is drawn
   last, over everything. No network access, no library. */
"use strict";
(() => {
  const started = performance.now();
  const NS = "http://www.w3.org/2000/svg";
  const DATA = JSON.parse(document.getElementById("inev-data").textContent);
  const tip = document.getElementById("tip");
  const measureContext = document.createElement("canvas").getContext("2d");

  function svgEl(tag, attrs, parent) {
    const e = document.createElementNS(NS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function htmlEl(tag, attrs, parent, text) {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function fmt(v) {
    if (v === null || v === undefined) return "n/a";
    if (v === 0) return "0";
    const a = Math.abs(v);
    if (a >= 1e5 || a < 1e-3) return v.toExponential(2).replace("e+", "e");
    return String(Number(v.toPrecision(3)));
  }
  function textWidth(text, px, bold) {
    measureContext.font = (bold ? "600 " : "") + px + "px system-ui, 'DejaVu Sans', Arial, sans-serif";
    return measureContext.measureText(text).width;
  }

  /* ---------------------------------------------------------------- tooltip */
  function showTip(ev, title, lines) {
    tip.replaceChildren();
    htmlEl("div", { class: "t" }, tip, title);
    for (const line of lines) {
      const row = htmlEl("div", { class: "l" }, tip);
      if (Array.isArray(line)) {
        const dot = htmlEl("span", { class: "dot" }, row);
        dot.style.background = line[0];
        row.appendChild(document.createTextNode(line[1]));
      } else {
        row.textContent = line;
      }
    }
    tip.hidden = false;
    moveTip(ev);
  }
  function moveTip(ev) {
    const pad = 14;
    const r = tip.getBoundingClientRect();
    let x = ev.clientX + pad;
    let y = ev.clientY + pad;
    if (x + r.width > innerWidth - 4) x = Math.max(4, ev.clientX - pad - r.width);
    if (y + r.height > innerHeight - 4) y = Math.max(4, ev.clientY - pad - r.height);
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  }
  function hideTip() { tip.hidden = true; }
  function hover(element, content) {
    element.addEventListener("mouseenter", (ev) => { const [t, l] = content(); showTip(ev, t, l); });
    element.addEventListener("mousemove", moveTip);
    element.addEventListener("mouseleave", hideTip);
  }

  /* ---------------------------------------------------------------- camera */
  class Camera {
    constructor(svg, bounds, redraw, margin) {
      Object.assign(this, { svg, bounds, redraw, margin, k: 1, tx: 0, ty: 0, pending: false });
      svg.addEventListener("wheel", (e) => {
        e.preventDefault();
        const r = svg.getBoundingClientRect();
        this.zoomAt(e.clientX - r.left, e.clientY - r.top, Math.exp(-e.deltaY * 0.0015));
      }, { passive: false });
      let drag = null;
      svg.addEventListener("pointerdown", (e) => {
        if (e.button !== 0) return;
        drag = { x: e.clientX, y: e.clientY, moved: false };
        svg.setPointerCapture(e.pointerId);
      });
      svg.addEventListener("pointermove", (e) => {
        if (!drag) return;
        const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
        if (Math.abs(dx) + Math.abs(dy) > 2) { drag.moved = true; svg.classList.add("dragging"); hideTip(); }
        this.tx += dx; this.ty += dy; drag.x = e.clientX; drag.y = e.clientY;
        this.request();
      });
      const end = () => { drag = null; svg.classList.remove("dragging"); };
      svg.addEventListener("pointerup", end);
      svg.addEventListener("pointercancel", end);
      svg.addEventListener("dblclick", () => this.fit());
      addEventListener("resize", () => this.fit());
    }
    zoomAt(px, py, f) {
      const k = Math.min(Math.max(this.k * f, this.minK / 4), this.minK * 400);
      const g = k / this.k;
      this.tx = px - (px - this.tx) * g;
      this.ty = py - (py - this.ty) * g;
      this.k = k;
      this.request();
    }
    fit() {
      const r = this.svg.getBoundingClientRect();
      const m = this.margin;
      const w = Math.max(r.width - 2 * m, 60), h = Math.max(r.height - 2 * m, 60);
      const b = this.bounds;
      const bw = Math.max(b.x1 - b.x0, 1e-9), bh = Math.max(b.y1 - b.y0, 1e-9);
      this.k = this.minK = Math.min(w / bw, h / bh);
      this.tx = m + (w - bw * this.k) / 2 - b.x0 * this.k;
      this.ty = m + (h - bh * this.k) / 2 - b.y0 * this.k;
      this.request();
    }
    draw() {  /* at once (the first picture), not at the next frame */
      this.pending = false;
      this.redraw();
    }
    request() {
      if (this.pending) return;
      this.pending = true;
      requestAnimationFrame(() => { this.pending = false; this.redraw(); });
    }
  }

  function bounds(points) {
    const b = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
    for (const p of points) {
      b.x0 = Math.min(b.x0, p.x); b.x1 = Math.max(b.x1, p.x);
      b.y0 = Math.min(b.y0, p.y); b.y1 = Math.max(b.y1, p.y);
    }
    if (!isFinite(b.x0)) return { x0: 0, y0: 0, x1: 1, y1: 1 };
    return b;
  }

  /* widths by rate: linear when the values span less than 20x, else logarithmic */
  function widthScale(values, thin, thick) {
    const positive = values.filter((v) => v > 0);
    const lo = Math.min(...positive), hi = Math.max(...positive);
    if (!positive.length) return () => thin;
    if (hi / lo < 20) return (v) => thin + (thick - thin) * Math.max(v, 0) / hi;
    const span = Math.log(hi / lo);
    return (v) => (v > 0 ? thin + (thick - thin) * Math.log(v / lo) / span : thin);
  }
  function samples(values) {
    const positive = values.filter((v) => v > 0);
    if (!positive.length) return [];
    const lo = Math.min(...positive), hi = Math.max(...positive);
    if (hi / lo < 1.5) return [hi];
    return [lo, Math.sqrt(lo * hi), hi];
  }

  function star(cx, cy, r) {
    const pts = [];
    for (let i = 0; i < 10; i++) {
      const a = -Math.PI / 2 + i * Math.PI / 5;
      const rr = i % 2 ? r * 0.46 : r;
      pts.push((cx + rr * Math.cos(a)).toFixed(1) + "," + (cy + rr * Math.sin(a)).toFixed(1));
    }
    return pts.join(" ");
  }

  const ROLE_FILL = { host: "#f6c445", source: "#ffffff", plain: "#e3e6ea" };
  function fillOf(node) {
    if (node.roles.includes("host")) return ROLE_FILL.host;
    return node.roles.includes("source") ? ROLE_FILL.source : ROLE_FILL.plain;
  }
  const REGION_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
    "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896",
    "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5"];

  /* ---------------------------------------------------------------- topology */
  function topologyView(pane, V, state) {
    const svg = svgEl("svg", { class: "canvas", role: "img", "aria-label": V.title }, pane);
    const n = V.nodes.length;
    const grouped = V.nodes.some((m) => m.members > 1);
    const R0 = n <= 40 ? 11 : n <= 120 ? 8 : n <= 400 ? 5.5 : 4;
    const idInside = n <= 60 && !grouped;
    const labelPx = n <= 60 ? 13 : 12;
    const world = V.nodes.map((m) => ({ x: m.x, y: -m.y }));
    const maxMembers = Math.max(1, ...V.nodes.map((m) => m.members || 1));
    const radius = V.nodes.map((m) => {
      let r = R0 * (0.75 + 0.25 * Math.sqrt(m.size || 1));  /* a simulation's busiest: 1.25x */
      if (grouped) r = 7 + 17 * Math.sqrt((m.members || 1) / maxMembers);
      return m.roles.includes("sink") ? r * 1.45 : r;
    });
    const layer = (id) => svgEl("g", { id }, svg);
    const gTopo = layer("topology"), gOver = layer("overlays"), gArrow = layer("arrows");
    const gHit = layer("link-hits"), gLabel = layer("labels"), gNode = layer("nodes");
    const gTop = layer("marks");

    const topo = V.links.map(() => svgEl("line", { stroke: "#c9ced4", "stroke-width": n <= 60 ? 1.6 : 1 }, gTopo));
    const linkIndex = new Map();
    V.links.forEach(([i, j], li) => linkIndex.set(Math.min(i, j) + "-" + Math.max(i, j), li));

    /* overlays: one group each; links shared by several are drawn side by side */
    const values = V.overlays.flatMap((o) => o.links.map((l) => l[2]));
    const width = widthScale(values, n <= 60 ? 1.8 : 1.2, n <= 60 ? 8 : 6);
    const sharing = new Map();
    V.overlays.forEach((o, oi) => o.links.forEach(([i, j]) => {
      const key = Math.min(i, j) + "-" + Math.max(i, j);
      if (!sharing.has(key)) sharing.set(key, []);
      sharing.get(key).push(oi);
    }));
    const perLink = new Map();
    const segments = [];
    const segmentCount = V.overlays.reduce((s, o) => s + o.links.length, 0);
    const arrowsOn = segmentCount <= 1500;
    /* a large drawing first shows one line per link, all inputs added up (their unit is
       the same); each input's own lines come on top when it is picked, shown or highlighted */
    const widest = Math.max(0, ...[...sharing.values()].map((x) => x.length));
    const summary = V.overlays.length > 1 && (n > 60 || segmentCount > 500 || widest > 7);
    V.summary = summary;
    const combined = [];
    if (summary) {
      const sums = new Map();
      for (const o of V.overlays) for (const [i, j, v] of o.links) {
        const key = Math.min(i, j) + "-" + Math.max(i, j);
        if (!sums.has(key)) sums.set(key, { i, j, v: 0 });
        sums.get(key).v += v || 0;
      }
      const sumWidth = widthScale([...sums.values()].map((x) => x.v), n <= 60 ? 1.8 : 1.4, n <= 60 ? 9 : 8);
      const g = svgEl("g", { id: "all-inputs" }, gOver);
      for (const x of sums.values()) {
        combined.push({ ...x, line: svgEl("line", { stroke: "#3d4b5c", "stroke-width": sumWidth(x.v).toFixed(2), "stroke-linecap": "round", opacity: 0.5 }, g) });
      }
      V.combinedGroup = g;
      V.combinedValues = [...sums.values()].map((x) => x.v);
      for (const o of V.overlays) state.hidden.add(o.key);
    }
    V.overlays.forEach((o, oi) => {
      const g = svgEl("g", { id: o.group, class: "overlay" }, gOver);
      const ga = svgEl("g", { id: "arrows-" + o.group }, gArrow);
      o.element = g; o.arrows = ga;
      const dirs = new Set(o.dirs.map(([a, b]) => a + ">" + b));
      for (const [i, j, v] of o.links) {
        const key = Math.min(i, j) + "-" + Math.max(i, j);
        const w = width(v);
        const line = svgEl("line", { stroke: o.colour, "stroke-width": w.toFixed(2), "stroke-linecap": "round", opacity: 0.88 }, g);
        const heads = [];
        if (arrowsOn) {
          for (const [a, b] of [[i, j], [j, i]]) {
            if (dirs.has(a + ">" + b)) heads.push({ a, b, el: svgEl("polygon", { fill: o.colour, stroke: "#fff", "stroke-width": 0.8 }, ga) });
          }
        }
        segments.push({ i, j, w, line, heads, share: sharing.get(key), oi });
        if (!perLink.has(key)) perLink.set(key, []);
        const way = dirs.has(i + ">" + j) ? [i, j] : dirs.has(j + ">" + i) ? [j, i] : null;
        perLink.get(key).push({ o, v, way });
      }
    });

    /* hover areas over the links */
    const hits = V.links.map(([i, j]) => {
      const h = svgEl("line", { stroke: "transparent", "stroke-width": 12 }, gHit);
      hover(h, () => linkTip(i, j));
      return h;
    });
    function nodeName(i) { const m = V.nodes[i]; return m.name ? m.name : String(m.id); }
    function linkTip(i, j) {
      const key = Math.min(i, j) + "-" + Math.max(i, j);
      const lines = [];
      const lat = V.latency ? V.latency[linkIndex.get(key)] : null;
      if (lat !== null && lat !== undefined && lat !== 1) lines.push("latency " + fmt(lat));
      const on = perLink.get(key) || [];
      if (!on.length) lines.push(V.kind === "plan" ? "no forwarding input crosses it" : "nothing counted on it");
      for (const { o, v, way } of on) {
        const dir = way ? " (" + nodeName(way[0]) + " → " + nodeName(way[1]) + ")" : "";
        lines.push([o.colour, o.name + ": " + fmt(v) + " " + o.unit + dir]);
        if (o.forwarded && o.forwarded !== o.name) lines.push("   carries " + o.forwarded);
      }
      return ["link " + nodeName(i) + " – " + nodeName(j), lines];
    }

    /* nodes */
    const marks = V.nodes.map((m, i) => {
      const g = svgEl("g", { id: "node-" + m.key, class: "node" }, gNode);
      const shape = m.roles.includes("sink")
        ? svgEl("polygon", { fill: fillOf(m), stroke: "#39424c", "stroke-width": 1 }, g)
        : svgEl("circle", { fill: fillOf(m), stroke: "#39424c", "stroke-width": 1 }, g);
      const ring = m.region !== null && m.region !== undefined
        ? svgEl("circle", { fill: "none", stroke: REGION_COLOURS[m.region % 20], "stroke-width": 2.5 }, g) : null;
      const halo = svgEl("circle", { fill: "none", stroke: "#1d4f91", "stroke-width": 3, visibility: "hidden" }, g);
      const id = idInside ? svgEl("text", { class: "nid", "text-anchor": "middle", "dominant-baseline": "central", "font-size": 10 }, g) : null;
      if (id) id.textContent = String(m.id);
      hover(g, () => [nodeTitle(m), m.detail.length ? m.detail : ["no projection, source or sink here"]]);
      return { g, shape, ring, halo, id };
    });
    function nodeTitle(m) {
      const base = m.members > 1 ? m.name : (m.name ? m.name + " (node " + m.id + ")" : "node " + m.id);
      const roles = m.roles.filter((r) => r !== "host" && r !== "source");
      return roles.length ? base + " · " + roles.join(", ") : base;
    }
    const central = V.nodes.map((m, i) => (m.roles.includes("centralized") ? i : -1)).filter((i) => i >= 0);
    const frames = central.map((i) => {
      const f = svgEl("rect", { fill: "none", stroke: "#111", "stroke-width": 2.2, rx: 2 }, gTop);
      hover(f, () => [nodeTitle(V.nodes[i]), V.nodes[i].detail]);
      return f;
    });

    /* labels */
    const labelled = [];
    V.nodes.forEach((m, i) => {
      const parts = [];
      if (m.name && m.members <= 1) parts.push(m.name);
      else if (!idInside && m.members <= 1 && m.label) parts.push(String(m.id));
      else if (m.members > 1) parts.push(m.name);
      if (m.label) parts.push(m.label);
      if (!parts.length) return;
      const text = parts.join(m.name || !idInside ? ": " : "");
      const rank = (m.roles.includes("centralized") ? 0 : m.roles.includes("sink") ? 1 : m.label ? 2 : 3);
      const box = svgEl("rect", { class: "labelbox", fill: "#fff", "fill-opacity": 0.88, stroke: "#9aa3ad", "stroke-width": 0.6, rx: 3 }, gLabel);
      const t = svgEl("text", { class: "label", "font-size": labelPx, "dominant-baseline": "central" }, gLabel);
      t.textContent = text;
      labelled.push({ i, text, rank, box, t, w: textWidth(text, labelPx) + 8, h: labelPx + 6 });
    });
    labelled.sort((a, b) => a.rank - b.rank || a.i - b.i);

    const sx = (i) => world[i].x * cam.k + cam.tx;
    const sy = (i) => world[i].y * cam.k + cam.ty;
    let labelTimer = null;

    function redraw() {
      V.links.forEach(([i, j], li) => {
        for (const el of [topo[li], hits[li]]) {
          el.setAttribute("x1", sx(i)); el.setAttribute("y1", sy(i));
          el.setAttribute("x2", sx(j)); el.setAttribute("y2", sy(j));
        }
      });
      for (const c of combined) {
        c.line.setAttribute("x1", sx(c.i)); c.line.setAttribute("y1", sy(c.i));
        c.line.setAttribute("x2", sx(c.j)); c.line.setAttribute("y2", sy(c.j));
      }
      for (const s of segments) {
        let x1 = sx(s.i), y1 = sy(s.i), x2 = sx(s.j), y2 = sy(s.j);
        const len = Math.hypot(x2 - x1, y2 - y1) || 1;
        if (s.share.length > 1) {
          const rank = s.share.indexOf(s.oi) - (s.share.length - 1) / 2;
          const step = Math.min(5, len / (2 * s.share.length)) * rank;
          const ox = -(y2 - y1) / len * step, oy = (x2 - x1) / len * step;
          x1 += ox; x2 += ox; y1 += oy; y2 += oy;
        }
        s.line.setAttribute("x1", x1); s.line.setAttribute("y1", y1);
        s.line.setAttribute("x2", x2); s.line.setAttribute("y2", y2);
        for (const h of s.heads) {
          const [ax, ay, bx, by] = h.a === s.i ? [x1, y1, x2, y2] : [x2, y2, x1, y1];
          const size = Math.min(5 + 1.1 * s.w, 0.3 * len);
          const dx = (bx - ax) / len, dy = (by - ay) / len;
          const tx = ax + 0.62 * (bx - ax), ty = ay + 0.62 * (by - ay);
          const bxx = tx - size * dx, byy = ty - size * dy, half = size * 0.55;
          h.el.setAttribute("points", [tx, ty, bxx - half * dy, byy + half * dx, bxx + half * dy, byy - half * dx].map((c) => c.toFixed(1)).join(" "));
        }
      }
      V.nodes.forEach((m, i) => {
        const x = sx(i), y = sy(i), r = radius[i], mk = marks[i];
        if (mk.shape.tagName === "polygon") mk.shape.setAttribute("points", star(x, y, r));
        else { mk.shape.setAttribute("cx", x); mk.shape.setAttribute("cy", y); mk.shape.setAttribute("r", r); }
        for (const [c, rr] of [[mk.ring, r + 3.5], [mk.halo, r + 5]]) {
          if (c) { c.setAttribute("cx", x); c.setAttribute("cy", y); c.setAttribute("r", rr); }
        }
        if (mk.id) { mk.id.setAttribute("x", x); mk.id.setAttribute("y", y); }
      });
      central.forEach((i, f) => {
        const r = radius[i] + 6;
        frames[f].setAttribute("x", sx(i) - r); frames[f].setAttribute("y", sy(i) - r);
        frames[f].setAttribute("width", 2 * r); frames[f].setAttribute("height", 2 * r);
      });
      clearTimeout(labelTimer);
      if (labelled.length <= 400) placeLabels();
      else { gLabel.setAttribute("visibility", "hidden"); labelTimer = setTimeout(placeLabels, 90); }
    }

    /* a label goes where it overlaps neither a marker (the centralized frame included) nor a
       label already placed; candidates right, left, above, below, then the diagonals */
    function placeLabels() {
      gLabel.setAttribute("visibility", "visible");
      const cell = 48, grid = new Map();
      const r = svg.getBoundingClientRect();
      const add = (b) => {
        for (let gx = Math.floor(b.x0 / cell); gx <= Math.floor(b.x1 / cell); gx++)
          for (let gy = Math.floor(b.y0 / cell); gy <= Math.floor(b.y1 / cell); gy++) {
            const key = gx + "," + gy;
            if (!grid.has(key)) grid.set(key, []);
            grid.get(key).push(b);
          }
      };
      const free = (b) => {
        for (let gx = Math.floor(b.x0 / cell); gx <= Math.floor(b.x1 / cell); gx++)
          for (let gy = Math.floor(b.y0 / cell); gy <= Math.floor(b.y1 / cell); gy++)
            for (const o of grid.get(gx + "," + gy) || [])
              if (b.x0 < o.x1 && o.x0 < b.x1 && b.y0 < o.y1 && o.y0 < b.y1) return false;
        return true;
      };
      V.nodes.forEach((m, i) => {
        const pad = m.roles.includes("centralized") ? radius[i] + 8 : radius[i] + 1;
        add({ x0: sx(i) - pad, y0: sy(i) - pad, x1: sx(i) + pad, y1: sy(i) + pad });
      });
      for (const L of labelled) {
        const x = sx(L.i), y = sy(L.i), gap = radius[L.i] + (V.nodes[L.i].roles.includes("centralized") ? 10 : 4);
        const c = [[x + gap, y - L.h / 2], [x - gap - L.w, y - L.h / 2], [x - L.w / 2, y - gap - L.h],
          [x - L.w / 2, y + gap], [x + gap * 0.75, y - gap * 0.75 - L.h], [x + gap * 0.75, y + gap * 0.75],
          [x - gap * 0.75 - L.w, y - gap * 0.75 - L.h], [x - gap * 0.75 - L.w, y + gap * 0.75]];
        let placed = null;
        if (x > -50 && x < r.width + 50 && y > -50 && y < r.height + 50) {
          for (const [bx, by] of c) {
            const b = { x0: bx, y0: by, x1: bx + L.w, y1: by + L.h };
            if (b.x0 >= 2 && b.y0 >= 2 && b.x1 <= r.width - 2 && b.y1 <= r.height - 2 && free(b)) { placed = b; break; }
          }
        }
        const show = placed ? "visible" : "hidden";
        L.box.setAttribute("visibility", show); L.t.setAttribute("visibility", show);
        if (!placed) continue;
        add(placed);
        L.box.setAttribute("x", placed.x0); L.box.setAttribute("y", placed.y0);
        L.box.setAttribute("width", L.w); L.box.setAttribute("height", L.h);
        L.t.setAttribute("x", placed.x0 + 4); L.t.setAttribute("y", placed.y0 + L.h / 2);
      }
    }

    const cam = new Camera(svg, bounds(world), redraw, 46);
    state.views.push({ V, apply: applyFocus, fit: () => cam.fit() });

    function applyFocus() {
      const f = state.focus;
      let keep = null, nodesKept = null;
      if (f && f.kind === "input") {
        keep = new Set([f.key]);
        const o = V.overlays.find((x) => x.key === f.key);
        nodesKept = new Set(o ? o.links.flatMap((l) => [l[0], l[1]]) : []);
      } else if (f && f.kind === "query" && V.queries[f.key]) {
        const q = V.queries[f.key];
        keep = new Set(q.inputs);
        const hosts = new Set(q.projections);
        nodesKept = new Set(q.sinks);
        V.nodes.forEach((m, i) => { if (m.hosts.some((h) => hosts.has(h))) nodesKept.add(i); });
      } else if (f && f.kind === "query") {
        keep = new Set(); nodesKept = new Set();
      }
      for (const o of V.overlays) {
        const shown = !state.hidden.has(o.key) || (keep !== null && keep.has(o.key));
        for (const g of [o.element, o.arrows]) {
          g.style.display = shown ? "" : "none";
          g.classList.toggle("fade", keep !== null && !keep.has(o.key));
        }
      }
      if (V.combinedGroup) {
        V.combinedGroup.style.display = state.hidden.has("__all") ? "none" : "";
        V.combinedGroup.classList.toggle("fade", keep !== null);
      }
      marks.forEach((mk, i) => {
        const dim = nodesKept !== null && !nodesKept.has(i);
        mk.g.classList.toggle("dim", dim);
        const sink = f && f.kind === "query" && V.queries[f.key] && V.queries[f.key].sinks.includes(i);
        mk.halo.setAttribute("visibility", sink ? "visible" : "hidden");
      });
      labelled.forEach((L) => {
        const dim = nodesKept !== null && !nodesKept.has(L.i);
        L.box.classList.toggle("dim", dim); L.t.classList.toggle("dim", dim);
      });
    }
    cam.fit();
    cam.draw();
    return cam;
  }

  /* ---------------------------------------------------------------- projection graph */
  function logicalView(pane, V, state) {
    const svg = svgEl("svg", { class: "canvas", role: "img", "aria-label": V.title }, pane);
    const defs = svgEl("defs", {}, svg);
    const root = svgEl("g", {}, svg);
    const gEdge = svgEl("g", { id: "edges" }, root), gEdgeLabel = svgEl("g", { id: "edge-labels" }, root);
    const gBox = svgEl("g", { id: "boxes" }, root);
    const px = 13, line = 17;
    const boxes = new Map();
    for (const b of V.boxes) {
      const lines = [b.title, ...b.lines];
      const w = Math.max(...lines.map((t, k) => textWidth(t, px, k === 0))) + 20;
      boxes.set(b.key, { b, w, h: lines.length * line + 12, lines });
    }
    /* layers side by side (left to right) or stacked (top to bottom), whichever the pane
       shows larger; within a layer, the boxes in the given order */
    const layers = new Map();
    for (const x of boxes.values()) {
      if (!layers.has(x.b.layer)) layers.set(x.b.layer, []);
      layers.get(x.b.layer).push(x);
    }
    const order = [...layers.keys()].sort((a, b) => a - b);
    for (const l of order) layers.get(l).sort((a, b) => a.b.order - b.b.order);
    const all = [...boxes.values()];
    const maxH = Math.max(...all.map((x) => x.h));
    const labelAfter = new Map();  /* the widest arrow label between a layer and the next */
    for (const e of V.edges) {
      const l = boxes.get(e.source).b.layer;
      if (boxes.get(e.target).b.layer === l + 1) labelAfter.set(l, Math.max(labelAfter.get(l) || 0, textWidth(e.label, 12) + 8));
    }
    function arrange(vertical) {
      let along = 0;
      for (const l of order) {
        const row = layers.get(l);
        if (!vertical) {
          const w = Math.max(...row.map((x) => x.w));
          row.forEach((x, k) => { x.x = along + w / 2; x.y = (k - (row.length - 1) / 2) * (maxH + 34); });
          along += w + Math.max(110, (labelAfter.get(l) || 0) + 40);
        } else {
          const total = row.reduce((s, x) => s + x.w, 0) + 40 * (row.length - 1);
          let across = -total / 2;
          row.forEach((x) => { x.x = across + x.w / 2; x.y = along + maxH / 2; across += x.w + 40; });
          along += maxH + 130;
        }
      }
      return bounds(all.flatMap((x) => [{ x: x.x - x.w / 2, y: x.y - x.h / 2 - 10 }, { x: x.x + x.w / 2 + 10, y: x.y + x.h / 2 }]));
    }
    const area = svg.getBoundingClientRect();
    const scale = (b) => Math.min((area.width - 60) / (b.x1 - b.x0 || 1), (area.height - 60) / (b.y1 - b.y0 || 1));
    const vertical = scale(arrange(true)) > 1.3 * scale(arrange(false));
    const b0 = arrange(vertical);
    /* an arrow over more than one layer goes around the boxes of the layers between */
    function route(s, t) {
      const [a, b] = vertical ? [[s.x, s.y + s.h / 2], [t.x, t.y - t.h / 2 - 3]] : [[s.x + s.w / 2, s.y], [t.x - t.w / 2 - 3, t.y]];
      const between = order.filter((l) => l > s.b.layer && l < t.b.layer).flatMap((l) => layers.get(l));
      const cross = vertical ? (x) => [x.x - x.w / 2, x.x + x.w / 2] : (x) => [x.y - x.h / 2, x.y + x.h / 2];
      const main = vertical ? 1 : 0, side = 1 - main;
      const c = (p, q, f) => [p[0] + (q[0] - p[0]) * f, p[1] + (q[1] - p[1]) * f];
      const blocked = between.some((x) => {
        const at = (vertical ? x.y - a[1] : x.x - a[0]) / ((vertical ? b[1] - a[1] : b[0] - a[0]) || 1);
        const pos = a[side] + (b[side] - a[side]) * at;
        const [lo, hi] = cross(x);
        return pos > lo - 8 && pos < hi + 8;
      });
      const bend = (p, q) => {
        const d = Math.max(30, Math.abs(q[main] - p[main]) / 2);
        const c1 = [...p], c2 = [...q];
        c1[main] += d; c2[main] -= d;
        return `C${c1[0]},${c1[1]} ${c2[0]},${c2[1]} ${q[0]},${q[1]}`;
      };
      if (!blocked) return { d: `M${a[0]},${a[1]} ` + bend(a, b), mid: c(a, b, 0.5) };
      const spans = between.map(cross);
      const lo = Math.min(...spans.map((z) => z[0])), hi = Math.max(...spans.map((z) => z[1]));
      const detour = (a[side] + b[side]) / 2 - lo < hi - (a[side] + b[side]) / 2 ? lo - 26 : hi + 26;
      const first = between.reduce((m, x) => Math.min(m, vertical ? x.y - x.h / 2 : x.x - x.w / 2), Infinity);
      const last = between.reduce((m, x) => Math.max(m, vertical ? x.y + x.h / 2 : x.x + x.w / 2), -Infinity);
      const w1 = [0, 0], w2 = [0, 0];
      w1[main] = first; w1[side] = detour; w2[main] = last; w2[side] = detour;
      return { d: `M${a[0]},${a[1]} ` + bend(a, w1) + ` L${w2[0]},${w2[1]} ` + bend(w2, b), mid: c(w1, w2, 0.5) };
    }
    const rates = V.edges.map((e) => e.rate);
    const width = widthScale(rates, 1.4, 7);
    const colours = new Set(V.edges.map((e) => e.colour));
    for (const c of colours) {
      const m = svgEl("marker", { id: "head-" + c.slice(1), viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 5, markerHeight: 5, orient: "auto-start-reverse", markerUnits: "strokeWidth" }, defs);
      svgEl("path", { d: "M0,0 L10,5 L0,10 z", fill: c }, m);
    }
    /* an arrow's label goes at the first point along it (middle first, then outwards) where
       it covers no box and no other label */
    const taken = all.map((x) => ({ x0: x.x - x.w / 2 - 4, y0: x.y - x.h / 2 - 4, x1: x.x + x.w / 2 + 8, y1: x.y + x.h / 2 + 4 }));
    function labelAt(path, tw, fallback) {
      const length = path.getTotalLength();
      for (const t of [0.5, 0.4, 0.6, 0.3, 0.7, 0.22, 0.78, 0.15, 0.85]) {
        const q = path.getPointAtLength(length * t);
        const b = { x0: q.x - tw / 2, y0: q.y - 10, x1: q.x + tw / 2, y1: q.y + 10 };
        if (!taken.some((o) => b.x0 < o.x1 && o.x0 < b.x1 && b.y0 < o.y1 && o.y0 < b.y1)) { taken.push(b); return [q.x, q.y]; }
      }
      taken.push({ x0: fallback[0] - tw / 2, y0: fallback[1] - 10, x1: fallback[0] + tw / 2, y1: fallback[1] + 10 });
      return fallback;
    }
    const edgeEls = V.edges.map((e) => {
      const { d, mid } = route(boxes.get(e.source), boxes.get(e.target));
      const w = Math.max(1.4, Math.min(width(e.rate), 9));
      const p = svgEl("path", {
        d, fill: "none", stroke: e.colour, "stroke-width": w.toFixed(2), "stroke-dasharray": e.local ? "5 4" : "none",
        "marker-end": `url(#head-${e.colour.slice(1)})`, opacity: 0.85,
      }, gEdge);
      const text = e.label;
      const tw = textWidth(text, 12) + 8;
      const [mx, my] = labelAt(p, tw, mid);
      const lb = svgEl("rect", { x: mx - tw / 2, y: my - 10, width: tw, height: 19, rx: 3, fill: "#fff", "fill-opacity": 0.9, stroke: e.colour, "stroke-width": 0.7 }, gEdgeLabel);
      const lt = svgEl("text", { x: mx, y: my, "text-anchor": "middle", "dominant-baseline": "central", "font-size": 12 }, gEdgeLabel);
      lt.textContent = text;
      for (const el of [p, lb]) hover(el, () => [e.source_label + " → " + e.target_label, e.detail]);
      return { e, els: [p, lb, lt] };
    });
    const boxEls = [...boxes.values()].map((x) => {
      const b = x.b;
      const g = svgEl("g", { id: "box-" + b.id, class: "box" }, gBox);
      const x0 = x.x - x.w / 2, y0 = x.y - x.h / 2;
      if (b.multi) {
        for (const off of [8, 4]) svgEl("rect", { x: x0 + off, y: y0 - off, width: x.w, height: x.h, rx: 5, fill: "#fff", stroke: "#6c7884", "stroke-width": 1 }, g);
      }
      const fill = b.kind === "input" ? "#eef3f8" : b.kind === "query" ? "#fff7e0" : "#ffffff";
      svgEl("rect", {
        x: x0, y: y0, width: x.w, height: x.h, rx: b.kind === "input" ? 12 : 5, fill, stroke: b.colour || "#39424c",
        "stroke-width": b.sink.length ? 3 : 1.4, "stroke-dasharray": b.regional ? "6 3" : "none",
      }, g);
      x.lines.forEach((t, k) => {
        const el = svgEl("text", { x: x.x, y: y0 + 6 + line * (k + 0.5) + 2, "text-anchor": "middle", "dominant-baseline": "central", "font-size": px, "font-weight": k === 0 ? 600 : 400 }, g);
        el.textContent = t;
      });
      hover(g, () => [b.title, b.detail]);
      return { b, g };
    });
    const cam = new Camera(svg, b0, () => root.setAttribute("transform", `translate(${cam.tx},${cam.ty}) scale(${cam.k})`), 30);
    function applyFocus() {
      const f = state.focus;
      let keep = null;
      if (f && f.kind === "query") keep = new Set(V.queries[f.key] || []);
      if (f && f.kind === "input") keep = new Set(V.boxes.filter((b) => b.input === f.key).map((b) => b.key));
      for (const { b, g } of boxEls) g.classList.toggle("fade", keep !== null && !keep.has(b.key) && !(f.kind === "input" && V.edges.some((e) => e.source === boxKeyOf(f.key) && e.target === b.key)));
      for (const { e, els } of edgeEls) {
        const on = keep === null || (f.kind === "query" ? keep.has(e.source) && keep.has(e.target) : keep.has(e.source));
        for (const el of els) el.classList.toggle("fade", !on);
      }
    }
    function boxKeyOf(input) { const b = V.boxes.find((x) => x.input === input); return b ? b.key : null; }
    state.views.push({ V, apply: applyFocus, fit: () => cam.fit() });
    cam.fit();
    cam.draw();
    return cam;
  }

  /* ---------------------------------------------------------------- side panel */
  function sidePanel(aside, V, state, heading) {
    if (heading) htmlEl("h2", {}, aside, heading);
    if (V.figures && V.figures.length) {
      htmlEl("h2", {}, aside, "Figures");
      const t = htmlEl("table", { class: "figs" }, aside);
      for (const [label, value, unit] of V.figures) {
        const tr = htmlEl("tr", {}, t);
        htmlEl("td", {}, tr, label); htmlEl("td", { class: "v" }, tr, value); htmlEl("td", { class: "u" }, tr, unit);
      }
    }
    const overlays = V.type === "logical" ? V.inputs : V.overlays.concat(V.local || []);
    if (overlays && overlays.length) {
      htmlEl("h2", {}, aside, V.kind === "plan" || V.type === "logical" ? "Inputs" : V.kind === "diff" ? "Traffic" : "Sent");
      htmlEl("div", { class: "hint" }, aside, "click: highlight · box: show or hide");
      if (V.summary) {
        const row = htmlEl("div", { class: "entry" }, aside);
        const box = htmlEl("input", { type: "checkbox", "aria-label": "show all inputs added up" }, row);
        box.checked = true;
        box.addEventListener("change", () => { if (box.checked) state.hidden.delete("__all"); else state.hidden.add("__all"); state.apply(); });
        const sw = htmlEl("span", { class: "swatch" }, row);
        sw.style.borderTopColor = "#3d4b5c";
        htmlEl("span", { class: "what" }, row, "all inputs, added up");
        htmlEl("span", { class: "fig" }, row, fmt(V.overlays.reduce((t, o) => t + (o.total || 0), 0)));
      }
      for (const o of overlays) {
        const row = htmlEl("div", { class: "entry" + (o.links && o.links.length === 0 ? " muted" : ""), "data-input": o.key }, aside);
        if (V.type !== "logical" && o.links.length) {
          const box = htmlEl("input", { type: "checkbox", "aria-label": "show " + o.name }, row);
          box.checked = !state.hidden.has(o.key);
          box.addEventListener("click", (ev) => ev.stopPropagation());
          box.addEventListener("change", () => { if (box.checked) state.hidden.delete(o.key); else state.hidden.add(o.key); state.apply(); });
        }
        const sw = htmlEl("span", { class: "swatch" + (o.links && o.links.length === 0 ? " local" : "") }, row);
        sw.style.borderTopColor = o.colour;
        htmlEl("span", { class: "what" }, row, o.name);
        htmlEl("span", { class: "fig" }, row, o.links && o.links.length === 0 ? "local" : o.total === undefined ? "" : fmt(o.total));
        hover(row, () => [o.name, [o.forwarded ? "carries " + o.forwarded : "", o.note || (o.total !== undefined ? fmt(o.total) + " " + o.unit + " in all" + (o.links ? " over " + o.links.length + " links" : "") : "")].filter(Boolean)]);
        row.addEventListener("click", () => state.toggle("input", o.key));
        state.entries.push({ row, kind: "input", key: o.key });
      }
    }
    const queries = Object.keys(V.queries || {});
    if (queries.length) {
      htmlEl("h2", {}, aside, "Queries");
      htmlEl("div", { class: "hint" }, aside, "click: the inputs and projections its matches need");
      for (const q of queries) {
        const row = htmlEl("div", { class: "entry", "data-query": q }, aside);
        htmlEl("span", { class: "what" }, row, q + (V.sink_of && V.sink_of[q] ? " ← " + V.sink_of[q] : ""));
        row.addEventListener("click", () => state.toggle("query", q));
        state.entries.push({ row, kind: "query", key: q });
      }
    }
    if (V.type === "topology") {
      htmlEl("h2", {}, aside, "Marks");
      const roles = new Set(V.nodes.flatMap((m) => m.roles));
      const mark = (draw, text) => {
        const row = htmlEl("div", { class: "role" }, aside);
        const s = svgEl("svg", { width: 26, height: 22 }, row);
        draw(s);
        htmlEl("span", {}, row, text);
      };
      if (roles.has("host")) mark((s) => svgEl("circle", { cx: 13, cy: 11, r: 7, fill: ROLE_FILL.host, stroke: "#39424c" }, s), V.kind === "simulation" ? "its engines processed events" : "evaluates projections");
      if (roles.has("source")) mark((s) => svgEl("circle", { cx: 13, cy: 11, r: 7, fill: ROLE_FILL.source, stroke: "#39424c" }, s), "generates events");
      if (roles.has("sink")) mark((s) => svgEl("polygon", { points: star(13, 11, 10), fill: "#fff", stroke: "#39424c" }, s), "sink of a query");
      if (roles.has("centralized")) mark((s) => svgEl("rect", { x: 4, y: 2, width: 18, height: 18, fill: "none", stroke: "#111", "stroke-width": 2.2 }, s), "centralized node");
      if (V.nodes.some((m) => m.region !== null && m.region !== undefined)) mark((s) => svgEl("circle", { cx: 13, cy: 11, r: 8, fill: "none", stroke: REGION_COLOURS[1], "stroke-width": 2.5 }, s), "region of a regional placement (ring: its colour)");
      if (V.nodes.some((m) => m.members > 1)) mark((s) => svgEl("circle", { cx: 13, cy: 11, r: 9, fill: "#fff", stroke: "#39424c" }, s), "a group of nodes (size: how many)");
      const all = V.summary ? V.combinedValues : V.overlays.flatMap((o) => o.links.map((l) => l[2]));
      const ws = samples(all);
      if (ws.length) {
        const small = V.nodes.length <= 60;
        const width = V.summary ? widthScale(all, small ? 1.8 : 1.4, small ? 9 : 8) : widthScale(all, small ? 1.8 : 1.2, small ? 8 : 6);
        const what = V.summary ? "all inputs added up, " : "";
        htmlEl("h2", {}, aside, "Line widths (" + what + (V.overlays[0] ? V.overlays[0].unit : "") + " per link)");
        for (const v of ws) mark((s) => svgEl("line", { x1: 2, y1: 11, x2: 24, y2: 11, stroke: "#555", "stroke-width": width(v) }, s), fmt(v));
      }
    }
    if (V.legend && V.legend.length) {
      htmlEl("h2", {}, aside, V.type === "logical" ? "Projections" : "Legend");
      for (const l of V.legend) htmlEl("div", { class: "hint" }, aside, l);
    }
    htmlEl("h2", {}, aside, "How to look");
    htmlEl("div", { class: "hint" }, aside, "wheel: zoom · drag: pan · double-click: fit · hover a node, link or box: details · Esc: clear");
  }

  /* ---------------------------------------------------------------- tabs and state */
  function makeState() {
    const state = {
      focus: null, hidden: new Set(), views: [], entries: [],
      toggle(kind, key) {
        state.focus = state.focus && state.focus.kind === kind && state.focus.key === key ? null : { kind, key };
        state.apply();
      },
      apply() {
        for (const v of state.views) v.apply();
        for (const e of state.entries) e.row.classList.toggle("active", !!state.focus && state.focus.kind === e.kind && state.focus.key === e.key);
      },
    };
    return state;
  }

  const main = document.querySelector("main");
  const nav = document.querySelector("nav.tabs");
  const sections = [];
  DATA.tabs.forEach((tab, t) => {
    const section = htmlEl("section", { class: "view", id: "tab-" + t }, main);
    const button = htmlEl("button", { type: "button", "aria-selected": t === 0 ? "true" : "false" }, nav, tab.name);
    sections.push({ section, button, tab, built: false });
    button.addEventListener("click", () => select(t));
    if (t) section.hidden = true;
  });
  const details = document.getElementById("details");
  if (details) {
    main.appendChild(details);
    const button = htmlEl("button", { type: "button", "aria-selected": "false" }, nav, "Details");
    sections.push({ section: details, button, tab: null, built: true });
    details.hidden = true;
    button.addEventListener("click", () => select(sections.length - 1));
  }
  function build(s) {
    const state = makeState();
    const aside = htmlEl("aside", { class: "side" });
    for (const V of s.tab.views) {
      const pane = htmlEl("div", { class: "pane" }, s.section);
      if (s.tab.views.length > 1) htmlEl("div", { class: "pane-title" }, pane, V.name);
      if (V.notes && V.notes.length) htmlEl("div", { class: "notes" }, pane, V.notes.join(" · "));
      (V.type === "logical" ? logicalView : topologyView)(pane, V, state);
      sidePanel(aside, V, state, s.tab.views.length > 1 ? V.name : null);
    }
    s.section.appendChild(aside);
    addEventListener("keydown", (e) => { if (e.key === "Escape") { state.focus = null; state.apply(); } });
    state.apply();
    s.built = true;
    s.state = state;
  }
  function select(t) {
    sections.forEach((s, k) => { s.section.hidden = k !== t; s.button.setAttribute("aria-selected", k === t ? "true" : "false"); });
    const s = sections[t];
    if (!s.built) build(s);
    else if (s.state) for (const v of s.state.views) v.fit();
  }
  /* the address can pick a tab and a highlight: page.html#tab=2&query=q1 (or &input=A) */
  const wanted = new URLSearchParams(location.hash.slice(1));
  const first = Math.min(Math.max(parseInt(wanted.get("tab") || "1", 10) - 1, 0), sections.length - 1);
  select(first);
  const s0 = sections[first];
  if (s0.state) {
    if (wanted.get("query")) s0.state.toggle("query", wanted.get("query"));
    else if (wanted.get("input")) s0.state.toggle("input", wanted.get("input"));
  }
  document.body.setAttribute("data-ready", "1");  /* the first tab is drawn */
  requestAnimationFrame(() => {  /* after the first frame: how long the page took to show */
    document.body.setAttribute("data-draw-ms", String(Math.round(performance.now() - started)));
  });
})();
