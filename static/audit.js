// The audit pages: /audit lists every round; /audit/GAME.ROUND shows each event
// with time, player, cards, the recognizer's reads and confidences, the frame,
// the verdict (explanations only after the reveal, or to God), penalties,
// corrections, the seal and the hash-chain check.
(function () {
  "use strict";
  const E = window.Eleusis;
  const $ = (id) => document.getElementById(id);
  const tokenQ = E.token ? "?token=" + encodeURIComponent(E.token) : "";
  const id = decodeURIComponent(location.pathname.replace(/^\/audit\/?/, ""));

  async function list() {
    $("list-panel").hidden = false;
    const data = await E.api("GET", "/api/rounds");
    const t = $("rounds");
    t.replaceChildren(E.el("tr", {}, ["round", "variant", "God", "players", "started", "rule"].map((h) => E.el("th", {}, h))));
    if (!data.rounds.length) t.append(E.el("tr", {}, E.el("td", { colspan: 6 }, "No round recorded yet.")));
    for (const r of data.rounds) {
      t.append(E.el("tr", {},
        E.el("td", {}, E.el("a", { href: "/audit/" + r.round + tokenQ }, r.round)),
        E.el("td", {}, r.variant), E.el("td", {}, r.god), E.el("td", {}, r.players.join(", ")),
        E.el("td", {}, r.started.replace("T", " ").slice(0, 19)),
        E.el("td", {}, r.revealed ? "revealed" : "sealed")));
    }
  }

  async function report() {
    $("title").textContent = "round " + id;
    const rep = await E.api("GET", "/api/audit/" + encodeURIComponent(id));
    $("report").hidden = false;
    const round = rep.rounds.find((r) => r.round === id) || rep.rounds[rep.rounds.length - 1];
    const game = id.split(".")[0];
    const sum = $("summary");
    const chain = rep.chain.ok
      ? E.el("span", { class: "ok", id: "chain" }, "✓ hash chain intact (" + rep.chain.events + " events)")
      : E.el("span", { class: "bad", id: "chain" }, "✗ hash chain broken at " + rep.chain.broken_at.round + " event " + rep.chain.broken_at.seq + ": " + rep.chain.broken_at.reason);
    sum.replaceChildren(
      E.el("div", {}, E.el("b", {}, round ? round.variant + " · God " + round.god + " · players " + round.players.join(", ") : "")),
      E.el("div", {}, chain),
      round && round.seal.state === "revealed"
        ? E.el("div", {}, "rule: ", E.el("code", {}, round.seal.rule), " · salt ", E.el("code", {}, round.seal.salt), " ",
            E.el("span", { class: round.seal.verified ? "ok" : "bad" }, round.seal.verified ? "✓ matches the commitment" : "✗ does not match the commitment"))
        : E.el("div", {}, "rule sealed; commitment ", E.el("code", {}, round ? round.commitment : "")),
      rep.problems.length ? E.el("div", { class: "bad" }, "problems: " + rep.problems.join("; ")) : "",
      round && round.scores ? E.el("div", {}, "scores: " + Object.entries(round.scores).map(([n, s]) => n + " " + s).join(", ")) : "",
      E.el("div", {}, E.el("a", { href: "/api/export/" + id + "/log" + tokenQ }, "export the table log"), " · ",
        E.el("a", { href: "/api/export/" + game + "/scores?format=html" }, "score sheet"), " (",
        E.el("a", { href: "/api/export/" + game + "/scores?format=csv" }, "csv"), ")"));
    const t = $("events");
    t.replaceChildren(E.el("tr", {}, ["#", "time", "event", "player", "cards", "reads", "frame", "verdict", "explanation", "effects"].map((h) => E.el("th", {}, h))));
    for (const ev of round ? round.events : []) {
      // Each read as text, and where the evidence gives the card's outline, the card
      // as the recognizer cut it from the frame.
      const reads = (ev.reads || []).map((r) => E.el("div", { class: "audit-read" },
        r.corners && ev.frame && ev.frame.sha256 ? E.cardCut("/api/frames/" + ev.frame.sha256, r.corners) : "",
        r.read + " " + Math.round(r.confidence * 100) + "% " + (r.status === "corrected" ? "→ " + r.card + " (corrected)" : "(confirmed)")));
      const frame = ev.frame && ev.frame.sha256 ? E.el("a", { href: "/api/frames/" + ev.frame.sha256, target: "_blank" }, "frame") : "";
      const expl = ev.explanations_withheld ? E.el("span", { class: "muted" }, "withheld until the reveal") : (ev.explanations || []).join("; ");
      const flags = [];
      if ((ev.corrected_by || []).length) flags.push(E.el("span", { class: "flag" }, "corrected by " + ev.corrected_by.join(", ")));
      if (ev.changed) flags.push(E.el("span", { class: "flag" }, "changed; announced: " + (ev.announced || "")));
      if (ev.correction) flags.push(E.el("code", {}, JSON.stringify(ev.correction)));
      const verdict = ev.verdict === "right" ? E.el("span", { class: "ok" }, "right") : ev.verdict === "wrong" ? E.el("span", { class: "bad" }, "wrong") : "";
      t.append(E.el("tr", {},
        E.el("td", {}, ev.seq), E.el("td", {}, ev.time.replace("T", " ").slice(0, 23)), E.el("td", {}, ev.event),
        E.el("td", {}, ev.player || ""), E.el("td", {}, (ev.cards || []).join(" ")), E.el("td", {}, reads), E.el("td", {}, frame),
        E.el("td", {}, verdict, " ", flags), E.el("td", { class: "explain" }, expl),
        E.el("td", {}, [].concat(ev.effects || [], ev.penalties || []).join("; "))));
    }
  }

  (id ? report() : list()).catch((e) => { $("error").textContent = e.message; });
})();
