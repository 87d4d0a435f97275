//! The variants with their own flow, `eleusis-1959` (RULES.md section 6, seed 004) and
//! `delphos` (section 7, seed 003): no hands of the section 2–5 kind, no Prophet, no
//! sudden death. `OwnFlowRound` is what [`super::Game`] holds for such a round; it
//! dispatches each table-log event to `OriginalRound` or `DelphosRound` and fills
//! the state JSON (the TABLE-LOG.md fields plus the variant's own object).

use thiserror::Error;

use crate::cards::Card;
use crate::rule::Context;

use super::delphos::DelphosRound;
use super::error::{quoted, RefereeError};
use super::game::GameState;
use super::log::{LogEvent, RoundEvent};
use super::original::OriginalRound;
use super::outcome::{CardVerdict, Outcome, RoundEnd};
use super::round::{check_seats, SharedJudge};
use super::variant::Variant;

/// Why an event breaks a rule of `eleusis-1959` or `delphos`; each names the rule.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FlowError {
    #[error("a game is played in one variant: this game is {game}, the new round is {round}")]
    MixedVariants { game: Variant, round: Variant },
    #[error("event {event:?} does not exist in variant {variant}")]
    NotInVariant {
        event: &'static str,
        variant: Variant,
    },
    #[error("field {field:?} has no meaning in variant {variant}")]
    FieldNotInVariant {
        field: &'static str,
        variant: Variant,
    },
    #[error("{variant}: one card per turn, got {got}")]
    OneCard { variant: Variant, got: usize },
    #[error("{player} has no card in hand left to play")]
    EmptyHand { player: String },
    #[error(
        "{card} is already {place}: eleusis-1959 is played with one deck, each card exists once"
    )]
    CardAlreadyShown { card: Card, place: String },
    #[error("{card} is not among {player}'s wrong cards ({held}); in stage 2 a player plays one of his wrong cards (004)")]
    NotAWrongCard {
        card: Card,
        player: String,
        held: String,
    },
    #[error("{players} players cannot each be dealt a card: one deck leaves 51 after the starter")]
    TooManyPlayers { players: usize },
    #[error("{players} players with hands of {hand_size} need {need} cards, but one deck leaves 51 after the starter")]
    DeckTooSmall {
        players: usize,
        hand_size: u32,
        need: u64,
    },
    #[error("the deal passes left (004): the dealer of this round must be {expected}, not {got}")]
    DealPassesLeft { expected: String, got: String },
    #[error("the deal passes left and the table stays seated (004): players must be {expected}, got {got}")]
    SeatingChanged { expected: String, got: String },
    #[error("the game is complete: everyone has dealt twice ({deals} deals, 004); only \"end_game\" may follow")]
    GameComplete { deals: u32 },
    #[error("the dealer ends only stage 2 (004); stage 1 ends when every hand is empty")]
    EndInStageOne,
    #[error("the dealer says no further card can be accepted, but {player}'s {card} is acceptable ({explanation})")]
    StillAcceptable {
        player: String,
        card: Card,
        explanation: String,
    },
    #[error("in eleusis-1959 only the dealer ends the round")]
    OnlyTheDealerEnds,
    #[error("004: after play has started no more hints are allowed")]
    HintAfterPlay,
    #[error("{what} needs every player's assent (003); missing: {missing}")]
    AssentMissing { what: &'static str, missing: String },
    #[error("{0:?} is not a player of this round and cannot assent")]
    UnknownAssent(String),
    #[error("\"assent\" goes with \"by\":\"players\" (003): God ends the round alone; give \"by\":\"players\" if the players end it, or leave \"assent\" out")]
    AssentWithoutPlayers,
    #[error("in delphos a hint needs every player's assent (003): give it as a \"hint\" event with \"assent\", not in the round event")]
    HintWithoutAssent,
    #[error(
        "only the previous player, {expected}, may predict before {proposer}'s proposal, not {got}"
    )]
    NotThePredictor {
        expected: String,
        got: String,
        proposer: String,
    },
    #[error("{player} has already predicted {says} for this proposal")]
    AlreadyPredicted { player: String, says: String },
    #[error("in delphos the rule may depend only on the accepted symbols (003), but it reads the rejected cards (side or wrong)")]
    RuleReadsRejected,
}

/// A round of `eleusis-1959` or `delphos`.
#[derive(Clone)]
pub(crate) enum OwnFlowRound {
    Original(Box<OriginalRound>),
    Delphos(Box<DelphosRound>),
}

impl OwnFlowRound {
    /// Starts round `number` of the game. `previous` is the game's last round when it
    /// was of the same kind; `finished` counts the game's finished rounds.
    pub fn start(
        number: u32,
        event: &RoundEvent,
        judge: SharedJudge,
        previous: Option<&OwnFlowRound>,
        finished: usize,
    ) -> Result<(OwnFlowRound, Outcome), RefereeError> {
        check_seating(event)?;
        if let Some(prev) = previous {
            if prev.variant() != event.variant {
                return Err(FlowError::MixedVariants {
                    game: prev.variant(),
                    round: event.variant,
                }
                .into());
            }
        }
        match event.variant {
            Variant::Eleusis1959 => {
                let prev = match previous {
                    Some(OwnFlowRound::Original(r)) => Some(r.as_ref()),
                    _ => None,
                };
                let (round, out) = OriginalRound::start(number, event, judge, prev, finished)?;
                Ok((OwnFlowRound::Original(Box::new(round)), out))
            }
            _ => {
                let (round, out) = DelphosRound::start(number, event, judge)?;
                Ok((OwnFlowRound::Delphos(Box::new(round)), out))
            }
        }
    }

    pub fn variant(&self) -> Variant {
        match self {
            OwnFlowRound::Original(_) => Variant::Eleusis1959,
            OwnFlowRound::Delphos(_) => Variant::Delphos,
        }
    }

    /// The round's number in the game.
    pub fn number(&self) -> u32 {
        match self {
            OwnFlowRound::Original(r) => r.number,
            OwnFlowRound::Delphos(r) => r.number,
        }
    }

    /// How the round ended, once it has.
    pub fn end(&self) -> Option<&RoundEnd> {
        match self {
            OwnFlowRound::Original(r) => r.end.as_ref(),
            OwnFlowRound::Delphos(r) => r.end.as_ref(),
        }
    }

    /// Referees one event of the round (never `round` or `end_game`, which the game
    /// handles).
    pub fn apply(&mut self, event: &LogEvent) -> Result<Outcome, RefereeError> {
        if let Some(end) = self.end() {
            return Err(RefereeError::RoundOver {
                round: self.number(),
                reason: end.reason.clone(),
            });
        }
        let variant = self.variant();
        let not_here = |event: &LogEvent| -> RefereeError {
            FlowError::NotInVariant {
                event: event.name(),
                variant,
            }
            .into()
        };
        match (self, event) {
            (OwnFlowRound::Original(r), LogEvent::Play(ev)) => r.play(ev),
            (OwnFlowRound::Original(r), LogEvent::EndRound(ev)) => r.end_round(ev),
            (OwnFlowRound::Original(r), LogEvent::Hint(ev)) => r.hint(ev),
            (OwnFlowRound::Delphos(r), LogEvent::Play(ev)) => r.propose(ev),
            (OwnFlowRound::Delphos(r), LogEvent::Predict(ev)) => r.predict(ev),
            (OwnFlowRound::Delphos(r), LogEvent::EndRound(ev)) => r.end_round(ev),
            (OwnFlowRound::Delphos(r), LogEvent::Hint(ev)) => r.hint(ev),
            (_, other) => Err(not_here(other)),
        }
    }

    /// The state JSON of the round: `base` carries the game part and the warnings.
    pub fn state(&self, base: GameState) -> GameState {
        match self {
            OwnFlowRound::Original(r) => r.state(base),
            OwnFlowRound::Delphos(r) => r.state(base),
        }
    }
}

/// Names, seats and God, checked as for the hand variants; a hand size, if given, is
/// not zero.
fn check_seating(event: &RoundEvent) -> Result<(), RefereeError> {
    check_seats(event)?;
    if event.hand_size == Some(0) {
        return Err(RefereeError::BadHandSize(0));
    }
    Ok(())
}

/// Judges `card` after the accepted cards `main`. Neither seed game has sidelines a
/// rule could read: 004's wrong cards lie before their players, and 003's rule "may
/// depend only on the accepted symbols", so `side` and `wrong` are empty.
pub(crate) fn judge_after(judge: &SharedJudge, main: &[Card], card: Card) -> CardVerdict {
    let ctx = Context {
        main,
        side: &[],
        wrong: &[],
    };
    let j = judge.judge(&ctx, card);
    CardVerdict {
        card,
        accepted: j.accepted,
        explanation: j.explanation,
    }
}

/// Position of `name` among `players`, or the referee's unknown-player error.
pub(crate) fn seat_of(players: &[String], name: &str) -> Result<usize, RefereeError> {
    players
        .iter()
        .position(|p| p == name)
        .ok_or_else(|| RefereeError::unknown_player(name, players.iter().map(String::as_str), None))
}

/// The seat whose turn it is, checked against an event's optional `player` field.
/// Once no one has the turn, round `round` is over for the reason `over`.
pub(crate) fn actor(
    players: &[String],
    turn: Option<usize>,
    named: Option<&str>,
    round: u32,
    over: &str,
) -> Result<usize, RefereeError> {
    let turn = turn.ok_or_else(|| RefereeError::RoundOver {
        round,
        reason: over.to_string(),
    })?;
    if let Some(name) = named {
        let seat = seat_of(players, name)?;
        if seat != turn {
            return Err(RefereeError::NotYourTurn {
                expected: players[turn].clone(),
                got: name.to_string(),
            });
        }
    }
    Ok(turn)
}

/// Checks that `assent` names every player (and only players).
pub(crate) fn check_assent(
    players: &[String],
    assent: &[String],
    what: &'static str,
) -> Result<(), FlowError> {
    if let Some(stranger) = assent.iter().find(|a| !players.contains(a)) {
        return Err(FlowError::UnknownAssent(quoted(stranger)));
    }
    let missing: Vec<&str> = players
        .iter()
        .filter(|p| !assent.contains(p))
        .map(String::as_str)
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(FlowError::AssentMissing {
            what,
            missing: missing.join(", "),
        })
    }
}

/// Cards as the notation, space separated.
pub(crate) fn cards_text(cards: &[Card]) -> String {
    cards
        .iter()
        .map(Card::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}
