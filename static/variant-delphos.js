// Delphos (variant "delphos", RULES.md section 7) on the table's screen: the accepted
// sequence and the rejected proposals under it are the shared layout; this panel
// adds the running scores, the prediction buttons for the player seated before the
// proposer, the pending prediction, how the last one fared, and the hints.
// State: view.state.delphos = {running, predictor, prediction, proposals, rejected,
// hints}. A prediction is posted as {"event":"predict","player":…,"says":…} to
// POST /api/table/events.
(function () {
  "use strict";
  const E = window.Eleusis;
  if (!E) return;
  let message = "";

  function predictButtons(s, d) {
    if (s.ended || !d.predictor || !s.turn) return null;
    const box = E.el("div", { class: "delphos-predict", id: "predict" },
      E.el("div", {}, E.el("b", {}, d.predictor), " may predict God's answer to ", E.el("b", {}, s.turn), "'s proposal:"));
    const send = (says) => async (ev) => {
      const buttons = box.querySelectorAll("button");
      buttons.forEach((b) => { b.disabled = true; });
      try {
        await E.tableEvent({ event: "predict", player: d.predictor, says });
        message = "";
      } catch (e) {
        message = e.message;
        buttons.forEach((b) => { b.disabled = false; });
        const err = box.querySelector(".error");
        if (err) err.textContent = message;
      }
      ev.preventDefault();
    };
    box.append(
      E.el("button", { id: "predict-accepted", onclick: send("accepted") }, "Accepted"), " ",
      E.el("button", { id: "predict-rejected", class: "secondary", onclick: send("rejected") }, "Rejected"),
      E.el("div", { class: "error" }, message));
    return box;
  }

  function lastPrediction(view) {
    const o = view.last && view.last.outcome;
    if (!o || !o.prediction) return null;
    const p = o.prediction;
    const changes = Object.entries(o.score_changes || {})
      .map(([n, v]) => n + " " + (v > 0 ? "+" + v : v)).join(", ");
    return E.el("div", { id: "last-prediction", class: p.right ? "ok" : "bad" },
      p.player + " predicted " + p.says + ": " + (p.right ? "right" : "wrong") + (changes ? " (" + changes + ")" : ""));
  }

  function render(view, layoutEl, panelEl) {
    const s = view.state || {};
    const d = s.delphos;
    if (!d) return false;
    const scores = E.el("table", { class: "grid", id: "running-scores" },
      E.el("tr", {}, E.el("th", {}, "player"), E.el("th", {}, "score"), E.el("th", {}, "")));
    for (const [name, score] of Object.entries(d.running || {})) {
      const tags = [];
      if (s.turn === name) tags.push("proposes");
      if (d.predictor === name) tags.push("may predict");
      if (d.prediction && d.prediction.player === name) tags.push("predicted " + d.prediction.says);
      scores.append(E.el("tr", { class: s.turn === name ? "turn" : "", "data-player": name },
        E.el("td", {}, name),
        E.el("td", { class: score < 0 ? "bad" : "" }, String(score)),
        E.el("td", {}, tags.join(", "))));
    }
    // Node.append would write "null" for a missing part: keep only the parts drawn.
    const parts = [
      E.el("style", {}, ".delphos-predict{margin:.6rem 0;font-size:1.2rem}.delphos-predict button{font-size:1.3rem;margin-top:.3rem}" +
        "#running-scores tr.turn td{color:var(--gold)}"),
      E.el("div", { class: "muted" }, d.proposals + (d.proposals === 1 ? " proposal, " : " proposals, ") + d.rejected + " rejected · any card may be proposed · negative scores become 0 when the round ends"),
      predictButtons(s, d),
      d.prediction ? E.el("div", { id: "pending-prediction" }, d.prediction.player + " predicts: " + d.prediction.says) : null,
      lastPrediction(view),
      scores,
      (d.hints || []).length ? E.el("div", { id: "hints" }, E.el("b", {}, "Hints (all players assented): "), d.hints.join(" · ")) : null,
    ];
    panelEl.append(...parts.filter((p) => p !== null && p !== undefined));
    // The accepted sequence with the rejected proposals under it: the shared layout.
    return false;
  }

  // Delphos has no hands, markers, prophet or stock (RULES.md section 7). A turn is
  // a proposal, which God accepts or rejects: the last play is told in those words
  // ("ACCEPTED ✓", "Bo proposes"), as the rest of the page tells it.
  E.register("delphos", {
    render,
    hides: ["markers-white", "markers-black", "prophet", "stock", "players-panel"],
    words: { right: "ACCEPTED ✓", wrong: "REJECTED ✗", plays: "proposes" },
  });
})();
