//! One round of a variant with hands (RULES.md sections 2–5): the layout, hands as
//! counts, turns, the Prophet, markers, sudden death, the end and the scores.
//!
//! Every handler first checks everything that can refuse the event, and only then
//! changes the state, so a refused event leaves the round exactly as it was.

use std::sync::Arc;

use serde::Serialize;

use crate::cards::Card;
use crate::rule::{Context, Judge};

use super::error::{quoted, ProphetCondition, RefereeError};
use super::log::{Call, NoPlayEvent, PlayEvent, ProphetEvent, RoundEvent};
use super::outcome::{
    CardVerdict, Outcome, Penalty, Pick, Placement, ProphetCallOutcome, RoundEnd,
};
use super::scoring::{round_scores, ProphetTally, Tally};
use super::variant::{Variant, VariantParams};

/// A rule the referee can consult from several threads (the web service shares games).
pub type SharedJudge = Arc<dyn Judge + Send + Sync>;

/// Fewest players (God excluded) a round accepts: someone must have a turn after
/// someone else. The seeds recommend at least four people at the table; the referee
/// does not enforce a recommendation.
pub const MIN_PLAYERS: usize = 2;

/// Most players (God excluded) a round accepts: two decks cannot give more people
/// a card, and a bound keeps one absurd request from tying up the referee.
pub const MAX_PLAYERS: usize = 100;

/// Longest name (in characters) of God or a player: a name is shown on the tablet,
/// the audit and the score sheet.
pub const MAX_NAME_CHARS: usize = 60;

/// Largest `hand_size` a round accepts (a whole deck).
pub const MAX_HAND_SIZE: u32 = 52;

/// Most cards a `no_play` may show. The referee trusts a shown hand and adds decks
/// to match it, so without a bound one absurd line (two million cards) would add
/// tens of thousands of decks; no hand at a real table comes near this.
pub const MAX_SHOWN_HAND: usize = 1000;

/// The end of the warning that God kept a starter the rule does not accept: it
/// says something of the rule, so the players' view leaves it out until the reveal.
/// RULES.md lets God turn up another before the round starts (`refused_starters`);
/// once the round event is recorded the starter is the one laid, so the warning
/// says it was kept rather than inviting a choice no event can make.
pub const STARTER_KEPT: &str = "is not acceptable under the rule; God kept it as the starter (another is turned up before the round starts, with the refused ones in refused_starters)";

/// Whether a warning tells something of the rule (a starter God kept though the
/// rule does not accept it): every view of the players, the tablet's and the
/// public audit's alike, leaves it out before the reveal.
pub fn tells_the_rule(warning: &str) -> bool {
    warning.contains(STARTER_KEPT)
}

/// Whether `c` could break a printed line or disguise what a line says: C0 and C1
/// controls and DEL (Unicode `Cc`: line breaks, tabs), the line and paragraph
/// separators (U+2028, U+2029, shown as line breaks by Unicode-aware viewers), and
/// the bidirectional marks, embeddings, overrides and isolates (which make text show
/// in another order than it is stored). No name may hold one; the audit and the
/// score sheet also escape them in anything they print.
pub fn disguises_a_line(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{200E}' | '\u{200F}' | '\u{061C}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
        )
}

/// Whether `c` is invisible in a name and has no business there: zero-width spaces,
/// word joiners and invisible operators, the byte-order mark, soft hyphens, the
/// Mongolian vowel separator, Hangul fillers and tag characters. A name holding one
/// prints like another name ("G" and "G" + U+2060). Joiners and variation selectors
/// stay allowed: scripts and emoji need them ([`name_key`] ignores them instead).
pub fn invisible_in_a_name(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}' | '\u{034F}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
            | '\u{180E}' | '\u{200B}'
            | '\u{2060}'..='\u{2064}'
            | '\u{206A}'..='\u{206F}'
            | '\u{2800}' | '\u{3164}' | '\u{FEFF}' | '\u{FFA0}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{13430}'..='\u{1343F}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E007F}'
    )
}

/// The one form a name is kept in: composed (Unicode NFC) and without spaces at
/// either end. Every name an event gives is read in this form.
pub fn name_form(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization as _;
    // Spaces only: a tab or a line break at an end is refused with the other
    // characters that disguise a line, not silently dropped.
    name.nfc()
        .collect::<String>()
        .trim_matches(|c: char| c.is_whitespace() && !disguises_a_line(c))
        .to_string()
}

/// What two names must not share to be told apart at the table: the name in its
/// one form ([`name_form`]) without the default-ignorable characters (joiners,
/// variation selectors).
pub fn name_key(name: &str) -> String {
    let shown: String = name
        .chars()
        .filter(|&c| {
            !matches!(c, '\u{200C}' | '\u{200D}' | '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}')
        })
        .collect();
    name_form(&shown)
}

/// What two names of one round must not share: [`name_key`] in lower case, since
/// an "Ana" and an "ana" at one table are a slip of the keyboard, not two people.
pub fn alike_key(name: &str) -> String {
    name_key(name).to_lowercase()
}

/// Checks a round's seating, the same in every variant: no empty name, no name
/// longer than [`MAX_NAME_CHARS`] or holding a character of [`disguises_a_line`] (a
/// line break would forge a line of the audit), [`MIN_PLAYERS`] to [`MAX_PLAYERS`] players,
/// none seated twice, and God not among them.
pub(crate) fn check_seats(event: &RoundEvent) -> Result<(), RefereeError> {
    // A name of joiners or variation selectors alone prints as nothing, like an
    // empty one.
    if std::iter::once(&event.god)
        .chain(&event.players)
        .any(|n| n.trim().is_empty() || name_key(n).is_empty())
    {
        return Err(RefereeError::EmptyName);
    }
    if event.players.len() < MIN_PLAYERS {
        return Err(RefereeError::TooFewPlayers {
            min: MIN_PLAYERS,
            got: event.players.len(),
        });
    }
    if event.players.len() > MAX_PLAYERS {
        return Err(RefereeError::PlayerLimit {
            max: MAX_PLAYERS,
            got: event.players.len(),
        });
    }
    for name in std::iter::once(&event.god).chain(&event.players) {
        if name.chars().count() > MAX_NAME_CHARS
            || name
                .chars()
                .any(|c| disguises_a_line(c) || invisible_in_a_name(c))
        {
            return Err(RefereeError::BadName {
                name: quoted(name),
                max: MAX_NAME_CHARS,
            });
        }
    }
    let mut seated = std::collections::HashSet::with_capacity(event.players.len());
    for name in &event.players {
        if !seated.insert(name) {
            return Err(RefereeError::DuplicatePlayer(name.clone()));
        }
    }
    if event.players.contains(&event.god) {
        return Err(RefereeError::GodPlays(event.god.clone()));
    }
    // Names that print alike are refused too: an audit or a score sheet with two
    // "François" columns cannot say who is who, nor "Ana" and "ana".
    let mut keys: Vec<(String, &String)> = Vec::with_capacity(event.players.len() + 1);
    for name in std::iter::once(&event.god).chain(&event.players) {
        let key = alike_key(name);
        if let Some((_, first)) = keys.iter().find(|(k, _)| *k == key) {
            return Err(RefereeError::LookAlikeNames {
                first: (*first).clone(),
                second: name.clone(),
            });
        }
        keys.push((key, name));
    }
    Ok(())
}

/// The wrong cards laid under one main-line card, each play kept as one entry (a wrong
/// sequence stays together).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sideline {
    /// Index in the main line of the card this sideline hangs under.
    pub after: usize,
    pub plays: Vec<Vec<Card>>,
}

/// A player's seat in the round.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Seat {
    pub name: String,
    pub hand: u32,
    pub eliminated: bool,
    pub been_prophet: bool,
}

/// `1 card`, `3 cards`: a count of cards in the referee's sentences.
fn cards_word(n: u32) -> String {
    if n == 1 {
        "1 card".to_string()
    } else {
        format!("{n} cards")
    }
}

/// The prophet in office and the laid position of the card carrying his marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Office {
    pub seat: usize,
    pub marker: u32,
}

/// How a round was dealt. More decks than the variant's may be in play for the deal
/// (many players or big hands), for a stock that ran out since, or both; the tablet
/// says which, and needs these numbers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deal {
    /// Players dealt a hand.
    pub players: u32,
    /// Cards in each hand.
    pub hand_size: u32,
    /// Cards the hands and the starter took.
    pub need: u64,
    /// Decks shuffled together for the deal.
    pub decks: u32,
}

/// The last thing that happened was this player's play (condition 1 of the Prophet).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LastPlay {
    seat: usize,
    /// Laid position of the last card of that play.
    laid: u32,
}

/// The state of one round.
#[derive(Clone)]
pub(crate) struct Round {
    pub number: u32,
    pub variant: Variant,
    pub params: VariantParams,
    pub god: String,
    pub hint: Option<String>,
    pub seats: Vec<Seat>,
    judge: SharedJudge,
    pub main: Vec<Card>,
    pub sidelines: Vec<Sideline>,
    /// Every sideline card of the round, oldest first (the rule language's `wrong`).
    wrong: Vec<Card>,
    /// How many of the last `wrong` cards hang under the last main-line card (`side`).
    side_len: usize,
    /// For each laid card in laying order: on the main line (true) or a sideline.
    laid_main: Vec<bool>,
    /// How many times each card (by [`Card::index`]) lies on the table, main line and
    /// sidelines, so that a card seen more often than the decks hold it is found
    /// without counting the whole layout again at every play.
    on_table: [u32; 52],
    pub white_markers: Vec<u32>,
    pub black_markers: Vec<u32>,
    pub prophet: Option<Office>,
    /// Whose turn it is; `None` once the round has ended.
    pub turn: Option<usize>,
    last_play: Option<LastPlay>,
    pub end: Option<RoundEnd>,
    pub stock: u32,
    pub decks: u32,
    /// The deal the round started with.
    pub deal: Deal,
    /// Reason for the end decided by the current event (a small-hand "no play").
    pending_end: Option<String>,
    /// Whether verdicts carry the rule's explanation (see [`Round::set_explain`]).
    explain: bool,
}

/// The rule's verdict on `card`, with its explanation when `explain` is set; without
/// it the rule takes its allocation-free path and the explanation is empty.
fn verdict(
    judge: &(dyn Judge + Send + Sync),
    explain: bool,
    ctx: &Context<'_>,
    card: Card,
) -> CardVerdict {
    if explain {
        let j = judge.judge(ctx, card);
        CardVerdict {
            card,
            accepted: j.accepted,
            explanation: j.explanation,
        }
    } else {
        CardVerdict {
            card,
            accepted: judge.accepts(ctx, card),
            explanation: String::new(),
        }
    }
}

impl Round {
    /// Sets up a round from its `round` event: seats, deal, starter, first player.
    pub fn start(
        number: u32,
        event: &RoundEvent,
        judge: SharedJudge,
    ) -> Result<(Round, Outcome), RefereeError> {
        let params = event.variant.params();
        check_seats(event)?;
        let hand_size = event.hand_size.unwrap_or(params.hand_size);
        if hand_size == 0 || hand_size > MAX_HAND_SIZE {
            return Err(RefereeError::BadHandSize(hand_size));
        }
        let empty = Context::default();
        let mut out = Outcome {
            round: number,
            event: "round",
            ..Outcome::default()
        };
        for &card in &event.refused_starters {
            let j = judge.judge(&empty, card);
            if j.accepted {
                return Err(RefereeError::RefusedStarterAcceptable {
                    card,
                    explanation: j.explanation,
                });
            }
            out.verdicts.push(CardVerdict {
                card,
                accepted: false,
                explanation: j.explanation,
            });
        }
        let starter = judge.judge(&empty, event.starter);
        if !starter.accepted {
            if params.starter_must_fit {
                return Err(RefereeError::StarterNotAcceptable {
                    card: event.starter,
                    variant: event.variant.to_string(),
                    explanation: starter.explanation,
                });
            }
            // 001: "God *may*, if the rule needs it, choose another card" — keeping an
            // unacceptable starter is allowed in new-eleusis, but worth recording.
            out.warnings
                .push(format!("starter {} {STARTER_KEPT}", event.starter));
        }
        out.verdicts.push(CardVerdict {
            card: event.starter,
            accepted: starter.accepted,
            explanation: starter.explanation,
        });

        let players = u64::try_from(event.players.len()).unwrap_or(u64::MAX);
        let need = players
            .saturating_mul(u64::from(hand_size))
            .saturating_add(1);
        let deck_size = u64::from(params.deck_size);
        let decks_needed = need.div_ceil(deck_size).max(u64::from(params.decks));
        let Ok(decks) = u32::try_from(decks_needed) else {
            return Err(RefereeError::TooManyPlayers(event.players.len()));
        };
        if decks > params.decks {
            out.warnings.push(format!(
                "{players} hands of {hand_size} and the starter need {need} cards: {decks} decks are used"
            ));
        }
        let first = (usize::from(event.starter.value()) - 1) % event.players.len();
        let mut round = Round {
            number,
            variant: event.variant,
            params,
            god: event.god.clone(),
            hint: event.hint.clone(),
            seats: event
                .players
                .iter()
                .map(|name| Seat {
                    name: name.clone(),
                    hand: hand_size,
                    eliminated: false,
                    been_prophet: false,
                })
                .collect(),
            judge,
            main: Vec::new(),
            sidelines: Vec::new(),
            wrong: Vec::new(),
            side_len: 0,
            laid_main: Vec::new(),
            on_table: [0; 52],
            white_markers: Vec::new(),
            black_markers: Vec::new(),
            prophet: None,
            turn: Some(first),
            last_play: None,
            end: None,
            stock: u32::try_from(u64::from(decks) * deck_size - need).unwrap_or(u32::MAX),
            decks,
            deal: Deal {
                players: u32::try_from(players).unwrap_or(u32::MAX),
                hand_size,
                need,
                decks,
            },
            pending_end: None,
            explain: true,
        };
        round.place(&[event.starter], true, &mut out);
        out.next_turn = Some(round.seats[first].name.clone());
        Ok((round, out))
    }

    /// Whether the verdicts of later events carry explanations. Building them costs
    /// most of a replay's time, and `eleusis replay` without `--trace` shows none.
    pub fn set_explain(&mut self, explain: bool) {
        self.explain = explain;
    }

    /// Cards laid so far (starter included).
    pub fn laid(&self) -> u32 {
        self.laid_main.len() as u32
    }

    /// Whether a wrong play now eliminates (RULES.md section 5): the threshold is
    /// counted before the play is placed, from the start without a prophet and from
    /// the prophet marker with one.
    pub fn sudden_death(&self) -> bool {
        match self.prophet {
            None => self.params.sudden_death.is_some_and(|t| self.laid() >= t),
            Some(office) => self
                .params
                .sudden_death_after_prophet
                .is_some_and(|t| self.laid() - office.marker >= t),
        }
    }

    /// Names of the players who have been prophet this round and are not in office.
    pub fn former_prophets(&self) -> Vec<String> {
        self.seats
            .iter()
            .enumerate()
            .filter(|&(i, s)| s.been_prophet && self.prophet.map(|o| o.seat) != Some(i))
            .map(|(_, s)| s.name.clone())
            .collect()
    }

    /// A single card or a sequence.
    pub fn play(&mut self, event: &PlayEvent) -> Result<Outcome, RefereeError> {
        let actor = self.actor(event.player.as_deref())?;
        let n = event.cards.len();
        if n == 0 || n > self.params.max_sequence {
            return Err(RefereeError::SequenceLength {
                max: self.params.max_sequence,
                got: n,
            });
        }
        let hand = self.seats[actor].hand;
        if (hand as usize) < n {
            return Err(RefereeError::NotEnoughCards {
                player: self.seats[actor].name.clone(),
                hand,
                cards: n,
            });
        }
        let call = self.check_call(event.prophet_says)?;

        let mut out = self.outcome("play", actor);
        let sudden = self.sudden_death();
        out.verdicts = self.judge_sequence(&event.cards);
        let right = out.verdicts.iter().all(|v| v.accepted);
        out.right = Some(right);
        self.seats[actor].hand -= n as u32;

        let mut covered = false;
        if let Some((prophet, said)) = call {
            let confirmed = said.accepts() == right;
            out.prophet_call = Some(ProphetCallOutcome {
                prophet: self.seats[prophet].name.clone(),
                said,
                confirmed,
            });
            if !confirmed {
                // Overthrown at once, before the play is placed.
                self.overthrow(&mut out);
                covered = !right;
            }
        }
        self.place(&event.cards, right, &mut out);
        self.warn_impossible_copies(&event.cards, &[], &mut out);
        if !right && !covered {
            let reason = if n == 1 {
                "wrong card".to_string()
            } else {
                format!("wrong sequence of {n}")
            };
            self.penalize(
                actor,
                self.params.wrong_card_penalty * n as u32,
                reason,
                &mut out,
            );
            if sudden {
                self.eliminate(actor, &mut out);
            }
        }
        out.covered = covered;
        self.last_play = Some(LastPlay {
            seat: actor,
            laid: self.laid(),
        });
        self.finish(actor, sudden, &mut out);
        Ok(out)
    }

    /// A "no play" declaration (RULES.md sections 3 and 4).
    pub fn no_play(&mut self, event: &NoPlayEvent) -> Result<Outcome, RefereeError> {
        let actor = self.actor(event.player.as_deref())?;
        let call = self.check_call(event.prophet_says)?;
        if let Some(pick) = event.pick {
            if !event.hand.contains(&pick) {
                return Err(RefereeError::PickNotInHand(pick));
            }
        }
        let verdicts = self.judge_each(&event.hand);
        let right = verdicts.iter().all(|v| !v.accepted);
        let verdict_of = |card: Card| verdicts.iter().find(|v| v.card == card);
        let first_acceptable = verdicts.iter().find(|v| v.accepted).map(|v| v.card);
        // God takes the card unless the prophet rightly called the declaration wrong.
        let god_picks = !right && !matches!(call, Some((_, Call::Wrong)));
        if let (true, Some(pick)) = (god_picks, event.pick) {
            if verdict_of(pick).is_some_and(|v| !v.accepted) {
                return Err(RefereeError::PickNotAcceptable {
                    card: pick,
                    explanation: verdict(self.judge.as_ref(), true, &self.context(), pick)
                        .explanation,
                });
            }
        }

        let mut out = self.outcome("no_play", actor);
        let sudden = self.sudden_death();
        out.right = Some(right);
        let shown = event.hand.len() as u32;
        let tracked = self.seats[actor].hand;
        if shown != tracked {
            // The table log never shows hands except here: trust what was shown, and
            // move the difference between the hand and the stock so counts stay whole.
            out.warnings.push(format!(
                "{} showed {} but the referee counted {tracked}; the shown hand is trusted",
                self.seats[actor].name,
                cards_word(shown)
            ));
            if shown > tracked {
                self.draw(shown - tracked, &mut out);
            } else {
                self.stock += tracked - shown;
            }
            self.seats[actor].hand = shown;
        }
        self.warn_impossible_copies(&event.hand, &event.hand, &mut out);
        if right && event.pick.is_some() {
            out.warnings
                .push("pick ignored: the declaration was right, no card is taken".to_string());
        }
        if let Some((prophet, said)) = call {
            out.prophet_call = Some(ProphetCallOutcome {
                prophet: self.seats[prophet].name.clone(),
                said,
                confirmed: said.accepts() == right,
            });
        }
        let chosen = event.pick.or(first_acceptable);
        out.verdicts = verdicts.clone();
        match (call.map(|(_, said)| said), right) {
            // No prophet, or the prophet said right and God agrees: section 3.
            (None, true) | (Some(Call::Right), true) => self.right_no_play(actor, &mut out),
            // The prophet said wrong, God disagrees: overthrown, then as a right one.
            (Some(Call::Wrong), true) => {
                self.overthrow(&mut out);
                self.right_no_play(actor, &mut out);
            }
            (None, false) => {
                if let Some(card) = chosen {
                    self.take_from_hand(actor, card, "God", &mut out);
                }
                self.wrong_no_play(actor, sudden, &mut out);
            }
            // The prophet said right, God disagrees: overthrown; God takes an
            // acceptable card; the player is not penalised.
            (Some(Call::Right), false) => {
                self.overthrow(&mut out);
                if let Some(card) = chosen {
                    self.take_from_hand(actor, card, "God", &mut out);
                }
                out.covered = true;
            }
            // The prophet said wrong, God agrees: the prophet picks.
            (Some(Call::Wrong), false) => {
                let card = chosen.or(first_acceptable);
                let acceptable = card.and_then(verdict_of).is_some_and(|v| v.accepted);
                match card {
                    Some(card) if acceptable => {
                        self.take_from_hand(actor, card, "prophet", &mut out);
                        self.wrong_no_play(actor, sudden, &mut out);
                    }
                    Some(card) => {
                        // The card goes back to the hand, nothing is placed, no penalty.
                        out.pick = Some(Pick {
                            card,
                            by: "prophet",
                            accepted: false,
                        });
                        self.overthrow(&mut out);
                        out.covered = true;
                    }
                    None => {}
                }
            }
        }
        self.last_play = None;
        self.finish(actor, sudden, &mut out);
        Ok(out)
    }

    /// A Prophet declaration (RULES.md section 4).
    pub fn declare_prophet(&mut self, event: &ProphetEvent) -> Result<Outcome, RefereeError> {
        self.ensure_running()?;
        let seat = self.seat_of(&event.player)?;
        let refuse = |condition| {
            Err(RefereeError::ProphetRefused {
                player: event.player.clone(),
                condition,
            })
        };
        if !self.params.prophet {
            return refuse(ProphetCondition::VariantHasNone);
        }
        if self.seats[seat].eliminated {
            return refuse(ProphetCondition::Eliminated);
        }
        // A prophet in office settles it whoever declares (the prophet himself, who
        // plays no more, included): said first, it is the reason that cannot change.
        if let Some(office) = self.prophet {
            return refuse(ProphetCondition::NoProphet {
                current: self.seats[office.seat].name.clone(),
            });
        }
        let Some(last) = self.last_play.filter(|l| l.seat == seat) else {
            return refuse(ProphetCondition::JustPlayed);
        };
        let others = self
            .seats
            .iter()
            .enumerate()
            .filter(|&(i, s)| i != seat && !s.eliminated)
            .count();
        if others < 2 {
            return refuse(ProphetCondition::TwoOthersInRound { others });
        }
        if self.seats[seat].been_prophet {
            return refuse(ProphetCondition::NotBeenProphet);
        }

        let mut out = self.outcome("prophet", seat);
        let sudden = self.sudden_death();
        self.prophet = Some(Office {
            seat,
            marker: last.laid,
        });
        self.seats[seat].been_prophet = true;
        self.last_play = None;
        out.prophet_declared = Some((event.player.clone(), last.laid));
        if self.turn == Some(seat) {
            self.turn = self.next_after(seat);
        }
        self.note_phase(sudden, &mut out);
        out.next_turn = self.turn.map(|t| self.seats[t].name.clone());
        Ok(out)
    }

    // ----- checks (no state change) -----

    fn ensure_running(&self) -> Result<(), RefereeError> {
        match &self.end {
            Some(end) => Err(RefereeError::RoundOver {
                round: self.number,
                reason: end.reason.clone(),
            }),
            None => Ok(()),
        }
    }

    fn seat_of(&self, name: &str) -> Result<usize, RefereeError> {
        self.seats
            .iter()
            .position(|s| s.name == name)
            .ok_or_else(|| {
                RefereeError::unknown_player(
                    name,
                    self.seats.iter().map(|s| s.name.as_str()),
                    Some(&self.god),
                )
            })
    }

    /// The player whose turn it is, checked against the optional `player` field.
    fn actor(&self, named: Option<&str>) -> Result<usize, RefereeError> {
        self.ensure_running()?;
        let turn = self.turn.ok_or_else(|| RefereeError::RoundOver {
            round: self.number,
            reason: "no player is left to play".to_string(),
        })?;
        if let Some(name) = named {
            let seat = self.seat_of(name)?;
            if seat != turn {
                return Err(RefereeError::NotYourTurn {
                    expected: self.seats[turn].name.clone(),
                    got: name.to_string(),
                });
            }
        }
        Ok(turn)
    }

    /// `prophet_says` is required with a prophet in office and forbidden otherwise.
    fn check_call(&self, call: Option<Call>) -> Result<Option<(usize, Call)>, RefereeError> {
        match (self.prophet, call) {
            (Some(office), Some(call)) => Ok(Some((office.seat, call))),
            (Some(office), None) => Err(RefereeError::ProphetCallMissing {
                prophet: self.seats[office.seat].name.clone(),
            }),
            (None, Some(call)) => Err(RefereeError::ProphetCallWithoutProphet { call }),
            (None, None) => Ok(None),
        }
    }

    /// Judges a sequence card by card, each card seeing the previous ones of the
    /// sequence as already on the main line (so with an empty sideline under it).
    fn judge_sequence(&mut self, cards: &[Card]) -> Vec<CardVerdict> {
        let base = self.main.len();
        let side_start = self.wrong.len() - self.side_len;
        let mut verdicts: Vec<CardVerdict> = Vec::with_capacity(cards.len());
        for (i, &card) in cards.iter().enumerate() {
            // Past the first rejected card the sequence is wrong and that card never
            // reaches the main line: judging the rest "as if the previous ones had
            // been laid" would explain them against a layout that does not exist.
            if let Some(failed) = verdicts.iter().find(|v| !v.accepted) {
                let explanation = format!(
                    "not judged: the sequence is already wrong at {}",
                    failed.card.pretty()
                );
                verdicts.push(CardVerdict {
                    card,
                    accepted: false,
                    explanation,
                });
                continue;
            }
            let side: &[Card] = if i == 0 {
                &self.wrong[side_start..]
            } else {
                &[]
            };
            let ctx = Context {
                main: &self.main,
                side,
                wrong: &self.wrong,
            };
            verdicts.push(verdict(self.judge.as_ref(), self.explain, &ctx, card));
            self.main.push(card);
        }
        self.main.truncate(base);
        verdicts
    }

    /// What the rule sees now: the main line, the sideline under its last card, and
    /// every sideline card.
    fn context(&self) -> Context<'_> {
        Context {
            main: &self.main,
            side: &self.wrong[self.wrong.len() - self.side_len..],
            wrong: &self.wrong,
        }
    }

    /// Judges each card alone against the current layout (a shown hand).
    fn judge_each(&self, cards: &[Card]) -> Vec<CardVerdict> {
        let ctx = self.context();
        cards
            .iter()
            .map(|&card| verdict(self.judge.as_ref(), self.explain, &ctx, card))
            .collect()
    }

    // ----- changes (infallible) -----

    fn outcome(&self, event: &'static str, seat: usize) -> Outcome {
        Outcome::new(self.number, event, Some(self.seats[seat].name.clone()))
    }

    /// Lays cards: on the main line, or as one entry of the sideline under the last
    /// main-line card; puts white or black markers on every 10th laid card.
    fn place(&mut self, cards: &[Card], on_main: bool, out: &mut Outcome) {
        if on_main {
            for &card in cards {
                self.main.push(card);
                self.lay(card, true, out);
            }
            self.side_len = 0;
            out.placed = Some(Placement::Main {
                cards: cards.to_vec(),
            });
        } else {
            let after = self.main.len().saturating_sub(1);
            match self.sidelines.last_mut() {
                Some(line) if line.after == after => line.plays.push(cards.to_vec()),
                _ => self.sidelines.push(Sideline {
                    after,
                    plays: vec![cards.to_vec()],
                }),
            }
            for &card in cards {
                self.wrong.push(card);
                self.side_len += 1;
                self.lay(card, false, out);
            }
            out.placed = Some(Placement::Sideline {
                after,
                cards: cards.to_vec(),
            });
        }
    }

    fn lay(&mut self, card: Card, on_main: bool, out: &mut Outcome) {
        self.laid_main.push(on_main);
        if let Some(count) = self.on_table.get_mut(card.index()) {
            *count += 1;
        }
        let position = self.laid();
        let every = self.params.marker_every;
        match self.prophet {
            None if position.is_multiple_of(every) => {
                self.white_markers.push(position);
                out.white_markers.push(position);
            }
            Some(office)
                if position > office.marker && (position - office.marker).is_multiple_of(every) =>
            {
                self.black_markers.push(position);
                out.black_markers.push(position);
            }
            _ => {}
        }
    }

    /// Warns of each card of `cards` seen more often than the decks in play hold it:
    /// on the table (main line and sidelines) plus `off_table` (a shown hand). Such a
    /// card cannot be there; it is almost always a misread or mistyped card, which a
    /// correction fixes. The referee still takes the event as the table gave it.
    fn warn_impossible_copies(&self, cards: &[Card], off_table: &[Card], out: &mut Outcome) {
        let mut checked: Vec<Card> = Vec::new();
        for &card in cards {
            if checked.contains(&card) {
                continue;
            }
            checked.push(card);
            let on_table = self.on_table.get(card.index()).copied().unwrap_or(0) as usize;
            let seen = on_table + off_table.iter().filter(|&&c| c == card).count();
            if seen > self.decks as usize {
                out.warnings.push(format!(
                    "{} seen {seen} times (table and this event) but the {} decks in play hold it {} times: a misread card? (correct it if so)",
                    card.pretty(),
                    self.decks,
                    self.decks
                ));
            }
        }
    }

    /// Takes `n` cards from the stock, adding as many decks as it takes when it runs
    /// out, with one warning for them all (a shown hand of thousands of cards is
    /// trusted, but must not flood the state with a warning per deck).
    fn draw(&mut self, n: u32, out: &mut Outcome) {
        if self.stock < n {
            let size = self.params.deck_size.max(1);
            let added = (n - self.stock).div_ceil(size);
            let first = self.decks + 1;
            self.decks = self.decks.saturating_add(added);
            self.stock = self.stock.saturating_add(added.saturating_mul(size));
            let which = if added == 1 {
                format!("deck {first} is added")
            } else {
                format!("decks {first} to {} are added", self.decks)
            };
            out.warnings.push(format!(
                "the stock ran out: {which} ({} cards in the stock)",
                self.stock
            ));
        }
        self.stock -= n;
    }

    fn penalize(&mut self, seat: usize, cards: u32, reason: String, out: &mut Outcome) {
        self.draw(cards, out);
        self.seats[seat].hand += cards;
        out.penalties.push(Penalty {
            player: self.seats[seat].name.clone(),
            cards,
            reason,
        });
    }

    fn eliminate(&mut self, seat: usize, out: &mut Outcome) {
        self.seats[seat].eliminated = true;
        out.eliminated.push(self.seats[seat].name.clone());
    }

    /// A false prophet: 5 penalty cards, marker and black markers removed; he plays
    /// again from his next turn and may not be prophet again this round.
    fn overthrow(&mut self, out: &mut Outcome) {
        if let Some(office) = self.prophet.take() {
            self.black_markers.clear();
            self.penalize(
                office.seat,
                self.params.false_prophet_penalty,
                "false prophet".to_string(),
                out,
            );
            out.overthrown = Some(self.seats[office.seat].name.clone());
        }
    }

    /// God (or the prophet) takes an acceptable card from a shown hand for the main
    /// line; it counts as a laid card.
    fn take_from_hand(&mut self, seat: usize, card: Card, by: &'static str, out: &mut Outcome) {
        self.seats[seat].hand = self.seats[seat].hand.saturating_sub(1);
        out.pick = Some(Pick {
            card,
            by,
            accepted: true,
        });
        self.place(&[card], true, out);
    }

    /// The cost of a wrong "no play" (section 3): the variant's penalty cards, and in
    /// sudden death the player is out.
    fn wrong_no_play(&mut self, seat: usize, sudden: bool, out: &mut Outcome) {
        self.penalize(
            seat,
            self.params.wrong_no_play_penalty,
            "wrong no play".to_string(),
            out,
        );
        if sudden {
            self.eliminate(seat, out);
        }
    }

    /// A right "no play": the hand goes back to the stock; with 4 cards or fewer the
    /// round ends and the player counts as out (001/002; 000 says "fewer than four"),
    /// otherwise a new hand of 4 fewer cards is dealt.
    fn right_no_play(&mut self, seat: usize, out: &mut Outcome) {
        let hand = self.seats[seat].hand;
        self.stock += hand;
        self.seats[seat].hand = 0;
        if hand <= self.params.no_play_ends_round_at {
            self.pending_end = Some(format!(
                "{} rightly declared no play with {} and counts as out",
                self.seats[seat].name,
                cards_word(hand)
            ));
        } else {
            let new = hand - self.params.no_play_reduction;
            self.draw(new, out);
            self.seats[seat].hand = new;
            out.new_hand = Some(new);
        }
    }

    fn note_phase(&self, before: bool, out: &mut Outcome) {
        let after = self.sudden_death();
        if before != after {
            out.phases.push(if after {
                match self.prophet {
                    None => format!("sudden death begins ({} cards laid)", self.laid()),
                    Some(o) => format!(
                        "sudden death begins ({} cards laid after the prophet marker)",
                        self.laid() - o.marker
                    ),
                }
            } else {
                match self.prophet {
                    Some(_) => {
                        "sudden death ends: the count restarts from the prophet marker".to_string()
                    }
                    // Only a prophet's fall lowers the count with no prophet left:
                    // the marker is gone and every laid card counts again.
                    None => format!(
                        "sudden death ends: the prophet marker is gone and the count is of all {} cards laid",
                        self.laid()
                    ),
                }
            });
        }
    }

    /// The next player clockwise after `seat`, skipping the prophet and the eliminated.
    fn next_after(&self, seat: usize) -> Option<usize> {
        let n = self.seats.len();
        (1..=n)
            .map(|k| (seat + k) % n)
            .find(|&i| !self.seats[i].eliminated && self.prophet.map(|o| o.seat) != Some(i))
    }

    /// After a play or no play: end of round, phase change, next turn.
    fn finish(&mut self, actor: usize, sudden_before: bool, out: &mut Outcome) {
        let prophet_seat = self.prophet.map(|o| o.seat);
        let reason = if let Some(reason) = self.pending_end.take() {
            Some(reason)
        } else if let Some(seat) = self.seats.iter().find(|s| s.hand == 0) {
            Some(format!("{} has no cards left", seat.name))
        } else if self
            .seats
            .iter()
            .enumerate()
            .all(|(i, s)| s.eliminated || Some(i) == prophet_seat)
        {
            Some(match prophet_seat {
                Some(_) => "every player except the prophet is eliminated".to_string(),
                None => "every player is eliminated".to_string(),
            })
        } else {
            None
        };
        if let Some(reason) = reason {
            let scores = self.scores();
            self.turn = None;
            let end = RoundEnd { reason, scores };
            out.round_end = Some(end.clone());
            self.end = Some(end);
            return;
        }
        self.note_phase(sudden_before, out);
        self.turn = self.next_after(actor);
        out.next_turn = self.turn.map(|t| self.seats[t].name.clone());
    }

    /// The round's scores as they stand (RULES.md section 5).
    pub fn scores(&self) -> Tally {
        let hands: Vec<(String, u32)> = self
            .seats
            .iter()
            .map(|s| (s.name.clone(), s.hand))
            .collect();
        let tally = self.prophet.map(|office| {
            let after = self.laid_main.get(office.marker as usize..).unwrap_or(&[]);
            let main_after = after.iter().filter(|&&m| m).count() as u32;
            ProphetTally {
                player: self.seats[office.seat].name.clone(),
                main_after,
                side_after: after.len() as u32 - main_after,
                laid_through_marker: office.marker,
            }
        });
        round_scores(&hands, &self.god, tally.as_ref(), self.params.out_bonus)
    }

    /// Cards in hands, laid, and in the stock: always `decks × 52`.
    pub fn cards_accounted(&self) -> u64 {
        let hands: u64 = self.seats.iter().map(|s| u64::from(s.hand)).sum();
        hands + u64::from(self.laid()) + u64::from(self.stock)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::log::LogEvent;

    fn round(variant: &str) -> Round {
        let line = format!(
            r#"{{"event":"round","variant":"{variant}","god":"G","players":["A","B","C","D"],"rule":"red","starter":"AH","hand_size":40}}"#
        );
        let Ok(LogEvent::Round(event)) = LogEvent::parse_line(&line) else {
            panic!("round line")
        };
        let judge: SharedJudge = Arc::new(|_: &Context<'_>, card: Card| card.is_red());
        Round::start(1, &event, judge).expect("round").0
    }

    fn play(round: &mut Round, card: &str, says: Option<Call>) -> Outcome {
        let event = PlayEvent {
            player: None,
            cards: vec![card.parse().expect("card")],
            prophet_says: says,
        };
        round.play(&event).expect("legal play")
    }

    #[test]
    fn sudden_death_starts_exactly_at_the_threshold_before_placing() {
        let mut r = round("new-eleusis");
        while r.laid() < 39 {
            play(&mut r, "2H", None);
        }
        assert!(!r.sudden_death());
        let out = play(&mut r, "2S", None);
        assert!(out.eliminated.is_empty(), "39 laid before placing: not yet");
        assert_eq!(r.laid(), 40);
        assert!(r.sudden_death());
        let out = play(&mut r, "2S", None);
        assert_eq!(
            out.eliminated.len(),
            1,
            "40 laid before placing: eliminated"
        );
    }

    #[test]
    fn with_a_prophet_the_count_starts_after_the_marker() {
        let mut r = round("gardner");
        play(&mut r, "2H", None);
        let declared = r.declare_prophet(&ProphetEvent {
            player: "A".to_string(),
        });
        assert!(declared.is_ok(), "{declared:?}");
        assert_eq!(r.prophet.map(|o| o.marker), Some(2));
        while r.laid() < 2 + 20 {
            assert!(!r.sudden_death());
            play(&mut r, "2H", Some(Call::Right));
        }
        assert!(r.sudden_death());
        assert_eq!(r.black_markers, vec![12, 22]);
        assert_eq!(r.next_after(3), Some(1), "the prophet (A) is skipped");
    }
}
