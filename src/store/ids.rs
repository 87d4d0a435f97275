//! How games and rounds are named on the command line and in acknowledgements.
//!
//! A game is a positive integer (`7`), allocated by the store when `record` sees the
//! game's first round. A round is its game and its 1-based number in that game,
//! joined by a dot (`7.2` is the second round of game 7). Both are printed by
//! `eleusis record` in every acknowledgement.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// A game: the rounds recorded by one `record` session (or continued with `--game`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameId(pub i64);

/// A round: game and 1-based round number in that game, written `GAME.ROUND`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RoundRef {
    pub game: GameId,
    pub number: u32,
}

/// What `audit` and `export` are pointed at: a whole game or one round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Game(GameId),
    Round(RoundRef),
}

/// An id that is not `GAME` or `GAME.ROUND` with positive integers.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{text:?} is not a {expected} (expected {example}: positive integers)")]
pub struct IdError {
    text: String,
    expected: &'static str,
    example: &'static str,
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl fmt::Display for RoundRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.game, self.number)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Game(g) => write!(f, "game {g}"),
            Target::Round(r) => write!(f, "round {r}"),
        }
    }
}

fn positive(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<u64>().ok().filter(|&n| n > 0)
}

impl FromStr for GameId {
    type Err = IdError;

    fn from_str(text: &str) -> Result<GameId, IdError> {
        positive(text.trim())
            .and_then(|n| i64::try_from(n).ok())
            .map(GameId)
            .ok_or_else(|| IdError {
                text: text.to_string(),
                expected: "game id",
                example: "like 3",
            })
    }
}

impl FromStr for RoundRef {
    type Err = IdError;

    fn from_str(text: &str) -> Result<RoundRef, IdError> {
        let bad = || IdError {
            text: text.to_string(),
            expected: "round id",
            example: "GAME.ROUND like 3.2",
        };
        let (game, number) = text.trim().split_once('.').ok_or_else(bad)?;
        let game = positive(game).and_then(|n| i64::try_from(n).ok());
        let number = positive(number).and_then(|n| u32::try_from(n).ok());
        match (game, number) {
            (Some(game), Some(number)) => Ok(RoundRef {
                game: GameId(game),
                number,
            }),
            _ => Err(bad()),
        }
    }
}

impl FromStr for Target {
    type Err = IdError;

    fn from_str(text: &str) -> Result<Target, IdError> {
        if text.contains('.') {
            text.parse().map(Target::Round)
        } else {
            text.parse().map(Target::Game).map_err(|_| IdError {
                text: text.to_string(),
                expected: "game or round id",
                example: "GAME like 3 or GAME.ROUND like 3.2",
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_through_text() {
        let r: RoundRef = "12.3".parse().expect("round");
        assert_eq!(r.game, GameId(12));
        assert_eq!(r.number, 3);
        assert_eq!(r.to_string(), "12.3");
        assert_eq!("4".parse::<Target>(), Ok(Target::Game(GameId(4))));
        assert_eq!(
            "4.1".parse::<Target>(),
            Ok(Target::Round("4.1".parse().expect("r")))
        );
    }

    #[test]
    fn bad_ids_are_explained() {
        for bad in [
            "",
            "0",
            "-1",
            "1.",
            ".2",
            "1.0",
            "a.b",
            "1.2.3",
            "+3",
            "99999999999999999999",
        ] {
            let err = bad.parse::<Target>().unwrap_err();
            assert!(
                err.to_string().contains("positive integers"),
                "{bad}: {err}"
            );
        }
    }
}
