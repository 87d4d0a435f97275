//! The variants of the game the referee knows, and the numbers that make them differ.
//!
//! Every threshold, penalty and hand size lives in [`VariantParams`], never as a
//! constant in the state machine, so a new variant is one more arm in
//! [`Variant::params`] (and, for `eleusis-1959` / `delphos`, its own flow).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use thiserror::Error;

/// A variant id as written in table logs (`RULES.md` section 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Variant {
    /// Abbott's New Eleusis (001): Prophet, sudden death at 40 / 30 after the marker.
    #[default]
    NewEleusis,
    /// Gardner's account (000, 002): Prophet, sudden death at 30 / 20 after the marker.
    Gardner,
    /// 002 without its advanced section: no Prophet, sudden death at 30.
    Basic,
    /// The original game of 1959 (004): one deck, two stages, its own scoring
    /// (RULES.md section 6); refereed by [`super::original`].
    Eleusis1959,
    /// Delphos (003): proposals of any card and predictions instead of hands (RULES.md
    /// section 7); refereed by [`super::delphos`].
    Delphos,
}

/// The numbers a variant plays with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VariantParams {
    /// Whether a player may declare himself Prophet.
    pub prophet: bool,
    /// Laid cards (starter included) after which, without a prophet, every wrong play
    /// eliminates; `None` for no sudden death.
    pub sudden_death: Option<u32>,
    /// Cards laid after the prophet marker after which, with a prophet, every wrong
    /// play eliminates.
    pub sudden_death_after_prophet: Option<u32>,
    /// Cards dealt to each player at the start of a round.
    pub hand_size: u32,
    /// Penalty cards per card of a wrong play (a wrong sequence of n costs n × this).
    pub wrong_card_penalty: u32,
    /// Penalty cards for a wrong "no play".
    pub wrong_no_play_penalty: u32,
    /// Penalty cards for a false prophet.
    pub false_prophet_penalty: u32,
    /// How many fewer cards the new hand of a right "no play" has.
    pub no_play_reduction: u32,
    /// A right "no play" with this many cards or fewer ends the round.
    pub no_play_ends_round_at: u32,
    /// Bonus for a player who ends the round with no cards.
    pub out_bonus: u32,
    /// Bonus, when a game stops, for every participant who has not been God.
    pub not_god_bonus: u32,
    /// Markers (white and black) go on every n-th laid card.
    pub marker_every: u32,
    /// Cards in one deck (a deck is added when the stock runs out).
    pub deck_size: u32,
    /// Decks shuffled together at the start of a round.
    pub decks: u32,
    /// Whether an unacceptable starter is refused (002: "redraw until one fits"); when
    /// false, the referee keeps it and records a warning (001: God *may* choose another).
    pub starter_must_fit: bool,
    /// Longest sequence a player may play at once.
    pub max_sequence: usize,
}

/// An id the referee cannot (yet) referee, or does not know.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum VariantError {
    #[error("variant {0:?} is described in RULES.md but this referee does not play it yet (known: new-eleusis, gardner, basic)")]
    NotSupported(String),
    #[error(
        "unknown variant {0:?} (expected new-eleusis, gardner, basic, eleusis-1959 or delphos)"
    )]
    Unknown(String),
}

impl Variant {
    /// Every variant this referee plays.
    pub const ALL: [Variant; 5] = [
        Variant::NewEleusis,
        Variant::Gardner,
        Variant::Basic,
        Variant::Eleusis1959,
        Variant::Delphos,
    ];

    /// Whether the variant has its own flow (no hands of the section 2–5 kind):
    /// `eleusis-1959` and `delphos`.
    pub fn own_flow(self) -> bool {
        matches!(self, Variant::Eleusis1959 | Variant::Delphos)
    }

    /// The id used in table logs and the state JSON.
    pub fn id(self) -> &'static str {
        match self {
            Variant::NewEleusis => "new-eleusis",
            Variant::Gardner => "gardner",
            Variant::Basic => "basic",
            Variant::Eleusis1959 => "eleusis-1959",
            Variant::Delphos => "delphos",
        }
    }

    /// The variant's numbers (`RULES.md` sections 1–5).
    pub fn params(self) -> VariantParams {
        let common = VariantParams {
            prophet: true,
            sudden_death: Some(40),
            sudden_death_after_prophet: Some(30),
            hand_size: 14,
            wrong_card_penalty: 2,
            wrong_no_play_penalty: 5,
            false_prophet_penalty: 5,
            no_play_reduction: 4,
            no_play_ends_round_at: 4,
            out_bonus: 4,
            not_god_bonus: 10,
            marker_every: 10,
            deck_size: 52,
            decks: 2,
            starter_must_fit: false,
            max_sequence: 4,
        };
        match self {
            Variant::NewEleusis => common,
            // 000 and 002: 30 / 20. 002 redraws the starter until one fits.
            Variant::Gardner => VariantParams {
                sudden_death: Some(30),
                sudden_death_after_prophet: Some(20),
                starter_must_fit: true,
                ..common
            },
            Variant::Basic => VariantParams {
                prophet: false,
                sudden_death: Some(30),
                sudden_death_after_prophet: None,
                starter_must_fit: true,
                ..common
            },
            // 004: one deck, dealt out evenly (the hand size follows from the number
            // of players), one card per turn, a 6-point bonus, no sudden death.
            Variant::Eleusis1959 => VariantParams {
                prophet: false,
                sudden_death: None,
                sudden_death_after_prophet: None,
                hand_size: 0,
                out_bonus: 6,
                not_god_bonus: 0,
                decks: 1,
                max_sequence: 1,
                ..common
            },
            // 003: no hands, no stock, one symbol per proposal; the starter opens the
            // accepted sequence and must fit.
            Variant::Delphos => VariantParams {
                prophet: false,
                sudden_death: None,
                sudden_death_after_prophet: None,
                hand_size: 0,
                out_bonus: 0,
                not_god_bonus: 0,
                decks: 1,
                starter_must_fit: true,
                max_sequence: 1,
                ..common
            },
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for Variant {
    type Err = VariantError;

    fn from_str(text: &str) -> Result<Variant, VariantError> {
        match text {
            "new-eleusis" => Ok(Variant::NewEleusis),
            "gardner" => Ok(Variant::Gardner),
            "basic" => Ok(Variant::Basic),
            "eleusis-1959" => Ok(Variant::Eleusis1959),
            "delphos" => Ok(Variant::Delphos),
            other => Err(VariantError::Unknown(other.to_string())),
        }
    }
}

impl Serialize for Variant {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.id())
    }
}

impl<'de> Deserialize<'de> for Variant {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Variant, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_thresholds_follow_rules_md() {
        for v in Variant::ALL {
            assert_eq!(v.id().parse::<Variant>(), Ok(v));
        }
        assert_eq!(Variant::NewEleusis.params().sudden_death, Some(40));
        assert_eq!(
            Variant::NewEleusis.params().sudden_death_after_prophet,
            Some(30)
        );
        assert_eq!(Variant::Gardner.params().sudden_death, Some(30));
        assert_eq!(
            Variant::Gardner.params().sudden_death_after_prophet,
            Some(20)
        );
        assert!(!Variant::Basic.params().prophet);
        assert_eq!(Variant::default(), Variant::NewEleusis);
    }

    #[test]
    fn seed_games_parse_and_unknown_ids_are_named() {
        assert_eq!("delphos".parse::<Variant>(), Ok(Variant::Delphos));
        assert_eq!("eleusis-1959".parse::<Variant>(), Ok(Variant::Eleusis1959));
        assert!(Variant::Delphos.own_flow() && Variant::Eleusis1959.own_flow());
        assert!(!Variant::NewEleusis.own_flow());
        assert!(matches!(
            "chess".parse::<Variant>(),
            Err(VariantError::Unknown(_))
        ));
    }
}
