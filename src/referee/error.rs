//! Why the referee refuses what the table says happened. Every variant names the rule
//! (RULES.md / TABLE-LOG.md) that forbids it; a refused event leaves the state as it was.

use std::fmt;

use thiserror::Error;

use crate::cards::Card;

use super::log::Call;

/// The four conditions of RULES.md section 4 for declaring oneself Prophet, and the
/// variant's own permission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProphetCondition {
    /// The variant (e.g. `basic`) has no Prophet.
    VariantHasNone,
    /// (1) He has just played a card or a sequence, and the next player has not played.
    JustPlayed,
    /// (2) There is no prophet.
    NoProphet { current: String },
    /// (3) At least two players other than God and himself are still in the round.
    TwoOthersInRound { others: usize },
    /// (4) He has not been prophet in this round.
    NotBeenProphet,
    /// An eliminated player is out of the round and cannot take office.
    Eliminated,
}

impl fmt::Display for ProphetCondition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProphetCondition::VariantHasNone => f.write_str("this variant has no Prophet"),
            ProphetCondition::JustPlayed => f.write_str(
                "condition 1: he must have just played a card or a sequence (not a no play), \
                 and the next player must not have played yet",
            ),
            ProphetCondition::NoProphet { current } => {
                write!(
                    f,
                    "condition 2: there must be no prophet, and {current} is in office"
                )
            }
            ProphetCondition::TwoOthersInRound { others } => write!(
                f,
                "condition 3: at least two players other than God and himself must still be \
                 in the round, there are {others}"
            ),
            ProphetCondition::NotBeenProphet => {
                f.write_str("condition 4: he has already been prophet in this round")
            }
            ProphetCondition::Eliminated => f.write_str("he has been eliminated from the round"),
        }
    }
}

/// An event the referee refuses, with the rule that forbids it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RefereeError {
    #[error("no round has started: the first event must be a \"round\" event")]
    NoRound,
    #[error("round {round} has ended ({reason}); only a new \"round\" or \"end_game\" may follow")]
    RoundOver { round: u32, reason: String },
    #[error("round {round} has not ended: a new round starts only after the previous one ends")]
    RoundInProgress { round: u32 },
    #[error("the game has ended (\"end_game\"); nothing may follow it")]
    GameOver,
    #[error("the rule is not valid: {0}")]
    BadRule(String),
    #[error("a round needs at least {min} players besides God, got {got}")]
    TooFewPlayers { min: usize, got: usize },
    #[error("player {0:?} is listed twice")]
    DuplicatePlayer(String),
    #[error("the names \"{first}\" and \"{second}\" are alike (they differ only in capitals, joiners or variation selectors): give each person a name the table can tell apart")]
    LookAlikeNames { first: String, second: String },
    #[error("God ({0}) cannot also be one of the players")]
    GodPlays(String),
    #[error("names of God and players must not be empty")]
    EmptyName,
    #[error("a round seats at most {max} players besides God, got {got}")]
    PlayerLimit { max: usize, got: usize },
    #[error("the name {name:?} is not a name: at most {max} characters, and no line breaks, line or paragraph separators, tabs, other control characters, bidirectional marks or invisible characters (zero-width spaces, word joiners, soft hyphens, byte-order marks)")]
    BadName { name: String, max: usize },
    #[error(
        "field \"hand_size\": hand_size must be 1 to 52 (cards dealt to each player), got {0}"
    )]
    BadHandSize(u32),
    #[error("{0} players are more than the decks can be counted for")]
    TooManyPlayers(usize),
    #[error("the starter {card} is not acceptable under the rule ({explanation}); in variant {variant} God must turn up another (RULES.md section 2)")]
    StarterNotAcceptable {
        card: Card,
        variant: String,
        explanation: String,
    },
    #[error("refused starter {card} is acceptable under the rule ({explanation}), so God could not refuse it")]
    RefusedStarterAcceptable { card: Card, explanation: String },
    #[error("unknown player {name:?} (not seated in this round{hint})")]
    UnknownPlayer { name: String, hint: String },
    #[error("it is {expected}'s turn, not {got}'s")]
    NotYourTurn { expected: String, got: String },
    #[error("a play is one card or a sequence of 2 to {max} cards, got {got} cards")]
    SequenceLength { max: usize, got: usize },
    #[error("{player} holds {} and cannot play {cards}", cards_held(*hand))]
    NotEnoughCards {
        player: String,
        hand: u32,
        cards: usize,
    },
    #[error("{prophet} is prophet: \"prophet_says\" (right or wrong) is required on every play and no_play")]
    ProphetCallMissing { prophet: String },
    #[error("\"prophet_says\": \"{call}\" given but no prophet is in office")]
    ProphetCallWithoutProphet { call: Call },
    #[error("pick {0} is not in the shown hand")]
    PickNotInHand(Card),
    #[error("God's pick {card} is not acceptable ({explanation}); God takes an acceptable card")]
    PickNotAcceptable { card: Card, explanation: String },
    #[error("{player} may not declare himself Prophet: {condition}")]
    ProphetRefused {
        player: String,
        condition: ProphetCondition,
    },
    /// A rule of `eleusis-1959` or `delphos` (RULES.md sections 6 and 7).
    #[error(transparent)]
    OwnFlow(#[from] super::own_flow::FlowError),
}

/// `1 card`, `3 cards`: a hand's size in words.
fn cards_held(n: u32) -> String {
    format!("{n} card{}", if n == 1 { "" } else { "s" })
}

pub use crate::json_input::QUOTED_CHARS;

/// `text` as an error message quotes it: whole when short, else its first
/// [`QUOTED_CHARS`] characters and "…".
pub(crate) use crate::json_input::shortened as quoted;

impl RefereeError {
    /// The unknown-player error, naming the player as given but cut short: the
    /// name comes from the request, and a megabyte of it is no help in the answer.
    ///
    /// `seated` are the round's players and `god` its God: a name that is God's, or
    /// a player's written with other capitals, is said so (`cy` for Cy is a slip of
    /// the keyboard, God is not seated to play).
    pub(crate) fn unknown_player<'a>(
        name: &str,
        seated: impl IntoIterator<Item = &'a str>,
        god: Option<&str>,
    ) -> RefereeError {
        use super::round::alike_key;
        let wanted = alike_key(name);
        let hint = if let Some(god) = god.filter(|g| alike_key(g) == wanted) {
            format!(": {} is God of this round, not a player", quoted(god))
        } else if let Some(like) = seated.into_iter().find(|s| alike_key(s) == wanted) {
            format!("; did you mean {:?}?", quoted(like))
        } else {
            String::new()
        };
        RefereeError::UnknownPlayer {
            name: quoted(name),
            hint,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_player_is_named_but_not_echoed_whole() {
        let short = RefereeError::unknown_player("Zoe", ["Ana"], Some("Bo")).to_string();
        assert_eq!(short, "unknown player \"Zoe\" (not seated in this round)");
        let god = RefereeError::unknown_player("zoë", ["Ana"], Some("Zoë")).to_string();
        assert_eq!(
            god,
            "unknown player \"zoë\" (not seated in this round: Zoë is God of this round, not a player)"
        );
        let case = RefereeError::unknown_player("cy", ["Ana", "Cy"], Some("G")).to_string();
        assert_eq!(
            case,
            "unknown player \"cy\" (not seated in this round; did you mean \"Cy\"?)"
        );
        let long = RefereeError::unknown_player(&"x".repeat(1 << 20), [], None).to_string();
        assert!(long.len() < 200, "{} bytes", long.len());
        assert!(long.contains(&format!("\"{}…\"", "x".repeat(60))), "{long}");
        assert_eq!(cards_held(1), "1 card");
        assert_eq!(quoted("Zoe"), "Zoe");
        assert_eq!(quoted(&"é".repeat(QUOTED_CHARS)), "é".repeat(QUOTED_CHARS));
        assert_eq!(
            quoted(&"é".repeat(QUOTED_CHARS + 1)),
            format!("{}…", "é".repeat(QUOTED_CHARS))
        );
        assert_eq!(cards_held(3), "3 cards");
    }
}
