// God's console: start rounds with a checked rule, enter plays (typed or read by
// the camera, confirmed by God), see every verdict with its explanation, correct
// a misread card or a wrong call, end the game. Every action goes through the API;
// the referee decides, this page only shows.
(function () {
  "use strict";
  const E = window.Eleusis;
  const $ = (id) => document.getElementById(id);
  let view = null;
  let evidence = null; // {frame, reads:[{read, confidence}]} for the next play
  let frameReply = null;
  let filledCards = null; // the cards field as the reads last filled it

  const words = (text) => (text || "").split(/[\s,]+/).filter(Boolean);
  // A suit letter as the recognizer gives it (`pips_say`), as a sign and in words.
  const SUIT_SIGNS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };

  // --- rule checking as God types ---
  let checkTimer = null, checkSeq = 0;
  // The last rule checked and its parse error (null: it parses), for the start form.
  let checked = null;
  $("rule").addEventListener("input", () => {
    clearTimeout(checkTimer);
    checkTimer = setTimeout(checkRule, 450);
  });
  async function checkRule() {
    const rule = $("rule").value;
    const box = $("check");
    if (!rule.trim()) { box.textContent = "Type the rule: it is checked as you type."; return; }
    const seq = ++checkSeq;
    box.textContent = "checking…";
    try {
      let r, tooLong = null;
      try {
        r = await E.api("POST", "/api/rule/check", { rule });
      } catch (e) {
        // A rule too long to analyse as God types: parsed only, and said so.
        if (e.status !== 413) throw e;
        tooLong = e.data && e.data.error ? e.data.error : e.message;
        r = await E.api("POST", "/api/rule/check", { rule, analyse: false });
      }
      if (seq !== checkSeq) return;
      checked = { rule, error: r.ok ? null : "line " + r.error.line + ", column " + r.error.column + ": " + r.error.message };
      box.replaceChildren();
      if (r.ok && tooLong) {
        box.append(E.el("div", { class: "ok", id: "rule-ok" }, "✓ the rule parses"));
        box.append(E.el("div", { class: "error" }, "⚠ " + tooLong));
        return;
      }
      if (!r.ok) {
        box.append(E.el("div", { class: "error", id: "rule-error" },
          "line " + r.error.line + ", column " + r.error.column + ": " + r.error.message));
        return;
      }
      const rep = r.report, acc = rep.acceptance;
      checked.warnings = rep.warnings;
      box.append(E.el("div", { class: "ok", id: "rule-ok" }, "✓ the rule parses"));
      box.append(E.el("div", {}, "acceptance rate " + (acc.mean * 100).toFixed(1) + "% (5–95%: " +
        (acc.p5 * 100).toFixed(0) + "–" + (acc.p95 * 100).toFixed(0) + "%)"));
      box.append(E.el("div", {}, "dead ends: " + rep.dead_ends.found + " (" + rep.dead_ends.method + ", " + rep.dead_ends.searched + " searched)"));
      box.append(E.el("div", {}, "starters: " + rep.starters.length + " of 52 cards are acceptable on an empty line"));
      box.append(E.el("div", {}, "reads: " + rep.uses.join("; ")));
      if (rep.hints.length) {
        box.append(E.el("div", {}, "proven hints (click one to give it):"));
        // Each hint beside its bullet, a long one wrapping under its own start.
        box.append(E.el("ul", { class: "hints" }, rep.hints.map((h) =>
          E.el("li", {}, E.el("span", {}, E.el("button", { type: "button", class: "hint", onclick: () => { $("hint").value = h.text; } }, h.text), " (" + h.method + ")")))));
      }
      for (const w of rep.warnings) box.append(E.el("div", { class: "error" }, "⚠ " + w.text));
    } catch (e) { if (seq === checkSeq) box.replaceChildren(E.el("div", { class: "error" }, e.message)); }
  }

  // --- one action at a time ---
  // A double click, or Enter pressed twice, would send a play twice — the second
  // for the next player, who takes its penalty — or a correction twice (whose
  // second copy says "its verdict stands" and hides the one reversed). While an
  // action is on its way to the service the others are not sent.
  // A play the watcher laid meanwhile is taken up once the action is answered.
  // The action's buttons are disabled meanwhile, and until the live view shows
  // what the action did (at most VIEW_WAIT_MS): a second press made before then
  // would be made on the form as it was, and sent again (a play with the cards
  // field emptied, a prophet declared twice) — a false refusal.
  let acting = false, afterActing = null;
  const VIEW_WAIT_MS = 3000;
  let recorded = 0, viewCame = null; // the version the last answer gave; its view's waiter
  async function oneAtATime(work) {
    if (acting) return;
    acting = true;
    document.body.classList.add("acting");
    syncButtons();
    try {
      recorded = 0;
      await work();
      if (recorded && (!view || view.version < recorded)) {
        await new Promise((done) => { viewCame = done; setTimeout(done, VIEW_WAIT_MS); });
        viewCame = null;
      }
    } finally {
      acting = false; document.body.classList.remove("acting");
      // The view the press's recorded action ended on: a second press on it is the
      // same press. A refused action leaves none (God mends the form and presses again).
      lastPress.version = recorded && view ? view.version : null;
      lastPress.form = formNow();
      syncButtons();
      const next = afterActing; afterActing = null;
      if (next) next();
    }
  }
  // The version an answer says the action made: the action ends once the view has it.
  function answered(reply) { if (reply && reply.version) recorded = Math.max(recorded, reply.version); return reply; }
  // A double press: the same button pressed again within DOUBLE_PRESS_MS of the
  // press before, whose action was answered and shown in that time (a request on a
  // local network takes a few milliseconds), with nothing else shown since. It is
  // not sent a second time. A press after another device's event is God's own.
  const DOUBLE_PRESS_MS = 600;
  let lastPress = { id: null, at: -Infinity, version: null, form: null };
  // What a press of `id` would send: a press with other cards typed is another.
  const formNow = () => [$("cards").value, $("pick").value, $("call").value, prophetCandidate()].join("\n");
  function pressedTwice(id) {
    const now = performance.now(), version = view ? view.version : null;
    const twice = lastPress.id === id && now - lastPress.at < DOUBLE_PRESS_MS &&
      (acting || (version === lastPress.version && formNow() === lastPress.form));
    lastPress = twice ? Object.assign(lastPress, { at: now }) : { id, at: now, version: null, form: null };
    return twice;
  }
  // The Play panel's and the start form's buttons: disabled while an action is on
  // its way; Declare prophet also while no one has played yet in the round (the
  // Prophet declares himself right after a play of his own).
  const ACTION_BUTTONS = ["play", "noplay", "prophet", "end-round", "send-raw"];
  function syncButtons() {
    for (const id of ACTION_BUTTONS) $(id).disabled = acting;
    const who = prophetCandidate();
    if (!who) $("prophet").disabled = true;
    $("prophet").title = who ? "declare " + who + ", who played last, the Prophet" : "no one has played yet in this round";
    showStart();
  }
  // Who would be declared the Prophet: whoever made the round's last play.
  function prophetCandidate() {
    const last = view && view.round && !(view.state || {}).ended && view.last;
    return last && last.player && last.event === "play" ? last.player : "";
  }

  // --- starting a round ---
  $("start").addEventListener("click", () => oneAtATime(startRound));
  // A card as the referee reads one (src/cards.rs): a rank (A or 1, 2–9, 10 or T,
  // J, Q, K) and a suit (S H D C or a suit sign), in either case.
  function isCard(text) {
    const token = text.replace(/[\uFE0E\uFE0F]+$/, "");
    const chars = Array.from(token);
    if (chars.length < 2 || !"SHDCshdc♠♤♥♡♦♢♣♧".includes(chars[chars.length - 1])) return false;
    return /^(?:[AaTtJjQqKk1-9]|10)$/.test(chars.slice(0, -1).join(""));
  }
  // A name as the referee keeps it (src/referee/round.rs `name_form`: NFC, spaces
  // at its ends trimmed): names are matched exactly in that form.
  const nameForm = (n) => n.normalize("NFC").trim();
  // What two names of one round must not share (`alike_key`): the name without
  // joiners or variation selectors, in lower case.
  const alikeKey = (n) => nameForm(n.replace(/[\u200C\u200D\uFE00-\uFE0F]|\uDB40[\uDD00-\uDDEF]/g, "")).toLowerCase();
  // Without accents too (`loose_key`): what a name typed again for one person may
  // differ by (ana for Ana, Francois for François).
  const looseKey = (n) => alikeKey(n).normalize("NFD").replace(/\p{M}/gu, "");
  // What is missing or wrong in the start form, every field at once, each line
  // naming its field ("God: …"), with the field to go to first: a started round
  // cannot be undone, and the service would name only one field.
  function formProblems(body, handSize) {
    const out = [];
    const say = (id, text) => out.push({ id, text });
    if (!body.god) say("god", "God: empty — who plays God this round");
    const seen = new Set(), twice = [];
    for (const p of body.players) { if (seen.has(p) && !twice.includes(p)) twice.push(p); seen.add(p); }
    const others = body.players.filter((p) => p !== body.god);
    if (!body.players.length) say("players", "players: none — at least 2, clockwise from God's left, comma separated");
    else if (body.god && body.players.includes(body.god)) {
      say("players", "players: God (" + body.god + ") is among them — God does not play" +
        (new Set(others).size < 2 ? "; a round needs at least 2 players besides God" : ""));
    } else if (body.players.length < 2) say("players", "players: only " + body.players[0] + " — a round needs at least 2");
    if (twice.length) say("players", "players: " + twice.map((p) => "“" + p + "”").join(", ") + " listed twice");
    // Names that print alike (Ana and ana), God's among them: the referee refuses
    // them as it refuses a name listed twice.
    const alike = [], firstOf = new Map();
    for (const n of [body.god].concat(body.players).filter(Boolean)) {
      const k = alikeKey(n), first = firstOf.get(k);
      if (first === undefined) firstOf.set(k, n);
      else if (first !== n && !alike.some(([a, b]) => a === first && b === n)) alike.push([first, n]);
    }
    if (alike.length) {
      say(body.god && alike.some(([a, b]) => a === body.god || b === body.god) ? "god" : "players",
        "players: " + alike.map(([a, b]) => "“" + a + "” and “" + b + "”").join(", ") +
        (alike.length === 1 ? " are" : " are each") + " alike (they differ only in capitals, joiners or variation selectors) — give each person a name the table can tell apart");
    }
    if (!body.rule.trim()) say("rule", "rule: empty — type the secret rule");
    else if (checked && checked.rule === body.rule && checked.error) say("rule", "rule: " + checked.error);
    if (!body.starter) say("starter", "starter: empty — the card that begins the line, like 3H");
    else if (!isCard(body.starter)) say("starter", "starter: “" + body.starter + "” is not a card (a rank and a suit, like 10H or Q♠)");
    // A hand size that is not a number is refused here, not sent as nothing (the
    // variant's default).
    if (handSize && !/^[0-9]+$/.test(handSize)) {
      say("hand-size", "hand size: “" + handSize + "” is not a whole number of cards (leave it empty for the variant's default)");
    }
    return out;
  }
  // Between a round started and the view that shows it, the form is empty again
  // and Start would find nothing in it: a second press is not taken for a failed
  // one. While a round is in play the referee starts no other, and Start cannot be
  // pressed (the form may be filled for the next round meanwhile).
  let startSent = false;
  const roundInPlay = (v) => !!(v && v.round && !(v.state || {}).ended && !v.game_over);
  function showStart() {
    const playing = roundInPlay(view);
    if (playing) startSent = false;
    $("start").disabled = playing || startSent;
    $("start-note").textContent = playing
      ? "Round " + view.round + " is in play: the next round can be started once it ends."
      : startSent ? "Round started: the console is waiting for the table to show it." : "";
  }
  // What to ask God before a round starts: the starter that does not fit the rule
  // (the new-eleusis family keeps it, and the round cannot be taken back; RULES.md 2
  // lets God turn up another card), and the rule checker's grave warnings when its
  // analysis of this rule was not on screen yet (Start pressed as the rule was
  // typed). null: the rule does not parse (said in the form, nothing sent).
  let startConfirmed = null; // the form Start anyway was pressed for
  // The checker's warnings that say the round itself would go wrong (no card can
  // start it, a dead end, a deck run out, next to nothing accepted), not advice.
  const GRAVE = ["no-starter", "dead-end", "deck-runs-out", "accepts-nearly-nothing"];
  async function beforeStart(body) {
    const out = [];
    if (!checked || checked.rule !== body.rule) {
      clearTimeout(checkTimer);
      await checkRule();
      if (checked && checked.rule === body.rule) {
        if (checked.error) { $("start-error").textContent = "rule: " + checked.error; $("rule").focus(); return null; }
        for (const w of checked.warnings || []) {
          if (GRAVE.includes(w.id)) out.push({ what: "rule", text: "the rule checker warns: " + w.text });
        }
      }
    }
    try {
      const r = await E.api("POST", "/api/rule/check", { rule: body.rule, starter: body.starter, analyse: false });
      const fit = r && r.ok && r.starter;
      if (fit && fit.fits === false) {
        out.unshift({ what: "starter", text: fit.card + " does not fit your rule (" + fit.explanation + "). " +
          "RULES.md lets God turn up another card as the starter." });
      }
    } catch (e) { /* the service judges the starter when the round is sent */ }
    // Newcomers join the game in play unless "new game" is ticked: at its end each
    // gets the not-God bonus beside players of every round, so say who they are.
    const game = view && view.state && view.state.game;
    const known = game && !view.game_over ? Object.keys(game.standings || game.totals || {}) : [];
    if (!body.new_game && known.length) {
      // Matched exactly, as the referee matches them: "ana" is not the game's "Ana".
      const seen = new Set(known.map(nameForm));
      const fresh = [body.god].concat(body.players).filter((n) => !seen.has(nameForm(n)));
      if (fresh.length) {
        // One written like a participant's name but for case or accents is a slip
        // (the service refuses it): said first, with the name meant.
        const meant = fresh.map((n) => [n, known.find((k) => looseKey(k) === looseKey(n))]).filter(([, k]) => k);
        const slips = meant.map(([n, k]) => "“" + n + "” is not “" + k + "”: did you mean " + k + "? Names are matched exactly, so “" + n + "” would be another person, with a score of his own (the service refuses such a round). ");
        out.push({ what: "players", text: slips.join("") + fresh.join(", ") + (fresh.length === 1 ? " is" : " are") +
          " new to game " + view.game + ": this round joins that game (at its end everyone who has not been God gets 10 more, newcomers too). For a game of their own, end game " + view.game + " first (End the game) and tick \"new game\"." });
      }
    }
    return out;
  }
  // The question under Start (null: none): what does not fit, Start anyway, or
  // change the starter (the rule, when only the rule is in question).
  function askStart(asked, key) {
    const box = $("start-confirm");
    box.replaceChildren();
    box.hidden = !asked;
    if (!asked) return;
    const starter = asked.some((a) => a.what === "starter");
    const newcomers = !starter && asked.some((a) => a.what === "players");
    box.append(...asked.map((a) => E.el("div", { class: "ask" }, "⚠ " + a.text)),
      E.el("div", { class: "row" },
        E.el("button", { id: "start-anyway", class: "danger", onclick: () => { startConfirmed = key; oneAtATime(startRound); } }, "Start anyway"),
        E.el("button", { id: "start-change", class: "secondary", onclick: () => {
          askStart(null);
          const field = $(starter ? "starter" : newcomers ? "players" : "rule");
          field.focus(); if (field.select) field.select();
        } }, starter ? "Change the starter" : newcomers ? "Change the players" : "Change the rule")));
    $("start-anyway").focus();
  }
  // The question is about the form as it was: a change to it takes the question away.
  for (const id of ["rule", "starter", "variant", "god", "players"]) $(id).addEventListener("input", () => { startConfirmed = null; askStart(null); });
  $("new-game").addEventListener("change", () => { startConfirmed = null; askStart(null); });
  $("variant").addEventListener("change", () => { startConfirmed = null; askStart(null); });
  async function startRound() {
    if (roundInPlay(view) || startSent) { showStart(); return; }
    $("start-error").textContent = "";
    const body = {
      variant: $("variant").value, god: $("god").value.trim(),
      players: $("players").value.split(",").map((s) => s.trim()).filter(Boolean),
      rule: $("rule").value, starter: $("starter").value.trim(),
    };
    if ($("hint").value.trim()) body.hint = $("hint").value.trim();
    const handSize = $("hand-size").value.trim();
    const problems = formProblems(body, handSize);
    if (problems.length) {
      $("start-error").textContent = problems.map((p) => p.text).join("\n");
      $(problems[0].id).focus();
      return;
    }
    if (handSize) body.hand_size = Number(handSize);
    if ($("new-game").checked) body.new_game = true;
    // A started round cannot be undone: what God would want to know first is asked
    // here, before it is sent.
    const key = JSON.stringify([body.variant, body.rule, body.starter, body.god, body.players, !!body.new_game]);
    if (startConfirmed !== key) {
      const asked = await beforeStart(body);
      if (asked === null) return;
      if (asked.length) { askStart(asked, key); return; }
    }
    startConfirmed = null; askStart(null);
    try {
      const reply = await E.api("POST", "/api/rounds", body);
      // The view of the new round may have come before this answer.
      startSent = !(view && reply && view.version >= reply.version && roundInPlay(view));
      showStart();
      // What belonged to this round's rule goes with it: the next round's form
      // holds no hint or starter for another rule, and no check of it still on
      // its way fills the box again.
      clearTimeout(checkTimer); checkSeq++;
      for (const id of ["rule", "hint", "starter"]) $(id).value = "";
      $("check").textContent = ""; $("new-game").checked = false;
    } catch (e) {
      // Said as the round's refusal, with the field that holds the name it quotes
      // ("ana" is new to this game, but "Ana" is in it already: …) to go to.
      const quoted = (/^"([^"]*)"/.exec(e.message) || [])[1];
      $("start-error").textContent = (e.status ? "Round not started: " : "") + e.message;
      if (quoted && nameForm(quoted) === nameForm(body.god)) $("god").focus();
      else if (quoted && body.players.some((p) => nameForm(p) === nameForm(quoted))) $("players").focus();
    }
  }

  // --- plays ---
  // The player God chose for the next play ({round, name}; null: whose turn it
  // is). Every view redraws the list, and the choice holds through all of them (a
  // correction opened and cancelled, plays from another device): it goes only when
  // a play or no-play is recorded, when God chooses again, or when the player has
  // left the round, which God is told of — a play is never recorded for another
  // player than the one God chose without God seeing it.
  // Cards typed in the cards field (or a shown hand) are for the player the field
  // shows as they are typed: that player is held as one God chose (`typed`), so a
  // play entered on a screen the turn has since moved past — the same play entered
  // on another device and recorded there first — is sent for that player and
  // refused, not charged to whoever's turn it now is. Emptying the cards field lets
  // the typed hold go.
  let chosen = null;
  // The version of the view the last play recorded must reach: until it comes, the
  // turn shown is the one before that play, and cards typed then are held by the
  // turn of the view that shows it.
  let awaitVersion = 0, holdWhenFresh = false;
  $("player").addEventListener("change", () => {
    const name = $("player").value;
    chosen = name && view ? { round: view.round, name } : null;
    $("player-note").textContent = "";
    holdWhenFresh = false;
    showHeld();
  });
  function holdTyped() {
    if (!words($("cards").value).length) {
      holdWhenFresh = false;
      if (chosen && chosen.typed) { chosen = null; $("player").value = ""; }
      showHeld();
      return;
    }
    if (chosen || !roundInPlay(view) || !view.state.turn) return;
    if (view.version < awaitVersion) { holdWhenFresh = true; return; }
    holdWhenFresh = false;
    chosen = { round: view.round, name: view.state.turn, typed: true };
    $("player").value = chosen.name;
    showHeld();
  }
  $("cards").addEventListener("input", holdTyped);
  // Cards typed for a player whose turn has passed since: said before Play is pressed.
  function showHeld() {
    const s = (view && view.state) || {};
    const stale = chosen && chosen.typed && roundInPlay(view) && s.turn && s.turn !== chosen.name;
    $("held-note").textContent = stale
      ? "⚠ these cards were entered for " + chosen.name + ", whose turn it was; it is now " + s.turn + "'s turn. " +
        "If " + chosen.name + "'s play was recorded on another device, empty the cards field; to play them for " +
        s.turn + ", choose " + s.turn + "."
      : "";
  }
  // The player list: whose turn it is first, then the round's players in seating
  // order (the eliminated ones marked, and not to be chosen), God's choice kept.
  function drawPlayers(v) {
    const s = v.state || {}, sel = $("player");
    const out = new Set(s.eliminated || []);
    const inPlay = !!v.round && !s.ended && !v.game_over;
    // A round over or another round: there is no next play of that round to choose for.
    if (!inPlay || (chosen && chosen.round !== v.round)) { chosen = null; $("player-note").textContent = ""; }
    if (chosen && (!(s.players || []).includes(chosen.name) || out.has(chosen.name))) {
      $("player-note").textContent = "⚠ " + chosen.name + ", chosen for the next play, " +
        (out.has(chosen.name) ? "is eliminated" : "is no longer in the round") +
        ": the next play is for whose turn it is" + (s.turn ? " (" + s.turn + ")" : "") + " unless you choose another player";
      chosen = null;
    }
    sel.replaceChildren(E.el("option", { value: "" }, s.turn && !s.ended ? "(whose turn it is: " + s.turn + ")" : "(whose turn it is)"));
    for (const name of s.players || []) {
      sel.append(E.el("option", { value: name, disabled: out.has(name) },
        name + (name === s.turn ? " ← turn" : out.has(name) ? " (eliminated)" : "")));
    }
    sel.value = chosen ? chosen.name : "";
    if (holdWhenFresh && v.version >= awaitVersion) holdTyped();
    showHeld();
  }
  // The event the result box tells of ({round, seq, right, cards, void}), so that
  // a correction made since (on any console) is followed there: the box shows the
  // event as the live view has it, and says it was changed. `fromLog`: the box was
  // filled from the view (a console opened or reloaded mid-round), not by an action.
  let resultShown = null;
  const cardsKey = (p) => (Array.isArray(p.cards) ? p.cards : []).join(" ");
  const judged = (p) => p.right === true || p.right === false ? p.right : null;
  function trackResult(round, p, fromLog) {
    resultShown = p && p.seq !== undefined && p.seq !== null
      ? { round, seq: p.seq, right: judged(p), cards: cardsKey(p), void: !!p.void, fromLog: !!fromLog } : null;
    $("result").classList.toggle("from-log", !!fromLog);
  }
  // An event's words in the result box: a prophet's declaration in words that fit
  // whoever reads them (the referee's own line is about the player himself).
  function eventText(p) {
    const o = p.outcome || {};
    if (p.event === "prophet" && p.player) {
      const marker = o.prophet_declared && o.prophet_declared[1];
      return p.player + " is the Prophet" + (marker ? " (marker on laid card " + marker + ")" : "");
    }
    return p.text || "";
  }
  // Draws the result box from an event of the view (its verdict as it now stands).
  function drawEvent(p, note) {
    const box = $("result");
    box.replaceChildren(); box.classList.remove("stale");
    if (p.void) box.append(E.el("div", { class: "verdict void" }, "VOID"));
    else if (p.right === true || p.right === false) {
      box.append(E.el("div", { class: "verdict " + (p.right ? "right" : "wrong") }, p.right ? "RIGHT" : "WRONG"));
    }
    if (note) box.append(note);
    box.append(E.el("div", { class: "explain" }, eventText(p)));
  }
  // Called with each view: a console opened mid-round shows the round's last event;
  // an event shown whose verdict, cards or void a correction changed is shown again
  // as it now stands, saying so.
  function followResult(v) {
    const box = $("result"), round = v.round;
    const shownLast = !resultShown && !box.childElementCount;
    if (shownLast || (resultShown && resultShown.fromLog)) {
      // God's own action on its way: its answer shows the result in full, and the
      // view it made may come first (a one-line "last event" flashed, then replaced).
      if (acting) return;
      const last = v.last;
      const fits = last && round && ["play", "no_play", "prophet"].includes(last.event) && !(v.state || {}).ended;
      if (!fits) { if (resultShown) { box.replaceChildren(); trackResult(round, null); } return; }
      if (!resultShown || resultShown.seq !== last.seq || resultShown.round !== round || resultShown.right !== judged(last) ||
          resultShown.cards !== cardsKey(last) || resultShown.void !== !!last.void) {
        // One line: the log below tells the rest.
        const right = judged(last);
        const what = last.event === "prophet" ? eventText(last)
          : last.player + (last.event === "no_play" ? " shows a hand of " + (last.cards || []).length : " plays " + cardsKey(last));
        box.replaceChildren(E.el("div", { id: "result-from-log" }, E.el("span", { class: "muted" }, "last event: "),
          right === null ? "" : E.el("span", { class: "verdict inline " + (right ? "right" : "wrong") }, right ? "RIGHT" : "WRONG"),
          " " + what));
        box.classList.remove("stale");
        trackResult(round, last, true);
      }
      return;
    }
    const t = resultShown;
    if (!t || t.round !== round) return;
    const p = (v.plays || []).find((q) => q.seq === t.seq);
    if (!p || (judged(p) === t.right && cardsKey(p) === t.cards && !!p.void === t.void)) return;
    const was = [];
    if (!!p.void !== t.void) was.push(p.void ? "voided" : "its void taken back");
    if (judged(p) !== t.right && !p.void) was.push("was " + (t.right === true ? "RIGHT" : t.right === false ? "WRONG" : "not judged"));
    if (cardsKey(p) !== t.cards && t.cards) was.push("cards were " + t.cards);
    drawEvent(p, E.el("div", { class: "flag", id: "result-changed" },
      "⚠ event " + round + ":" + p.seq + " changed by a correction" + (was.length ? ": " + was.join(", ") : "")));
    trackResult(round, p);
  }
  function showResult(reply) {
    const box = $("result");
    box.replaceChildren(); box.classList.remove("stale");
    trackResult(null, null);
    // A correction's result is the corrected event's verdict, not the newest play's.
    const fix = reply.correction && reply.correction.target;
    const fields = (reply.correction && reply.correction.fields) || {};
    const fixRound = fix && typeof fix.event === "string" ? fix.event.split(":")[0] : null;
    if (fix && fix.seq !== undefined && "void" in fields) {
      showVoidResult(reply.correction, fields.void === true);
      trackResult(fixRound, { seq: fix.seq, right: fix.right, cards: fix.cards, void: fields.void === true });
      return;
    }
    if (fix && fix.seq !== undefined) {
      if (fix.right !== null && fix.right !== undefined) {
        box.append(E.el("div", { class: "verdict " + (fix.right ? "right" : "wrong") }, fix.right ? "RIGHT" : "WRONG"));
      }
      const newCards = "cards" in fields || "hand" in fields;
      const what = kindOf(fix.kind) + (fix.player ? " of " + fix.player : "") +
        (fix.cards ? (newCards ? ", now " : ", ") + fix.cards.join(" ") : "");
      const word = (v) => v === true ? "right" : v === false ? "wrong" : "not judged";
      const verdict = fix.right === null || fix.right === undefined ? ""
        : fix.right === fix.was ? " (its verdict stands)" : " (was " + word(fix.was) + ")";
      box.append(E.el("div", { class: "explain", id: "fix-result" }, "event " + fix.event + " corrected: " + what + verdict));
      trackResult(fixRound, { seq: fix.seq, right: fix.right, cards: fix.cards });
      if (reply.ack && reply.ack.changed && reply.ack.changed.length) {
        box.append(E.el("div", { class: "flag" }, "verdicts changed by this correction: " + reply.ack.changed.join(", ")));
      }
      return;
    }
    const last = reply.last;
    if (!last) return;
    if (last.right !== null && last.right !== undefined) {
      box.append(E.el("div", { class: "verdict " + (last.right ? "right" : "wrong") }, last.right ? "RIGHT" : "WRONG"));
    }
    box.append(E.el("div", { class: "explain" }, eventText(last)));
    trackResult(reply.ack && reply.ack.round, last);
    if (reply.ack && reply.ack.changed && reply.ack.changed.length) {
      box.append(E.el("div", { class: "flag" }, "verdicts changed by this correction: " + reply.ack.changed.join(", ")));
    }
  }
  // A void: the event did not happen (its penalty taken back, the turn back where it
  // was), or a void taken back (the event stands again, with its verdict now).
  const word = (v) => v === true ? "right" : v === false ? "wrong" : "no verdict";
  function eventWords(t) {
    return kindOf(t.kind) + (t.player ? " of " + t.player : "") + (Array.isArray(t.cards) && t.cards.length ? ", " + t.cards.join(" ") : "");
  }
  function showVoidResult(c, voided) {
    const box = $("result"), t = c.target;
    if (voided) {
      box.append(E.el("div", { class: "verdict void" }, "VOID"));
      box.append(E.el("div", { class: "explain", id: "fix-result" }, "event " + t.event + " voided: " + eventWords(t) +
        " did not happen" + (t.was === true || t.was === false ? " (announced " + word(t.was) + ")" : "") + "."));
    } else {
      if (t.right === true || t.right === false) {
        box.append(E.el("div", { class: "verdict " + (t.right ? "right" : "wrong") }, t.right ? "RIGHT" : "WRONG"));
      }
      box.append(E.el("div", { class: "explain", id: "fix-result" }, "void of event " + t.event + " taken back: " + eventWords(t) +
        " stands" + (t.right === true || t.right === false ? ", " + word(t.right) : "") + "."));
    }
    // What the players must do with their cards: a penalty taken back or owed again.
    for (const h of c.hands || []) {
      box.append(E.el("div", { class: "explain" }, h.player + (h.now > h.was ? " takes " + (h.now - h.was) : " gives back " + (h.was - h.now)) +
        " card" + (Math.abs(h.now - h.was) === 1 ? "" : "s") + " (hand " + h.was + " → " + h.now + ")"));
    }
    const others = (c.changed || []).filter((p) => p.event !== t.event).map((p) => p.event);
    if (others.length) box.append(E.el("div", { class: "flag" }, "verdicts changed by this correction: " + others.join(", ")));
  }
  // A refused action leaves the result shown before it: it is marked as the
  // earlier action's, so that it is not taken for this one's, in words that fit
  // both — a prophet declaration refused is not "the play above", and a result
  // with no verdict (a prophet declared) is not "the verdict before".
  function staleResult(what) {
    const box = $("result");
    if (!box.childElementCount) return;
    box.classList.add("stale");
    const before = box.querySelector(".verdict") ? "the verdict before" : "the result before";
    const note = box.querySelector(".stale-note") || E.el("div", { class: "muted stale-note" });
    note.textContent = before + " (the " + what + " above was not recorded):";
    box.prepend(note);
  }
  function refuse(message, what) { $("play-error").textContent = message; staleResult(what || "play"); }
  // What each of the Play panel's actions is called when it is refused.
  const REFUSED = { "/api/plays": "play", "/api/no-plays": "no play", "/api/prophet": "prophet declaration", "/api/events": "event" };
  const isPlay = (path) => path === "/api/plays" || path === "/api/no-plays";
  function baseEvent(extra) {
    const body = Object.assign({}, extra);
    const player = $("player").value;
    if (player) body.player = player;
    if (prophetInOffice() && $("call").value) body.prophet_says = $("call").value;
    return body;
  }
  function prophetInOffice() { return !!(view && view.state && view.state.prophet && !view.state.ended); }
  function unconfirmed() {
    if (!evidence) return [];
    // A read is settled when God ticks it, or types another card (a correction).
    return Array.from(document.querySelectorAll(".read.confirm")).filter((r) => {
      const input = r.querySelector("input[type=text]");
      return !r.querySelector("input[type=checkbox]").checked && input.value.trim().toUpperCase() === input.dataset.read;
    });
  }
  function send(path, body) { return oneAtATime(() => sendNow(path, body)); }
  async function sendNow(path, body) {
    $("play-error").textContent = "";
    // A no-play asked about is not this action's question.
    noPlayConfirmed = null; askNoPlay(null);
    if (unconfirmed().length) { refuse("Confirm or correct every read marked “needs confirmation” first.", REFUSED[path]); return; }
    // While a prophet is in office every play is called right or wrong by the
    // prophet first (RULES.md 4): the console never makes the call up.
    if (isPlay(path) && prophetInOffice() && !body.prophet_says) {
      refuse("The prophet calls this play right or wrong first: choose the prophet's call.", REFUSED[path]);
      return;
    }
    if (evidence) {
      // Reads pair with the cards by position: they go with the play only when they
      // pair without doubt (`asRows`); otherwise the frame goes alone (a read paired
      // with the wrong card would be stored for good).
      const cards = body.cards || body.hand || [];
      if (asRows(cards) && cards.length === evidence.reads.length) body.evidence = evidence;
      else if (cards.length) body.evidence = { frame: evidence.frame };
    }
    // What this play was sent with: a play the watcher lays while it is on its
    // way fills the form again, and is not wiped by this one's answer.
    const sentCards = $("cards").value, sentEvidence = evidence, sentChoice = chosen;
    try {
      const reply = answered(await E.api("POST", path, body));
      showResult(reply);
      if ($("cards").value === sentCards) $("cards").value = "";
      $("pick").value = ""; $("call").value = "";
      // A play recorded: the next one is the next player's unless God chooses
      // again (a choice made while this one was on its way is God's next one).
      if (isPlay(path)) {
        if (reply && reply.version) awaitVersion = Math.max(awaitVersion, reply.version);
        if (chosen === sentChoice) { chosen = null; $("player").value = ""; $("player-note").textContent = ""; }
        // Cards put in the field meanwhile are the next player's: held once the
        // view shows whose turn that is.
        holdTyped();
      }
      if (evidence === sentEvidence) clearEvidence();
      else noteEvidence();
    } catch (e) {
      // Cards entered for a player whose turn has passed: said plainly, with what
      // to do, under the service's own words.
      const turn = view && view.state && view.state.turn;
      const stale = isPlay(path) && sentChoice && sentChoice.typed && body.player === sentChoice.name && turn && turn !== body.player;
      refuse(e.message + (stale ? "\nNot recorded: these cards were entered for " + body.player + " when it was " +
        body.player + "'s turn. If " + body.player + "'s play is already in the log (entered on another device), " +
        "empty the cards field; to play them for " + turn + ", choose " + turn + "." : ""), REFUSED[path]);
    }
  }
  function playNow() { return send("/api/plays", baseEvent({ cards: words($("cards").value) })); }
  $("play").addEventListener("click", () => { if (!pressedTwice("play")) playNow(); });
  $("noplay").addEventListener("click", () => {
    if (pressedTwice("noplay")) return;
    noPlay();
  });
  // The referee trusts the shown hand (TABLE-LOG): a right no-play with this many
  // cards or fewer ends the round, the player out, and reveals the rule, which no
  // correction can take back (`no_play_ends_round_at`, 4 in every variant that has
  // a no-play: src/referee/variant.rs). No play pressed instead of Play (one card
  // typed), or a spread hand the camera read only part of, would end the round for
  // good: asked first, as an unfitting starter is.
  const NO_PLAY_ENDS_ROUND_AT = 4;
  let noPlayConfirmed = null; // the no-play Send anyway was pressed for
  function noPlay() {
    const body = baseEvent({ hand: words($("cards").value) });
    if ($("pick").value.trim()) body.pick = $("pick").value.trim();
    const s = (view && view.state) || {};
    const player = body.player || s.turn || "";
    const held = s.hands && typeof s.hands[player] === "number" ? s.hands[player] : null;
    const shown = body.hand.length;
    const key = JSON.stringify([view && view.round, player, body.hand, body.pick || "", held]);
    // What is refused at once (reads to confirm, the prophet's call to choose, a
    // player whose turn it is not) is refused without a question first.
    const refusedAnyway = unconfirmed().length || (prophetInOffice() && !body.prophet_says) ||
      (s.turn && player !== s.turn);
    const differs = held !== null && shown !== held;
    const ends = shown <= NO_PLAY_ENDS_ROUND_AT;
    if (!refusedAnyway && roundInPlay(view) && player && (differs || ends) && noPlayConfirmed !== key) {
      const counts = held === null ? ""
        : differs ? player + " holds " + held + " card" + (held === 1 ? "" : "s") + " by the referee's count; the shown hand has " + shown + ". "
        : player + " shows a hand of " + shown + " (the referee's count too). ";
      const end = "A right no play with " + NO_PLAY_ENDS_ROUND_AT + " cards or fewer ends the round and reveals the rule, and no correction can reopen it.";
      askNoPlay(counts + (ends ? end : "The referee trusts the shown hand, not its own count."), key);
      return;
    }
    noPlayConfirmed = null; askNoPlay(null);
    send("/api/no-plays", body);
  }
  // The question under the Play panel's buttons (null: none), as the start form's.
  function askNoPlay(text, key) {
    const box = $("noplay-confirm");
    box.replaceChildren();
    box.hidden = !text;
    if (!text) return;
    box.append(E.el("div", { class: "ask" }, "⚠ " + text),
      E.el("div", { class: "row" },
        E.el("button", { id: "noplay-anyway", class: "danger", onclick: () => { noPlayConfirmed = key; noPlay(); } }, "Send anyway"),
        E.el("button", { id: "noplay-change", class: "secondary", onclick: () => {
          askNoPlay(null);
          $("cards").focus(); $("cards").select();
        } }, "Change the cards")));
    $("noplay-anyway").focus();
  }
  // The question is about the form as it was: a change to it takes the question away.
  for (const id of ["cards", "pick"]) $(id).addEventListener("input", () => { noPlayConfirmed = null; askNoPlay(null); });
  for (const id of ["player", "call"]) $(id).addEventListener("change", () => { noPlayConfirmed = null; askNoPlay(null); });
  $("prophet").addEventListener("click", () => {
    if (pressedTwice("prophet")) return;
    const player = prophetCandidate();
    // No play yet in this round (the button is disabled then): nothing to send.
    if (!player) { $("play-error").textContent = "No one has played yet in this round: the Prophet is declared right after a play of his own."; return; }
    send("/api/prophet", { player });
  });
  // Delphos: God ends the round; 1959: the dealer declares, in stage 2, that no
  // further card can be accepted (the referee says why when it cannot end yet).
  $("end-round").addEventListener("click", () => {
    if (!confirm("End this round now? It is scored as it stands.")) return;
    send("/api/events", { event: "end_round" });
  });
  $("send-raw").addEventListener("click", () => oneAtATime(async () => {
    $("play-error").textContent = "";
    let event;
    try { event = JSON.parse($("raw").value); }
    catch (e) { refuse("not JSON: " + e.message, "event"); return; }
    try { showResult(answered(await E.api("POST", "/api/events", event))); $("raw").value = ""; }
    catch (e) { refuse(e.message, "event"); }
  }));
  $("end").addEventListener("click", () => oneAtATime(async () => {
    $("end-error").textContent = "";
    if (!confirm("End the game now? Unfinished rounds are not scored; the rule is revealed.")) return;
    try { showResult(await E.api("POST", "/api/end-game", {})); } catch (e) { $("end-error").textContent = e.message; }
  }));

  // --- corrections ---
  // "correct" opens an editor under the event, in the log: the event's cards (or
  // hand, or the prophet's name) to edit, the prophet's call when the round has a
  // prophet, apply and cancel. It is kept open, with what God typed, across live
  // updates (another device may play meanwhile), and a refusal is said in it, so
  // God can mend the text and apply again. Enter applies, Escape cancels.
  let fixing = null; // { round, seq, field, text, call, pick, recordedPick, error }
  function fixField(play) {
    return play.event === "prophet" ? "player" : play.event === "no_play" ? "hand" : "cards";
  }
  function correct(play) {
    const field = fixField(play);
    const text = field === "player" ? (play.player || "") : (play.cards || []).join(" ");
    // A no-play's pick (the card God took from the hand) is corrected with it: a
    // misread card God picked must be mended in both, or the hand loses its pick.
    const recordedPick = play.pick || (play.outcome && play.outcome.pick && play.outcome.pick.card) || "";
    fixing = { round: view && view.round, seq: play.seq, field, text, call: "", pick: recordedPick, recordedPick, error: "", voided: !!play.void };
    if (view) render(view, true);
    const input = $("fix-text") || $("fix-unvoid");
    if (input) { input.focus(); if (input.select) input.select(); }
  }
  // The editor closed by God (Escape, cancel, or applied): the focus goes back to
  // the event's "correct" button, where it was before the editor opened, not to
  // the page's start.
  function focusFixButton(seq) {
    const button = document.querySelector('#log tr.event[data-seq="' + seq + '"] button.fix-open');
    if (button) button.focus();
  }
  function cancelFix() {
    const seq = fixing && fixing.seq;
    fixing = null;
    if (view) render(view, true);
    if (seq != null) focusFixButton(seq);
  }
  function applyFix() { return oneAtATime(applyFixNow); }
  // The body of a correction of the event the editor is open on: its number, and
  // the round the editor was opened on (null: a new game began since).
  function fixBody(f) {
    const body = { seq: f.seq };
    // The round the editor was opened on, so that a round started meanwhile on
    // another device does not take the correction for its own event of that number.
    const [game, round] = String(f.round || "").split(".");
    if (round) body.round = Number(round);
    if (round && view && view.round && String(view.round).split(".")[0] !== game) {
      f.error = "a new game began since this editor was opened: cancel it";
      render(view, true);
      return null;
    }
    return body;
  }
  async function applyFixNow() {
    if (!fixing || fixing.voided) return;
    const f = fixing, body = fixBody(f);
    if (!body) return;
    if (f.field === "player") body.player = f.text.trim();
    else body[f.field] = words(f.text);
    if (f.field === "hand" && f.pick.trim().toUpperCase() !== f.recordedPick.toUpperCase()) body.pick = f.pick.trim() || null;
    if (f.call === "none") body.prophet_says = null;
    else if (f.call) body.prophet_says = f.call;
    await sendFix(f, body);
  }
  // Voiding the event (it did not happen), or taking its void back, asked first:
  // the event leaves the game (or comes back) with its penalty and the turns after it.
  function voidFix(play, voided) {
    const f = fixing;
    if (!f || acting) return;
    const what = eventWords({ kind: play.event, player: play.player, cards: play.cards });
    const question = voided
      ? "Void event " + play.seq + " (" + what + ")?\n\nIt did not happen: it leaves the game, any penalty it gave is taken back " +
        "and the turn goes back as if it had not been played. Its row stays in the log, struck through, and the void can be taken back."
      : "Take back the void of event " + play.seq + " (" + what + ")?\n\nThe event happened after all: it is judged again where it " +
        "stands, with its penalty, and the turn follows it.";
    if (!confirm(question)) return;
    oneAtATime(async () => {
      if (fixing !== f) return;
      const body = fixBody(f);
      if (!body) return;
      body.void = voided ? true : null;
      await sendFix(f, body);
    });
  }
  async function sendFix(f, body) {
    try {
      const reply = answered(await E.api("POST", "/api/corrections", body));
      const closed = fixing === f;
      if (closed) fixing = null;
      showResult(reply);
      if (view) render(view, true);
      if (closed) focusFixButton(f.seq);
    } catch (e) {
      if (fixing !== f) return;
      f.error = ("void" in body ? (body.void ? "void" : "taking back the void") : "correction") + " of event " + f.seq + " refused: " + e.message;
      if (view) render(view, true);
    }
  }
  // The editor's row for `play`, as `fixing` holds it; `players` for a prophet's
  // name, `prophetRound` whether the round has had a prophet (the call is offered).
  function fixRow(play, players, prophetRound) {
    const f = fixing;
    const keys = (e) => {
      if (e.key === "Enter") { e.preventDefault(); applyFix(); }
      if (e.key === "Escape") { e.preventDefault(); cancelFix(); }
    };
    const escape = (e) => { if (e.key === "Escape") { e.preventDefault(); cancelFix(); } };
    const row = (...parts) => E.el("tr", { class: "fix", "data-seq": play.seq },
      E.el("td", { colspan: LOG_COLUMNS },
        E.el("div", { class: "fix-form" }, E.el("b", {}, "correct event " + play.seq + ": "), parts),
        f.error ? E.el("div", { class: "error fix-error" }, f.error) : null));
    if (f.voided) {
      return row(E.el("span", {}, "void: it did not happen."),
        E.el("button", { id: "fix-unvoid", onclick: () => voidFix(play, false), onkeydown: escape,
          title: "the event happened after all: it is judged again, with its penalty" }, "Take the void back"),
        " ", E.el("button", { id: "fix-cancel", class: "secondary", onclick: cancelFix, onkeydown: escape }, "cancel"));
    }
    let input;
    if (f.field === "player") {
      input = E.el("select", { id: "fix-text", onchange: (e) => { f.text = e.target.value; }, onkeydown: keys },
        players.map((name) => E.el("option", { value: name }, name)));
      input.value = f.text;
    } else {
      input = E.el("input", { id: "fix-text", type: "text", autocomplete: "off", spellcheck: "false",
        oninput: (e) => { f.text = e.target.value; }, onkeydown: keys });
      input.value = f.text;
    }
    const label = f.field === "player" ? "prophet" : f.field === "hand" ? "hand shown" : "cards";
    const parts = [E.el("label", {}, label + " ", input)];
    if (f.field === "hand") {
      const pick = E.el("input", { id: "fix-pick", type: "text", autocomplete: "off", spellcheck: "false", placeholder: "none",
        oninput: (e) => { f.pick = e.target.value; }, onkeydown: keys });
      pick.value = f.pick;
      parts.push(" ", E.el("label", {}, "God's pick ", pick));
    }
    if (f.field !== "player" && prophetRound) {
      const recorded = play.outcome && play.outcome.prophet_call ? play.outcome.prophet_call.said : null;
      const call = E.el("select", { id: "fix-call", onchange: (e) => { f.call = e.target.value; }, onkeydown: keys },
        E.el("option", { value: "" }, recorded ? "as called (" + recorded + ")" : "as recorded (no call)"),
        E.el("option", { value: "right" }, "right"), E.el("option", { value: "wrong" }, "wrong"),
        recorded ? E.el("option", { value: "none" }, "no call") : null);
      call.value = f.call;
      parts.push(" ", E.el("label", {}, "prophet's call ", call));
    }
    parts.push(" ", E.el("button", { id: "fix-apply", onclick: applyFix }, "apply"),
      " ", E.el("button", { id: "fix-cancel", class: "secondary", onclick: cancelFix }, "cancel"),
      // The event did not happen at all (a play entered twice, or for the wrong
      // player): no field to mend, it goes, asked first.
      " ", E.el("button", { id: "fix-void", class: "danger", onclick: () => voidFix(play, true), onkeydown: escape,
        title: "the event did not happen: it leaves the game, its penalty is taken back and the turn goes back" }, "Void (did not happen)"));
    return row(...parts);
  }

  // --- camera ---
  // The webcam's picture is turned (and mirrored) to the players' view before it is
  // shown, sent or zoned: the service orders cards left to right across the frame it
  // gets, so the frame's top must be the far side of the line. Kept in the browser.
  const CAMERA_KEY = "eleusis.camera";
  let stream = null, previewTimer = null, camera = { turn: 0, mirror: false };
  try { Object.assign(camera, JSON.parse(localStorage.getItem(CAMERA_KEY) || "{}")); } catch (e) { /* keep the default */ }
  if (![0, 90, 180, 270].includes(camera.turn)) camera.turn = 0;
  $("cam-turn").value = String(camera.turn); $("cam-mirror").checked = !!camera.mirror;
  function cameraChanged() {
    camera = { turn: Number($("cam-turn").value), mirror: $("cam-mirror").checked };
    localStorage.setItem(CAMERA_KEY, JSON.stringify(camera));
    // A zone marked on the picture as it was covers another part of the table now.
    if (zone) { setZone(null); $("watch-status").textContent = "picture turned: mark the play zone again"; }
    restartWatch = true;
  }
  $("cam-turn").addEventListener("change", cameraChanged);
  $("cam-mirror").addEventListener("change", cameraChanged);
  // Court-card confirmation is the service's (every console and the watcher read
  // with it): the box shows it as the service has it, and a change goes there.
  function showCourts(settings) {
    $("confirm-courts").checked = !!settings.confirm_courts;
    $("confirm-courts").disabled = !settings.loaded;
  }
  $("confirm-courts").addEventListener("change", async () => {
    const box = $("confirm-courts"), wanted = box.checked;
    box.disabled = true;
    try {
      showCourts(await E.api("POST", "/api/camera", { confirm_courts: wanted }));
      $("frame-error").textContent = "";
    } catch (e) {
      box.checked = !wanted; box.disabled = false;
      $("frame-error").textContent = "court cards: " + e.message;
    }
  });
  // Draws the webcam's current picture, turned, onto a canvas sized to it.
  function drawTurned(c) {
    const v = $("video"), w = v.videoWidth, h = v.videoHeight, quarter = camera.turn % 180 !== 0;
    const cw = quarter ? h : w, ch = quarter ? w : h;
    if (c.width !== cw || c.height !== ch) { c.width = cw; c.height = ch; }
    const g = c.getContext("2d");
    g.setTransform(1, 0, 0, 1, cw / 2, ch / 2);
    g.rotate(camera.turn * Math.PI / 180);
    if (camera.mirror) g.scale(-1, 1);
    g.drawImage(v, -w / 2, -h / 2);
    g.setTransform(1, 0, 0, 1, 0, 0);
  }
  // The webcam's frame clock: when its last picture came. A browser pauses a video
  // it thinks nobody sees (scrolled away, say), and a camera can stop sending
  // (unplugged, taken by another program); then every grab is the same old picture.
  const STALL_MS = 3000;
  let lastFrameAt = 0, lastTime = -1, frameClock = false;
  // A hidden tab paints no frame: its clock starts again when God comes back.
  document.addEventListener("visibilitychange", () => { lastFrameAt = performance.now(); });
  function startFrameClock(v) {
    lastFrameAt = performance.now();
    if (frameClock || !v.requestVideoFrameCallback) return;
    frameClock = true;
    const tick = () => { lastFrameAt = performance.now(); v.requestVideoFrameCallback(tick); };
    v.requestVideoFrameCallback(tick);
  }
  // "ok", "paused" (asked to play again), "stalled" (no new picture for STALL_MS) or
  // "stopped" (the camera's track ended).
  function cameraState() {
    const v = $("video"), track = stream && stream.getVideoTracks()[0];
    if (!track || track.readyState === "ended") return "stopped";
    if (v.paused) { v.play().catch(() => { /* asked again at the next tick */ }); return "paused"; }
    if (!v.requestVideoFrameCallback && v.currentTime !== lastTime) { lastTime = v.currentTime; lastFrameAt = performance.now(); }
    // A hidden tab paints nothing: its frame clock says nothing of the camera.
    if (document.visibilityState === "visible" && performance.now() - lastFrameAt > STALL_MS) return "stalled";
    return "ok";
  }
  function cameraTrouble(state) {
    return state === "stopped" ? "⚠ the camera stopped (unplugged, or taken by another program?): press Use webcam again"
      : "⚠ no new picture from the camera for " + Math.round((performance.now() - lastFrameAt) / 1000) + " s: waiting for it";
  }
  // A browser gives a page the camera only in a secure context: an https:// page,
  // or one of this machine's own (localhost). A console opened from another device
  // over plain http has no navigator.mediaDevices at all.
  function noCameraHere() {
    if (window.isSecureContext && navigator.mediaDevices && navigator.mediaDevices.getUserMedia) return "";
    const own = "http://localhost:" + (location.port || "80") + "/god…";
    return "webcam: the browser allows the camera only on an https:// page or on the page of the machine the webcam " +
      "is plugged into (" + own + "); this console is at " + location.protocol + "//" + location.host + ". " +
      "Open the console on the machine with the webcam, or send frames another way: a photo with the file button " +
      "beside, or POST /api/frames from that machine (README, “The pages”, Camera).";
  }
  $("cam-on").addEventListener("click", async () => {
    const none = noCameraHere();
    if (none) { $("frame-error").textContent = none; return; }
    try {
      const next = await navigator.mediaDevices.getUserMedia({ video: { width: { ideal: 1920 }, height: { ideal: 1080 } } });
      if (stream) stream.getTracks().forEach((t) => t.stop());
      stream = next;
      const v = $("video");
      v.srcObject = stream; $("preview").hidden = false; $("frame-img").hidden = true;
      v.play().catch(() => { /* autoplay starts it */ });
      startFrameClock(v);
      $("frame-error").textContent = "";
      const track = stream.getVideoTracks()[0];
      if (track) track.addEventListener("ended", () => { if (stream === next) $("frame-error").textContent = cameraTrouble("stopped"); });
      clearInterval(previewTimer);
      previewTimer = setInterval(() => {
        if (cameraState() === "paused" || $("preview").hidden || !v.videoWidth) return;
        drawTurned($("preview"));
      }, 100);
      $("snap").disabled = false;
      for (const id of ["watch", "mark-zone", "whole-zone"]) $(id).disabled = false;
    } catch (e) { $("frame-error").textContent = "webcam: " + e.message; }
  });
  // The webcam's current picture, turned, as JPEG.
  function grabFrame(quality) {
    const c = document.createElement("canvas");
    drawTurned(c);
    return new Promise((ok) => c.toBlob(ok, "image/jpeg", quality));
  }
  $("snap").addEventListener("click", async () => {
    const state = cameraState(), blob = state === "ok" || state === "paused" ? await grabFrame(0.92) : null;
    if (blob) { uploadFrame(blob); return; }
    failedFrame(state === "ok" || state === "paused" ? "capture: the webcam gave no picture" : "capture: " + cameraTrouble(state));
  });
  $("upload").addEventListener("change", (ev) => { const f = ev.target.files[0]; if (f) uploadFrame(f); ev.target.value = ""; });

  // --- watching the play zone ---
  // Every 650 ms (never two at once) the webcam's frame goes to /api/watch; the
  // service's watcher says when a play has settled in the zone, once per play,
  // and keeps that frame as evidence. A sure play of 1–4 cards can be played at
  // once for the player whose turn it is; anything else waits for God.
  const ZONE_KEY = "eleusis.zone";
  let zone = null, watchTimer = null, watchBusy = false, restartWatch = false, marking = null;
  try { zone = JSON.parse(localStorage.getItem(ZONE_KEY) || "null"); } catch (e) { zone = null; }
  function showZone() {
    const box = $("zone-box");
    box.hidden = !zone;
    if (!zone) return;
    box.style.left = zone[0] * 100 + "%"; box.style.top = zone[1] * 100 + "%";
    box.style.width = (zone[2] - zone[0]) * 100 + "%"; box.style.height = (zone[3] - zone[1]) * 100 + "%";
  }
  showZone();
  function setZone(z) {
    zone = z;
    if (z) localStorage.setItem(ZONE_KEY, JSON.stringify(z)); else localStorage.removeItem(ZONE_KEY);
    showZone();
    restartWatch = true; // what lay in the old zone says nothing of the new one
  }
  $("whole-zone").addEventListener("click", () => setZone(null));
  $("mark-zone").addEventListener("click", () => {
    marking = {};
    $("camera-view").classList.add("marking");
    $("watch-status").textContent = "drag a rectangle over the picture where plays are laid";
  });
  function fraction(ev) {
    // The live picture, or the read frame shown in its place: both are the turned frame.
    const r = ($("preview").hidden ? $("frame-img") : $("preview")).getBoundingClientRect();
    return [Math.min(1, Math.max(0, (ev.clientX - r.left) / r.width)), Math.min(1, Math.max(0, (ev.clientY - r.top) / r.height))];
  }
  $("camera-view").addEventListener("pointerdown", (ev) => { if (marking) { marking.from = fraction(ev); ev.preventDefault(); } });
  $("camera-view").addEventListener("pointermove", (ev) => {
    if (!marking || !marking.from) return;
    const [a, b] = [marking.from, fraction(ev)];
    zone = [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[0], b[0]), Math.max(a[1], b[1])];
    showZone();
  });
  $("camera-view").addEventListener("pointerup", () => {
    if (!marking || !marking.from) return;
    marking = null;
    $("camera-view").classList.remove("marking");
    // The service refuses a zone narrower than 5 % of the frame: a slip of the mouse.
    setZone(zone && zone[2] - zone[0] >= 0.05 && zone[3] - zone[1] >= 0.05 ? zone : null);
    $("watch-status").textContent = zone ? "play zone marked" : "too small: the whole frame is the play zone";
  });
  $("watch").addEventListener("change", () => {
    clearInterval(watchTimer);
    if ($("watch").checked) {
      restartWatch = true;
      watchTimer = setInterval(watchTick, 650);
      $("watch-status").textContent = "watching…";
    } else $("watch-status").textContent = "";
  });
  async function watchTick() {
    const v = $("video");
    if (watchBusy || !v.videoWidth) return;
    // A paused or stopped camera gives the same picture again: it would settle
    // nothing new (or a half-laid play), so it is not sent, and God is told.
    const state = cameraState();
    if (state === "paused") return;
    if (state !== "ok") { $("watch-status").textContent = "watching: " + cameraTrouble(state); return; }
    watchBusy = true;
    try {
      const blob = await grabFrame(0.9);
      const query = [restartWatch ? "restart=1" : "", zone ? "zone=" + zone.map((x) => x.toFixed(4)).join(",") : ""].filter(Boolean).join("&");
      const reply = await E.api("POST", "/api/watch" + (query ? "?" + query : ""), blob, true);
      restartWatch = false;
      showWatch(reply);
    } catch (e) {
      $("watch-status").textContent = "watching: " + e.message;
      // No recognizer: asking again every 650 ms will not change that.
      if (e.status === 422) { $("watch").checked = false; clearInterval(watchTimer); }
    } finally { watchBusy = false; }
  }
  function showWatch(reply) {
    if (!$("watch").checked) return;
    const inZone = reply.cards.map((r) => r.card + (r.needs_confirmation ? "?" : "")).join(" ");
    $("watch-status").textContent = reply.text + (inZone ? " · in the zone: " + inZone : "") +
      (reply.outside ? " · " + reply.outside + " card(s) outside the zone" : "") +
      ((reply.unreadable || []).length ? " · " + reply.unreadable.length + " card-shaped outline(s) not read" : "") +
      (reply.warnings.length ? " · ⚠ " + reply.warnings.map((w) => w.text).join("; ") : "");
    if (reply.laid) takeLaid(reply.laid);
  }
  function takeLaid(laid) {
    showFrame(laid);
    useReads();
    const n = laid.reads.length, sure = laid.reads.every((r) => !r.needs_confirmation);
    // An outline of a card no index could be read on may be a card of the play
    // (in glare, in a shadow): judging without it could judge the wrong play.
    const unread = (laid.unreadable || []).length;
    const live = view && view.round && view.state && !view.state.ended;
    // With a prophet in office the prophet calls each play first: God sends it.
    if ($("auto-judge").checked && live && sure && !unread && n >= 1 && n <= 4 && !prophetInOffice()) {
      // Another action on its way: this play is taken up when it is answered.
      if (acting) afterActing = () => takeLaid(laid);
      else playNow();
    } else {
      // God sends it: for the player whose turn it is now, held as typed cards are.
      holdTyped();
      $("play-error").textContent = unread
        ? unread + " card-shaped outline(s) in the zone could not be read (a card in glare or shadow?): look at the table, type any card missing, then Play."
        : n > 4
        ? n + " cards laid: a hand spread out? Check the reads, then No play."
        : prophetInOffice() ? "play read from the zone: choose the prophet's call, then Play."
        : "play read from the zone: check the reads, then Play.";
    }
  }

  // The frame read before is no longer the evidence once another is sent: a failed
  // upload or capture leaves none attached (the next play would store the old one).
  async function uploadFrame(blob) {
    const had = !!evidence;
    clearEvidence();
    $("frame-error").textContent = "";
    $("reads").textContent = "reading…";
    try {
      showFrame(await E.api("POST", "/api/frames", blob, true));
    } catch (e) { failedFrame(e.message, had); }
  }
  function failedFrame(message, had) {
    const hadBefore = had || !!evidence;
    clearEvidence();
    $("frame-error").textContent = message + (hadBefore ? " · the frame read before is no longer attached as evidence" : "");
  }
  // A read frame (an upload's answer, or a play the watcher laid) in place of the
  // video, its reads drawn on it and listed below.
  function showFrame(reply) {
    frameReply = reply;
    // The service's setting as this frame was read (another console may have switched it).
    if (reply.recognized) showCourts({ loaded: true, confirm_courts: reply.confirm_courts });
    // A new frame is a new play to make: the refusal of the one before is done with.
    $("play-error").textContent = "";
    const img = $("frame-img");
    img.onload = () => drawOverlay(reply);
    img.src = reply.url; img.hidden = false; $("preview").hidden = true;
    showReads(reply);
  }
  function drawOverlay(reply) {
    const img = $("frame-img"), c = $("overlay");
    c.width = img.clientWidth; c.height = img.clientHeight;
    const g = c.getContext("2d"), sx = c.width / reply.width, sy = c.height / reply.height;
    g.lineWidth = 3; g.font = "bold 16px system-ui";
    // An outline in the stroke's colour, labelled above its first corner.
    const outline = (q, label) => {
      g.beginPath();
      q.forEach(([x, y], i) => (i ? g.lineTo(x * sx, y * sy) : g.moveTo(x * sx, y * sy)));
      g.closePath(); g.stroke();
      g.fillStyle = g.strokeStyle;
      g.fillText(label, q[0][0] * sx, q[0][1] * sy - 4);
    };
    for (const r of reply.reads) {
      g.strokeStyle = r.needs_confirmation ? "#f39c12" : "#2ecc71";
      outline(r.corners, r.card + " " + Math.round(r.confidence * 100) + "%");
    }
    // Outlines of a card on which no index could be read: dashed, with a question.
    g.setLineDash([8, 6]); g.strokeStyle = "#e74c3c";
    for (const q of reply.unreadable || []) outline(q, "?");
    g.setLineDash([]);
  }
  function showReads(reply) {
    const box = $("reads");
    box.replaceChildren();
    // Exposure problems first: they say why cards may be missing below.
    for (const w of reply.warnings || []) box.append(E.el("div", { class: "error" }, "⚠ camera: " + w.text));
    const unreadable = reply.unreadable || [];
    if (!reply.recognized) box.append(E.el("div", { class: "muted" }, reply.recognizer + " — type the cards; the frame is kept as evidence."));
    else if (!reply.reads.length && !unreadable.length) box.append(E.el("div", { class: "muted" }, "no card found in the frame"));
    if (unreadable.length) box.append(E.el("div", { id: "unreadable", class: "error" },
      "⚠ " + unreadable.length + " outline(s) of a card's shape could not be read (dashed in red): a card in a lamp's glare or a shadow? Type the card beside its cut below, or move the lamp."));
    // Reads and unreadable outlines, left to right as the play is read (by the
    // centre of each outline): a card typed beside its outline takes its place.
    const centreX = (q) => q.reduce((s, p) => s + p[0], 0) / q.length;
    const rows = reply.reads.map((r, i) => ({ x: centreX(r.corners), r, i }))
      .concat(unreadable.map((q, u) => ({ x: centreX(q), q, u })))
      .sort((a, b) => a.x - b.x);
    rows.forEach(({ r, i, q, u }) => {
      if (q) {
        box.append(E.el("div", { class: "read unreadable" },
          E.cardCut(reply.url, q), E.el("span", { class: "muted", title: "an outline of a card's shape on which no index could be read" }, "unreadable"),
          E.el("input", { type: "text", value: "", "data-unreadable": u, placeholder: "card?", title: "type the card here if this is one" })));
        return;
      }
      // The card as the recognizer saw it, upright: its top-left corner is what was read.
      const row = E.el("div", { class: "read" + (r.needs_confirmation ? " confirm" : "") },
        E.cardCut(reply.url, r.corners), E.card(r.card, "tiny"), E.el("span", {}, Math.round(r.confidence * 100) + "%"),
        // A card of an overlapping row: read from the one index its neighbour leaves uncovered.
        r.overlapped ? E.el("span", { class: "muted", title: "read from its one uncovered index" }, "covered") : "",
        // Its pips, drawn larger than the index, look like another suit: the read asks God.
        // More pips than its rank (the index read as a lower card), or next to none on
        // a 6 to 10 (a court card read as a number card).
        r.pips_counted != null ? E.el("span", { class: "muted", title: "the card shows " + r.pips_counted + " pips: too many or too few for the rank read from its index" }, r.pips_counted + " pips") : "",
        // An ace shows one pip, its suit drawn large.
        r.pips_say ? (r.card.startsWith("A")
          ? E.el("span", { class: "muted", title: "the ace's pip in the middle of the card looks like " + SUIT_NAMES[r.pips_say] + ", not the suit read from its index" }, "pip: " + SUIT_SIGNS[r.pips_say])
          : E.el("span", { class: "muted", title: "the pips in the middle of the card look like " + SUIT_NAMES[r.pips_say] + ", not the suit read from its index" }, "pips: " + SUIT_SIGNS[r.pips_say])) : "",
        // The pips put another card in place of the index's read: say what the index read.
        r.index_read ? E.el("span", { class: "muted", title: "the card's index was read as " + r.index_read + "; its pips make it " + r.card }, "index: " + r.index_read.slice(0, -1) + SUIT_SIGNS[r.index_read.slice(-1)]) : "",
        // A table whose deck letters its court cards otherwise (serve --confirm-courts):
        // every jack, queen and king asks, however sure its read.
        reply.confirm_courts && /^[JQK]/.test(r.card) ? E.el("span", { class: "muted court-asks", title: "this table has every court card confirmed (serve --confirm-courts, or the Camera panel's box): its deck's court letters are not J, Q, K" }, "court") : "",
        E.el("input", { type: "text", value: r.card, "data-index": i, "data-read": r.card, title: "correct the card here" }),
        r.needs_confirmation ? E.el("label", {}, E.el("input", { type: "checkbox" }), " needs confirmation: tick it when the card is right") : "");
      box.append(row);
    });
    // A hand spread out can bring a dozen unsure reads: once God has looked at the
    // cuts, one tap confirms them all (a read God corrects by typing is settled anyway).
    const unsure = reply.reads.filter((r) => r.needs_confirmation).length;
    // No rows (no card found, or no recognizer): there are no cards to use.
    box.append(E.el("div", { class: "row" },
      unsure > 1 ? E.el("button", { id: "confirm-all", class: "secondary", onclick: confirmAll }, "Confirm all " + unsure + " unsure reads") : "",
      rows.length ? E.el("button", { id: "use-reads", class: "secondary", onclick: () => { useReads(); holdTyped(); } }, "Use these cards (left to right)") : ""));
    const size = cardSize(reply.reads);
    if (size) box.append(E.el("div", { id: "card-size", class: "muted" }, size));
    evidence = { frame: reply.frame, reads: [] };
    filledCards = null;
    noteEvidence();
  }
  // How tall the cards are in the frame (median of the outlines' long sides, as the
  // service's small-cards warning measures them), and whether that is tall enough:
  // on deck designs it never saw, the recognizer reads 99.86-99.90 % of cards right
  // from 145 px up, with no wrong read sure enough to skip God; 99.52 % at 110-145 px
  // and 98.67 % at 85-110 px, with some (models/README.md, "By card height"). Below
  // 70 px the service's own warning speaks.
  const READS_BEST_FROM = 145;
  function cardSize(reads) {
    const sides = reads.map((r) => Math.max(...r.corners.map(([x, y], i) => {
      const [u, v] = r.corners[(i + 1) % 4];
      return Math.hypot(u - x, v - y);
    }))).sort((a, b) => a - b);
    if (!sides.length) return "";
    const n = sides.length, median = n % 2 ? sides[(n - 1) / 2] : (sides[n / 2 - 1] + sides[n / 2]) / 2;
    const px = Math.round(median);
    if (px >= READS_BEST_FROM || px < 70) return "cards about " + px + " px tall in this frame";
    return "cards about " + px + " px tall in this frame: they read best from about 150 px " +
      "(lower the camera, or set it to 1920 × 1080), with fewer reads asking you";
  }
  function confirmAll() {
    document.querySelectorAll("#reads .read.confirm input[type=checkbox]").forEach((c) => { c.checked = true; });
    $("play-error").textContent = "";
  }
  // The cards typed beside the reads, left to right, become the play; each brings
  // its read as evidence (an outline no index was read on brings a null read and
  // its outline: God typed that card), and a row left empty brings nothing, so that
  // reads and cards pair one for one. A row given two cards or more breaks the
  // pairing: the frame alone goes with the play.
  function useReads() {
    if (!frameReply) return;
    const cards = [], reads = [];
    let paired = true;
    document.querySelectorAll("#reads .read").forEach((row) => {
      const input = row.querySelector("input[type=text]");
      const typed = words(input ? input.value : "");
      if (!typed.length) return;
      cards.push(...typed);
      paired = paired && typed.length === 1;
      const r = input.dataset.index != null ? frameReply.reads[Number(input.dataset.index)] : null;
      reads.push(r ? { read: r.card, confidence: r.confidence, corners: r.corners }
        : { read: null, confidence: 0, corners: frameReply.unreadable[Number(input.dataset.unreadable)] });
    });
    $("cards").value = filledCards = cards.join(" ");
    evidence = { frame: frameReply.frame, reads: paired ? reads : [] };
    noteEvidence();
  }
  // Whether the reads pair with these cards by position: the cards are what the
  // rows put in the cards field, but for cards replaced in place by ones the rows
  // do not hold (a correction typed in the field; the read is stored as
  // corrected). A card the rows hold elsewhere means cards were moved around, and
  // which read is whose is a guess.
  function asRows(cards) {
    if (filledCards === null) return false;
    const rows = words(filledCards).map((c) => c.toUpperCase());
    const typed = cards.map((c) => c.toUpperCase());
    return typed.length === rows.length && typed.every((c, i) => c === rows[i] || !rows.includes(c));
  }
  // Says what goes with the next play: the frame, and its reads while they pair
  // with the cards in the field (`asRows`).
  // With no cards in the field there is no play to attach it to (a play or a
  // no-play sent so goes without it): the frame waits for the cards God types.
  function noteEvidence() {
    if (!evidence) return;
    const reads = evidence.reads.length, cards = words($("cards").value);
    $("evidence-note").textContent = !cards.length ? "frame kept: it goes with the play as evidence once its cards are typed"
      : "frame attached as evidence" +
      (!reads ? "" : asRows(cards) ? ", with its " + reads + " read(s)"
        : " (not its reads: the cards differ from the rows; Use these cards to attach them)");
  }
  $("cards").addEventListener("input", noteEvidence);
  // Once the reads have filled the cards field, a card corrected or typed beside a
  // read fills it again: God looks at the cuts, fixes the one that is wrong and
  // presses Play, and the play must be what the rows now say. Cards God typed in
  // the field itself since are God's and stay.
  $("reads").addEventListener("input", (ev) => {
    if (ev.target.type === "text" && filledCards !== null && $("cards").value === filledCards) { useReads(); holdTyped(); }
  });
  function clearEvidence() {
    evidence = null; frameReply = null; filledCards = null;
    $("reads").replaceChildren(); $("evidence-note").textContent = "";
    const c = $("overlay"); c.getContext("2d").clearRect(0, 0, c.width, c.height);
    $("frame-img").hidden = true;
    if (stream) $("preview").hidden = false;
  }

  // Enter in the cards field sends nothing: the same cards are a play or a shown hand,
  // and only the button God presses says which.

  // After a round, the next God is the player on God's left (RULES.md 5: each player
  // is God once, in turn); prefill the form when it is empty, or when the round ends
  // with the form still holding that round's God and players. Ending the game with
  // a round unfinished ends it too (its state is not "ended": it is not scored), and
  // the next game's first round is filled the same way.
  let seenRound = null, seenEnded = true;
  function prefillNextRound(v) {
    const s = v.state || {};
    const over = !!s.ended || !!v.game_over;
    const justEnded = over && !seenEnded && v.round === seenRound;
    seenRound = v.round; seenEnded = over;
    if (!over || !s.god || !(s.players || []).length) return;
    const typed = $("players").value.split(",").map((x) => x.trim()).filter(Boolean);
    const asThatRound = $("god").value.trim() === s.god && typed.join("\n") === s.players.join("\n");
    const empty = !$("god").value.trim() && !typed.length;
    if (!empty && !(justEnded && asThatRound)) return;
    $("god").value = s.players[0];
    $("players").value = s.players.slice(1).concat([s.god]).join(", ");
    $("variant").value = s.variant;
  }

  // --- the log ---
  // Each row says what kind of event it was: a shown hand is not a play.
  const KINDS = { play: "play", no_play: "no play", prophet: "prophet", round: "round", end_game: "end of game",
    end_round: "end of round", predict: "prediction", hint: "hint", correct: "correction" };
  const kindOf = (event) => KINDS[event] || String(event || "event").replace(/_/g, " ");
  // Things shown one after the other, a space between each two.
  const spaced = (list) => list.filter(Boolean).flatMap((x, i) => (i ? [" ", x] : [x]));
  // A tally (scores, score changes, totals) in seating order, God last, as the Game
  // panel lists it: the service sends it as a JSON object, its names sorted.
  const tallyText = (t, s) => seatedText(s || {}, t || {});
  // The event's cards: a play's, a shown hand (counted), a round's starter.
  function cardsOf(p) {
    const cards = Array.isArray(p.cards) ? p.cards : [];
    if (p.event === "no_play") return [E.el("span", { class: "muted" }, "hand of " + cards.length + ": "), cards.join(" ")];
    if (p.event === "round") {
      const placed = (p.outcome && p.outcome.placed && p.outcome.placed.cards) || [];
      return placed.length ? [E.el("span", { class: "muted" }, "starter "), placed.join(" ")] : "";
    }
    return cards.join(" ");
  }
  // What the event did besides its verdict, as the referee's trace says it: the
  // prophet's call, God's pick, the false prophet overthrown, penalties, the end of
  // the round… (where the cards went and whose turn is next are shown elsewhere).
  function effectsOf(o, s) {
    const out = [];
    if (o.prophet_call) out.push("prophet " + o.prophet_call.prophet + " said " + o.prophet_call.said + ", God " + (o.prophet_call.confirmed ? "confirms" : "contradicts"));
    if (o.pick) out.push(o.pick.by + " takes " + o.pick.card + (o.pick.accepted ? " (acceptable)" : " (not acceptable: back to the hand)"));
    if (o.kept_by) out.push("the wrong card stays face up before " + o.kept_by);
    if (o.prediction) out.push(o.prediction.player + " predicted " + o.prediction.says + ": " + (o.prediction.right ? "right" : "wrong"));
    if (o.score_changes) out.push("score changes " + tallyText(o.score_changes, s));
    if (o.overthrown) out.push("false prophet " + o.overthrown + " overthrown");
    if (o.covered) out.push("covered by the false prophet: no penalty");
    for (const pen of o.penalties || []) out.push(pen.player + " takes " + pen.cards + " penalty cards (" + pen.reason + ")");
    if (o.new_hand) out.push("new hand of " + o.new_hand);
    if (o.prophet_declared) out.push(o.prophet_declared[0] + " is Prophet, marker on laid card " + o.prophet_declared[1]);
    for (const n of o.eliminated || []) out.push(n + " is eliminated");
    for (const ph of o.phases || []) out.push(ph);
    for (const w of o.warnings || []) out.push("warning: " + w);
    if (o.round_end) out.push("round ends: " + o.round_end.reason + "; scores " + tallyText(o.round_end.scores, s));
    if (o.totals) out.push("game totals " + tallyText(o.totals, s));
    return out;
  }

  // When an event was recorded, in this device's time (the table's), the stored
  // UTC time in its tooltip.
  const timeCell = (at) => E.el("td", { class: "time", title: E.timeTitle(at) || null }, E.localTime(at));

  // A correction's row: the event it corrects and what it now records.
  function correctionRow(c, round) {
    const what = Object.entries(c.fields || {}).map(([k, x]) => k === "void"
      ? (x === true ? "void: the event did not happen" : "void taken back: the event stands")
      : k.replace(/_/g, " ") + " " + (x === null ? "removed" : Array.isArray(x) ? x.join(" ") : String(x)));
    const of = "of #" + c.target_seq + (c.target_round !== round ? " (round " + c.target_round + ")" : "");
    return E.el("tr", { class: "correction", "data-seq": c.seq, "data-event": "correct" },
      E.el("td", {}, c.seq), timeCell(c.at),
      E.el("td", { class: "who" }, E.el("span", { class: "kind kind-correct" }, kindOf("correct")), " " + of),
      E.el("td", { colspan: LOG_COLUMNS - 3 }, what.join("; ") || "no change"));
  }

  // A voided event (it did not happen): its row stays, struck through, marked
  // "void" with the verdict announced for it, and the correction that voided it.
  function voidRows(p, v) {
    const round = String(v.round || "");
    const by = (p.voided_by || []).map((e) => e.startsWith(round + ":") ? "#" + e.slice(round.length + 1) : e);
    const announced = p.was === true || p.was === false ? " (announced " + word(p.was) + ")" : "";
    return [
      E.el("tr", { class: "event void explained", "data-seq": p.seq, "data-event": p.event },
        E.el("td", {}, p.seq), timeCell(p.at),
        E.el("td", { class: "who" }, E.el("span", { class: "kind kind-" + p.event }, kindOf(p.event)),
          p.player ? [" ", E.el("span", { class: "void-struck" }, p.player)] : ""),
        E.el("td", { class: "void-struck" }, cardsOf(p)),
        E.el("td", {}, E.el("span", { class: "void-tag", title: "it did not happen: a correction voided it" }, "void")),
        E.el("td", {}, !v.game_over ? E.el("button", { class: "secondary fix-open", onclick: () => correct(p) }, "correct") : "")),
      E.el("tr", { class: "explanation" }, E.el("td", {}), E.el("td", { colspan: LOG_COLUMNS - 1 },
        E.el("div", { class: "effects" }, "voided" + (by.length ? " by " + by.join(", ") : "") + ": it did not happen" + announced +
          " — no verdict, no penalty, the turn as if it had not been played"))),
    ];
  }

  // --- the variant's controls ---
  // The variants with their own flow have no no-play, no prophet and no stock, and
  // take one card a turn (README, "Other games"): the referee refuses those events
  // there (`event "prophet" does not exist in variant delphos`), so the console
  // does not offer them, as the table page hides their panels.
  const OWN_FLOW = ["eleusis-1959", "delphos"];
  const LACKS = { no_play: OWN_FLOW, prophet: OWN_FLOW, stock: OWN_FLOW, sequence: OWN_FLOW };
  const has = (s, what) => !(LACKS[what] || []).includes(s.variant);
  function showVariantControls(s) {
    $("noplay").hidden = $("pick-box").hidden = !has(s, "no_play");
    $("prophet").hidden = !has(s, "prophet");
    // The variants with their own flow end a round by God's word; the others by a
    // hand emptied or sudden death.
    $("end-round").hidden = has(s, "prophet") || !!s.ended;
    $("call-box").hidden = !s.prophet;
    $("cards-what").textContent = has(s, "sequence") ? "(one, or a sequence of 2–4; for a no play: the whole hand)"
      : "(one a turn)";
    $("cards").placeholder = has(s, "sequence") ? "8H  or  4S 9D JC" : "8H";
    $("raw").placeholder = has(s, "prophet") ? '{"event":"prophet","player":"Alain"}' : '{"event":"end_round"}';
  }
  // What became of a Delphos prediction: the event itself holds only who made it;
  // what it said and whether it was right come with God's answer to the proposal
  // after it (its `prediction`), or, while God has not answered, with the state.
  function predictionOf(p, v) {
    const s = v.state || {};
    const answer = (v.plays || []).find((q) => q.seq > p.seq && q.event === "play");
    const told = answer && answer.outcome && answer.outcome.prediction;
    if (told && told.player === p.player) return { says: told.says, right: told.right, answer };
    const pending = s.delphos && s.delphos.prediction, over = !!(s.ended || v.game_over);
    if (!answer && pending && pending.player === p.player) return { says: pending.says, pending: !over, void: over };
    return { void: !answer && over };
  }
  function predictionEffects(pr, s) {
    if (pr.answer) {
      const a = pr.answer;
      return [(pr.right ? "right" : "wrong") + ": " + a.player + "'s " + (a.cards || []).join(" ") + " (#" + a.seq + ") was " +
        (a.right ? "accepted" : "rejected") + (a.outcome.score_changes ? "; score changes " + tallyText(a.outcome.score_changes, s) : "")];
    }
    if (pr.void) return ["void: the round ended before the proposal"];
    return pr.pending ? ["waiting for God's answer to " + (s.turn || "the next") + "'s proposal"] : [];
  }

  // --- the game's scores ---
  // The names of a tally in seating order, God last, then anyone else it holds (a
  // player of an earlier round), as the table page lists them.
  function seated(s, tally) {
    const held = Object.keys(tally || {}), names = [];
    for (const n of (s.players || []).concat([s.god])) if (n && held.includes(n) && !names.includes(n)) names.push(n);
    for (const n of held) if (!names.includes(n)) names.push(n);
    return names;
  }
  const seatedText = (s, tally) => seated(s, tally).map((n) => n + " " + tally[n]).join(", ");
  // Above the log, however long it is: the round's scores once it has ended, and the
  // game's standings from its first finished round on (its totals once it has them).
  function drawScores(v) {
    const s = v.state || {}, g = s.game || {}, box = $("scores-summary");
    const game = g.totals || g.standings;
    const rounds = g.finished_rounds || 0;
    box.replaceChildren();
    if (s.ended && s.scores) {
      box.append(E.el("div", { id: "round-scores" }, E.el("b", {}, "Round " + v.round + " scores:"), " " + seatedText(s, s.scores)));
    }
    if (game) {
      const what = v.game_over || g.ended ? "Final game totals"
        : (g.totals ? "Game totals" : "Game standings") + " after " + rounds + " round" + (rounds === 1 ? "" : "s");
      box.append(E.el("div", { id: "game-scores" }, E.el("b", {}, what + ":"), " " + seatedText(s, game)));
    }
    if (!box.childNodes.length) box.textContent = v.round ? "No round scored yet." : "No game yet.";
  }

  // --- the live view ---
  const LOG_COLUMNS = 6;
  function render(v, fresh) {
    if (!fresh && view && v.version < view.version) return;
    view = v;
    const s = v.state || {};
    // The service stopped recording (its database was altered outside it): said
    // above everything until the database is restored and the alarm goes.
    $("alarm").hidden = !v.alarm;
    $("alarm").textContent = v.alarm ? "⚠ recording stopped: " + v.alarm : "";
    prefillNextRound(v);
    $("round-meta").textContent = v.round ? "round " + v.round + " · " + s.variant + " · God " + s.god : "no round";
    $("rule-now").textContent = v.rule ? "rule: " + v.rule + (v.revealed ? "   (revealed)" : "   (sealed)") : "";
    $("now").textContent = v.round
      ? (v.game_over && !s.ended ? "Game over (round not finished, not scored)" : s.ended ? "Round over" + (s.end_reason ? ": " + s.end_reason : "") : "Turn: " + (s.turn || "—")) +
        " · laid " + s.laid + (has(s, "stock") ? " · stock " + s.stock : "") + (s.sudden_death ? " · SUDDEN DEATH" : "") +
        (s.prophet ? " · prophet " + s.prophet.player : "")
      : "No round in play.";
    // No round in play: starting one is what God does next, so the start form comes
    // first and the Play panel keeps only what it says; the game can still be ended
    // between rounds, but it is no longer the red button of a round in play.
    const inPlay = !!v.round && !s.ended && !v.game_over;
    document.querySelector("main").classList.toggle("idle", !inPlay);
    $("end").disabled = !v.round || !!v.game_over;
    $("end").className = inPlay ? "danger" : "secondary";
    drawPlayers(v);
    // A no-play asked about is one of the round in play.
    if (!inPlay) { noPlayConfirmed = null; askNoPlay(null); }
    showStart();
    drawScores(v);
    showVariantControls(s);
    syncButtons();
    followResult(v);
    if (viewCame && v.version >= recorded) viewCame();
    E.drawLayout(v, $("layout"));
    const log = $("log");
    // The editor is drawn again with the log: keep the focus where God was typing,
    // or on the "correct" button God was on (a keyboard user would lose the place
    // at every play from another device).
    const focused = document.activeElement && document.activeElement.id;
    const onFix = document.activeElement && document.activeElement.classList.contains("fix-open")
      ? document.activeElement.closest("tr").dataset.seq : null;
    const prophetRound = (v.plays || []).some((p) => p.event === "prophet");
    // Once the game has ended its scores are final: the service refuses corrections.
    if (fixing && (v.game_over || fixing.round !== v.round || !(v.plays || []).some((p) => p.seq === fixing.seq && ["play", "no_play", "prophet"].includes(p.event)))) fixing = null;
    // Voided (or its void taken back) on another device meanwhile: the editor says so.
    if (fixing) fixing.voided = !!(v.plays || []).find((p) => p.seq === fixing.seq).void;
    // Each event on one row, its explanation on a row of its own under it: the log
    // keeps to the width of its column on a tablet.
    log.replaceChildren(E.el("tr", {}, ["#", "time", "event", "cards", "verdict", ""].map((h) =>
      E.el("th", h === "time" ? { title: "this device's time, " + E.zoneOffset() + (E.zoneName() ? " " + E.zoneName() : "") } : {}, h))));
    // Corrections take numbers of their own: each is listed where it was made, so the
    // numbers run without gaps and God sees when a row above was corrected.
    const rows = (v.plays || []).concat((v.corrections || []).map((c) => ({ ...c, correction: true })));
    rows.sort((a, b) => b.seq - a.seq);
    for (const p of rows) {
      if (p.correction) {
        log.append(correctionRow(p, v.round));
        continue;
      }
      if (p.void) {
        log.append(...voidRows(p, v));
        if (fixing && fixing.seq === p.seq) log.append(fixRow(p, s.players || [], prophetRound));
        continue;
      }
      const o = p.outcome || {};
      // A prediction's verdict is whether it was right (known once God answers).
      const pr = p.event === "predict" ? predictionOf(p, v) : null;
      const right = pr ? pr.right : p.right;
      const verdict = right === true ? E.el("span", { class: "ok" }, "right") : right === false ? E.el("span", { class: "bad" }, "wrong") : null;
      const flags = [p.corrected ? E.el("span", { class: "flag" }, "corrected") : null, p.changed ? E.el("span", { class: "flag" }, "verdict changed") : null];
      const effects = pr ? predictionEffects(pr, s) : effectsOf(o, s);
      const expl = (o.verdicts || []).map((x) => x.card + ": " + x.explanation).join("; ");
      const canFix = !v.game_over && ["play", "no_play", "prophet"].includes(p.event);
      log.append(E.el("tr", { class: "event" + (expl || effects.length ? " explained" : ""), "data-seq": p.seq, "data-event": p.event },
        E.el("td", {}, p.seq), timeCell(p.at),
        E.el("td", { class: "who" }, E.el("span", { class: "kind kind-" + p.event }, kindOf(p.event)), p.player ? " " + p.player : ""),
        E.el("td", {}, pr ? (pr.says ? [E.el("span", { class: "muted" }, "says "), pr.says] : "") : cardsOf(p)),
        E.el("td", {}, spaced([verdict, ...flags])),
        E.el("td", {}, canFix ? E.el("button", { class: "secondary fix-open", onclick: () => correct(p) }, "correct") : "")));
      if (expl || effects.length) {
        log.append(E.el("tr", { class: "explanation" }, E.el("td", {}), E.el("td", { colspan: LOG_COLUMNS - 1 },
          effects.length ? E.el("div", { class: "effects" }, effects.join(" · ")) : null,
          expl ? E.el("div", { class: "explain" }, expl) : null)));
      }
      if (fixing && fixing.seq === p.seq) log.append(fixRow(p, s.players || [], prophetRound));
    }
    if (focused && focused.startsWith("fix-") && $(focused)) $(focused).focus();
    if (onFix) focusFixButton(onFix);
    const tokenQ = E.token ? "?token=" + encodeURIComponent(E.token) : "";
    if (v.round) {
      $("audit-link").href = "/audit/" + v.round + tokenQ;
      $("export-log").href = "/api/export/" + v.round + "/log" + tokenQ;
      $("score-sheet").href = "/api/export/" + v.game + "/scores?format=html";
    }
  }
  // A console whose token the service no longer takes (restarted without
  // --god-token: a new one) gets the public view: said at once, not at the next
  // action's refusal.
  let tokenRefused = false;
  function showConn(up) {
    const c = $("conn");
    c.className = "conn " + (up && !tokenRefused ? "up" : "down");
    c.textContent = !up ? "reconnecting…"
      : tokenRefused ? "not God: the service no longer takes this console's token — open the God link it printed at start"
      : "live";
  }
  // An action that could not reach the service (stopped, or the network down)
  // says so where it was made; once the live connection is back that error is out
  // of date — the line beside the title says "live", and the log, live again,
  // shows what was recorded — and goes. The words are the API client's
  // (static/eleusis.js). An action the service did not answer in 30 s may have
  // been recorded without God knowing: that error stays until God acts again.
  const UNREACHABLE = "cannot reach the service";
  const ERROR_BOXES = ["play-error", "start-error", "end-error", "frame-error", "watch-status"];
  function clearUnreachable() {
    for (const id of ERROR_BOXES) if ($(id).textContent.includes(UNREACHABLE)) $(id).textContent = "";
    // The rule check that could not be made is made now.
    if ($("check").textContent.includes(UNREACHABLE)) checkRule();
    if (fixing && fixing.error.includes(UNREACHABLE)) { fixing.error = ""; if (view) render(view, true); }
  }
  let connUp = false;
  E.live((v, fresh) => {
    tokenRefused = !!E.token && v.god_view === false;
    showConn(connUp);
    // A new connection may be to a restarted service, whose camera settings are
    // its start's again.
    if (fresh) E.api("GET", "/api/camera").then(showCourts).catch(() => { /* said by the token line */ });
    render(v, fresh);
  }, (up) => {
    if (up && !connUp) clearUnreachable();
    connUp = up; showConn(up);
  }, true);
})();
