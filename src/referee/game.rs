//! A game: rounds one after the other, each with its own God and sealed rule, and the
//! totals. `Game::apply` is the only way the state changes, so `state = fold(events)`.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Arc;

use serde::Serialize;

use crate::cards::Card;

use super::delphos::DelphosState;
use super::error::RefereeError;
use super::log::LogEvent;
use super::original::OriginalState;
use super::outcome::Outcome;
use super::own_flow::{FlowError, OwnFlowRound};
use super::round::{Deal, Round, SharedJudge, Sideline};
use super::scoring::Tally;
use super::variant::Variant;

/// A name without case or accents (`François` → `francois`): what two names of one
/// person typed twice may differ by.
fn loose_key(name: &str) -> String {
    use unicode_normalization::char::is_combining_mark;
    use unicode_normalization::UnicodeNormalization as _;
    super::round::alike_key(name)
        .nfd()
        .filter(|&c| !is_combining_mark(c))
        .collect()
}

/// Turns the text of a `round` event's rule into a judge; the error says why the text
/// is not a rule. The game uses the rule language; tests may judge with closures.
pub type RuleCompiler = Arc<dyn Fn(&str) -> Result<SharedJudge, String> + Send + Sync>;

/// The referee of one game.
#[derive(Clone)]
pub struct Game {
    compiler: RuleCompiler,
    round: Option<Round>,
    /// The current round when its variant has its own flow (`eleusis-1959`,
    /// `delphos`); then `round` is `None`.
    own: Option<OwnFlowRound>,
    /// The variant of the game's first round: a game of a seed game stays in it.
    first_variant: Option<Variant>,
    rounds_started: u32,
    /// How many rounds have finished (their scores are in `sums`).
    finished: usize,
    /// God of every started round, in order.
    gods: Vec<String>,
    /// Everyone who sat at the table, in first-seen order (players, then God).
    participants: Vec<String>,
    /// Each participant's place in `participants` and `sums`.
    seat_of: HashMap<String, usize>,
    /// Each participant's sum of the finished rounds' scores, kept as rounds finish
    /// so that a long game is not summed again from its first round at every end.
    sums: Vec<i64>,
    /// Everyone who has been God of a started round.
    been_god: HashSet<String>,
    not_god_bonus: u32,
    ended: bool,
    warnings: Vec<String>,
    explain: bool,
}

impl fmt::Debug for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Game")
            .field("rounds_started", &self.rounds_started)
            .field("ended", &self.ended)
            .finish_non_exhaustive()
    }
}

impl Default for Game {
    fn default() -> Self {
        Game::new()
    }
}

impl Game {
    /// A game whose rounds' rules are read with the rule language
    /// ([`crate::rule::Rule::parse`]).
    pub fn new() -> Game {
        Game::with_rules(Arc::new(|text: &str| {
            crate::rule::Rule::parse(text)
                .map(|rule| Arc::new(rule) as SharedJudge)
                .map_err(|e| e.to_string())
        }))
    }

    /// A game whose rules are compiled by `compiler` (tests judge with closures).
    pub fn with_rules(compiler: RuleCompiler) -> Game {
        Game {
            compiler,
            round: None,
            own: None,
            first_variant: None,
            rounds_started: 0,
            finished: 0,
            gods: Vec::new(),
            participants: Vec::new(),
            seat_of: HashMap::new(),
            sums: Vec::new(),
            been_god: HashSet::new(),
            not_god_bonus: Variant::default().params().not_god_bonus,
            ended: false,
            warnings: Vec::new(),
            explain: true,
        }
    }

    /// A game where every round is judged by `judge`, whatever its rule text says.
    pub fn with_judge(judge: SharedJudge) -> Game {
        Game::with_rules(Arc::new(move |_: &str| Ok(Arc::clone(&judge))))
    }

    /// Whether outcomes carry the rule's explanation of each verdict and, at the end
    /// of a round, the game totals (the default). Without them, verdicts are the same
    /// and refereeing is several times faster: for replays where only the final state
    /// is wanted ([`Game::totals`] and the state still have the totals). A game of
    /// many rounds and many names would otherwise rebuild every participant's total
    /// at the end of every round.
    pub fn set_explanations(&mut self, explain: bool) {
        self.explain = explain;
        if let Some(round) = &mut self.round {
            round.set_explain(explain);
        }
    }

    /// Referees one event. On error the state is unchanged.
    pub fn apply(&mut self, event: &LogEvent) -> Result<Outcome, RefereeError> {
        if self.ended {
            return Err(RefereeError::GameOver);
        }
        let out = match event {
            LogEvent::Round(ev) => {
                if let Some(round) = self.round.as_ref().filter(|r| r.end.is_none()) {
                    return Err(RefereeError::RoundInProgress {
                        round: round.number,
                    });
                }
                if let Some(own) = self.own.as_ref().filter(|r| r.end().is_none()) {
                    return Err(RefereeError::RoundInProgress {
                        round: own.number(),
                    });
                }
                if let Some(first) = self.first_variant {
                    if first != ev.variant && (first.own_flow() || ev.variant.own_flow()) {
                        return Err(FlowError::MixedVariants {
                            game: first,
                            round: ev.variant,
                        }
                        .into());
                    }
                }
                let judge = (self.compiler)(&ev.rule).map_err(RefereeError::BadRule)?;
                if ev.variant.own_flow() {
                    return self.start_own_flow(ev, judge);
                }
                let (mut round, out) = Round::start(self.rounds_started + 1, ev, judge)?;
                round.set_explain(self.explain);
                self.first_variant.get_or_insert(ev.variant);
                self.rounds_started += 1;
                self.seat_round(ev);
                self.not_god_bonus = round.params.not_god_bonus;
                self.round = Some(round);
                self.own = None;
                out
            }
            LogEvent::Play(_)
            | LogEvent::NoPlay(_)
            | LogEvent::Prophet(_)
            | LogEvent::Predict(_)
            | LogEvent::EndRound(_)
            | LogEvent::Hint(_)
                if self.own.is_some() =>
            {
                match self.own.as_mut() {
                    Some(own) => own.apply(event)?,
                    None => return Err(RefereeError::NoRound),
                }
            }
            LogEvent::Play(ev) => self.current()?.play(ev)?,
            LogEvent::NoPlay(ev) => self.current()?.no_play(ev)?,
            LogEvent::Prophet(ev) => self.current()?.declare_prophet(ev)?,
            LogEvent::Predict(_) | LogEvent::EndRound(_) | LogEvent::Hint(_) => {
                let round = self.current()?;
                return Err(FlowError::NotInVariant {
                    event: event.name(),
                    variant: round.variant,
                }
                .into());
            }
            // A game is its rounds: with none started there is no game to end (and
            // nothing would be stored for it).
            LogEvent::EndGame(_) if self.rounds_started == 0 => return Err(RefereeError::NoRound),
            LogEvent::EndGame(_) => {
                let mut out = Outcome::new(self.rounds_started, "end_game", None);
                // RULES.md scores a round at its end; a round cut short has none.
                // `settle` puts "round N: " before every warning of the state.
                let unfinished = self.round.as_ref().is_some_and(|r| r.end.is_none())
                    || self.own.as_ref().is_some_and(|r| r.end().is_none());
                if unfinished {
                    out.warnings
                        .push("the round had not ended and is not scored".to_string());
                }
                self.ended = true;
                out.totals = self.totals();
                out
            }
        };
        Ok(self.settle(out))
    }

    /// Records what an applied event decided: a finished round's scores, warnings.
    fn settle(&mut self, mut out: Outcome) -> Outcome {
        if let Some(end) = &out.round_end {
            for (name, score) in &end.scores.0 {
                let seat = self.participant(name);
                self.sums[seat] += score;
            }
            self.finished += 1;
            if self.explain {
                out.totals = self.totals();
            }
        }
        let round = out.round;
        self.warnings
            .extend(out.warnings.iter().map(|w| format!("round {round}: {w}")));
        out
    }

    /// Records a started round's God and seats everyone of it who is new to the game.
    fn seat_round(&mut self, ev: &super::log::RoundEvent) {
        self.gods.push(ev.god.clone());
        self.been_god.insert(ev.god.clone());
        for name in ev.players.iter().chain(std::iter::once(&ev.god)) {
            self.participant(name);
        }
    }

    /// For a `round` event about to be recorded live: the first name it seats that
    /// is new to this game but written like a participant's name but for case or
    /// accents (`ana` for `Ana`, `Francois` for `François`), in words. Names are
    /// matched exactly, so such a name would be another person, with a column of
    /// his own and the not-God bonus of someone who was God: at a table it is a
    /// slip of the keyboard, and a round event cannot be corrected afterwards.
    /// `None` when the round starts a new game (this one has ended). Replaying a
    /// log does not ask this: a log may seat whom it likes.
    pub fn alike_newcomer(&self, event: &super::log::RoundEvent) -> Option<String> {
        if self.ended {
            return None;
        }
        std::iter::once(&event.god)
            .chain(&event.players)
            .find_map(|name| {
                let name = super::round::name_form(name);
                if self.seat_of.contains_key(&name) {
                    return None;
                }
                let key = loose_key(&name);
                let known = self.participants.iter().find(|p| loose_key(p) == key)?;
                Some(format!(
                    "\"{name}\" is new to this game, but \"{known}\" is in it already: names are matched exactly, so \"{name}\" would be another person, with a score of his own; write \"{known}\" as before (or, for someone else, a name that tells the two apart)"
                ))
            })
    }

    /// `name`'s place among the participants, seating him when he is new.
    fn participant(&mut self, name: &str) -> usize {
        if let Some(&seat) = self.seat_of.get(name) {
            return seat;
        }
        let seat = self.participants.len();
        self.participants.push(name.to_string());
        self.seat_of.insert(name.to_string(), seat);
        self.sums.push(0);
        seat
    }

    /// Starts a round of `eleusis-1959` or `delphos` (see [`super::own_flow`]).
    fn start_own_flow(
        &mut self,
        ev: &super::log::RoundEvent,
        judge: SharedJudge,
    ) -> Result<Outcome, RefereeError> {
        let (own, out) = OwnFlowRound::start(
            self.rounds_started + 1,
            ev,
            judge,
            self.own.as_ref(),
            self.finished,
        )?;
        self.rounds_started += 1;
        self.first_variant.get_or_insert(ev.variant);
        self.seat_round(ev);
        self.not_god_bonus = ev.variant.params().not_god_bonus;
        self.round = None;
        self.own = Some(own);
        Ok(self.settle(out))
    }

    fn current(&mut self) -> Result<&mut Round, RefereeError> {
        self.round.as_mut().ok_or(RefereeError::NoRound)
    }

    /// Game totals, once the game has more than one finished round or has ended:
    /// sums of round scores, plus the not-God bonus for everyone who has not been God
    /// when the game has ended.
    pub fn totals(&self) -> Option<Tally> {
        if self.finished < 2 && !self.ended {
            return None;
        }
        Some(self.sums())
    }

    /// The standings so far, from the first finished round on (TABLE-LOG.md's
    /// `totals` wait for a second): what a table shows between rounds. The same
    /// sums as [`Game::totals`], the not-God bonus added once the game has ended.
    pub fn standings(&self) -> Option<Tally> {
        if self.finished == 0 && !self.ended {
            return None;
        }
        Some(self.sums())
    }

    /// Sums of the finished rounds' scores for every participant, plus the
    /// not-God bonus once the game has ended.
    fn sums(&self) -> Tally {
        let bonus = i64::from(self.not_god_bonus);
        Tally(
            self.participants
                .iter()
                .zip(&self.sums)
                .map(|(name, &sum)| {
                    let not_god = self.ended && !self.been_god.contains(name);
                    (name.clone(), if not_god { sum + bonus } else { sum })
                })
                .collect(),
        )
    }

    /// How the current round was dealt; `None` before the first round.
    pub fn deal(&self) -> Option<Deal> {
        self.round.as_ref().map(|r| r.deal)
    }

    /// Whether `end_game` has been applied.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// The state of the last round and of the game, in the shape of `eleusis replay`.
    pub fn state(&self) -> GameState {
        let game = GameSummary {
            rounds: self.rounds_started,
            totals: self.totals(),
            finished_rounds: u32::try_from(self.finished).unwrap_or(u32::MAX),
            gods: self.gods.clone(),
            ended: self.ended,
            standings: self.standings(),
        };
        if let Some(own) = &self.own {
            let mut state = own.state(GameState {
                game,
                warnings: self.warnings.clone(),
                ..GameState::default()
            });
            // As in the hand variants: nobody is to play (or to predict) once the
            // game has ended, even in a round it cut short.
            if self.ended {
                state.turn = None;
                if let Some(delphos) = &mut state.delphos {
                    delphos.predictor = None;
                }
            }
            return state;
        }
        let Some(r) = &self.round else {
            return GameState {
                game,
                warnings: self.warnings.clone(),
                ..GameState::default()
            };
        };
        GameState {
            variant: Some(r.variant),
            main: r.main.clone(),
            sidelines: r.sidelines.clone(),
            laid: r.laid(),
            white_markers: r.white_markers.clone(),
            black_markers: r.black_markers.clone(),
            prophet: r.prophet.map(|o| ProphetState {
                player: r.seats[o.seat].name.clone(),
                marker: o.marker,
            }),
            hands: Tally(
                r.seats
                    .iter()
                    .map(|s| (s.name.clone(), i64::from(s.hand)))
                    .collect(),
            ),
            eliminated: r
                .seats
                .iter()
                .filter(|s| s.eliminated)
                .map(|s| s.name.clone())
                .collect(),
            // Nobody is to play once the game has ended, even in a round it cut short.
            turn: r
                .turn
                .filter(|_| !self.ended)
                .map(|t| r.seats[t].name.clone()),
            ended: r.end.is_some(),
            scores: r.end.as_ref().map(|e| e.scores.clone()),
            game,
            warnings: self.warnings.clone(),
            round: r.number,
            god: Some(r.god.clone()),
            players: r.seats.iter().map(|s| s.name.clone()).collect(),
            hint: r.hint.clone(),
            stock: r.stock,
            decks: r.decks,
            sudden_death: r.end.is_none() && !self.ended && r.sudden_death(),
            former_prophets: r.former_prophets(),
            end_reason: r.end.as_ref().map(|e| e.reason.clone()),
            eleusis_1959: None,
            delphos: None,
        }
    }

    /// Cards in hands + laid + stock, and the cards of the decks in play; equal
    /// whenever the referee's counts are whole. `None` before the first round.
    pub fn card_balance(&self) -> Option<(u64, u64)> {
        self.round.as_ref().map(|r| {
            (
                r.cards_accounted(),
                u64::from(r.decks) * u64::from(r.params.deck_size),
            )
        })
    }
}

/// The prophet in office: his name and the laid position of the marked card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProphetState {
    pub player: String,
    pub marker: u32,
}

/// The game part of the state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct GameSummary {
    /// Rounds started.
    pub rounds: u32,
    /// Game totals once more than one round has finished or the game has ended.
    pub totals: Option<Tally>,
    /// Extension: rounds that reached their end (and were scored).
    pub finished_rounds: u32,
    /// Extension: God of each started round, in order.
    pub gods: Vec<String>,
    /// Extension: whether `end_game` was applied.
    pub ended: bool,
    /// Extension: the standings from the first finished round on (`totals` waits
    /// for a second); null before any round has finished.
    pub standings: Option<Tally>,
}

/// The state `eleusis replay` prints (TABLE-LOG.md), for the last round, plus the
/// documented extension fields after `warnings`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct GameState {
    pub variant: Option<Variant>,
    pub main: Vec<Card>,
    pub sidelines: Vec<Sideline>,
    pub laid: u32,
    pub white_markers: Vec<u32>,
    pub black_markers: Vec<u32>,
    pub prophet: Option<ProphetState>,
    /// Hand counts in seating order.
    pub hands: Tally,
    pub eliminated: Vec<String>,
    pub turn: Option<String>,
    pub ended: bool,
    pub scores: Option<Tally>,
    pub game: GameSummary,
    /// Non-fatal findings of the whole game, each prefixed by its round.
    pub warnings: Vec<String>,
    /// Extension: the round's number in the game (1-based).
    pub round: u32,
    /// Extension: God of the round.
    pub god: Option<String>,
    /// Extension: players in seating order from God's left.
    pub players: Vec<String>,
    /// Extension: God's hint; null when he gave none (written like every other
    /// field, so that a reader finds the key in every state).
    pub hint: Option<String>,
    /// Extension: cards left in the stock.
    pub stock: u32,
    /// Extension: decks in play (2, or more once the stock ran out).
    pub decks: u32,
    /// Extension: whether a wrong play now eliminates.
    pub sudden_death: bool,
    /// Extension: players who have been prophet this round and may not be again.
    pub former_prophets: Vec<String>,
    /// Extension: why the round ended.
    pub end_reason: Option<String>,
    /// Extension (`eleusis-1959`): stage, wrong cards before each player, the
    /// dealer's score, the deals of the game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eleusis_1959: Option<OriginalState>,
    /// Extension (`delphos`): running scores, who may predict, the pending
    /// prediction, hints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delphos: Option<DelphosState>,
}
