//! A whole simulated New Eleusis round, for `eleusis demo`: four players hold real
//! cards dealt from a seeded, shuffled double deck, play singles and sometimes
//! sequences, declare "no play", one may become Prophet, until the round ends.
//!
//! The generator is pure — the seed decides everything — and it never invents a
//! decision: every event is refereed by a [`Game`] before it is emitted, and the
//! cards it tracks in each hand and in the stock are moved by what the referee
//! decided (penalties, picks, new hands). After every event it checks that its
//! hands and stock have the counts the referee keeps, so a log it returns is one
//! the referee accepts line by line and that could have happened at a real table.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use thiserror::Error;

use crate::cards::Card;
use crate::referee::log::{NoPlayEvent, PlayEvent, ProphetEvent, RoundEvent};
use crate::referee::{Call, Game, LogEvent, Outcome, Variant};
use crate::rule::{Context, Rule};

/// The demo's secret rule when none is given: the diagram rule of 002.
pub const DEFAULT_RULE: &str = "if last.black then card.rank >= 7 else card.rank <= 6";

/// God of the demo round.
pub const DEFAULT_GOD: &str = "Pierre";

/// The demo's players, clockwise from God's left.
pub const DEFAULT_PLAYERS: [&str; 4] = ["Alain", "François", "Jacques", "Philippe"];

/// Most cards God turns up looking for an acceptable starter; after that the next
/// card is kept (New Eleusis allows an unacceptable starter).
const STARTER_TRIES: usize = 8;

/// A round that has not ended after this many events is cut short (sudden death
/// makes that practically impossible; the bound keeps a strange rule from looping).
const MAX_EVENTS: usize = 2_000;

/// What the demo round is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DemoSetup {
    /// Decides the deal and every choice of the simulated players.
    pub seed: u64,
    /// The secret rule, in the rule language.
    pub rule: String,
    pub god: String,
    /// Clockwise from God's left.
    pub players: Vec<String>,
    /// Stop after this many plays and "no plays" (the round may then not have ended).
    pub max_plays: Option<usize>,
}

impl DemoSetup {
    /// The default table (God Pierre, four players) with `rule` and `seed`.
    pub fn new(seed: u64, rule: &str) -> DemoSetup {
        DemoSetup {
            seed,
            rule: rule.to_string(),
            god: DEFAULT_GOD.to_string(),
            players: DEFAULT_PLAYERS.iter().map(|p| p.to_string()).collect(),
            max_plays: None,
        }
    }
}

/// Why no demo round could be made.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DemoError {
    /// The secret rule is not in the rule language.
    #[error("the secret rule does not parse: {0}")]
    BadRule(String),
    /// The referee refused the set-up (e.g. too few players).
    #[error("the referee refuses the demo round: {0}")]
    BadSetup(String),
    /// The referee refused an event the simulation made: a bug of the simulation.
    #[error("the referee refused the demo's {event} event: {reason}")]
    Refused { event: &'static str, reason: String },
    /// The simulation's cards no longer match the referee's counts: a bug.
    #[error("the simulated cards are out of step with the referee after event {event}: {what}")]
    OutOfStep { event: usize, what: String },
}

/// The demo round for `setup`: the `round` event first, then plays, "no plays" and
/// Prophet declarations, each accepted by the referee in turn, until the round ends
/// (or `max_plays` plays and "no plays" were made).
pub fn demo_round(setup: &DemoSetup) -> Result<Vec<LogEvent>, DemoError> {
    let rule = Rule::parse(&setup.rule).map_err(|e| DemoError::BadRule(e.to_string()))?;
    let mut table = Table::deal(setup, &rule)?;
    let limit = setup.max_plays.unwrap_or(usize::MAX);
    while table.plays < limit && table.events.len() < MAX_EVENTS {
        let Some(seat) = table.turn() else { break };
        table.take_turn(seat)?;
    }
    Ok(table.events)
}

/// The simulated table: the referee, and the real cards behind its counts.
struct Table {
    rng: ChaCha8Rng,
    game: Game,
    names: Vec<String>,
    /// Each player's cards, in the order they were received.
    hands: Vec<Vec<Card>>,
    /// The face-down stock; cards are drawn from the end.
    stock: Vec<Card>,
    events: Vec<LogEvent>,
    /// Plays and "no plays" so far.
    plays: usize,
}

impl Table {
    /// Shuffles a double deck, deals the hands one card at a time round the table,
    /// turns up the starter and starts the round.
    fn deal(setup: &DemoSetup, rule: &Rule) -> Result<Table, DemoError> {
        let mut rng = ChaCha8Rng::seed_from_u64(setup.seed);
        let mut stock = Card::double_deck();
        stock.shuffle(&mut rng);
        let hand_size = Variant::NewEleusis.params().hand_size as usize;
        let mut hands = vec![Vec::with_capacity(hand_size); setup.players.len()];
        if setup.players.len() * hand_size >= stock.len() {
            return Err(DemoError::BadSetup(format!(
                "{} players do not fit the demo's double deck",
                setup.players.len()
            )));
        }
        for _ in 0..hand_size {
            for hand in &mut hands {
                if let Some(card) = stock.pop() {
                    hand.push(card);
                }
            }
        }
        // God turns cards up until the rule accepts one; the refused go back under
        // the stock.
        let empty = Context::default();
        let mut turned = Vec::new();
        let mut starter = None;
        while let Some(card) = stock.pop() {
            if rule.accepts(&empty, card) || turned.len() >= STARTER_TRIES {
                starter = Some(card);
                break;
            }
            turned.push(card);
        }
        let Some(starter) = starter else {
            return Err(DemoError::BadSetup("no card left for the starter".into()));
        };
        let refused_starters = if rule.accepts(&empty, starter) {
            turned.clone()
        } else {
            Vec::new()
        };
        for card in turned {
            stock.insert(0, card);
        }
        let round = LogEvent::Round(RoundEvent {
            variant: Variant::NewEleusis,
            god: setup.god.clone(),
            players: setup.players.clone(),
            rule: setup.rule.clone(),
            starter,
            hand_size: None,
            hint: None,
            refused_starters,
        });
        let mut game = Game::new();
        game.set_explanations(false);
        game.apply(&round)
            .map_err(|e| DemoError::BadSetup(e.to_string()))?;
        let table = Table {
            rng,
            game,
            names: setup.players.clone(),
            hands,
            stock,
            events: vec![round],
            plays: 0,
        };
        table.check_counts()?;
        Ok(table)
    }

    /// The seat whose turn it is; `None` once the round has ended.
    fn turn(&self) -> Option<usize> {
        let name = self.game.state().turn?;
        self.names.iter().position(|n| *n == name)
    }

    /// The prophet in office, if any.
    fn prophet(&self) -> Option<usize> {
        let name = self.game.state().prophet?.player;
        self.names.iter().position(|n| *n == name)
    }

    /// What the referee would decide, without deciding it.
    fn trial(&self, event: &LogEvent) -> Option<Outcome> {
        self.game.clone().apply(event).ok()
    }

    /// Whether `cards`, played now, would be right.
    fn right(&self, seat: usize, cards: &[Card], call: Option<Call>) -> bool {
        self.trial(&play_event(&self.names[seat], cards, call))
            .and_then(|o| o.right)
            .unwrap_or(false)
    }

    /// One turn of the player at `seat`: a play or a "no play", then perhaps a
    /// Prophet declaration.
    fn take_turn(&mut self, seat: usize) -> Result<(), DemoError> {
        // With a prophet in office the verdict needs a call to be refereed; the
        // verdict itself does not depend on it.
        let probe = self.prophet().map(|_| Call::Right);
        let hand = self.hands[seat].clone();
        let acceptable: Vec<Card> = hand
            .iter()
            .copied()
            .filter(|&c| self.right(seat, &[c], probe))
            .collect();
        // Players learn the rule as the line grows.
        let laid = self.game.state().laid as f64;
        let skill = 0.35 + 0.5 * (laid / 40.0).min(1.0);
        let roll: f64 = self.rng.gen();
        let action = if acceptable.is_empty() {
            if roll < 0.75 {
                Action::NoPlay
            } else {
                Action::Play(vec![self.random_card(&hand)])
            }
        } else if roll < 0.04 {
            // A player who overlooked a card declares "no play" wrongly.
            Action::NoPlay
        } else if roll < 0.04 + skill {
            let first = acceptable[self.rng.gen_range(0..acceptable.len())];
            Action::Play(self.extend_sequence(seat, &hand, first, probe))
        } else if hand.len() >= 3 && self.rng.gen_bool(0.15) {
            let n = self.rng.gen_range(2..=3);
            Action::Play(hand.choose_multiple(&mut self.rng, n).copied().collect())
        } else {
            Action::Play(vec![self.random_card(&hand)])
        };
        let name = self.names[seat].clone();
        let event = match action {
            Action::Play(cards) => {
                let call = self.prophet_call(|t| t.right(seat, &cards, probe));
                play_event(&name, &cards, call)
            }
            Action::NoPlay => {
                let truth = acceptable.is_empty();
                let call = self.prophet_call(|_| truth);
                LogEvent::NoPlay(NoPlayEvent {
                    player: Some(name.clone()),
                    hand,
                    pick: None,
                    prophet_says: call,
                })
            }
        };
        let played = matches!(event, LogEvent::Play(_));
        let outcome = self.emit(event)?;
        self.plays += 1;
        // A player who has just played well may declare himself Prophet.
        if played
            && outcome.right == Some(true)
            && outcome.round_end.is_none()
            && self.game.state().laid >= 10
            && self.rng.gen_bool(0.15)
        {
            let declare = LogEvent::Prophet(ProphetEvent { player: name });
            if self.trial(&declare).is_some() {
                self.emit(declare)?;
            }
        }
        Ok(())
    }

    /// Adds cards after `first` while they are right, sometimes, to make a sequence.
    fn extend_sequence(
        &mut self,
        seat: usize,
        hand: &[Card],
        first: Card,
        probe: Option<Call>,
    ) -> Vec<Card> {
        let mut cards = vec![first];
        if hand.len() < 3 || !self.rng.gen_bool(0.2) {
            return cards;
        }
        let want = self.rng.gen_range(2..=3);
        while cards.len() < want {
            let next = hand
                .iter()
                .filter(|c| !cards.contains(c))
                .copied()
                .find(|&c| {
                    let mut longer = cards.clone();
                    longer.push(c);
                    self.right(seat, &longer, probe)
                });
            match next {
                Some(card) => cards.push(card),
                None => break,
            }
        }
        cards
    }

    fn random_card(&mut self, hand: &[Card]) -> Card {
        hand[self.rng.gen_range(0..hand.len())]
    }

    /// The prophet's call on a play whose verdict `truth` gives: right most of the
    /// time, and now and then wrong, so false prophets happen too.
    fn prophet_call(&mut self, truth: impl Fn(&Table) -> bool) -> Option<Call> {
        self.prophet()?;
        let right = truth(self);
        let says_right = if self.rng.gen_bool(0.95) {
            right
        } else {
            !right
        };
        Some(if says_right { Call::Right } else { Call::Wrong })
    }

    /// Referees `event`, keeps it, and moves the real cards as the referee decided.
    fn emit(&mut self, event: LogEvent) -> Result<Outcome, DemoError> {
        let outcome = self.game.apply(&event).map_err(|e| DemoError::Refused {
            event: event.name(),
            reason: e.to_string(),
        })?;
        match &event {
            LogEvent::Play(play) => {
                let seat = self.seat(play.player.as_deref());
                for card in &play.cards {
                    self.take(seat, *card);
                }
                self.penalties(&outcome);
            }
            LogEvent::NoPlay(no_play) => {
                let seat = self.seat(no_play.player.as_deref());
                if let Some(pick) = outcome.pick.as_ref().filter(|p| p.accepted) {
                    self.take(seat, pick.card);
                }
                self.penalties(&outcome);
                if outcome.right == Some(true) {
                    // The hand goes back under the stock; a smaller one is dealt.
                    let returned = std::mem::take(&mut self.hands[seat]);
                    self.stock.splice(0..0, returned);
                    if let Some(new) = outcome.new_hand {
                        let cards = self.draw(new as usize);
                        self.hands[seat] = cards;
                    }
                }
            }
            _ => {}
        }
        self.events.push(event);
        self.check_counts()?;
        Ok(outcome)
    }

    fn seat(&self, name: Option<&str>) -> usize {
        name.and_then(|n| self.names.iter().position(|p| p == n))
            .unwrap_or(0)
    }

    fn take(&mut self, seat: usize, card: Card) {
        if let Some(i) = self.hands[seat].iter().position(|&c| c == card) {
            self.hands[seat].remove(i);
        }
    }

    /// Deals penalty cards, in the order the referee drew them.
    fn penalties(&mut self, outcome: &Outcome) {
        for penalty in &outcome.penalties {
            let seat = self.seat(Some(&penalty.player));
            let cards = self.draw(penalty.cards as usize);
            self.hands[seat].extend(cards);
        }
    }

    /// Draws `n` cards, adding a freshly shuffled deck when the stock runs out (as
    /// the referee does).
    fn draw(&mut self, n: usize) -> Vec<Card> {
        while self.stock.len() < n {
            let mut deck = Card::deck();
            deck.shuffle(&mut self.rng);
            self.stock.splice(0..0, deck);
        }
        self.stock.split_off(self.stock.len() - n)
    }

    /// The hands and stock must have the referee's counts.
    fn check_counts(&self) -> Result<(), DemoError> {
        let state = self.game.state();
        let event = self.events.len();
        if state.stock as usize != self.stock.len() {
            return Err(DemoError::OutOfStep {
                event,
                what: format!(
                    "stock {} here, {} for the referee",
                    self.stock.len(),
                    state.stock
                ),
            });
        }
        for (name, hand) in self.names.iter().zip(&self.hands) {
            let counted = state.hands.get(name).unwrap_or(-1);
            if counted != hand.len() as i64 {
                return Err(DemoError::OutOfStep {
                    event,
                    what: format!(
                        "{name} holds {} here, {counted} for the referee",
                        hand.len()
                    ),
                });
            }
        }
        Ok(())
    }
}

/// What a player does on his turn.
enum Action {
    Play(Vec<Card>),
    NoPlay,
}

fn play_event(player: &str, cards: &[Card], call: Option<Call>) -> LogEvent {
    LogEvent::Play(PlayEvent {
        player: Some(player.to_string()),
        cards: cards.to_vec(),
        prophet_says: call,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::{replay, GameState};

    fn lines(events: &[LogEvent]) -> Vec<String> {
        events.iter().map(LogEvent::to_line).collect()
    }

    fn replayed(events: &[LogEvent]) -> (GameState, Vec<Outcome>) {
        replay(lines(events)).unwrap_or_else(|e| panic!("the demo log does not replay: {e}"))
    }

    #[test]
    fn the_default_round_replays_to_an_ended_round_with_right_and_wrong_plays() {
        let events = demo_round(&DemoSetup::new(7, DEFAULT_RULE)).expect("demo round");
        assert!(matches!(events.first(), Some(LogEvent::Round(r)) if r.rule == DEFAULT_RULE));
        let (state, outcomes) = replayed(&events);
        assert!(state.ended, "the round ends: {:?}", state.end_reason);
        assert_eq!(state.turn, None);
        let scores = state.scores.expect("scores at the end");
        assert_eq!(scores.0.len(), 5, "four players and God are scored");
        assert_eq!(state.players, DEFAULT_PLAYERS.map(String::from).to_vec());
        let plays: Vec<&Outcome> = outcomes.iter().filter(|o| o.event == "play").collect();
        assert!(plays.iter().any(|o| o.right == Some(true)));
        assert!(plays.iter().any(|o| o.right == Some(false)));
        assert!(
            state.laid > 10,
            "a whole round lays many cards: {}",
            state.laid
        );
    }

    #[test]
    fn a_seed_decides_the_whole_round() {
        let a = demo_round(&DemoSetup::new(42, DEFAULT_RULE)).expect("demo");
        let b = demo_round(&DemoSetup::new(42, DEFAULT_RULE)).expect("demo");
        let c = demo_round(&DemoSetup::new(43, DEFAULT_RULE)).expect("demo");
        assert_eq!(lines(&a), lines(&b));
        assert_ne!(lines(&a), lines(&c));
    }

    #[test]
    fn many_seeds_end_and_show_every_kind_of_event() {
        let (mut prophets, mut no_plays, mut sequences) = (0, 0, 0);
        let mut overthrown = 0;
        for seed in 0..24 {
            let events = demo_round(&DemoSetup::new(seed, DEFAULT_RULE))
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            let (state, outcomes) = replayed(&events);
            assert!(state.ended, "seed {seed}: the round did not end");
            for event in &events {
                match event {
                    LogEvent::Prophet(_) => prophets += 1,
                    LogEvent::NoPlay(_) => no_plays += 1,
                    LogEvent::Play(p) if p.cards.len() > 1 => sequences += 1,
                    _ => {}
                }
            }
            overthrown += outcomes.iter().filter(|o| o.overthrown.is_some()).count();
        }
        assert!(prophets > 0, "no prophet in 24 rounds");
        assert!(no_plays > 0, "no \"no play\" in 24 rounds");
        assert!(sequences > 0, "no sequence in 24 rounds");
        assert!(overthrown > 0, "no false prophet in 24 rounds");
    }

    #[test]
    fn max_plays_stops_the_round_early() {
        let mut setup = DemoSetup::new(3, DEFAULT_RULE);
        setup.max_plays = Some(12);
        let events = demo_round(&setup).expect("demo");
        let plays = events
            .iter()
            .filter(|e| matches!(e, LogEvent::Play(_) | LogEvent::NoPlay(_)))
            .count();
        assert_eq!(plays, 12);
        let (state, _) = replayed(&events);
        assert!(!state.ended);
        assert!(state.turn.is_some());
    }

    #[test]
    fn another_rule_and_table_work_too() {
        let setup = DemoSetup {
            seed: 5,
            rule: "card.suit == last.suit or card.rank == last.rank".into(),
            god: "Ana".into(),
            players: vec!["Bia".into(), "Caio".into(), "Duda".into()],
            max_plays: None,
        };
        let events = demo_round(&setup).expect("demo");
        let (state, _) = replayed(&events);
        assert!(state.ended);
        assert_eq!(state.god.as_deref(), Some("Ana"));
    }

    #[test]
    fn god_refuses_starters_the_rule_does_not_accept() {
        let mut refused = 0;
        for seed in 0..8 {
            let events = demo_round(&DemoSetup::new(seed, "red")).expect("demo");
            let Some(LogEvent::Round(round)) = events.first() else {
                panic!("seed {seed}: no round first")
            };
            assert!(round.starter.is_red(), "seed {seed}: {}", round.starter);
            assert!(round.refused_starters.iter().all(|c| c.is_black()));
            refused += round.refused_starters.len();
            let (state, _) = replayed(&events);
            assert!(state.ended, "seed {seed}");
        }
        assert!(refused > 0, "God never refused a starter in 8 rounds");
    }

    #[test]
    fn a_bad_rule_or_table_is_an_error_not_a_panic() {
        let err = demo_round(&DemoSetup::new(1, "if last.black then")).expect_err("bad rule");
        assert!(matches!(err, DemoError::BadRule(_)), "{err}");
        let mut setup = DemoSetup::new(1, DEFAULT_RULE);
        setup.players = vec!["Solo".into()];
        let err = demo_round(&setup).expect_err("one player");
        assert!(matches!(err, DemoError::BadSetup(_)), "{err}");
        setup.players = (0..8).map(|i| format!("P{i}")).collect();
        let err = demo_round(&setup).expect_err("eight hands of 14");
        assert!(err.to_string().contains("8 players"), "{err}");
    }
}
