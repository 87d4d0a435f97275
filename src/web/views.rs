//! What the pages show, rebuilt from the store and the referee after every change:
//! the public view (tablet, audit) and God's view (console). The web layer renders
//! state, it never decides it: verdicts, placements and scores come from
//! re-refereeing the stored log ([`History`]), exactly as `eleusis audit` does.
//!
//! The public view never carries the rule's explanations before the reveal — an
//! explanation such as "last 9♦ is odd → card must be black" gives the rule away.

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::cards::Card;
use crate::referee::game::GameState;
use crate::referee::round::tells_the_rule;
use crate::referee::{Deal, Game, Outcome, Placement};
use crate::store::history::{
    decision, paired, strip_annotations, Effective, EntryKind, History, HistoryError,
    RefereeFactory, WITH_PREVIOUS,
};
use crate::store::seal::commitment;
use crate::store::{GameId, RoundRef, Store};

use super::error::ApiError;

/// Both views of one moment, as JSON values, as JSON text (what `/api/state`
/// answers) and as the text pushed on `/ws`.
#[derive(Debug, Clone)]
pub struct Views {
    /// Increases with every change; the pages show the newest they got.
    pub version: u64,
    pub public: Value,
    pub god: Value,
    /// The views as JSON text: the same values, with `state` written as `eleusis
    /// replay` writes it (`hands`, `scores` and `game.totals` in seating order, God
    /// last, where a [`Value`]'s object would sort them by name).
    pub public_body: String,
    pub god_body: String,
    pub public_text: String,
    pub god_text: String,
}

impl Views {
    /// Wraps two views with their texts. `state` is the state as `eleusis replay`
    /// writes it; it is written in place of each view's `state` value when it says
    /// the same thing.
    pub fn new(version: u64, public: Value, god: Value, state: Option<&str>) -> Views {
        Views::with_public_state(version, public, god, state, state)
    }

    /// As [`Views::new`], the players' view with a state text of its own (the
    /// state less what it may not show before the reveal).
    pub fn with_public_state(
        version: u64,
        public: Value,
        god: Value,
        state: Option<&str>,
        public_state: Option<&str>,
    ) -> Views {
        let public_body = view_text(&public, public_state);
        let god_body = view_text(&god, state);
        let message = |body: &str| format!("{{\"type\":\"view\",\"view\":{body}}}");
        Views {
            version,
            public_text: message(&public_body),
            god_text: message(&god_body),
            public_body,
            god_body,
            public,
            god,
        }
    }
}

impl Default for Views {
    fn default() -> Views {
        Views::new(0, Value::Null, Value::Null, None)
    }
}

/// A view as JSON text, its `state` replaced by `state` (text) when that parses to
/// the same value: the keys of a [`Value`]'s objects come out sorted, which would
/// put the players of `hands` and `scores` in alphabetical order instead of
/// seating order.
fn view_text(view: &Value, state: Option<&str>) -> String {
    let Value::Object(map) = view else {
        return view.to_string();
    };
    let same = |text: &&str| serde_json::from_str::<Value>(text).ok().as_ref() == map.get("state");
    let Some(state) = state.filter(same) else {
        return view.to_string();
    };
    let mut out = String::from("{");
    for (i, (key, value)) in map.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&Value::String(key.clone()).to_string());
        out.push(':');
        if key == "state" {
            out.push_str(state);
        } else {
            out.push_str(&value.to_string());
        }
    }
    out.push('}');
    out
}

/// One laid card and the laid position it took (1-based, starter = 1).
#[derive(Debug, Clone, Serialize)]
pub struct LaidCard {
    pub card: Card,
    pub laid: Option<u32>,
}

/// A main-line card with the sideline entries hanging under it (a sequence is one
/// entry, kept together).
#[derive(Debug, Clone, Serialize)]
pub struct Column {
    #[serde(flatten)]
    pub top: LaidCard,
    pub side: Vec<Vec<LaidCard>>,
}

/// Rebuilds the layout with every card's laid position from the round's outcomes, so
/// that the markers (which are laid positions) can be drawn on their cards. When
/// the count does not match the referee's, positions are left out rather than guessed.
pub fn layout(starter: Option<Card>, outcomes: &[&Outcome], laid_total: u32) -> Vec<Column> {
    let mut columns: Vec<Column> = Vec::new();
    let mut n = 0u32;
    let mut next = || {
        n += 1;
        Some(n)
    };
    if let Some(card) = starter {
        columns.push(Column {
            top: LaidCard { card, laid: next() },
            side: Vec::new(),
        });
    }
    for outcome in outcomes {
        match &outcome.placed {
            Some(Placement::Main { cards }) => {
                for &card in cards {
                    columns.push(Column {
                        top: LaidCard { card, laid: next() },
                        side: Vec::new(),
                    });
                }
            }
            Some(Placement::Sideline { after, cards }) => {
                let entry: Vec<LaidCard> = cards
                    .iter()
                    .map(|&card| LaidCard { card, laid: next() })
                    .collect();
                if let Some(column) = columns.get_mut(*after) {
                    column.side.push(entry);
                }
            }
            None => {}
        }
    }
    if n != laid_total {
        for column in &mut columns {
            column.top.laid = None;
            for card in column.side.iter_mut().flatten() {
                card.laid = None;
            }
        }
    }
    columns
}

/// Removes every `explanation` field (and explanation lists) from a JSON value.
pub fn strip_explanations(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("explanation");
            map.remove("explanations");
            for v in map.values_mut() {
                strip_explanations(v);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_explanations),
        _ => {}
    }
}

/// Leaves out of a list of warnings (JSON) those that [`tells_the_rule`].
fn drop_rule_warnings(warnings: &mut Value) {
    if let Value::Array(items) = warnings {
        items.retain(|w| !w.as_str().is_some_and(tells_the_rule));
    }
}

/// A short warning about the stock for the tablet, when one is due: the stock is low,
/// or more decks than two are in play, and then why — for the deal (`deal`: so many
/// hands of so many cards), because the stock ran out since, or both.
pub fn stock_warning(stock: u32, decks: u32, players: usize, deal: Option<Deal>) -> Option<String> {
    let low = u32::try_from(players)
        .unwrap_or(u32::MAX)
        .saturating_mul(2)
        .max(10);
    if stock <= low {
        return Some(format!(
            "stock low: {stock} cards left; a deck will be added when it runs out ({decks} in play)"
        ));
    }
    if decks <= 2 {
        return None;
    }
    let why = match deal.filter(|d| d.decks > 2) {
        Some(d) => {
            let dealt = format!(
                "{} hands of {} and the starter needed {} cards",
                d.players, d.hand_size, d.need
            );
            if decks > d.decks {
                format!("{} to deal: {dealt}; more since the stock ran out", d.decks)
            } else {
                dealt
            }
        }
        None => "the stock ran out before".to_string(),
    };
    Some(format!("{decks} decks in play ({why})"))
}

/// The corrections recorded during `round`, oldest first: their own number and
/// time, the event each corrects and the fields it gives it. The log of a round
/// lists them among its events, so that a God reading it sees when a row was
/// corrected and why its numbers skip (a correction takes a number of its own).
fn round_corrections(history: &History, round: RoundRef) -> Vec<Value> {
    history
        .entries
        .iter()
        .filter(|entry| entry.stored.round == round)
        .filter_map(|entry| {
            let EntryKind::Correction(fix) = &entry.kind else {
                return None;
            };
            Some(json!({
                "seq": entry.stored.seq,
                "at": entry.recorded_at().shown,
                "target": format!("{}:{}", fix.target, fix.seq),
                "target_round": fix.target.to_string(),
                "target_seq": fix.seq,
                "fields": strip_annotations(fix.fields.clone()),
            }))
        })
        .collect()
}

/// Where the correction line that is the game's newest event begins (its first
/// correction; those stored with it by `also` follow, marked [`WITH_PREVIOUS`]), or
/// `None` when the newest event is no correction.
fn newest_correction_line(history: &History) -> Option<usize> {
    let mut first = history.entries.len().checked_sub(1)?;
    if !matches!(history.entries[first].kind, EntryKind::Correction(_)) {
        return None;
    }
    while first > 0 && history.entries[first].payload.get(WITH_PREVIOUS) == Some(&Value::Bool(true))
    {
        first -= 1;
    }
    Some(first)
}

/// The view of a correction that is the game's newest event: the event it
/// corrects, what that event now records, and every play whose decision it changed
/// (replayed with and without it, as the recorder's acknowledgement counts them),
/// with the verdict before and after. No explanation: the public may see it all.
fn correction_view(
    history: &History,
    factory: &RefereeFactory,
    effective: &[Effective],
    outcomes: &[Outcome],
    first: usize,
    now: &GameState,
) -> Result<Value, HistoryError> {
    // The newest correction line begins at entry `first`: the corrections stored
    // with it (`also`) follow it, and the view is of them all, told by the line's
    // own correction (its target and fields) with the others listed in `group`.
    let Some(entry) = history.entries.get(first) else {
        return Ok(Value::Null);
    };
    let EntryKind::Correction(fix) = &entry.kind else {
        return Ok(Value::Null);
    };
    let group: Vec<Value> = history.entries[first..]
        .iter()
        .filter_map(|e| match &e.kind {
            EntryKind::Correction(c) => Some(json!({
                "event": e.event_ref(),
                "target": format!("{}:{}", c.target, c.seq),
            })),
            EntryKind::Table(_) => None,
        })
        .collect();
    let before = History {
        game: history.game,
        entries: history.entries[..first].to_vec(),
    };
    let old_effective = before.effective(&[])?;
    let (old_game, old_outcomes) = before.replay(factory, &old_effective)?;
    // What the players must do with the cards in front of them: the hands the
    // correction changed, as counted before it and now (a penalty taken back or
    // owed), only where the round is the same one.
    let old_state = old_game.state();
    let hands: Vec<Value> = if old_state.round == now.round {
        now.hands
            .0
            .iter()
            .filter_map(|(name, now)| {
                let was = old_state.hands.get(name)?;
                (was != *now).then(|| json!({"player": name, "was": was, "now": now}))
            })
            .collect()
    } else {
        Vec::new()
    };
    let recorded = |item: &Effective| {
        let event = serde_json::to_value(&item.event).unwrap_or(Value::Null);
        event
            .get("cards")
            .or_else(|| event.get("hand"))
            .cloned()
            .unwrap_or(Value::Null)
    };
    let mut changed = Vec::new();
    let mut target = json!({"event": format!("{}:{}", fix.target, fix.seq)});
    for (old, new) in paired(&old_effective, effective) {
        let before = old.and_then(|i| old_effective.get(i).zip(old_outcomes.get(i)));
        let after = new.and_then(|j| effective.get(j).zip(outcomes.get(j)));
        // A voided event is told as it stood before; one whose void was taken
        // back, as it stands now.
        let Some((item, shown)) = after.or(before) else {
            continue;
        };
        let Some(stored) = history.entries.get(item.entry).map(|e| &e.stored) else {
            continue;
        };
        let id = format!("{}:{}", stored.round, stored.seq);
        let mut play = json!({
            "event": id,
            "round": stored.round.to_string(),
            "seq": stored.seq,
            "kind": shown.event,
            "player": shown.player,
            "cards": recorded(item),
            "right": after.and_then(|(_, o)| o.right),
            "was": before.and_then(|(_, o)| o.right),
        });
        if after.is_none() {
            play["void"] = json!(true);
        }
        if stored.round == fix.target && stored.seq == fix.seq {
            target = play.clone();
        }
        let decided = |o: &Outcome| decision(&serde_json::to_value(o).unwrap_or(Value::Null));
        let differs = match (before, after) {
            (Some((old, old_o)), Some((new, new_o))) => {
                decided(old_o) != decided(new_o) || old.event != new.event
            }
            _ => true,
        };
        if differs {
            changed.push(play);
        }
    }
    Ok(json!({
        "event": entry.event_ref(),
        "round": entry.stored.round.to_string(),
        "seq": entry.stored.seq,
        "at": entry.recorded_at().shown,
        "target": target,
        "fields": strip_annotations(fix.fields.clone()),
        "changed": changed,
        "hands": hands,
        "group": if group.len() > 1 { json!(group) } else { Value::Null },
    }))
}

/// Builds both views of the game `game` (the one being played).
pub fn build(
    store: &Store,
    factory: &RefereeFactory,
    game: Option<GameId>,
    referee: &Game,
    version: u64,
) -> Result<Views, ApiError> {
    let at = "building the table view";
    let state = referee.state();
    let state_json = serde_json::to_value(&state).unwrap_or(Value::Null);
    let state_text = serde_json::to_string(&state).ok();
    let mut public_state_text = state_text.clone();
    let round = match game {
        Some(game) if state.round > 0 => Some(RoundRef {
            game,
            number: state.round,
        }),
        _ => None,
    };
    let mut public = Map::new();
    public.insert("version".into(), json!(version));
    public.insert("game".into(), json!(game.map(|g| g.to_string())));
    public.insert("round".into(), json!(round.map(|r| r.to_string())));
    public.insert("game_over".into(), json!(referee.ended()));
    public.insert(
        "stock_warning".into(),
        // eleusis-1959 and delphos have no stock to run out.
        json!(
            if state.ended || state.round == 0 || state.variant.is_some_and(|v| v.own_flow()) {
                None
            } else {
                stock_warning(
                    state.stock,
                    state.decks,
                    state.players.len(),
                    referee.deal(),
                )
            }
        ),
    );
    let mut rule = Value::Null;
    let mut revealed = false;
    let mut plays: Vec<Value> = Vec::new();
    let mut columns = Vec::new();
    let mut correction = Value::Null;
    let mut corrections = Vec::new();
    if let (Some(game), Some(round)) = (game, round) {
        let info = store.round(round).map_err(|e| ApiError::store(e, at))?;
        let reveal = store.revealed(round).map_err(|e| ApiError::store(e, at))?;
        revealed = reveal.is_some();
        public.insert(
            "seal".into(),
            json!({
                "commitment": info.commitment,
                "revealed": reveal.map(|r| json!({
                    "rule": r.rule,
                    "salt": r.salt,
                    "commitment": r.commitment,
                    "verified": commitment(&r.salt, &r.rule) == info.commitment,
                })),
            }),
        );
        rule = json!(store
            .seal_for_god(round)
            .map_err(|e| ApiError::store(e, at))?
            .for_god());
        let history = History::load(store, game, true).map_err(|e| ApiError::history(e, at))?;
        let (effective, voided) = history
            .effective_and_voided(&[])
            .map_err(|e| ApiError::history(e, at))?;
        let (_, outcomes) = history
            .replay(factory, &effective)
            .map_err(|e| ApiError::history(e, at))?;
        let corrected = history
            .entries
            .iter()
            .any(|e| matches!(e.kind, EntryKind::Correction(_)));
        let mut round_outcomes: Vec<&Outcome> = Vec::new();
        for (item, outcome) in effective.iter().zip(&outcomes) {
            let Some(entry) = history.entries.get(item.entry) else {
                continue;
            };
            if entry.stored.round != round {
                continue;
            }
            if outcome.event != "round" {
                round_outcomes.push(outcome);
            }
            let changed = corrected
                && store
                    .verdict(entry.stored.id)
                    .ok()
                    .flatten()
                    .and_then(|text| serde_json::from_str::<Value>(&text).ok())
                    .is_some_and(|announced| {
                        decision(&announced)
                            != decision(&serde_json::to_value(outcome).unwrap_or(Value::Null))
                    });
            let event_json = serde_json::to_value(&item.event).unwrap_or(Value::Null);
            let cards = event_json
                .get("cards")
                .or_else(|| event_json.get("hand"))
                .cloned()
                .unwrap_or(Value::Null);
            plays.push(json!({
                "seq": entry.stored.seq,
                "at": entry.recorded_at().shown,
                "event": outcome.event,
                "player": outcome.player,
                "cards": cards,
                // A no-play's pick as recorded: the outcome names it only when it
                // applied (a right no-play keeps a pick it ignores).
                "pick": event_json.get("pick"),
                "right": outcome.right,
                "outcome": outcome,
                "text": outcome.to_string(),
                "corrected": !item.corrected_by.is_empty(),
                "changed": changed,
                "evidence": entry.payload.get("evidence"),
            }));
        }
        // A voided event keeps its row, struck through: who it was charged to and
        // what it held, as announced when it was recorded.
        for void in &voided {
            let Some(entry) = history.entries.get(void.entry) else {
                continue;
            };
            if entry.stored.round != round {
                continue;
            }
            let announced = store
                .verdict(entry.stored.id)
                .ok()
                .flatten()
                .and_then(|text| serde_json::from_str::<Value>(&text).ok())
                .unwrap_or(Value::Null);
            let recorded = match &entry.kind {
                EntryKind::Table(object) => object.clone(),
                EntryKind::Correction(_) => continue,
            };
            plays.push(json!({
                "seq": entry.stored.seq,
                "at": entry.recorded_at().shown,
                "event": entry.stored.kind,
                "player": recorded.get("player").or_else(|| announced.get("player")),
                "cards": recorded.get("cards").or_else(|| recorded.get("hand")),
                "pick": recorded.get("pick"),
                "right": Value::Null,
                "was": announced.get("right"),
                "void": true,
                "voided_by": history.event_refs(&void.corrected_by),
                "text": format!("{} voided: it did not happen", entry.stored.kind),
                "corrected": true,
                "changed": true,
                "evidence": entry.payload.get("evidence"),
            }));
        }
        plays.sort_by_key(|p| p.get("seq").and_then(Value::as_u64).unwrap_or(0));
        columns = layout(state.main.first().copied(), &round_outcomes, state.laid);
        corrections = round_corrections(&history, round);
        if let Some(first) = newest_correction_line(&history) {
            correction = correction_view(&history, factory, &effective, &outcomes, first, &state)
                .map_err(|e| ApiError::history(e, at))?;
        }
    }
    public.insert("state".into(), state_json);
    public.insert(
        "layout".into(),
        serde_json::to_value(&columns).unwrap_or(Value::Null),
    );
    public.insert(
        "last".into(),
        plays
            .iter()
            .rev()
            .find(|p| {
                p.get("event").and_then(Value::as_str) != Some("round") && p.get("void").is_none()
            })
            .cloned()
            .unwrap_or(Value::Null),
    );
    public.insert("plays".into(), Value::Array(plays));
    public.insert("correction".into(), correction);
    public.insert("corrections".into(), Value::Array(corrections));
    public.insert("revealed".into(), json!(revealed));
    let mut god = public.clone();
    god.insert("god_view".into(), json!(true));
    god.insert("rule".into(), rule);
    public.insert("god_view".into(), json!(false));
    let mut public = Value::Object(public);
    if !revealed {
        let mut shown = state.clone();
        shown.warnings.retain(|w| !tells_the_rule(w));
        public["state"] = serde_json::to_value(&shown).unwrap_or(Value::Null);
        public_state_text = serde_json::to_string(&shown).ok();
        strip_explanations(&mut public);
        // The one-line trace quotes the explanations too, and the per-card verdicts
        // say which card of a wrong sequence failed (RULES.md 3.2: God does not say)
        // and which cards of a shown hand were acceptable: the public gets the
        // play's verdict (`right`) only.
        let hide = |p: &mut Value| {
            if let Some(map) = p.as_object_mut() {
                map.remove("text");
                if let Some(Value::Object(outcome)) = map.get_mut("outcome") {
                    outcome.remove("verdicts");
                    if let Some(w) = outcome.get_mut("warnings") {
                        drop_rule_warnings(w);
                    }
                }
            }
        };
        if let Some(Value::Array(plays)) = public.get_mut("plays") {
            plays.iter_mut().for_each(hide);
        }
        if let Some(last) = public.get_mut("last") {
            hide(last);
        }
    }
    Ok(Views::with_public_state(
        version,
        public,
        Value::Object(god),
        state_text.as_deref(),
        public_state_text.as_deref(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cards::parse_cards;

    fn card(text: &str) -> Card {
        text.parse().expect("card")
    }

    #[test]
    fn layout_numbers_laid_cards_in_laying_order_and_keeps_sequences_together() {
        let right = Outcome {
            placed: Some(Placement::Main {
                cards: parse_cards("5S").expect("cards"),
            }),
            ..Outcome::default()
        };
        let wrong_seq = Outcome {
            placed: Some(Placement::Sideline {
                after: 1,
                cards: parse_cards("4S 9D JC").expect("cards"),
            }),
            ..Outcome::default()
        };
        let next = Outcome {
            placed: Some(Placement::Main {
                cards: parse_cards("2H").expect("cards"),
            }),
            ..Outcome::default()
        };
        let columns = layout(Some(card("3H")), &[&right, &wrong_seq, &next], 6);
        assert_eq!(columns.len(), 3);
        assert_eq!(columns[1].side.len(), 1, "one entry for the sequence");
        let side: Vec<Option<u32>> = columns[1].side[0].iter().map(|c| c.laid).collect();
        assert_eq!(side, vec![Some(3), Some(4), Some(5)]);
        assert_eq!(columns[2].top.laid, Some(6));
        // A count that disagrees with the referee drops the positions.
        let columns = layout(Some(card("3H")), &[&right], 7);
        assert!(columns.iter().all(|c| c.top.laid.is_none()));
    }

    #[test]
    fn explanations_are_stripped_everywhere() {
        let mut value = json!({"verdicts": [{"card": "5H", "explanation": "last is odd"}],
            "nested": {"explanations": ["x"], "keep": 1}});
        strip_explanations(&mut value);
        let text = value.to_string();
        assert!(!text.contains("explanation"), "{text}");
        assert!(text.contains("keep"));
    }

    #[test]
    fn the_view_text_writes_the_state_in_its_own_order() {
        let state = r#"{"hands":{"Jacques":14,"Alain":13},"turn":"Alain"}"#;
        let view = json!({"version": 1, "state": serde_json::from_str::<Value>(state).expect("state"), "last": null});
        let text = view_text(&view, Some(state));
        assert!(text.find("Jacques") < text.find("Alain"), "{text}");
        assert_eq!(serde_json::from_str::<Value>(&text).expect("JSON"), view);
        // A state text that says something else is not written in.
        assert_eq!(view_text(&view, Some(r#"{"hands":{}}"#)), view.to_string());
        let views = Views::new(1, view.clone(), view, Some(state));
        assert!(
            views
                .public_text
                .starts_with(r#"{"type":"view","view":{"last":null,"state":{"hands":{"Jacques""#),
            "{}",
            views.public_text
        );
    }

    #[test]
    fn stock_warning_when_low_or_extra_decks() {
        assert!(stock_warning(40, 2, 4, None).is_none());
        assert!(stock_warning(9, 2, 4, None)
            .expect("low")
            .contains("9 cards"));
        assert_eq!(
            stock_warning(60, 3, 4, None).as_deref(),
            Some("3 decks in play (the stock ran out before)")
        );
        let big = Deal {
            players: 12,
            hand_size: 14,
            need: 169,
            decks: 4,
        };
        assert_eq!(
            stock_warning(39, 4, 12, Some(big)).as_deref(),
            Some("4 decks in play (12 hands of 14 and the starter needed 169 cards)")
        );
        assert_eq!(
            stock_warning(60, 5, 12, Some(big)).as_deref(),
            Some("5 decks in play (4 to deal: 12 hands of 14 and the starter needed 169 cards; more since the stock ran out)")
        );
        let small = Deal {
            players: 4,
            hand_size: 14,
            need: 57,
            decks: 2,
        };
        assert_eq!(
            stock_warning(60, 3, 4, Some(small)).as_deref(),
            Some("3 decks in play (the stock ran out before)")
        );
    }
}
