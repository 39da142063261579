"use strict";
const $ = (id) => document.getElementById(id);
function el(tag, text, href) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (href) e.href = href;
  return e;
}
async function refresh() {
  const data = await (await fetch("tables")).json();
  $("rules").textContent = data.game || "";
  $("tables").replaceChildren(...data.tables.map((t) => {
    const li = el("li", "Table " + t.table + ": " + t.title + ", " + t.players + " players (" +
      t.seats.join(", ") + ")" + (t.over ? ", over " : ", step " + t.step + " "));
    li.appendChild(el("a", "watch", t.spectators));
    return li;
  }));
}
$("new").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const body = Object.fromEntries(new FormData($("new")).entries());
  const r = await fetch("new", {method: "POST", headers: {"content-type": "application/json"},
                                 body: JSON.stringify(body)});
  const data = await r.json();
  const out = $("created");
  out.replaceChildren();
  if (data.error) { out.appendChild(el("pre", data.error)); return; }
  out.appendChild(el("p", "Table " + data.table + ": give each person their own link."));
  const ul = el("ul");
  for (const s of data.seats) {
    const li = el("li", s.name + ": ");
    if (s.link) li.appendChild(el("a", new URL(s.link, location.href).href, s.link));
    else li.appendChild(document.createTextNode(s.kind + " bot"));
    ul.appendChild(li);
  }
  const sp = el("li", "spectators: ");
  sp.appendChild(el("a", new URL(data.spectators, location.href).href, data.spectators));
  ul.appendChild(sp);
  out.appendChild(ul);
  refresh();
});
refresh();
