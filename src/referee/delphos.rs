//! Delphos (`delphos`, RULES.md section 7, seed 003): no hands. On his turn a player
//! proposes any card; before God answers, the previous player may predict "accepted"
//! or "rejected". A right prediction: predictor +1, proposer −1; a wrong one: proposer
//! +1, predictor −2; no prediction: no change. God ends the round when he chooses, or
//! the players unanimously; negative scores become 0 and God scores the highest other
//! score. Hints need every player's assent.
//!
//! Decisions where 003 and RULES.md are silent (each also in the README):
//! - At a table with cards the sequence opens with God's starter, which must be
//!   acceptable (it is the first accepted symbol); refused starters are allowed as in
//!   the other variants.
//! - The player on God's left proposes first; turns go clockwise (`players` order).
//! - "The previous player" is the one seated before the proposer, so the same pairs
//!   hold all round (003's rotation argument is about who follows whom); on the first
//!   proposal that is the last player.
//! - A card may be proposed any number of times: the alphabet is the 52 card names.
//! - Rejected proposals are shown as sidelines under the last accepted card (003's
//!   blackboard "every rejected try at each level"); the rule never sees them, and a
//!   rule that reads `side` or `wrong` is refused when the round starts.
//! - A prediction still pending when the round ends is void (no score change), with a
//!   warning.
//! - A hint in the `round` event is refused: it would carry no assent. Hints are
//!   `hint` events naming every player in `assent`; that the wording is precise is for
//!   the table to judge.

use serde::Serialize;

use crate::cards::Card;

use super::error::RefereeError;
use super::game::GameState;
use super::log::{
    EndRoundEvent, EndedBy, HintEvent, PlayEvent, PredictEvent, Prediction, RoundEvent,
};
use super::outcome::{Outcome, Placement, PredictionOutcome, RoundEnd};
use super::own_flow::{actor, check_assent, judge_after, seat_of, FlowError};
use super::round::{SharedJudge, Sideline};
use super::scoring::Tally;
use super::variant::Variant;

/// Points for a right prediction (to the predictor; the proposer loses as many).
pub const RIGHT_PREDICTION: i64 = 1;
/// Points a wrong prediction costs the predictor.
pub const WRONG_PREDICTION_COST: i64 = 2;
/// Points a wrong prediction gives the proposer.
pub const WRONG_PREDICTION_GAIN: i64 = 1;

/// One round of `delphos`.
#[derive(Clone)]
pub(crate) struct DelphosRound {
    pub number: u32,
    pub god: String,
    /// Clockwise from God's left.
    pub players: Vec<String>,
    pub hints: Vec<String>,
    judge: SharedJudge,
    /// The accepted sequence, starter first.
    pub main: Vec<Card>,
    /// Rejected proposals under the accepted card they followed.
    pub sidelines: Vec<Sideline>,
    rejected: u32,
    /// Running scores, in seating order (may be negative until the end).
    pub running: Vec<i64>,
    pub turn: Option<usize>,
    /// The prediction made for the coming proposal: predictor's seat and what he says.
    pub prediction: Option<(usize, Prediction)>,
    pub proposals: u32,
    pub end: Option<RoundEnd>,
}

/// Round scores at the end (003): negative running scores become 0; God scores the
/// highest of the players' scores (0 when all are 0).
pub fn final_scores(players: &[String], running: &[i64], god: &str) -> Tally {
    let mut tally = Tally(
        players
            .iter()
            .cloned()
            .zip(running.iter().map(|&s| s.max(0)))
            .collect(),
    );
    let best = tally.0.iter().map(|&(_, s)| s).max().unwrap_or(0);
    tally.add(god, best);
    tally
}

impl DelphosRound {
    /// Sets up a round: seats, the starter, the first proposer.
    pub fn start(
        number: u32,
        event: &RoundEvent,
        judge: SharedJudge,
    ) -> Result<(DelphosRound, Outcome), RefereeError> {
        if event.hint.is_some() {
            return Err(FlowError::HintWithoutAssent.into());
        }
        if event.hand_size.is_some() {
            // 003: "there is no concept of cards in hand".
            return Err(FlowError::FieldNotInVariant {
                field: "hand_size",
                variant: Variant::Delphos,
            }
            .into());
        }
        if let Ok(rule) = crate::rule::Rule::parse(&event.rule) {
            let footprint = rule.footprint();
            if footprint.reads_side || footprint.reads_wrong {
                return Err(FlowError::RuleReadsRejected.into());
            }
        }
        let mut out = Outcome::new(number, "round", None);
        for &card in &event.refused_starters {
            let v = judge_after(&judge, &[], card);
            if v.accepted {
                return Err(RefereeError::RefusedStarterAcceptable {
                    card,
                    explanation: v.explanation,
                });
            }
            out.verdicts.push(v);
        }
        let starter = judge_after(&judge, &[], event.starter);
        if !starter.accepted {
            return Err(RefereeError::StarterNotAcceptable {
                card: event.starter,
                variant: Variant::Delphos.to_string(),
                explanation: starter.explanation,
            });
        }
        out.verdicts.push(starter);
        out.placed = Some(Placement::Main {
            cards: vec![event.starter],
        });
        let round = DelphosRound {
            number,
            god: event.god.clone(),
            players: event.players.clone(),
            hints: Vec::new(),
            judge,
            main: vec![event.starter],
            sidelines: Vec::new(),
            rejected: 0,
            running: vec![0; event.players.len()],
            turn: Some(0),
            prediction: None,
            proposals: 0,
            end: None,
        };
        out.next_turn = round.players.first().cloned();
        Ok((round, out))
    }

    /// The seat of the player who may predict the coming proposal.
    fn predictor(&self) -> Option<usize> {
        let n = self.players.len();
        self.turn.map(|t| (t + n - 1) % n)
    }

    /// A prediction by the previous player, before God answers the next proposal.
    pub fn predict(&mut self, event: &PredictEvent) -> Result<Outcome, RefereeError> {
        let seat = seat_of(&self.players, &event.player)?;
        let (Some(turn), Some(expected)) = (self.turn, self.predictor()) else {
            return Err(RefereeError::RoundOver {
                round: self.number,
                reason: "no player is left to propose".to_string(),
            });
        };
        if let Some((by, says)) = self.prediction {
            return Err(FlowError::AlreadyPredicted {
                player: self.players[by].clone(),
                says: says_text(says).to_string(),
            }
            .into());
        }
        if seat != expected {
            return Err(FlowError::NotThePredictor {
                expected: self.players[expected].clone(),
                got: event.player.clone(),
                proposer: self.players[turn].clone(),
            }
            .into());
        }
        self.prediction = Some((seat, event.says));
        let mut out = self.outcome("predict", Some(event.player.clone()));
        out.next_turn = Some(self.players[turn].clone());
        Ok(out)
    }

    /// A proposal: any card, judged against the accepted sequence only.
    pub fn propose(&mut self, event: &PlayEvent) -> Result<Outcome, RefereeError> {
        let actor = self.actor(event.player.as_deref())?;
        if let Some(call) = event.prophet_says {
            return Err(RefereeError::ProphetCallWithoutProphet { call });
        }
        let [card] = event.cards[..] else {
            return Err(FlowError::OneCard {
                variant: Variant::Delphos,
                got: event.cards.len(),
            }
            .into());
        };
        let verdict = judge_after(&self.judge, &self.main, card);
        let accepted = verdict.accepted;
        let mut out = self.outcome("play", Some(self.players[actor].clone()));
        out.verdicts = vec![verdict];
        out.right = Some(accepted);
        if accepted {
            self.main.push(card);
            out.placed = Some(Placement::Main { cards: vec![card] });
        } else {
            let after = self.main.len().saturating_sub(1);
            match self.sidelines.last_mut() {
                Some(line) if line.after == after => line.plays.push(vec![card]),
                _ => self.sidelines.push(Sideline {
                    after,
                    plays: vec![vec![card]],
                }),
            }
            self.rejected += 1;
            out.placed = Some(Placement::Sideline {
                after,
                cards: vec![card],
            });
        }
        if let Some((predictor, says)) = self.prediction.take() {
            let right = says.accepts() == accepted;
            let mut changes = Tally::default();
            if right {
                changes.add(&self.players[predictor], RIGHT_PREDICTION);
                changes.add(&self.players[actor], -RIGHT_PREDICTION);
            } else {
                changes.add(&self.players[actor], WRONG_PREDICTION_GAIN);
                changes.add(&self.players[predictor], -WRONG_PREDICTION_COST);
            }
            for (name, delta) in &changes.0 {
                if let Some(i) = self.players.iter().position(|p| p == name) {
                    self.running[i] += delta;
                }
            }
            out.prediction = Some(PredictionOutcome {
                player: self.players[predictor].clone(),
                says,
                right,
            });
            out.score_changes = Some(changes);
        }
        self.proposals += 1;
        let next = (actor + 1) % self.players.len();
        self.turn = Some(next);
        out.next_turn = Some(self.players[next].clone());
        Ok(out)
    }

    /// God ends the round, or the players do unanimously.
    pub fn end_round(&mut self, event: &EndRoundEvent) -> Result<Outcome, RefereeError> {
        let (who, reason) = match event.by {
            Some(EndedBy::Players) => {
                check_assent(&self.players, &event.assent, "ending the round")?;
                (None, "the players end the round unanimously")
            }
            _ if !event.assent.is_empty() => return Err(FlowError::AssentWithoutPlayers.into()),
            _ => (Some(self.god.clone()), "God ends the round"),
        };
        let mut out = self.outcome("end_round", who);
        if let Some((by, says)) = self.prediction.take() {
            out.warnings.push(format!(
                "{}'s prediction \"{}\" is void: the round ended before the proposal",
                self.players[by],
                says_text(says)
            ));
        }
        let scores = final_scores(&self.players, &self.running, &self.god);
        self.turn = None;
        let end = RoundEnd {
            reason: reason.to_string(),
            scores,
        };
        out.round_end = Some(end.clone());
        self.end = Some(end);
        Ok(out)
    }

    /// A hint, with every player's assent.
    pub fn hint(&mut self, event: &HintEvent) -> Result<Outcome, RefereeError> {
        check_assent(&self.players, &event.assent, "a hint")?;
        self.hints.push(event.text.clone());
        let mut out = self.outcome("hint", Some(self.god.clone()));
        out.next_turn = self.turn.map(|t| self.players[t].clone());
        Ok(out)
    }

    /// The state JSON of the round.
    pub fn state(&self, base: GameState) -> GameState {
        GameState {
            variant: Some(Variant::Delphos),
            main: self.main.clone(),
            sidelines: self.sidelines.clone(),
            laid: self.main.len() as u32 + self.rejected,
            turn: self.turn.map(|t| self.players[t].clone()),
            ended: self.end.is_some(),
            scores: self.end.as_ref().map(|e| e.scores.clone()),
            round: self.number,
            god: Some(self.god.clone()),
            players: self.players.clone(),
            hint: (!self.hints.is_empty()).then(|| self.hints.join("; ")),
            stock: 0,
            decks: 1,
            end_reason: self.end.as_ref().map(|e| e.reason.clone()),
            delphos: Some(DelphosState {
                running: Tally(
                    self.players
                        .iter()
                        .cloned()
                        .zip(self.running.iter().copied())
                        .collect(),
                ),
                predictor: if self.prediction.is_none() {
                    self.predictor().map(|p| self.players[p].clone())
                } else {
                    None
                },
                prediction: self.prediction.map(|(by, says)| PendingPrediction {
                    player: self.players[by].clone(),
                    says,
                }),
                proposals: self.proposals,
                rejected: self.rejected,
                hints: self.hints.clone(),
            }),
            ..base
        }
    }

    fn outcome(&self, event: &'static str, player: Option<String>) -> Outcome {
        Outcome::new(self.number, event, player)
    }

    fn actor(&self, named: Option<&str>) -> Result<usize, RefereeError> {
        actor(
            &self.players,
            self.turn,
            named,
            self.number,
            "no player is left to propose",
        )
    }
}

fn says_text(says: Prediction) -> &'static str {
    if says.accepts() {
        "accepted"
    } else {
        "rejected"
    }
}

/// A prediction waiting for the proposal it is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PendingPrediction {
    pub player: String,
    pub says: Prediction,
}

/// `delphos` in the state JSON: what the table page shows besides the sequence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DelphosState {
    /// Running scores in seating order (may be negative until the round ends).
    pub running: Tally,
    /// Who may predict the coming proposal now (null once a prediction is made or the
    /// round has ended).
    pub predictor: Option<String>,
    /// The prediction made for the coming proposal.
    pub prediction: Option<PendingPrediction>,
    /// Proposals made this round, and how many were rejected.
    pub proposals: u32,
    pub rejected: u32,
    /// Hints given with every player's assent, in order.
    pub hints: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negative_scores_are_floored_and_god_takes_the_best() {
        let players = vec!["A".to_string(), "B".to_string(), "C".to_string()];
        let tally = final_scores(&players, &[-3, 2, 5], "G");
        assert_eq!(tally.0.len(), 4);
        assert_eq!(tally.get("A"), Some(0));
        assert_eq!(tally.get("B"), Some(2));
        assert_eq!(tally.get("C"), Some(5));
        assert_eq!(tally.get("G"), Some(5));
        // 003: "it may be that everyone ends with zero".
        let tally = final_scores(&players, &[-1, -2, 0], "G");
        assert_eq!(tally.get("G"), Some(0));
    }
}
