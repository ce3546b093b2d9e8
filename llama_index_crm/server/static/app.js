// The chat page of `crm-rag serve`. Plain JavaScript, no libraries, no build step.
// Everything that comes from the graph is written with textContent or as an attribute
// value, never parsed as markup: a label holding <script> shows as those characters.
"use strict";

const BADGES = {
  answered: "answered",
  not_found: "not found",
  ambiguous: "ambiguous",
  retrieval_only: "from documents",
};

const state = { dataset: null, session: null, llm: false, last: null, busy: false };

function $(id) { return document.getElementById(id); }

// An element with text (never markup) and optional class.
function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function newSessionId() {
  if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
}

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  const response = await fetch(path, init);
  let data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  if (!response.ok) {
    const detail = data && data.detail ? data.detail : response.status + " " + response.statusText;
    throw new Error(typeof detail === "string" ? detail : JSON.stringify(detail));
  }
  return data;
}

// ---- datasets -------------------------------------------------------------------------
async function loadDatasets() {
  const data = await api("/api/datasets");
  state.llm = Boolean(data.llm);
  const select = $("dataset");
  select.replaceChildren();
  for (const ds of data.datasets) {
    const option = el("option", ds.name);
    option.value = ds.name;
    select.appendChild(option);
  }
  select.value = data.default;
  setDataset(data.default, data.datasets);
}

function setDataset(name, all) {
  state.dataset = name;
  state.session = newSessionId();
  state.last = null;
  $("log").replaceChildren();
  $("entity").hidden = true;
  showError("");
  const found = (all || []).find((d) => d.name === name);
  if (found) showExamples(found.examples || []);
  else refreshExamples(name);
}

async function refreshExamples(name) {
  try {
    const data = await api("/api/datasets?" + new URLSearchParams({ dataset: name }));
    const found = data.datasets.find((d) => d.name === name);
    showExamples(found ? found.examples : []);
  } catch (e) { showError(e.message); }
}

function showExamples(examples) {
  const box = $("examples");
  box.replaceChildren();
  for (const question of examples) {
    const button = el("button", question, "example");
    button.type = "button";
    button.addEventListener("click", () => { $("question").value = question; submit(); });
    box.appendChild(button);
  }
}

// ---- asking ---------------------------------------------------------------------------
async function submit() {
  if (state.busy) return;
  const input = $("question");
  const text = input.value;
  const command = text.trim().toLowerCase();
  if (command === "/explain") { input.value = ""; explainLast(); return; }
  if (command === "/reset") { input.value = ""; resetConversation(); return; }
  showError("");
  state.busy = true;
  $("send").disabled = true;
  const turn = el("li", null, "turn");
  turn.appendChild(el("div", text, "question"));
  const pending = el("div", "…", "answer-text");
  turn.appendChild(pending);
  const body = { session: state.session, message: text, explain: true, dataset: state.dataset };
  try {
    let data;
    if (state.llm) {
      $("log").appendChild(turn);
      data = await streamChat(body, pending);
    } else {
      data = await api("/api/chat", body);
      $("log").appendChild(turn);
    }
    input.value = "";
    state.session = data.session;
    state.last = data;
    renderAnswer(turn, data);
  } catch (e) {
    turn.remove();
    showError(e.message);
  } finally {
    state.busy = false;
    $("send").disabled = false;
  }
}

// POST /api/chat/stream: the answer's words as the LLM writes them, then the whole answer.
async function streamChat(body, pending) {
  const response = await fetch("/api/chat/stream", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  if (!response.ok) {
    let detail = response.status + " " + response.statusText;
    try { detail = (await response.json()).detail || detail; } catch (e) { /* not JSON */ }
    throw new Error(detail);
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let text = "";
  let answer = null;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let event = "message";
      let data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      const payload = data ? JSON.parse(data) : {};
      if (event === "delta") { text += payload.text; pending.textContent = text; }
      else if (event === "answer") answer = payload;
      else if (event === "error") throw new Error(payload.detail);
    }
  }
  if (!answer) throw new Error("The answer stream ended early.");
  return answer;
}

async function resetConversation() {
  try {
    await api("/api/chat/reset", { session: state.session, dataset: state.dataset });
  } catch (e) { /* a forgotten session is already reset */ }
  setDataset(state.dataset, null);
}

function explainLast() {
  const turns = $("log").querySelectorAll(".turn");
  if (!state.last || !turns.length) { showError("Ask a question first; /explain shows its plan."); return; }
  const plan = turns[turns.length - 1].querySelector(".plan");
  if (plan) { plan.hidden = false; plan.open = true; plan.scrollIntoView({ block: "nearest" }); }
}

// ---- rendering an answer --------------------------------------------------------------
function renderAnswer(turn, data) {
  const old = turn.querySelector(".answer-text");
  const head = el("div", null, "answer");
  const badge = el("span", BADGES[data.status] || data.status, "badge " + data.status);
  badge.dataset.status = data.status;
  head.appendChild(badge);
  if (data.count !== null && data.count !== undefined) head.appendChild(el("span", "count: " + data.count, "count"));
  const text = el("div", data.answer, "answer-text");
  if (old) old.replaceWith(head); else turn.appendChild(head);
  head.after(text);

  if (data.sources && data.sources.length) {
    turn.appendChild(el("div", "Sources", "sources-title"));
    const list = el("ol", null, "sources");
    for (const source of data.sources) {
      const item = el("li");
      const open = el("button", source.label || source.uri, "link source");
      open.type = "button";
      open.title = source.uri;
      open.addEventListener("click", () => openEntity(source.uri));
      item.appendChild(open);
      if (source.path) item.appendChild(el("span", source.path, "source-path"));
      list.appendChild(item);
    }
    turn.appendChild(list);
  }
  turn.appendChild(evidenceBlock(data));
  if (data.graph && data.graph.nodes.length) turn.appendChild(drawSubgraph(data.graph));
  turn.appendChild(planBlock(data.plan));
}

function evidenceBlock(data) {
  const box = el("details", null, "evidence");
  const triples = (data.sources || []).reduce((n, s) => n + s.triples.length, 0);
  box.appendChild(el("summary", "Evidence (" + data.evidence.length + " paths, " + triples + " triples)"));
  if (data.evidence.length) {
    const paths = el("ul", null, "evidence-paths");
    for (const line of data.evidence) paths.appendChild(el("li", line));
    box.appendChild(paths);
  }
  for (const source of data.sources || []) {
    if (!source.triples.length) continue;
    box.appendChild(el("div", source.label, "triples-of"));
    const list = el("ul", null, "triples");
    for (const t of source.triples) list.appendChild(el("li", tripleText(t)));
    box.appendChild(list);
  }
  return box;
}

function tripleText(t) {
  const object = t.o_literal ? "“" + t.o_label + "”" : t.o_label;
  return t.s_label + " → " + t.p_label + " → " + object;
}

function planBlock(plan) {
  const box = el("details", null, "plan");
  box.hidden = true;
  box.appendChild(el("summary", "Plan"));
  if (!plan || (!plan.text && !plan.sparql)) {
    box.appendChild(el("p", "No exact plan: this answer comes from the retrieved documents."));
    return box;
  }
  box.appendChild(el("pre", plan.text, "plan-text"));
  box.appendChild(el("div", "SPARQL"));
  box.appendChild(el("pre", plan.sparql, "plan-sparql"));
  return box;
}

// A small drawing of the subgraph the sources span: nodes on a circle, sources in amber.
function drawSubgraph(graph) {
  const NS = "http://www.w3.org/2000/svg";
  const width = 640, height = 260, radius = 110;
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("class", "subgraph");
  svg.setAttribute("viewBox", "0 0 " + width + " " + height);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "subgraph of the sources");
  const nodes = graph.nodes.slice(0, 30);
  // the sources on one ring, the nodes between them on another; the smaller ring inside
  const at = new Map();
  const rings = [nodes.filter((n) => n.source), nodes.filter((n) => !n.source)];
  rings.sort((a, b) => a.length - b.length);
  rings.forEach((ring, r) => {
    const ry = r === 0 ? radius * 0.55 : radius;
    ring.forEach((node, i) => {
      const angle = (2 * Math.PI * (i + r * 0.5)) / ring.length - Math.PI / 2;
      at.set(node.id, [width / 2 + ry * 2.1 * Math.cos(angle), height / 2 + ry * Math.sin(angle)]);
    });
  });
  for (const edge of graph.edges) {
    const a = at.get(edge.s), b = at.get(edge.o);
    if (!a || !b) continue;
    const line = document.createElementNS(NS, "line");
    line.setAttribute("x1", a[0]); line.setAttribute("y1", a[1]);
    line.setAttribute("x2", b[0]); line.setAttribute("y2", b[1]);
    const title = document.createElementNS(NS, "title");
    title.textContent = edge.label;
    line.appendChild(title);
    svg.appendChild(line);
  }
  for (const node of nodes) {
    const [x, y] = at.get(node.id);
    const group = document.createElementNS(NS, "g");
    const circle = document.createElementNS(NS, "circle");
    circle.setAttribute("cx", x); circle.setAttribute("cy", y); circle.setAttribute("r", node.source ? 6 : 4);
    if (node.source) circle.setAttribute("class", "source");
    const label = document.createElementNS(NS, "text");
    label.setAttribute("x", x + 8); label.setAttribute("y", y + 3);
    label.textContent = node.label.length > 28 ? node.label.slice(0, 27) + "…" : node.label;
    const title = document.createElementNS(NS, "title");
    title.textContent = node.label;
    group.append(circle, label, title);
    group.addEventListener("click", () => openEntity(node.id));
    svg.appendChild(group);
  }
  return svg;
}

// ---- an entity ------------------------------------------------------------------------
async function openEntity(uri) {
  let data;
  try {
    data = await api("/api/entity?" + new URLSearchParams({ uri: uri, dataset: state.dataset }));
  } catch (e) { showError(e.message); return; }
  $("entity").hidden = false;
  $("entity-label").textContent = data.label;
  $("entity-meta").textContent = [data.category, data.uri].filter(Boolean).join(" · ");
  const images = $("entity-images");
  images.replaceChildren();
  for (const url of data.images) {
    if (!/^https?:\/\//i.test(url)) continue;  // only the web URLs the graph gives
    const img = document.createElement("img");
    img.alt = data.label;
    img.referrerPolicy = "no-referrer";
    img.loading = "lazy";
    img.src = url;
    images.appendChild(img);
  }
  $("entity-document").textContent = data.document || "(no document of its own)";
  $("entity-triples-summary").textContent = "Triples (" + data.triples_total + ")";
  const triples = $("entity-triples");
  triples.replaceChildren();
  for (const t of data.triples) triples.appendChild(el("li", tripleText(t)));
  $("entity-neighbours-summary").textContent = "Linked entities (" + data.neighbours_total + ")";
  const neighbours = $("entity-neighbours");
  neighbours.replaceChildren();
  for (const n of data.neighbours) {
    const item = el("li");
    const open = el("button", n.label, "link");
    open.type = "button";
    open.title = n.uri;
    open.addEventListener("click", () => openEntity(n.uri));
    item.appendChild(open);
    neighbours.appendChild(item);
  }
}

// ---- start ----------------------------------------------------------------------------
document.addEventListener("DOMContentLoaded", () => {
  $("ask").addEventListener("submit", (event) => { event.preventDefault(); submit(); });
  $("reset").addEventListener("click", resetConversation);
  $("dataset").addEventListener("change", (event) => setDataset(event.target.value, null));
  loadDatasets().then(() => { document.body.dataset.ready = "true"; },
                      (e) => showError(e.message));
});
