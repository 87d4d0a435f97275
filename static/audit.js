// The audit pages: /audit lists every round; /audit/GAME.ROUND shows one round and
// /audit/GAME every round of a game: each event with time, player, cards, the
// recognizer's reads and confidences, the frame, the verdict (explanations only
// after the reveal, or to God), penalties, corrections, the seal, and the game's
// hash-chain check. Both pages follow the table live: every view pushed on /ws
// (a play, a correction, a new round) reloads the list or the report.
(function () {
  "use strict";
  const E = window.Eleusis;
  const $ = (id) => document.getElementById(id);
  const tokenQ = E.token ? "?token=" + encodeURIComponent(E.token) : "";
  const id = decodeURIComponent(location.pathname.replace(/^\/audit\/?/, ""));
  const isGame = !!id && !id.includes(".");
  const game = id.split(".")[0];

  // A table cell named by its column: on a narrow screen the tables are reflowed,
  // one block per row, and each cell says which column it is (an empty one is left
  // out there).
  function cell(label, content, cls) {
    const parts = [].concat(content).filter((c) => c !== "" && c !== null && c !== undefined);
    const classes = [cls, parts.length ? "" : "blank"].filter(Boolean).join(" ");
    return E.el("td", { "data-label": label, class: classes || null }, parts.length ? E.el("div", {}, parts) : null);
  }
  // Things shown one after the other, a space between each two.
  const spaced = (list) => list.filter(Boolean).flatMap((x, i) => (i ? [" ", x] : [x]));

  // A stored time (UTC) in this device's time zone, the stored time in its tooltip;
  // the page says which zone that is (`zoneNote`).
  function timeCell(label, iso, ms) {
    const td = cell(label, E.localDateTime(iso, ms), "time");
    const title = E.timeTitle(iso);
    if (title) td.title = title;
    return td;
  }
  function zoneNote() {
    const name = E.zoneName();
    $("zone-note").textContent = "Times are this device's local time, " + E.zoneOffset() + (name ? " (" + name + ")" : "") +
      "; hover a time for the stored UTC time.";
  }

  async function list() {
    $("list-panel").hidden = false;
    const data = await E.api("GET", "/api/rounds");
    const t = $("rounds");
    t.replaceChildren(E.el("tr", {}, ["round", "variant", "God", "players", "started", "rule"].map((h) => E.el("th", {}, h))));
    if (!data.rounds.length) t.append(E.el("tr", {}, E.el("td", { colspan: 6 }, "No round recorded yet.")));
    for (const r of data.rounds) {
      t.append(E.el("tr", {},
        cell("round", [E.el("a", { href: "/audit/" + r.round + tokenQ }, r.round), " ",
          E.el("a", { href: "/audit/" + r.game + tokenQ, class: "muted", title: "every round of game " + r.game }, "(game " + r.game + ")")]),
        cell("variant", r.variant), cell("God", r.god), cell("players", r.players.join(", ")),
        timeCell("started", r.started, false),
        cell("rule", r.revealed ? "revealed" : "sealed")));
    }
  }

  // A recognizer's confidence in percent, whole, or with as many decimals as it
  // takes (up to six, then cut) for a confidence below 1 not to show as 100%: the
  // model's confirmation threshold is 0.999699, and 99.95% is below it. As the
  // audit's text report does (`0.9995`).
  function confidenceText(c) {
    for (let d = 0; d <= 6; d++) {
      const text = (c * 100).toFixed(d);
      if (c >= 1 || parseFloat(text) < 100) return text + "%";
    }
    return (Math.floor(c * 1e8) / 1e6).toFixed(6) + "%";
  }

  // A round's scores, players in seating order and God last.
  function scoresText(round) {
    const scores = round.scores || {};
    const names = round.players.concat([round.god]).filter((n) => scores[n] !== undefined);
    for (const n of Object.keys(scores)) if (!names.includes(n)) names.push(n);
    return names.map((n) => n + " " + scores[n]).join(", ");
  }

  function roundSection(round) {
    const head = E.el("section", { class: "panel round-head" },
      E.el("h2", {}, "Round " + round.round),
      E.el("div", {}, E.el("b", {}, round.variant + " · God " + round.god + " · players " + round.players.join(", "))),
      round.seal.state === "revealed"
        ? E.el("div", {}, "rule: ", E.el("code", {}, round.seal.rule), " · salt ", E.el("code", {}, round.seal.salt), " ",
            E.el("span", { class: round.seal.verified ? "ok" : "bad" }, round.seal.verified ? "✓ matches the commitment" : "✗ does not match the commitment"))
        : E.el("div", {}, "rule sealed; commitment ", E.el("code", {}, round.commitment)),
      round.scores ? E.el("div", {}, "scores: " + scoresText(round)) : "");
    const t = E.el("table", { class: "grid events reflow", "data-round": round.round });
    t.append(E.el("tr", {}, ["#", "time", "event", "player", "cards", "reads", "frame", "verdict", "explanation", "effects"].map((h) =>
      E.el("th", h === "time" ? { title: "this device's local time, " + E.zoneOffset() } : {}, h))));
    // A read as text, as God took it at the table (the status and card are the
    // table's), then any card a correction changed since. A card the camera found
    // but read no index on (glare, a hard shadow) has no read: God typed it.
    const readText = (r) => (r.read == null ? "no index read → " + r.card + " (typed by God)"
      : r.read + " " + confidenceText(r.confidence) + " " + (r.status === "corrected" ? "→ " + r.card + " (corrected)" : "(confirmed)"))
      + (r.corrected_later_to ? ", since corrected to " + r.corrected_later_to + " by " + (r.corrected_later_by || []).join(", ") : "");
    for (const ev of round.events) {
      // Each read as text, and where the evidence gives the card's outline, the card
      // as the recognizer cut it from the frame.
      const reads = (ev.reads || []).map((r) => E.el("div", { class: "audit-read" },
        r.corners && ev.frame && ev.frame.sha256 ? E.cardCut("/api/frames/" + ev.frame.sha256, r.corners) : "",
        readText(r)));
      // A correction changed how many cards the event holds: the reads no longer
      // pair with the cards one for one, and the page says so.
      if (ev.reads_note) reads.push(E.el("div", { class: "muted reads-note" }, ev.reads_note));
      const frame = ev.frame && ev.frame.sha256 ? E.el("a", { href: "/api/frames/" + ev.frame.sha256, target: "_blank" }, "frame") : "";
      const expl = ev.explanations_withheld ? E.el("span", { class: "muted" }, "withheld until the reveal") : (ev.explanations || []).join("; ");
      // A corrected event: by which correction, what it first recorded beside what
      // it records now ("cards: recorded 8S → corrected to 3S"), and when the
      // decision changed, what the table was told. A correction: what it corrects,
      // in words ("corrects 1.1:2: cards 8S → 3S").
      // A voided event did not happen: its row stays, struck through, with what the
      // table was told when it was recorded and the correction that voided it.
      const voided = ev.verdict === "void";
      const struck = (text) => voided && text ? E.el("span", { class: "void-struck" }, text) : text;
      const flags = [];
      if (voided) {
        if ((ev.corrected_by || []).length) flags.push(E.el("span", { class: "flag" }, "voided by " + ev.corrected_by.join(", ") + ": it did not happen"));
        if (ev.announced) flags.push(E.el("span", { class: "flag announced" }, "announced at the table: " + ev.announced));
      } else {
        if ((ev.corrected_by || []).length) flags.push(E.el("span", { class: "flag" }, "corrected by " + ev.corrected_by.join(", ")));
        for (const change of ev.recorded || []) flags.push(E.el("span", { class: "flag recorded" }, change.text));
        if (ev.announced) flags.push(E.el("span", { class: "flag announced" }, "changed by a correction; announced at the table: " + ev.announced));
      }
      // The verdicts table records another announcement than the log then decided:
      // no correction explains that (the CLI's words).
      if (ev.unexplained) flags.push(E.el("span", { class: "flag announced unexplained bad" },
        "CHANGED with no correction to explain it: " + (ev.verdicts_table || "the verdicts table was edited")));
      // A correction: what it corrects, in words, with the verdict; what it changed
      // when it was recorded (the decisions on the log just before it beside those
      // just after it: what the table was told then) is its effect. A line of
      // corrections (`also`) says that once, at its first; the others name it. The
      // CLI's words.
      const then = [];
      if (ev.correction) {
        const c = ev.correction;
        flags.push(E.el("span", { class: "correction" }, c.text || "corrects " + c.corrects));
        const me = round.round + ":" + ev.seq;
        const group = c.group || [];
        if (group.length && group[0] !== me) then.push(E.el("span", { class: "group-with" }, "given with " + group[0] + " on one line"));
        const changes = c.changed_then || [];
        if (changes.length) {
          const others = group.filter((m) => m !== me);
          then.push(E.el("span", { class: "changed-then" },
            "at the time" + (others.length ? ", with " + others.join(" and ") + "," : "") + " it changed " +
            changes.map((x) => x.text).join("; ")));
        }
      }
      const verdict = ev.verdict === "right" ? E.el("span", { class: "ok" }, "right") : ev.verdict === "wrong" ? E.el("span", { class: "bad" }, "wrong")
        : voided ? E.el("span", { class: "void-tag", title: "the event did not happen: a correction voided it" }, "void") : "";
      t.append(E.el("tr", { class: voided ? "void" : null },
        cell("#", ev.seq), timeCell("time", ev.time, true), cell("event", ev.event),
        cell("player", struck(ev.player || "")), cell("cards", struck((ev.cards || []).join(" "))),
        cell("reads", reads), cell("frame", frame),
        cell("verdict", spaced([verdict, ...flags])), cell("explanation", expl, "explain"),
        cell("effects", then.length ? spaced(then) : [].concat(ev.effects || [], ev.penalties || []).join("; "))));
    }
    return [head, E.el("section", { class: "panel events-panel" }, t)];
  }

  async function report() {
    $("title").textContent = isGame ? "game " + id : "round " + id;
    document.title = "Eleusis — audit of " + $("title").textContent;
    const rep = await E.api("GET", "/api/audit/" + encodeURIComponent(id));
    $("report").hidden = false;
    // A game: every round. A round: that round (the report holds only it).
    const rounds = isGame ? rep.rounds : rep.rounds.filter((r) => r.round === id);
    const chain = rep.chain.ok
      // A round's audit checks the chain up to that round, not the whole game's.
      ? E.el("span", { class: "ok", id: "chain" }, "✓ hash chain of game " + rep.game + " intact" + (isGame ? "" : " up to round " + id) + " (" + rep.chain.events + " events)")
      : E.el("span", { class: "bad", id: "chain" }, "✗ hash chain of game " + rep.game + " broken at " + rep.chain.broken_at.round + " event " + rep.chain.broken_at.seq + ": " + rep.chain.broken_at.reason);
    const refused = rep.exports_refused || (rep.chain.ok ? "" : "the hash chain is broken");
    $("summary").replaceChildren(
      isGame ? E.el("div", {}, E.el("b", {}, "Game " + rep.game + " · " + rounds.length + (rounds.length === 1 ? " round" : " rounds"))) : "",
      E.el("div", {}, chain),
      rep.problems.length ? E.el("div", { class: "bad" }, "problems: " + rep.problems.join("; ")) : "",
      // Exports of a game that does not check are refused: say so instead of
      // offering links that would only fail.
      E.el("div", { id: "exports" },
        refused
          ? E.el("span", { class: "bad exports-refused" }, "no exports: " + refused)
          : [E.el("a", { href: "/api/export/" + id + "/log" + tokenQ }, "export the table log"), " · ",
            E.el("a", { href: "/api/export/" + game + "/scores?format=html" }, "score sheet"), " (",
            E.el("a", { href: "/api/export/" + game + "/scores?format=csv" }, "csv"), ")"],
        isGame ? "" : [" · ", E.el("a", { href: "/audit/" + game + tokenQ }, "the whole game")]));
    $("rounds-report").replaceChildren(...rounds.flatMap(roundSection));
    if (!rounds.length) $("rounds-report").append(E.el("div", { class: "muted" }, "Nothing recorded for " + id + "."));
  }

  // Reloads once per pushed view, never two loads at once (a burst of views ends
  // with one more load after the last).
  zoneNote();
  const show = id ? report : list;
  let loading = null, again = false;
  function reload() {
    if (loading) { again = true; return; }
    loading = show()
      .then(() => { $("error").textContent = ""; })
      .catch((e) => { $("error").textContent = e.message; })
      .finally(() => {
        loading = null;
        document.body.dataset.loaded = String(Number(document.body.dataset.loaded || 0) + 1);
        if (again) { again = false; reload(); }
      });
  }
  reload();
  // Every view, the first of each connection included: something may have been
  // recorded between the first load and the connection, or while it was down.
  E.live(() => reload(), (up) => {
    const c = $("conn");
    c.className = "conn " + (up ? "up" : "down");
    c.textContent = up ? "live" : "reconnecting…";
  }, false);
})();
