// The table page: one WebSocket, one JSON view a message, drawn with textContent only.
"use strict";
const tid = location.pathname.split("/").pop();
const token = decodeURIComponent(location.hash.slice(1));
const $ = (id) => document.getElementById(id);
let ws = null, view = null, retry = 500, fatal = false, waiting = false;

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
}

function plain(v) {
  if (v === true) return "yes";
  if (v === false) return "no";
  if (v === null || v === undefined) return "—";
  if (Array.isArray(v)) return v.length ? v.join(", ") : "—";
  return String(v);
}

function notes(zone, name) {
  // the card values the file shows under this zone's cards (only where they are current)
  const z = (view.layout.notes || {})[zone] || {};
  return z[name] || "";
}

function card(name, clickable, zone) {
  const action = clickable && view.clickable[name];
  const e = el(action ? "button" : "span", "card" + (action ? " playable" : ""));
  e.style.color = view.colours[name] || "#333";
  e.appendChild(document.createTextNode(name));
  const n = notes(zone, name);
  if (n) e.appendChild(el("span", "note", n));
  if (action) {
    e.type = "button";
    e.dataset.action = action;
    e.title = action;
    e.disabled = waiting;
    e.addEventListener("click", () => move(action));
  }
  return e;
}

function zoneView(v, clickable, zone) {
  if (v && v.cards) {
    if (!v.cards.length) return el("span", "count", "empty");
    const box = el("div", "cards");
    v.cards.forEach((c, i) => {
      const e = card(c, clickable, zone);
      if (i === 0 && v.top) {           // a pile shown from its top: the top card first, marked
        e.classList.add("top");
        e.appendChild(el("span", "top-mark", "top"));
      }
      box.appendChild(e);
    });
    if (v.total && v.total > v.cards.length) box.appendChild(el("span", "count", v.total + " cards"));
    return box;
  }
  if (v && "count" in v) return el("span", "count", v.count + (v.count === 1 ? " card" : " cards") + backsText(v.backs));
  return el("span", "count", "hidden");
}

// what is shown on the backs of cards whose faces are not ('on back' card state), by place from 1:
// " — told: 1 Red, 3 Red" (the terminal table's words: interpreter/terminal/table.py backs_text)
function backsText(backs) {
  const parts = [];
  for (const [name, values] of Object.entries(backs || {})) {
    const marked = values.map((x, i) => (x === null ? null : (i + 1) + " " + plain(x))).filter((x) => x !== null);
    if (marked.length) parts.push(name.replace(/_/g, " ") + ": " + marked.join(", "));
  }
  return parts.length ? " — " + parts.join("; ") : "";
}

function render() {
  const v = view;
  document.title = v.title + " — rulesrun";
  $("title").textContent = v.title;
  const L = v.layout;
  $("variants").hidden = !L.variants.length;
  $("variants").textContent = L.variants.length ? "variant" + (L.variants.length > 1 ? "s" : "") + ": " + L.variants.join(" · ") : "";
  $("who").textContent = (v.seat === null ? "spectating" : "you are " + v.names[v.seat]) +
    " · table " + v.table + (v.game_no > 1 ? " · game " + v.game_no : "") + " · step " + v.step +
    (v.settings ? " · " + v.settings : "");
  $("error").hidden = !v.error;
  $("error").textContent = v.error || "";
  // whose turn, and my moves
  const mine = v.seat !== null && v.to_move === v.seat && !v.terminal;
  $("turn-box").classList.toggle("mine", mine);
  $("turn").textContent = v.terminal ? "Game over" :
    mine ? "Your turn: " + v.decision : v.names[v.to_move] + " is to move (" + v.decision + ")";
  const moves = $("moves");
  moves.replaceChildren();
  for (const a of v.options) {
    const b = el("button", null, a);
    if (v.notes && v.notes[a]) b.appendChild(el("span", "option-note", " — " + v.notes[a]));
    b.type = "button";
    b.dataset.action = a;
    b.disabled = waiting;
    b.addEventListener("click", () => move(a));
    moves.appendChild(b);
  }
  // my own cards, sorted by the server as the file declares them
  const fams = Object.keys(v.mine || {});
  $("mine-box").hidden = !fams.length;
  $("mine").replaceChildren(...fams.map((f) => {
    const d = el("div", "fam");
    d.appendChild(el("b", null, L.mine_labels[f] || f.replace(/_/g, " ")));
    d.appendChild(zoneView({cards: v.mine[f]}, true, f));
    return d;
  }));
  // the shared zones and values, in the file's words
  const zones = $("zones");
  zones.replaceChildren();
  for (const z of L.zones) {
    const d = el("div", "zone");
    d.dataset.zone = z.name;
    d.appendChild(el("b", null, z.label));
    d.appendChild(zoneView(z, true, z.name));
    zones.appendChild(d);
  }
  $("state").replaceChildren(...L.state.map(([k, x]) => el("span", null, k + ": " + plain(x))),
  // the teams: members, then each team value
  ...(v.teams || []).map((t) => el("span", "team", t.name + " (" + (t.members.join(", ") || "no players") + ")" +
    Object.entries(t).filter(([k]) => k !== "name" && k !== "members")
      .map(([k, x]) => " · " + k.replace(/_/g, " ") + ": " + plain(x)).join(""))));
  // every player's public information: one column a label of the file's, each cell the value seen
  const table = $("players");
  table.replaceChildren();
  const head = el("tr");
  head.appendChild(el("th", null, "player"));
  for (const k of L.columns) head.appendChild(el("th", null, k));
  table.appendChild(head);
  v.players.forEach((p, i) => {
    const tr = el("tr", i === v.to_move && !v.terminal ? "to-move" : "");
    tr.dataset.seat = i;
    tr.appendChild(el("td", null, p.name + (i === v.seat ? " (you)" : "")));
    for (const x of L.rows[i]) {
      const td = el("td");
      if (x && typeof x === "object" && !Array.isArray(x)) {
        if (i === v.seat && x.cards && x.cards.length > 3) td.appendChild(el("span", "count", x.cards.length + " cards"));
        else td.appendChild(zoneView(x, false, x.zone));
      } else if (x !== null && x !== undefined) td.textContent = plain(x);
      tr.appendChild(td);
    }
    table.appendChild(tr);
  });
  // the end
  $("scores-box").hidden = !v.terminal;
  if (v.terminal) {
    const ol = $("scores");
    ol.replaceChildren();
    v.names.forEach((n, i) => {
      const li = el("li", v.winners.includes(i) ? "winner" : "");
      li.dataset.seat = i;
      li.appendChild(document.createTextNode(n + ": "));
      li.appendChild(el("span", "score", String(v.returns[i])));
      if (L.score) li.appendChild(document.createTextNode(" " + L.score));
      if (v.winners.includes(i)) li.appendChild(document.createTextNode(" — winner"));
      ol.appendChild(li);
    });
    $("rematch").hidden = v.seat === null;
    $("seed").hidden = !v.seed;
    $("seed").textContent = v.seed ? "This game's seed was " + v.seed + " (rulesrun --seed " + v.seed + " replays the deal)." : "";
  }
  $("save").hidden = v.seat === null;
  const log = $("log");
  log.replaceChildren(...v.log.slice(-12).map((line) => el("li", null, line)));
  log.start = Math.max(1, v.log_total - Math.min(12, v.log.length) + 1);
  log.scrollTop = log.scrollHeight;
}

function send(msg) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
}

function move(action) {
  if (waiting || !view) return;
  waiting = true;
  for (const b of document.querySelectorAll("[data-action]")) b.disabled = true;
  send({type: "move", action: action, step: view.step});
}

function notice(text) {
  $("notice").hidden = !text;
  $("notice").textContent = text || "";
}

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  // the server may live under a sub-path (serve --root-path): the socket is beside this page's /t/
  const root = location.pathname.slice(0, location.pathname.lastIndexOf("/t/"));
  ws = new WebSocket(proto + "//" + location.host + root + "/ws/" + tid);
  ws.onopen = () => {
    retry = 500;
    ws.send(JSON.stringify({type: "hello", token: token}));
    $("conn").textContent = "connected";
    $("conn").classList.remove("down");
  };
  ws.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.type === "view") {
      view = msg;
      waiting = false;
      notice("");
      render();
    } else if (msg.type === "error") {
      waiting = false;
      notice(msg.message);
      if (view) render();
    } else if (msg.type === "saved") {
      notice(msg.message);
    }
  };
  ws.onclose = (ev) => {
    $("conn").classList.add("down");
    if (ev.code === 4401 || ev.code === 4404 || ev.code === 4400 || ev.code === 4403) {
      fatal = true;
      $("conn").textContent = "not connected";
      return;
    }
    $("conn").textContent = "reconnecting…";
    setTimeout(connect, retry);          // after a reload or a dropped connection, the seat is kept
    retry = Math.min(retry * 2, 8000);
  };
}

$("save").addEventListener("click", () => send({type: "save"}));
$("rematch").addEventListener("click", () => send({type: "rematch"}));
if (!token) {
  notice("This link has no seat token: ask the host for your link.");
} else {
  connect();
}
