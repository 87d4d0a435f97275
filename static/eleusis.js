// Shared by every page: card drawing, the API client and the live view over the
// WebSocket (reconnecting). Variant scripts (static/variant-*.js) register a
// renderer with Eleusis.register(variantId, {render(view, layoutEl, panelEl), hides});
// (`hides`: ids of the tablet's panels the variant has no use for);
// `render` returns true when it drew the layout itself.
(function () {
  "use strict";
  const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  // `?token=` is percent-decoded only, as the service reads it: a `+` stays a plus
  // (URLSearchParams would make it a space), so any God token works in a link.
  function tokenParam() {
    for (const pair of location.search.slice(1).split("&")) {
      if (!pair.startsWith("token=")) continue;
      const raw = pair.slice(6);
      try { return decodeURIComponent(raw); } catch (e) { return raw; }
    }
    return "";
  }
  if (tokenParam()) sessionStorage.setItem("eleusis-god-token", tokenParam());
  const token = tokenParam() || sessionStorage.getItem("eleusis-god-token") || "";
  // A header carries printable ASCII only: a token with other characters (or a `%`,
  // or spaces at its ends) goes percent-encoded, and the service decodes it.
  const bearer = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(token) && !token.includes("%")
    ? token : encodeURIComponent(token);

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }

  // "10H" → a drawn card. `marks`: {laid, white, black, prophet}.
  function card(text, size, marks) {
    const t = String(text || "?");
    const suit = t.slice(-1).toUpperCase();
    const rank = t.slice(0, -1);
    const red = suit === "H" || suit === "D";
    const node = el("span", { class: "card" + (red ? " red" : "") + (size ? " " + size : ""), title: t, "data-card": t },
      el("span", { class: "rank" }, rank), el("span", { class: "suit" }, SUITS[suit] || suit));
    if (marks) {
      // The prophet's card is outlined as well as badged: a badge alone, at a
      // corner, reads as the neighbouring card's.
      if (marks.prophet) {
        node.classList.add("prophet-marked");
        node.append(el("span", { class: "marker prophet", title: "prophet marker" }, "P"));
      }
      if (marks.black) node.append(el("span", { class: "marker black", title: "black marker" }, marks.laid));
      else if (marks.white) node.append(el("span", { class: "marker white", title: "white marker" }, marks.laid));
      if (marks.laid) node.append(el("span", { class: "laid" }, marks.laid));
    }
    return node;
  }

  function cardsText(list) { return (list || []).join(" "); }

  const API_TIMEOUT_MS = 30000;
  async function api(method, path, body, raw) {
    const headers = {};
    if (token) headers["Authorization"] = "Bearer " + bearer;
    let payload;
    if (raw) { payload = body; }
    else if (body !== undefined) { headers["Content-Type"] = "application/json"; payload = JSON.stringify(body); }
    // A link dropped mid-request (a tablet's Wi-Fi) can leave it hanging for
    // minutes, and the God console sends one action at a time: give up after a
    // while, saying so.
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), API_TIMEOUT_MS);
    let res;
    try { res = await fetch(path, { method, headers, body: payload, signal: abort.signal }); }
    catch (e) {
      // The browser says only "Failed to fetch": the service is stopped, or the
      // network between is down. Whether a request sent just then was recorded
      // shows in the log once the page is live again.
      const why = abort.signal.aborted ? "no answer from the service in " + API_TIMEOUT_MS / 1000 + " s" : "cannot reach the service (stopped, or the network is down)";
      const err = new Error(why + ": check the log once the page says live again");
      err.status = 0; throw err;
    } finally { clearTimeout(timer); }
    const type = res.headers.get("content-type") || "";
    const data = type.includes("json") ? await res.json() : await res.text();
    if (!res.ok) {
      // What was wrong, in the service's words; the route it came from is for a
      // developer (the browser's console), not for God at the table. Where in the
      // body a bad JSON line went wrong (God's raw-event field) is kept.
      const place = data && typeof data.where === "string" ? data.where.split(": ").slice(1).join(": ") : "";
      const msg = data && data.error ? data.error + (place ? " (" + place + ")" : "") : String(data);
      if (data && data.where) console.info("refused by " + data.where + ": " + msg);
      const err = new Error(msg); err.status = res.status; err.data = data; err.where = data && data.where; throw err;
    }
    return data;
  }

  // Calls onView(view, fresh) with every view pushed on /ws; reconnects with backoff.
  // `fresh` is true for the first view of each connection: the service may have
  // restarted in between, and its view is then the truth whatever its version.
  // The service sends a heartbeat ({"type":"beat"}) every 5 s when it has nothing
  // else to send: 15 s without any message (or a socket still connecting after
  // 15 s) means the service cannot be reached — frozen, or its laptop asleep, which
  // an open socket would never tell — so the page says so and connects again.
  const SILENCE_MS = 15000;
  function live(onView, onStatus, asGod) {
    let delay = 500;
    function connect() {
      const proto = location.protocol === "https:" ? "wss:" : "ws:";
      const q = asGod && token ? "?token=" + encodeURIComponent(token) : "";
      const ws = new WebSocket(proto + "//" + location.host + "/ws" + q);
      let fresh = true, done = false, heard = Date.now();
      const watchdog = setInterval(() => {
        if (Date.now() - heard >= SILENCE_MS) lost();
      }, 1000);
      // Once per socket: say not live, drop the socket, connect again later.
      function lost() {
        if (done) return;
        done = true;
        clearInterval(watchdog);
        ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
        try { ws.close(); } catch (e) { /* closing a socket still connecting can throw in old browsers */ }
        onStatus && onStatus(false);
        setTimeout(connect, delay); delay = Math.min(delay * 2, 8000);
      }
      ws.onopen = () => { heard = Date.now(); delay = 500; onStatus && onStatus(true); };
      ws.onmessage = (m) => {
        heard = Date.now();
        try { const msg = JSON.parse(m.data); if (msg.type === "view") { onView(msg.view, fresh); fresh = false; } }
        catch (e) { console.error("bad message", e); }
      };
      ws.onclose = lost;
      ws.onerror = lost;
    }
    connect();
  }

  // Draws the main line with the sidelines hanging under their cards.
  function drawLayout(view, target) {
    target.replaceChildren();
    const s = view.state || {};
    const white = new Set(s.white_markers || []);
    const black = new Set(s.black_markers || []);
    const prophetAt = s.prophet ? s.prophet.marker : null;
    const marks = (c) => c.laid ? { laid: c.laid, white: white.has(c.laid), black: black.has(c.laid), prophet: c.laid === prophetAt } : null;
    for (const col of view.layout || []) {
      const column = el("div", { class: "column" }, card(col.card, "", marks(col)));
      for (const entry of col.side || []) {
        column.append(el("div", { class: "side-entry", title: entry.length > 1 ? "sequence" : "wrong card" },
          entry.map((c) => card(c.card, "small", marks(c)))));
      }
      target.append(column);
    }
  }

  // The card as the recognizer cut it from a frame (`frameUrl`: /api/frames/ID),
  // upright, along a read's corners [[x, y] × 4]: an <img> of class card-cut.
  function cardCut(frameUrl, corners) {
    return el("img", { class: "card-cut", alt: "the card as read", title: "the card as the recognizer saw it",
      src: frameUrl + "/card?corners=" + corners.map(([x, y]) => x + "," + y).join(",") });
  }

  // A stored time (UTC, ISO: 2026-11-28T22:26:56.123Z) in the browser's own time
  // zone, the table's: `localTime` gives 23:26:56 in Paris, `localDateTime`
  // 2026-11-28 23:26:56 (`ms`: with its milliseconds). Text that is not a time is
  // kept as it is.
  const pad = (n, w) => String(n).padStart(w || 2, "0");
  function parseTime(iso) {
    if (typeof iso !== "string" || !/^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(iso)) return null;
    // Stored times are UTC: one written without its zone is read as UTC too.
    const d = new Date(/(Z|[+-]\d\d:?\d\d)$/.test(iso) ? iso : iso + "Z");
    return d && !isNaN(d.getTime()) ? d : null;
  }
  function localTime(iso) {
    const d = parseTime(iso);
    return d ? pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds()) : String(iso || "");
  }
  function localDateTime(iso, ms) {
    const d = parseTime(iso);
    if (!d) return String(iso || "");
    return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " + localTime(iso) +
      (ms ? "." + pad(d.getMilliseconds(), 3) : "");
  }
  // The browser's offset from UTC at that time (now without one): "UTC+01:00".
  function zoneOffset(iso) {
    const d = parseTime(iso) || new Date();
    const minutes = -d.getTimezoneOffset(), a = Math.abs(minutes);
    return "UTC" + (minutes < 0 ? "−" : "+") + pad(Math.floor(a / 60)) + ":" + pad(a % 60);
  }
  // The zone's name where the browser knows it (Europe/Paris).
  function zoneName() {
    try { return Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { return ""; }
  }
  // A time's tooltip: the stored UTC time in full, and the zone it is shown in.
  function timeTitle(iso) {
    return parseTime(iso) ? iso + " (UTC); shown in this device's time, " + zoneOffset(iso) +
      (zoneName() ? " " + zoneName() : "") : "";
  }

  const variants = {};
  async function loadVariants() {
    try {
      const list = await api("GET", "/api/variants");
      await Promise.all(list.scripts.map((src) => new Promise((ok) => {
        const s = document.createElement("script"); s.src = src; s.onload = ok; s.onerror = ok; document.head.append(s);
      })));
    } catch (e) { console.warn("variant scripts not loaded", e); }
  }

  window.Eleusis = {
    el, card, cardCut, cardsText, api, live, drawLayout, token, loadVariants, variants,
    localTime, localDateTime, zoneOffset, zoneName, timeTitle,
    register(id, plugin) { variants[id] = plugin; },
    // A player's event from the table's screen (e.g. a Delphos prediction).
    tableEvent(event) { return api("POST", "/api/table/events", event); },
  };
})();
