// hallmon's fatigue dashboard: reads the JSON API of `hallmon serve`, draws SVG, refreshes
// itself. No build step, no dependencies. Every text from the API goes in through
// textContent, never innerHTML: answers and claims are untrusted.
"use strict";

const REFRESH_MS = 5000;
const PAGE = 20;
const SVG = "http://www.w3.org/2000/svg";
const state = { offset: 0, session: null, timer: null };

function el(tag, attrs = {}, text) {
  const node = tag.startsWith("svg:")
    ? document.createElementNS(SVG, tag.slice(4))
    : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = String(text);
  return node;
}

function token() { return localStorage.getItem("hallmon.token") || ""; }

async function api(path) {
  const headers = token() ? { Authorization: `Bearer ${token()}` } : {};
  const res = await fetch(path, { headers });
  if (res.status === 401) {
    document.getElementById("auth").hidden = false;
    throw new Error("this server needs a token");
  }
  if (!res.ok) {
    const body = await res.json().catch(() => ({}));
    const err = new Error(body.error || `${path}: HTTP ${res.status}`);
    err.status = res.status;
    throw err;
  }
  return res.json();
}

function pct(x) { return `${Math.round(x * 100)}%`; }
function signed(x) { return x === null || x === undefined ? "–" : (x >= 0 ? "+" : "") + x.toFixed(3); }

function sparkline(rates) {
  const w = 90, h = 20;
  const svg = el("svg:svg", { viewBox: `0 0 ${w} ${h}`, width: w, height: h, class: "sparkline" });
  if (rates.length === 0) return svg;
  const step = rates.length > 1 ? w / (rates.length - 1) : 0;
  const pts = rates.map((r, i) => `${(i * step).toFixed(1)},${(h - 2 - r * (h - 4)).toFixed(1)}`);
  svg.appendChild(el("svg:polyline", { points: pts.join(" "), class: "spark" }));
  return svg;
}

// A line chart of (x, rate) points with alert marks at given x values.
function lineChart(svg, points, alerts, xLabel) {
  svg.replaceChildren();
  const W = 420, H = 220, L = 36, R = 10, T = 10, B = 30;
  const xs = points.map((p) => p.x);
  const xmin = Math.min(...xs, ...alerts), xmax = Math.max(...xs, ...alerts);
  const span = xmax - xmin || 1;
  const sx = (x) => L + ((x - xmin) / span) * (W - L - R);
  const sy = (y) => T + (1 - y) * (H - T - B);
  svg.appendChild(el("svg:line", { x1: L, y1: sy(0), x2: W - R, y2: sy(0), class: "axis" }));
  svg.appendChild(el("svg:line", { x1: L, y1: T, x2: L, y2: sy(0), class: "axis" }));
  for (const y of [0, 0.5, 1]) {
    svg.appendChild(el("svg:text", { x: 4, y: sy(y) + 3 }, pct(y)));
  }
  svg.appendChild(el("svg:text", { x: L, y: H - 6 }, String(xmin)));
  svg.appendChild(el("svg:text", { x: W - R, y: H - 6, "text-anchor": "end" }, `${xmax} ${xLabel}`));
  for (const a of alerts) {
    svg.appendChild(el("svg:line", { x1: sx(a), y1: T, x2: sx(a), y2: sy(0), class: "alert" }));
    svg.appendChild(el("svg:path", {
      d: `M${sx(a) - 5},${T} L${sx(a) + 5},${T} L${sx(a)},${T + 8} Z`, class: "alert-mark",
    }));
  }
  if (points.length === 0) return;
  const sorted = [...points].sort((a, b) => a.x - b.x);
  svg.appendChild(el("svg:polyline", {
    points: sorted.map((p) => `${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(" "),
    class: "curve",
  }));
  for (const p of sorted) {
    const c = el("svg:circle", { cx: sx(p.x), cy: sy(p.y), r: 3.5, class: "point" });
    c.appendChild(el("svg:title", {}, p.title));
    svg.appendChild(c);
  }
}

function barChart(svg, buckets) {
  svg.replaceChildren();
  const W = 420, H = 180, L = 36, B = 30, T = 10;
  const n = Math.max(buckets.length, 1);
  const bw = (W - L - 10) / n;
  svg.appendChild(el("svg:line", { x1: L, y1: H - B, x2: W - 10, y2: H - B, class: "axis" }));
  buckets.forEach((b, i) => {
    const h = b.unsupported_rate * (H - B - T);
    const rect = el("svg:rect", {
      x: L + i * bw + 4, y: H - B - h, width: Math.max(bw - 8, 2), height: h, class: "bar",
    });
    rect.appendChild(el("svg:title", {},
      `${b.range}: ${pct(b.unsupported_rate)} of ${b.claims} claims (${b.responses} answers)`));
    svg.appendChild(rect);
    svg.appendChild(el("svg:text", { x: L + i * bw + 4, y: H - B + 14 }, b.range));
    svg.appendChild(el("svg:text", { x: L + i * bw + 4, y: H - B - h - 3 }, pct(b.unsupported_rate)));
  });
}

// The answer rebuilt from claim and skipped spans (the verdict carries no full text), with
// every claim that is not supported highlighted by status.
function answerNode(v) {
  const segs = [
    ...v.claims.map((c) => ({ span: c.claim.span, text: c.claim.text, status: c.status, reason: c.reason })),
    ...v.skipped.map((s) => ({ span: s.span, text: s.text, status: null })),
  ].sort((a, b) => a.span.start - b.span.start);
  const div = el("div", { class: "answer" });
  let at = 0;
  for (const s of segs) {
    if (s.span.start < at) continue; // overlapping atomic claims: keep the first
    if (s.span.start > at && at > 0) div.appendChild(document.createTextNode(" "));
    if (s.status && s.status !== "supported") {
      const m = el("mark", { class: s.status, title: `${s.status}: ${s.reason}` }, s.text);
      div.appendChild(m);
    } else if (s.status === "supported") {
      div.appendChild(el("span", { class: "supported", title: s.reason }, s.text));
    } else {
      div.appendChild(document.createTextNode(s.text));
    }
    at = s.span.end;
  }
  return div;
}

function renderVerdicts(list) {
  const box = document.getElementById("verdicts");
  box.replaceChildren();
  if (list.length === 0) box.appendChild(el("p", { class: "caption" }, "no verdicts yet"));
  for (const v of list) {
    const item = el("div", { class: "verdict", "data-response-id": v.response_id });
    const meta = el("div", { class: "meta" });
    meta.appendChild(el("span", { class: `action ${v.action}` }, v.action));
    meta.appendChild(document.createTextNode(
      ` risk ${v.risk.toFixed(2)} · ${v.state}${v.unavailable_reason ? " / " + v.unavailable_reason : ""}` +
      ` · session ${v.session_id} · turn ${v.turn ?? "–"} · ${v.counts.total} claims,` +
      ` ${v.counts.contradicted} contradicted, ${v.counts.not_found} not found`));
    item.appendChild(meta);
    item.appendChild(answerNode(v));
    box.appendChild(item);
  }
}

async function renderSessions() {
  const page = await api(`/sessions?limit=${PAGE}&offset=${state.offset}`);
  const body = document.querySelector("#sessions tbody");
  body.replaceChildren();
  for (const s of page.sessions) {
    const tr = el("tr", s.session_id === state.session ? { class: "selected" } : {});
    const link = el("a", { href: `#/session/${encodeURIComponent(s.session_id)}`, class: "session-link" }, s.session_id);
    const td = el("td"); td.appendChild(link); tr.appendChild(td);
    tr.appendChild(el("td", {}, s.agent_id));
    tr.appendChild(el("td", { class: "num" }, s.responses));
    tr.appendChild(el("td", { class: "num" }, pct(s.recent_rate)));
    tr.appendChild(el("td", { class: "num" }, signed(s.slope_per_turn)));
    const spark = el("td"); spark.appendChild(sparkline(s.rates)); tr.appendChild(spark);
    body.appendChild(tr);
  }
  if (page.sessions.length === 0) {
    const tr = el("tr"); tr.appendChild(el("td", { colspan: 6 }, "no sessions with fatigue data yet"));
    body.appendChild(tr);
  }
  const last = Math.min(page.offset + page.limit, page.total);
  document.getElementById("page").textContent = `${page.total ? page.offset + 1 : 0}–${last} of ${page.total}`;
  document.getElementById("prev").disabled = page.offset === 0;
  document.getElementById("next").disabled = last >= page.total;
}

async function renderSession(id) {
  const panel = document.getElementById("session-panel");
  let detail;
  try {
    detail = await api(`/sessions/${encodeURIComponent(id)}`);
  } catch (err) {
    if (err.status === 404) { panel.hidden = true; return; }
    throw err;
  }
  const snap = detail.snapshot;
  panel.hidden = false;
  document.getElementById("session-title").textContent = `session ${snap.session_id} (${snap.agent_id})`;
  document.getElementById("session-caption").textContent =
    `${snap.responses} answers, ${snap.claims} claims, unsupported ${pct(snap.unsupported_rate)} ` +
    `(recent ${pct(snap.recent_rate)}); slope ${signed(snap.slope_per_turn)}/turn, ` +
    `${signed(snap.slope_per_1k_tokens)}/1k tokens; ${detail.alerts.length} alert(s)`;
  const pts = (key) => snap.series.map((p) => ({
    x: p[key],
    y: p.claims ? p.unsupported / p.claims : 0,
    title: `turn ${p.turn}, ${p.context_tokens} tokens: ${p.unsupported}/${p.claims} unsupported`,
  }));
  const marks = (key) => detail.alerts.map((a) => a[key]).filter((x) => x !== null && x !== undefined);
  lineChart(document.getElementById("chart-turn"), pts("turn"), marks("turn"), "turn");
  lineChart(document.getElementById("chart-context"), pts("context_tokens"), marks("context_tokens"), "tokens");
  const fleet = await api(`/agents/${encodeURIComponent(snap.agent_id)}/fatigue`);
  document.getElementById("fleet-title").textContent = `fleet of agent ${snap.agent_id}`;
  barChart(document.getElementById("fleet-turn"), fleet.by_turn);
  barChart(document.getElementById("fleet-context"), fleet.by_context);
  document.getElementById("verdicts-title").textContent = `Latest verdicts of session ${snap.session_id}`;
  // Verdicts arrive in the order they finish; within a session, read them by turn.
  renderVerdicts([...detail.verdicts].sort((a, b) => (b.turn ?? -1) - (a.turn ?? -1)));
}

async function refresh() {
  const status = document.getElementById("status");
  try {
    await renderSessions();
    if (state.session) {
      await renderSession(state.session);
    } else {
      document.getElementById("session-panel").hidden = true;
      document.getElementById("verdicts-title").textContent = "Latest verdicts";
      renderVerdicts(await api("/verdicts?limit=10"));
    }
    status.className = "status";
    status.textContent = `updated ${new Date().toLocaleTimeString()} · refreshes every ${REFRESH_MS / 1000}s`;
  } catch (err) {
    status.className = "status error";
    status.textContent = String(err.message || err);
  }
}

function route() {
  const m = location.hash.match(/^#\/session\/(.+)$/);
  state.session = m ? decodeURIComponent(m[1]) : null;
  refresh();
}

document.getElementById("prev").addEventListener("click", () => {
  state.offset = Math.max(0, state.offset - PAGE); refresh();
});
document.getElementById("next").addEventListener("click", () => { state.offset += PAGE; refresh(); });
document.getElementById("token-save").addEventListener("click", () => {
  localStorage.setItem("hallmon.token", document.getElementById("token").value);
  document.getElementById("auth").hidden = true;
  refresh();
});
window.addEventListener("hashchange", route);
state.timer = setInterval(refresh, REFRESH_MS);
route();
