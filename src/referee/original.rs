//! The original Eleusis of 1959 (`eleusis-1959`, RULES.md section 6, seed 004).
//!
//! One 52-card deck. The dealer (God in the table log) sets aside just enough cards,
//! unseen, for an even deal, deals all the rest but one, which is the starter. Stage 1:
//! in turn each player plays one card from his hand; a wrong card stays face up before
//! him. When every hand is empty the dealer scores. Stage 2: the players play from
//! their wrong cards; a wrong one returns to its owner. It ends when a player has no
//! cards left, or when the dealer declares (`end_round`) that no further card can be
//! accepted. Then the players score. The deal passes left; the game ends when
//! everyone has dealt twice.
//!
//! Decisions where 004 is silent (each also in the README):
//! - The player on the dealer's left plays first; turns go left (clockwise), in the
//!   table-log order of `players`. Stage 2 continues the rotation.
//! - The starter is the last card of the deal whatever it is: 004 has the dealer think
//!   of the rule after the starter is down, so it is never refused.
//! - "If the rule needs two cards, the first card played is right whatever it is" is
//!   the rule language's own meaning: a rule reading a card that does not exist yet
//!   accepts.
//! - The rule sees only the pile: 004 has no sidelines (`side`, `wrong` are empty).
//! - A player with no wrong cards after stage 1 is out at once: stage 2 ends before
//!   it starts.
//! - In stage 2 a wrong card goes back at the end of its owner's row (004 lets each
//!   player order his row as he likes, so the order carries no meaning).
//! - The dealer's claim that no card can be accepted is checked: every wrong card of
//!   every player must be unacceptable on the pile as it is.
//! - When the 6-point bonus is split and 6 does not divide evenly (4 or 5 tied), each
//!   tied player gets the whole-point share (1) and a warning says what was not
//!   awarded: the score sheet keeps whole points.
//! - 004 gives no bonus to anyone when a game stops early: the not-God bonus is 0.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::cards::Card;

use super::error::RefereeError;
use super::game::GameState;
use super::log::{EndRoundEvent, EndedBy, HintEvent, PlayEvent, RoundEvent};
use super::outcome::{Outcome, Placement, RoundEnd};
use super::own_flow::{actor, cards_text, judge_after, FlowError};
use super::round::SharedJudge;
use super::scoring::Tally;
use super::variant::Variant;

/// Cards dealt from: one deck less the starter.
const DEALT_FROM: u32 = 51;

/// The two stages of a deal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Cards played from the hands; wrong cards stay before their players.
    Hands,
    /// Cards played from the wrong cards.
    WrongCards,
}

impl Stage {
    fn number(self) -> u8 {
        match self {
            Stage::Hands => 1,
            Stage::WrongCards => 2,
        }
    }
}

/// The dealer's score after stage 1 (004): with `n` players, the others' wrong cards
/// less `n − 1` times the winner's (the fewest). 004's example: 12, 7, 4 → 19 − 8 = 11.
pub fn dealer_score(wrong_cards: &[u32]) -> i64 {
    let Some(fewest) = wrong_cards.iter().copied().min() else {
        return 0;
    };
    let total: i64 = wrong_cards.iter().map(|&c| i64::from(c)).sum();
    let n = wrong_cards.len() as i64;
    // others = total − fewest; others − (n − 1) × fewest = total − n × fewest.
    total - n * i64::from(fewest)
}

/// The players' scores after stage 2 (004): each the others' cards less `n − 1` times
/// his own, floored at 0; `bonus` to the player with no cards, else to those with the
/// fewest, split equally in whole points. Returns the scores in the order given and
/// the bonus points a split could not award.
///
/// 004's example: 2, 3, 10, 0 cards → 7, 3, 0, 21.
pub fn player_scores(cards: &[u32], bonus: u32) -> (Vec<i64>, u32) {
    let total: i64 = cards.iter().map(|&c| i64::from(c)).sum();
    let others_count = cards.len().saturating_sub(1) as i64;
    let mut scores: Vec<i64> = cards
        .iter()
        .map(|&own| {
            let own = i64::from(own);
            (total - own - others_count * own).max(0)
        })
        .collect();
    let Some(fewest) = cards.iter().copied().min() else {
        return (scores, 0);
    };
    // 004: the bonus goes to the player with no cards; "if nobody is out, to the one
    // with the fewest, split among ties". Both read as: the fewest, split.
    let winners: Vec<usize> = (0..cards.len()).filter(|&i| cards[i] == fewest).collect();
    let share = bonus / winners.len() as u32;
    for &i in &winners {
        scores[i] += i64::from(share);
    }
    (scores, bonus - share * winners.len() as u32)
}

/// One round (deal) of `eleusis-1959`.
#[derive(Clone)]
pub(crate) struct OriginalRound {
    pub number: u32,
    /// The dealer (God of the table log).
    pub god: String,
    /// Clockwise from the dealer's left.
    pub players: Vec<String>,
    pub hint: Option<String>,
    judge: SharedJudge,
    pub hand_size: u32,
    /// Cards set aside unseen for an even deal.
    pub removed: u32,
    /// Cards still in each hand (stage 1).
    pub hands: Vec<u32>,
    /// Each player's wrong cards, face up before him.
    pub wrong: Vec<Vec<Card>>,
    /// The pile: the starter, then every accepted card.
    pub main: Vec<Card>,
    pub stage: Stage,
    pub turn: Option<usize>,
    pub dealer_score: Option<i64>,
    pub end: Option<RoundEnd>,
    /// This deal's number in the game, and the deals a whole game has.
    deal: u32,
    deals: u32,
    /// Whether a card has been played (hints are allowed only before).
    played: bool,
    bonus: u32,
}

impl OriginalRound {
    /// Sets up a deal. `previous` is the game's previous deal, `finished` the number of
    /// finished deals.
    pub fn start(
        number: u32,
        event: &RoundEvent,
        judge: SharedJudge,
        previous: Option<&OriginalRound>,
        finished: usize,
    ) -> Result<(OriginalRound, Outcome), RefereeError> {
        let params = Variant::Eleusis1959.params();
        let n = event.players.len() as u32;
        if let Some(prev) = previous {
            if finished as u32 >= prev.deals {
                return Err(FlowError::GameComplete { deals: prev.deals }.into());
            }
            let expected_god = prev.players.first().cloned().unwrap_or_default();
            if event.god != expected_god {
                return Err(FlowError::DealPassesLeft {
                    expected: expected_god,
                    got: event.god.clone(),
                }
                .into());
            }
            let mut expected: Vec<String> = prev.players.iter().skip(1).cloned().collect();
            expected.push(prev.god.clone());
            if event.players != expected {
                return Err(FlowError::SeatingChanged {
                    expected: expected.join(", "),
                    got: event.players.join(", "),
                }
                .into());
            }
        }
        if !event.refused_starters.is_empty() {
            // 004: the starter is simply the last card of the deal.
            return Err(FlowError::FieldNotInVariant {
                field: "refused_starters",
                variant: Variant::Eleusis1959,
            }
            .into());
        }
        let hand_size = event.hand_size.unwrap_or(DEALT_FROM / n.max(1));
        if hand_size == 0 {
            // Only the even deal can be 0 (a given `hand_size` is 1 to 52): more
            // players than the 51 cards left after the starter.
            return Err(FlowError::TooManyPlayers {
                players: event.players.len(),
            }
            .into());
        }
        // In u64: a hostile `hand_size` must not overflow.
        let need64 = u64::from(n) * u64::from(hand_size);
        if need64 > u64::from(DEALT_FROM) {
            return Err(FlowError::DeckTooSmall {
                players: event.players.len(),
                hand_size,
                need: need64,
            }
            .into());
        }
        let need = need64 as u32;
        let starter = judge_after(&judge, &[], event.starter);
        let mut out = Outcome {
            round: number,
            event: "round",
            verdicts: vec![starter],
            ..Outcome::default()
        };
        let removed = DEALT_FROM - need;
        out.phases.push(format!(
            "{removed} cards set aside, {hand_size} dealt to each player; stage 1 begins"
        ));
        let round = OriginalRound {
            number,
            god: event.god.clone(),
            players: event.players.clone(),
            hint: event.hint.clone(),
            judge,
            hand_size,
            removed,
            hands: vec![hand_size; event.players.len()],
            wrong: vec![Vec::new(); event.players.len()],
            main: vec![event.starter],
            stage: Stage::Hands,
            turn: Some(0),
            dealer_score: None,
            end: None,
            deal: finished as u32 + 1,
            deals: 2 * (n + 1),
            played: false,
            bonus: params.out_bonus,
        };
        out.placed = Some(Placement::Main {
            cards: vec![event.starter],
        });
        out.next_turn = round.players.first().cloned();
        Ok((round, out))
    }

    /// One card, from the hand in stage 1, from the wrong cards in stage 2.
    pub fn play(&mut self, event: &PlayEvent) -> Result<Outcome, RefereeError> {
        let actor = self.actor(event.player.as_deref())?;
        if let Some(call) = event.prophet_says {
            return Err(RefereeError::ProphetCallWithoutProphet { call });
        }
        let [card] = event.cards[..] else {
            return Err(FlowError::OneCard {
                variant: Variant::Eleusis1959,
                got: event.cards.len(),
            }
            .into());
        };
        let name = self.players[actor].clone();
        match self.stage {
            Stage::Hands => {
                if self.hands[actor] == 0 {
                    return Err(FlowError::EmptyHand { player: name }.into());
                }
                if let Some(place) = self.where_is(card) {
                    return Err(FlowError::CardAlreadyShown { card, place }.into());
                }
            }
            Stage::WrongCards => {
                if !self.wrong[actor].contains(&card) {
                    return Err(FlowError::NotAWrongCard {
                        card,
                        player: name,
                        held: cards_text(&self.wrong[actor]),
                    }
                    .into());
                }
            }
        }

        let verdict = judge_after(&self.judge, &self.main, card);
        let right = verdict.accepted;
        let mut out = self.outcome("play", Some(name.clone()));
        out.verdicts = vec![verdict];
        out.right = Some(right);
        self.played = true;
        match self.stage {
            Stage::Hands => {
                self.hands[actor] -= 1;
                if right {
                    self.main.push(card);
                } else {
                    self.wrong[actor].push(card);
                }
            }
            Stage::WrongCards => {
                self.wrong[actor].retain(|&c| c != card);
                if right {
                    self.main.push(card);
                } else {
                    self.wrong[actor].push(card);
                }
            }
        }
        if right {
            out.placed = Some(Placement::Main { cards: vec![card] });
        } else {
            out.kept_by = Some(name);
        }
        self.finish(actor, &mut out);
        Ok(out)
    }

    /// The dealer declares that no further card can be accepted (stage 2 only).
    pub fn end_round(&mut self, event: &EndRoundEvent) -> Result<Outcome, RefereeError> {
        // An assent list means the players meant to end it: theirs is not a way here.
        if event.by == Some(EndedBy::Players) || !event.assent.is_empty() {
            return Err(FlowError::OnlyTheDealerEnds.into());
        }
        if self.stage == Stage::Hands {
            return Err(FlowError::EndInStageOne.into());
        }
        let mut verdicts = Vec::new();
        for (seat, cards) in self.wrong.iter().enumerate() {
            for &card in cards {
                let v = judge_after(&self.judge, &self.main, card);
                if v.accepted {
                    return Err(FlowError::StillAcceptable {
                        player: self.players[seat].clone(),
                        card,
                        explanation: v.explanation,
                    }
                    .into());
                }
                verdicts.push(v);
            }
        }
        let mut out = self.outcome("end_round", Some(self.god.clone()));
        out.verdicts = verdicts;
        self.close(
            "the dealer declares that no further card can be accepted".to_string(),
            &mut out,
        );
        Ok(out)
    }

    /// A hint from the dealer, allowed only before the first play (004).
    pub fn hint(&mut self, event: &HintEvent) -> Result<Outcome, RefereeError> {
        if self.played {
            return Err(FlowError::HintAfterPlay.into());
        }
        self.hint = Some(match self.hint.take() {
            Some(earlier) => format!("{earlier}; {}", event.text),
            None => event.text.clone(),
        });
        let mut out = self.outcome("hint", Some(self.god.clone()));
        out.next_turn = self.turn.and_then(|t| self.players.get(t).cloned());
        Ok(out)
    }

    /// The state JSON of the deal.
    pub fn state(&self, base: GameState) -> GameState {
        let counts: Vec<u32> = self.wrong.iter().map(|w| w.len() as u32).collect();
        let holding = match self.stage {
            Stage::Hands => self.hands.clone(),
            Stage::WrongCards => vec![0; self.players.len()],
        };
        GameState {
            variant: Some(Variant::Eleusis1959),
            main: self.main.clone(),
            laid: self.main.len() as u32,
            hands: Tally(
                self.players
                    .iter()
                    .cloned()
                    .zip(holding.iter().map(|&h| i64::from(h)))
                    .collect(),
            ),
            turn: self.turn.and_then(|t| self.players.get(t).cloned()),
            ended: self.end.is_some(),
            scores: self.end.as_ref().map(|e| e.scores.clone()),
            round: self.number,
            god: Some(self.god.clone()),
            players: self.players.clone(),
            hint: self.hint.clone(),
            stock: 0,
            decks: 1,
            end_reason: self.end.as_ref().map(|e| e.reason.clone()),
            eleusis_1959: Some(OriginalState {
                stage: self.stage.number(),
                dealer: self.god.clone(),
                hand_size: self.hand_size,
                removed: self.removed,
                wrong_cards: PerPlayer(
                    self.players
                        .iter()
                        .cloned()
                        .zip(self.wrong.iter().cloned())
                        .collect(),
                ),
                wrong_counts: Tally(
                    self.players
                        .iter()
                        .cloned()
                        .zip(counts.iter().map(|&c| i64::from(c)))
                        .collect(),
                ),
                dealer_score: self.dealer_score,
                deal: self.deal,
                deals: self.deals,
                game_complete: self.end.is_some() && self.deal >= self.deals,
            }),
            ..base
        }
    }

    // ----- helpers -----

    fn outcome(&self, event: &'static str, player: Option<String>) -> Outcome {
        Outcome::new(self.number, event, player)
    }

    /// The player whose turn it is, checked against the optional `player` field.
    fn actor(&self, named: Option<&str>) -> Result<usize, RefereeError> {
        actor(
            &self.players,
            self.turn,
            named,
            self.number,
            "no player is left to play",
        )
    }

    /// Where a card already shown lies, if it does.
    fn where_is(&self, card: Card) -> Option<String> {
        if self.main.contains(&card) {
            return Some("on the pile".to_string());
        }
        self.wrong
            .iter()
            .position(|w| w.contains(&card))
            .map(|seat| format!("among {}'s wrong cards", self.players[seat]))
    }

    /// After a play: the end of stage 1 (the dealer's score), the end of the deal, or
    /// the next turn.
    fn finish(&mut self, actor: usize, out: &mut Outcome) {
        let n = self.players.len();
        if self.stage == Stage::Hands && self.hands.iter().all(|&h| h == 0) {
            let counts: Vec<u32> = self.wrong.iter().map(|w| w.len() as u32).collect();
            let score = dealer_score(&counts);
            self.dealer_score = Some(score);
            self.stage = Stage::WrongCards;
            out.phases.push(format!(
                "stage 1 ends: wrong cards {}; the dealer scores {score}",
                self.counts_text()
            ));
            if let Some(seat) = self.wrong.iter().position(Vec::is_empty) {
                let reason = format!("{} has no wrong cards after stage 1", self.players[seat]);
                self.close(reason, out);
                return;
            }
            out.phases
                .push("stage 2 begins: players play from their wrong cards".to_string());
        } else if self.stage == Stage::WrongCards && self.wrong[actor].is_empty() {
            let reason = format!("{} has no wrong cards left", self.players[actor]);
            self.close(reason, out);
            return;
        }
        let next = (1..=n)
            .map(|k| (actor + k) % n)
            .find(|&i| self.stage == Stage::WrongCards || self.hands[i] > 0);
        self.turn = next;
        out.next_turn = next.map(|t| self.players[t].clone());
    }

    fn counts_text(&self) -> String {
        self.players
            .iter()
            .zip(&self.wrong)
            .map(|(p, w)| format!("{p} {}", w.len()))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Ends the deal and scores it: players from their cards left, the dealer from
    /// stage 1.
    fn close(&mut self, reason: String, out: &mut Outcome) {
        let counts: Vec<u32> = self.wrong.iter().map(|w| w.len() as u32).collect();
        let (scores, unawarded) = player_scores(&counts, self.bonus);
        if unawarded > 0 {
            out.warnings.push(format!(
                "the {}-point bonus is split in whole points: {unawarded} not awarded",
                self.bonus
            ));
        }
        let mut tally = Tally(self.players.iter().cloned().zip(scores).collect());
        tally.add(&self.god, self.dealer_score.unwrap_or(0));
        self.turn = None;
        let end = RoundEnd {
            reason,
            scores: tally,
        };
        out.round_end = Some(end.clone());
        self.end = Some(end);
    }
}

/// Each player's cards, serialized as a JSON object in seating order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PerPlayer(pub Vec<(String, Vec<Card>)>);

impl Serialize for PerPlayer {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, cards) in &self.0 {
            map.serialize_entry(name, cards)?;
        }
        map.end()
    }
}

/// `eleusis_1959` in the state JSON: what the table page shows besides the pile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OriginalState {
    /// 1 (playing from the hands) or 2 (playing from the wrong cards).
    pub stage: u8,
    pub dealer: String,
    pub hand_size: u32,
    /// Cards set aside unseen for an even deal.
    pub removed: u32,
    /// Each player's wrong cards, face up before him, in seating order.
    pub wrong_cards: PerPlayer,
    pub wrong_counts: Tally,
    /// The dealer's score, once stage 1 is over.
    pub dealer_score: Option<i64>,
    /// This deal's number in the game and the deals of a whole game (2 per person).
    pub deal: u32,
    pub deals: u32,
    /// Whether everyone has dealt twice.
    pub game_complete: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dealer_score_of_004s_example() {
        assert_eq!(dealer_score(&[12, 7, 4]), 11);
        // Order does not matter, and two players: the other's less the winner's.
        assert_eq!(dealer_score(&[4, 12, 7]), 11);
        assert_eq!(dealer_score(&[9, 5]), 4);
        assert_eq!(dealer_score(&[3, 3, 3]), 0);
        assert_eq!(dealer_score(&[]), 0);
    }

    #[test]
    fn player_scores_of_004s_example() {
        let (scores, unawarded) = player_scores(&[2, 3, 10, 0], 6);
        assert_eq!(scores, vec![7, 3, 0, 21]);
        assert_eq!(unawarded, 0);
    }

    #[test]
    fn bonus_goes_to_the_fewest_and_is_split_on_ties() {
        // Nobody out: 2 is the fewest and takes the 6.
        let (scores, _) = player_scores(&[2, 5, 4], 6);
        // 2: 9 − 4 = 5 + 6; 5: 6 − 10 → 0; 4: 7 − 8 → 0.
        assert_eq!(scores, vec![11, 0, 0]);
        // Two tied on the fewest share 3 each: 1 card: 8 − 1 − 2 × 1 = 5, + 3.
        let (scores, unawarded) = player_scores(&[1, 1, 6], 6);
        assert_eq!(scores, vec![5 + 3, 5 + 3, 0]);
        assert_eq!(unawarded, 0);
        // Four tied: 6 does not divide, 1 each, 2 not awarded.
        let (scores, unawarded) = player_scores(&[2, 2, 2, 2], 6);
        assert_eq!(scores, vec![1, 1, 1, 1]);
        assert_eq!(unawarded, 2);
    }
}
