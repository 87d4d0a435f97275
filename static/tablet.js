// The table's shared screen: everything the players may see, pushed live.
// It never shows the rule or the rule's explanations before the reveal (the
// public view does not carry them).
(function () {
  "use strict";
  const E = window.Eleusis;
  const $ = (id) => document.getElementById(id);
  let latest = 0;

  // A verdict in the words of the round's variant: Delphos's God accepts or
  // rejects a proposal (its plugin's `words`), the hand games' plays are right or wrong.
  const WORDS = { right: "RIGHT ✓", wrong: "WRONG ✗", plays: "plays" };
  let words = WORDS;
  const verdictWord = (right) => right === true ? words.right : right === false ? words.wrong : "no verdict";
  // "1 card", "3 cards": a count with its noun, singular for one.
  const counted = (n, one, many) => n + " " + (n === 1 ? one : many);

  // A correction that is the newest event: which event, what it now records, and
  // every play whose verdict it changed, with the new verdict and the one before.
  function describeCorrection(c, box, last) {
    correctionBody(c, box);
    // The cards the players must move: a penalty taken back or now owed.
    const hands = c.hands || [];
    if (hands.length) {
      box.append(E.el("ul", { id: "hand-changes" }, hands.map((h) => E.el("li", { "data-player": h.player },
        h.now > h.was
          ? h.player + " takes " + counted(h.now - h.was, "card", "cards") + " (hand " + h.was + " → " + h.now + ")"
          : h.player + " gives back " + counted(h.was - h.now, "card", "cards") + " (hand " + h.was + " → " + h.now + ")"))));
    }
    // The newest play stays in sight under the correction.
    if (last && (last.event === "play" || last.event === "no_play")) {
      box.append(E.el("div", { class: "effect", id: "last-play" },
        "last play: " + (last.player || "") + " " +
        (last.event === "no_play" ? "declares no play" : (last.cards || []).join(" ")) + " — " + verdictWord(last.right)));
    }
  }

  // "Bo's 7S", "Bo's no play", "Bo's prophet declaration": an event in words.
  function eventWords(p) {
    const who = p.player ? p.player + "'s " : "";
    if (p.kind === "no_play") return who + "no play";
    if (p.kind === "prophet") return who + "prophet declaration";
    return who + (Array.isArray(p.cards) && p.cards.length ? p.cards.join(" ") : (p.kind || "event").replace(/_/g, " "));
  }

  function correctionBody(c, box) {
    const t = c.target || {};
    const fields = c.fields || {};
    if ("void" in fields) {
      // A void: the event did not happen (its penalty is taken back: the hands say
      // who gives cards back), or it did after all (its void taken back).
      const voided = fields.void === true;
      box.append(E.el("div", { class: "verdict correction", id: "verdict" }, voided ? "VOIDED" : "CORRECTION"));
      box.append(E.el("div", { id: "last-text" }, voided
        ? t.event + " voided: " + eventWords(t) + " did not happen"
        : "God takes back the void of " + t.event + ": " + eventWords(t) + " happened after all"));
      if (Array.isArray(t.cards) && t.kind === "play") {
        box.append(E.el("div", { id: "last-cards", class: voided ? "void-struck" : null }, t.cards.map((card) => E.card(card, "small"))));
      }
      box.append(E.el("div", { class: "effect", id: "void-verdict" }, voided
        ? (t.was === true || t.was === false ? "announced " + verdictWord(t.was) + "; now no verdict, no penalty" : "no verdict, no penalty")
        : "now " + verdictWord(t.right)));
    } else {
      box.append(E.el("div", { class: "verdict correction", id: "verdict" }, "CORRECTION"));
      box.append(E.el("div", { id: "last-text" },
        "God corrects " + t.event + (t.player ? " — " + t.player : "") +
        (t.cards && t.kind === "no_play" ? ", hand now" : t.cards ? ", now" : "")));
      if (Array.isArray(t.cards)) box.append(E.el("div", { id: "last-cards" }, t.cards.map((card) => E.card(card, "small"))));
    }
    // A line that corrected several events together (`also`): all of them.
    if (Array.isArray(c.group) && c.group.length > 1) {
      box.append(E.el("div", { class: "effect", id: "group" },
        "corrected together: " + c.group.map((g) => g.target).join(", ")));
    }
    for (const [field, value] of Object.entries(fields)) {
      if (field === "cards" || field === "hand" || field === "void") continue;
      box.append(E.el("div", { class: "effect" }, field.replace(/_/g, " ") + ": " +
        (value === null ? "removed" : Array.isArray(value) ? value.join(" ") : value)));
    }
    // The voided event itself is told above; the list holds the other events.
    const changed = (c.changed || []).filter((p) => !("void" in fields && p.event === t.event));
    if (!changed.length) { box.append(E.el("div", { class: "effect", id: "changed" }, "no " + ("void" in fields ? "other " : "") + "verdict changed")); return; }
    // A play whose card or placement changed but whose verdict did not is listed
    // too, as staying what it was: players must not read it as a reversed ruling.
    const voids = changed.filter((p) => p.void).length;
    const flipped = changed.filter((p) => !p.void && p.was !== p.right).length;
    const kept = changed.length - voids - flipped;
    const counts = [voids ? counted(voids, "event voided", "events voided") : "",
      flipped ? counted(flipped, "verdict changed", "verdicts changed") : voids ? "" : "no verdict changed"].filter(Boolean).join(", ");
    box.append(E.el("div", { class: "effect" },
      counts + (kept ? (flipped || voids ? ", " : "; ") + counted(kept, "play changed", "plays changed") + " without its verdict" : "") + ":"));
    box.append(E.el("ul", { id: "changed" }, changed.map((p) => {
      const now = (text) => E.el("b", { class: p.right === true ? "ok" : p.right === false ? "bad" : "" }, text);
      if (p.void) {
        return E.el("li", { "data-event": p.event, class: "void" },
          p.event + " ", E.el("span", { class: "void-struck" }, (p.player || "") + " " + (p.cards || []).join(" ")), ": ",
          E.el("b", { class: "void-tag" }, "void"), " — did not happen (was " + verdictWord(p.was) + ")");
      }
      return E.el("li", { "data-event": p.event },
        p.event + " " + (p.player || "") + " " + (p.cards || []).join(" ") + ": ",
        p.was !== p.right
          ? [now("now " + verdictWord(p.right)), " (was " + verdictWord(p.was) + ")"]
          : ["still ", now(verdictWord(p.right))]);
    })));
  }

  function describeLast(last, correction) {
    const box = $("last");
    box.replaceChildren();
    if (correction) { describeCorrection(correction, box, last); return; }
    if (!last) { box.textContent = "—"; return; }
    const o = last.outcome || {};
    const who = last.player || "";
    if (last.event === "play" || last.event === "no_play") {
      const right = last.right === true;
      box.append(E.el("div", { class: "verdict " + (right ? "right" : "wrong"), id: "verdict" }, verdictWord(right)));
      const what = last.event === "no_play" ? who + " declares no play" :
        who + " " + words.plays + ((last.cards || []).length > 1 ? " a sequence" : "");
      box.append(E.el("div", { id: "last-text" }, what));
      if (last.event === "play") box.append(E.el("div", { id: "last-cards" }, (last.cards || []).map((c) => E.card(c, "small"))));
    } else if (last.event === "prophet") {
      box.append(E.el("div", { class: "verdict", id: "verdict" }, "PROPHET"), E.el("div", {}, who + " is the Prophet"));
    } else if (last.event === "end_game") {
      box.append(E.el("div", { class: "verdict", id: "verdict" }, "GAME OVER"));
    } else {
      box.append(E.el("div", { id: "last-text" }, last.event));
    }
    const effects = [];
    if (o.prophet_call) effects.push("prophet " + o.prophet_call.prophet + " said " + o.prophet_call.said + ", God " + (o.prophet_call.confirmed ? "confirms" : "contradicts"));
    if (o.pick) effects.push(o.pick.by + " takes " + o.pick.card);
    for (const p of o.penalties || []) effects.push(p.player + " takes " + counted(p.cards, "penalty card", "penalty cards"));
    if (o.covered) effects.push("covered by the false prophet: no penalty");
    if (o.overthrown) effects.push("false prophet " + o.overthrown + " overthrown");
    if (o.new_hand) effects.push("new hand of " + o.new_hand);
    for (const n of o.eliminated || []) effects.push(n + " is eliminated");
    for (const ph of o.phases || []) effects.push(ph);
    if (o.round_end) effects.push("round ends: " + o.round_end.reason);
    if (last.corrected) effects.push("corrected by God");
    // What the referee noted (a shown hand that differs from the count, a deck
    // added, a card seen more often than the decks hold): the table must know
    // why the counts moved. Nothing of the rule is among them before the reveal.
    for (const w of o.warnings || []) effects.push("note: " + w);
    for (const e of effects) box.append(E.el("div", { class: "effect" }, e));
  }

  // The names of a tally (hands, scores, totals) in seating order, God last, then
  // anyone else it holds (a player of an earlier round): a JSON object's key order
  // is not to be relied on (a name that is a number would come first).
  function seated(s, ...tallies) {
    const names = [];
    const add = (n) => { if (n && !names.includes(n)) names.push(n); };
    const held = new Set(tallies.flatMap((t) => Object.keys(t || {})));
    for (const n of s.players || []) if (held.has(n)) add(n);
    if (held.has(s.god)) add(s.god);
    for (const t of tallies) for (const n of Object.keys(t || {})) add(n);
    return names;
  }

  // A name that may be long, cut with an ellipsis by the page's style; the whole
  // name in its title.
  const nameCell = (name) => E.el("td", { class: "name", title: name }, name);

  // Smaller cards while the layout does not fit its box: a long main line, or long
  // sidelines under a short one, stays whole on the screen, read from across the
  // table where nobody scrolls. A main line of more than 22 cards starts compact.
  function fitLayout(long) {
    const layout = $("layout"), wrap = $("layout-scroll");
    for (const size of long ? ["compact", "dense"] : ["", "compact", "dense"]) {
      layout.classList.toggle("compact", size === "compact");
      layout.classList.toggle("dense", size === "dense");
      if (wrap.scrollHeight <= wrap.clientHeight + 1) return;
    }
  }

  // Keeps the newest laid card in view in the layout's own scroll box (never
  // scrolling the page), when a card was laid since the last view. The banners
  // stand above that box, whole, however far it scrolls.
  let newestShown = null;
  function showNewest() {
    const wrap = $("layout-scroll");
    let newest = null, at = -1;
    for (const node of $("layout").querySelectorAll(".card")) {
      const laid = node.querySelector(".laid");
      const n = laid ? Number(laid.textContent) : 0;
      if (n >= at) { at = n; newest = node; }
    }
    const key = $("layout").childElementCount + ":" + at;
    if (!newest || key === newestShown) return;
    newestShown = key;
    const box = wrap.getBoundingClientRect(), card = newest.getBoundingClientRect();
    if (card.bottom > box.bottom) wrap.scrollTop += card.bottom - box.bottom + 12;
    else if (card.top < box.top) wrap.scrollTop -= box.top - card.top + 12;
  }

  // On a landscape screen the side column is one box of the screen's height: the
  // players' hand counts stay whole in it. A long last play (a correction, the
  // referee's notes) is bounded and scrolls in its own box, its verdict on top,
  // rather than pushing the players below the screen; it keeps at least its
  // verdict and a line under it in sight. Where even that leaves the players out
  // of sight (the scores above them once the round is over), the side column
  // scrolls as a whole instead.
  function fitSide() {
    const aside = document.querySelector("aside"), last = $("last-panel"), players = $("players-panel");
    last.style.maxHeight = "";
    last.classList.remove("bounded");
    const box = aside.getBoundingClientRect();
    // On a phone the side column is no box of its own (it has no height).
    if (!box.height || players.hidden) return;
    const end = players.getBoundingClientRect().bottom - box.top + aside.scrollTop;
    const over = end - aside.clientHeight;
    if (over <= 0) return;
    const rem = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
    const height = last.getBoundingClientRect().height;
    const bounded = height - over;
    if (bounded < 8.5 * rem) return;
    last.style.maxHeight = Math.floor(bounded) + "px";
    last.classList.add("bounded");
    last.scrollTop = 0;
  }
  window.addEventListener("resize", fitSide);

  // Once the round (or the game) is over, its scores come before the last play and
  // the players (the page's style), and the side column is scrolled to show them,
  // once, when it ends: read from across the table, nobody scrolls.
  let overShown = null;
  function showScores(over, round) {
    document.body.classList.toggle("round-over", over);
    // The side column in its order of now, before it is scrolled.
    fitSide();
    if (!over) { overShown = null; return; }
    if (overShown === round) return;
    overShown = round;
    const aside = document.querySelector("aside");
    const box = aside.getBoundingClientRect(), panel = $("scores-panel").getBoundingClientRect();
    // On a phone the side column is no box of its own (it has no height): the
    // scores follow whose turn it is on the page.
    if (!box.height) return;
    if (panel.top < box.top) aside.scrollTop -= box.top - panel.top;
    else if (panel.bottom > box.bottom) aside.scrollTop += Math.min(panel.bottom - box.bottom + 8, panel.top - box.top);
  }

  function render(view, fresh) {
    if (!fresh && view.version < latest) return;
    latest = view.version;
    // Once the round or the game has ended the state names nobody's turn (the
    // referee's `turn: null`, also when God ended the game mid-round).
    const s = view.state || {};
    const started = !!view.round;
    $("empty").hidden = started;
    $("round-meta").textContent = started
      ? "round " + view.round + " · " + s.variant + " · God: " + (s.god || "?") + (s.hint ? " · hint: " + s.hint : "")
      : "waiting for a round";
    const seal = $("seal");
    seal.replaceChildren();
    if (view.seal) {
      const r = view.seal.revealed;
      if (r) {
        seal.append(E.el("b", {}, "Rule revealed: "), E.el("span", { id: "rule" }, r.rule), "  ",
          E.el("b", {}, " salt "), r.salt, " ",
          E.el("span", { class: r.verified ? "ok" : "bad" }, r.verified ? "✓ matches the commitment" : "✗ does NOT match the commitment"));
      } else {
        seal.append(E.el("b", {}, "Sealed rule, commitment: "), E.el("span", { id: "commitment" }, view.seal.commitment));
      }
    }
    // The service stopped recording (its database was altered outside it): plays
    // made now are not recorded, which the players must know as well as God.
    $("alarm").hidden = !view.alarm;
    $("alarm").textContent = view.alarm ? "⚠ recording stopped: " + view.alarm : "";
    const banners = $("banners");
    banners.replaceChildren();
    if (s.sudden_death) banners.append(E.el("div", { class: "banner death", id: "sudden-death" }, "SUDDEN DEATH — a wrong play eliminates"));
    if (view.stock_warning) banners.append(E.el("div", { class: "banner stock", id: "stock-banner" }, view.stock_warning));
    if (s.ended) banners.append(E.el("div", { class: "banner over" }, "Round over" + (s.end_reason ? ": " + s.end_reason : "")));
    if (view.game_over) banners.append(E.el("div", { class: "banner over" }, "The game has ended"));

    const plugin = E.variants[s.variant];
    words = Object.assign({}, WORDS, (plugin && plugin.words) || {});
    let drawn = false;
    $("variant-panel").replaceChildren();
    if (plugin && plugin.render) {
      try { drawn = plugin.render(view, $("layout"), $("variant-panel")) === true; }
      catch (e) { console.error("variant renderer failed", e); }
    }
    // What the variant has no use for (markers, a prophet, a stock, hands its own
    // panel shows) is not shown as empty counts.
    const hides = new Set((plugin && plugin.hides) || []);
    for (const id of ["markers-white", "markers-black", "prophet", "stock", "players-panel"]) $(id).hidden = hides.has(id);
    if (!drawn) E.drawLayout(view, $("layout"));
    fitLayout((view.layout || []).length > 22);
    showNewest();

    $("turn").textContent = s.turn || (view.game_over ? "game over" : s.ended ? "round over" : "—");
    $("turn").title = s.turn || "";
    $("laid").textContent = s.laid || 0;
    $("whites").textContent = (s.white_markers || []).length;
    $("blacks").textContent = (s.black_markers || []).length;
    $("prophet").textContent = s.prophet ? "Prophet: " + s.prophet.player + " (marker on laid card " + s.prophet.marker + ")" : "No prophet";
    $("stock").textContent = started ? "stock " + counted(s.stock, "card", "cards") + " · " + counted(s.decks, "deck", "decks") : "";
    describeLast(view.last, view.correction);

    const players = $("players");
    players.replaceChildren(E.el("tr", {}, E.el("th", {}, "player"), E.el("th", {}, "cards"), E.el("th", {}, "")));
    const out = new Set(s.eliminated || []);
    const hands = s.hands || {};
    players.classList.toggle("many", Object.keys(hands).length > 8);
    for (const name of seated(s, hands)) {
      const count = hands[name];
      const tags = [];
      if (s.prophet && s.prophet.player === name) tags.push("prophet");
      if (out.has(name)) tags.push("eliminated");
      if (s.turn === name) tags.push("to play");
      players.append(E.el("tr", { class: (s.turn === name ? "turn" : "") + (out.has(name) ? " out" : "") },
        nameCell(name), E.el("td", {}, count), E.el("td", {}, tags.join(", "))));
    }
    // Standings from the first finished round on (totals wait for a second).
    const scores = s.scores, totals = s.game && (s.game.totals || s.game.standings);
    $("scores-panel").hidden = !scores && !totals;
    const table = $("scores");
    table.replaceChildren();
    if (scores || totals) {
      table.append(E.el("tr", {}, E.el("th", {}, ""), E.el("th", {}, "round"), E.el("th", {}, "game")));
      const names = seated(s, totals, scores);
      table.classList.toggle("many", names.length > 8);
      for (const n of names) {
        table.append(E.el("tr", {}, nameCell(n),
          E.el("td", {}, scores && scores[n] !== undefined ? scores[n] : ""),
          E.el("td", {}, totals && totals[n] !== undefined ? totals[n] : "")));
      }
    }
    showScores(started && (!!s.ended || !!view.game_over) && (!!scores || !!totals), view.round);
    document.body.dataset.version = view.version;
  }

  E.loadVariants().then(() => {
    E.live(render, (up) => {
      const c = $("conn");
      c.className = "conn " + (up ? "up" : "down");
      c.textContent = up ? "live" : "reconnecting…";
    }, false);
  });
})();
