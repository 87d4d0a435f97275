// The original Eleusis of 1959 (variant "eleusis-1959", RULES.md section 6) on the
// table's screen: the pile is the shared layout (the starter and every accepted
// card); this panel adds the stage, the deal of the game, the dealer's score and,
// before each player, his wrong cards face up, as 004 lays them out.
// State: view.state.eleusis_1959 = {stage, dealer, hand_size, removed, wrong_cards,
// wrong_counts, dealer_score, deal, deals, game_complete}.
(function () {
  "use strict";
  const E = window.Eleusis;
  if (!E) return;

  function stageText(o) {
    return o.stage === 1
      ? "Stage 1 — play from your hand; a wrong card stays face up before you"
      : "Stage 2 — play from your wrong cards; a wrong one comes back to you";
  }

  function render(view, layoutEl, panelEl) {
    const s = view.state || {};
    const o = s.eleusis_1959;
    if (!o) return false;
    const head = E.el("div", { class: "v1959-head" },
      E.el("div", { class: "v1959-stage", id: "stage", "data-stage": o.stage }, stageText(o)),
      E.el("div", { class: "muted" },
        "deal " + o.deal + " of " + o.deals + " · dealer " + o.dealer + " · " +
        o.hand_size + " cards each, " + o.removed + " set aside unseen"),
      o.dealer_score === null || o.dealer_score === undefined ? null :
        E.el("div", { id: "dealer-score" }, "Dealer's score after stage 1: ", E.el("b", {}, o.dealer_score)),
      o.game_complete ? E.el("div", { class: "banner over" }, "Everyone has dealt twice: the game is complete") : null);

    const rows = E.el("table", { class: "grid", id: "wrong-cards" },
      E.el("tr", {}, E.el("th", {}, "player"), E.el("th", {}, "in hand"), E.el("th", {}, "wrong cards"), E.el("th", {}, "")));
    const hands = s.hands || {};
    for (const name of s.players || []) {
      const wrong = (o.wrong_cards || {})[name] || [];
      const turn = s.turn === name;
      rows.append(E.el("tr", { class: turn ? "turn" : "", "data-player": name },
        E.el("td", {}, name),
        E.el("td", {}, o.stage === 1 ? String(hands[name] || 0) : "—"),
        E.el("td", {}, E.el("div", { class: "v1959-row" },
          wrong.length ? wrong.map((c) => E.card(c, "tiny")) : E.el("span", { class: "muted" }, "none")),
          E.el("div", { class: "muted" }, wrong.length + " card" + (wrong.length === 1 ? "" : "s"))),
        E.el("td", {}, turn ? "to play" : "")));
    }
    panelEl.append(
      E.el("style", {}, ".v1959-stage{font-size:1.3rem;font-weight:700;margin:.6rem 0 .2rem}" +
        ".v1959-row{display:flex;flex-wrap:wrap;gap:.2rem}#wrong-cards tr.turn td{color:var(--gold)}"),
      head, rows);
    // The pile is a single line: the shared layout draws it.
    return false;
  }

  // No markers, prophet or stock in 1959; the hands are in this panel's table.
  E.register("eleusis-1959", { render, hides: ["markers-white", "markers-black", "prophet", "stock", "players-panel"] });
})();
