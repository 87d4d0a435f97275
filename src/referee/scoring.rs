//! Round scores (RULES.md section 5) and named tallies that keep seating order.

use std::fmt;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

/// Name → number, in a fixed order (seating order, God last), serialized as a JSON
/// object in that order so that outputs are stable and read like the table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally(pub Vec<(String, i64)>);

impl Tally {
    /// The value for `name`, if present.
    pub fn get(&self, name: &str) -> Option<i64> {
        self.0.iter().find(|(n, _)| n == name).map(|&(_, v)| v)
    }

    /// Adds `value` to `name`, appending the name when it is new.
    pub fn add(&mut self, name: &str, value: i64) {
        match self.0.iter_mut().find(|(n, _)| n == name) {
            Some((_, v)) => *v += value,
            None => self.0.push((name.to_string(), value)),
        }
    }
}

impl Serialize for Tally {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.0.iter().map(|(n, v)| format!("{n} {v}")).collect();
        f.write_str(&parts.join(", "))
    }
}

/// What the scoring needs to know of a prophet still in office at the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProphetTally {
    pub player: String,
    /// Main-line cards laid after the marked card.
    pub main_after: u32,
    /// Sideline cards laid after the marked card.
    pub side_after: u32,
    /// Cards laid up to and including the marked card (its laid position).
    pub laid_through_marker: u32,
}

/// Scores of a finished round: each player `high − hand` (+`out_bonus` with no cards),
/// the prophet in office his bonus, God the best player score — capped, with a prophet
/// in office, at twice the cards laid through the marker.
///
/// RULES.md follows 001 and 002 for God's cap ("before the marker", counting the marked
/// card), not 000's "after", which contradicts 000's own worked example.
pub fn round_scores(
    hands: &[(String, u32)],
    god: &str,
    prophet: Option<&ProphetTally>,
    out_bonus: u32,
) -> Tally {
    let high = hands.iter().map(|&(_, h)| i64::from(h)).max().unwrap_or(0);
    let mut scores = Tally::default();
    for (name, hand) in hands {
        let mut score = high - i64::from(*hand);
        if *hand == 0 {
            score += i64::from(out_bonus);
        }
        if let Some(p) = prophet.filter(|p| &p.player == name) {
            score += i64::from(p.main_after) + 2 * i64::from(p.side_after);
        }
        scores.add(name, score);
    }
    let best = scores.0.iter().map(|&(_, s)| s).max().unwrap_or(0);
    let god_score = match prophet {
        Some(p) => best.min(2 * i64::from(p.laid_through_marker)),
        None => best,
    };
    scores.add(god, god_score);
    scores
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hands(list: &[(&str, u32)]) -> Vec<(String, u32)> {
        list.iter().map(|&(n, h)| (n.to_string(), h)).collect()
    }

    /// 000 and 002's worked example (RULES.md section 5).
    #[test]
    fn worked_example_of_000_and_002() {
        let prophet = ProphetTally {
            player: "Philippe".to_string(),
            main_after: 12,
            side_after: 11,
            laid_through_marker: 25,
        };
        let scores = round_scores(
            &hands(&[
                ("Alain", 17),
                ("François", 14),
                ("Jacques", 0),
                ("Philippe", 9),
            ]),
            "Pierre",
            Some(&prophet),
            4,
        );
        assert_eq!(scores.get("Alain"), Some(0));
        assert_eq!(scores.get("François"), Some(3));
        assert_eq!(scores.get("Jacques"), Some(21));
        assert_eq!(scores.get("Philippe"), Some(42));
        assert_eq!(scores.get("Pierre"), Some(42));
        let json = serde_json::to_string(&scores).unwrap();
        assert_eq!(
            json,
            r#"{"Alain":0,"François":3,"Jacques":21,"Philippe":42,"Pierre":42}"#
        );
    }

    #[test]
    fn god_is_capped_by_twice_the_cards_through_the_marker() {
        let prophet = ProphetTally {
            player: "B".to_string(),
            main_after: 10,
            side_after: 10,
            laid_through_marker: 5,
        };
        let scores = round_scores(&hands(&[("A", 10), ("B", 2)]), "G", Some(&prophet), 4);
        assert_eq!(scores.get("B"), Some(8 + 30));
        assert_eq!(scores.get("G"), Some(10));
    }

    #[test]
    fn without_prophet_god_scores_the_best() {
        let scores = round_scores(&hands(&[("A", 3), ("B", 0), ("C", 7)]), "G", None, 4);
        assert_eq!(scores.get("A"), Some(4));
        assert_eq!(scores.get("B"), Some(11));
        assert_eq!(scores.get("C"), Some(0));
        assert_eq!(scores.get("G"), Some(11));
    }
}
