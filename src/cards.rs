//! The card model: ranks, suits, colours and the notation used everywhere
//! (API, table logs, CLI): rank `A 2 … 10 J Q K` (`T` accepted for 10) followed by
//! suit `S H D C` (`♠ ♥ ♦ ♣` accepted on input). Printing always uses the ASCII form
//! (`10H`, `QS`) so that logs stay greppable and byte-for-byte reproducible.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use thiserror::Error;

/// A French suit. The order (spades, hearts, diamonds, clubs) is the order of the
/// notation's letters `S H D C` and is used for class indices in the recognizer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Suit {
    Spades,
    Hearts,
    Diamonds,
    Clubs,
}

/// Card colour, derived from the suit (hearts and diamonds are red).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Colour {
    Red,
    Black,
}

impl Suit {
    /// All four suits in notation order.
    pub const ALL: [Suit; 4] = [Suit::Spades, Suit::Hearts, Suit::Diamonds, Suit::Clubs];

    /// The colour of the suit.
    pub fn colour(self) -> Colour {
        match self {
            Suit::Hearts | Suit::Diamonds => Colour::Red,
            Suit::Spades | Suit::Clubs => Colour::Black,
        }
    }

    /// The ASCII letter of the notation.
    pub fn letter(self) -> char {
        match self {
            Suit::Spades => 'S',
            Suit::Hearts => 'H',
            Suit::Diamonds => 'D',
            Suit::Clubs => 'C',
        }
    }

    /// The suit symbol, for people (explanations, pages).
    pub fn symbol(self) -> char {
        match self {
            Suit::Spades => '♠',
            Suit::Hearts => '♥',
            Suit::Diamonds => '♦',
            Suit::Clubs => '♣',
        }
    }

    /// The English plural name used by the rule language (`spades`, `hearts`, …).
    pub fn name(self) -> &'static str {
        match self {
            Suit::Spades => "spades",
            Suit::Hearts => "hearts",
            Suit::Diamonds => "diamonds",
            Suit::Clubs => "clubs",
        }
    }

    /// Position in [`Suit::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// Reads a suit letter or symbol (`S`, `s`, `♠`, `♤`).
    pub fn from_char(c: char) -> Option<Suit> {
        match c {
            'S' | 's' | '♠' | '♤' => Some(Suit::Spades),
            'H' | 'h' | '♥' | '♡' => Some(Suit::Hearts),
            'D' | 'd' | '♦' | '♢' => Some(Suit::Diamonds),
            'C' | 'c' | '♣' | '♧' => Some(Suit::Clubs),
            _ => None,
        }
    }
}

impl Colour {
    /// The rule language's word for the colour.
    pub fn name(self) -> &'static str {
        match self {
            Colour::Red => "red",
            Colour::Black => "black",
        }
    }
}

impl fmt::Display for Suit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Colour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A rank, stored as its value: A = 1 … 10, J = 11, Q = 12, K = 13.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rank(u8);

impl Rank {
    pub const ACE: Rank = Rank(1);
    pub const JACK: Rank = Rank(11);
    pub const QUEEN: Rank = Rank(12);
    pub const KING: Rank = Rank(13);

    /// A rank from its value 1..=13; `None` outside that range.
    pub fn new(value: u8) -> Option<Rank> {
        (1..=13).contains(&value).then_some(Rank(value))
    }

    /// All thirteen ranks, ace first.
    pub fn all() -> impl Iterator<Item = Rank> {
        (1..=13).map(Rank)
    }

    /// The value A = 1 … K = 13.
    pub fn value(self) -> u8 {
        self.0
    }

    /// The notation's rank text: `A`, `2` … `10`, `J`, `Q`, `K`.
    pub fn label(self) -> &'static str {
        const LABELS: [&str; 13] = [
            "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
        ];
        LABELS[usize::from(self.0 - 1)]
    }

    /// Reads a rank token (`A`, `2`…`10`, `T`, `J`, `Q`, `K`, case-insensitive).
    pub fn parse(text: &str) -> Option<Rank> {
        let value = match text.to_ascii_uppercase().as_str() {
            "A" | "1" => 1,
            "T" | "10" => 10,
            "J" => 11,
            "Q" => 12,
            "K" => 13,
            digits => {
                let v: u8 = digits.parse().ok()?;
                if !(2..=9).contains(&v) || digits.len() != 1 {
                    return None;
                }
                v
            }
        };
        Rank::new(value)
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// One playing card. Two decks are shuffled together, so equal cards can coexist in a
/// layout; a `Card` is the face, not a physical card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card {
    pub rank: Rank,
    pub suit: Suit,
}

impl Card {
    /// Builds a card from its parts.
    pub fn new(rank: Rank, suit: Suit) -> Card {
        Card { rank, suit }
    }

    /// The value A = 1 … K = 13.
    pub fn value(self) -> u8 {
        self.rank.value()
    }

    /// Colour of the suit.
    pub fn colour(self) -> Colour {
        self.suit.colour()
    }

    pub fn is_red(self) -> bool {
        self.colour() == Colour::Red
    }

    pub fn is_black(self) -> bool {
        self.colour() == Colour::Black
    }

    pub fn is_odd(self) -> bool {
        self.value() % 2 == 1
    }

    pub fn is_even(self) -> bool {
        !self.is_odd()
    }

    /// J, Q or K.
    pub fn is_face(self) -> bool {
        self.value() >= 11
    }

    /// Value in {2, 3, 5, 7, 11, 13}.
    pub fn is_prime(self) -> bool {
        matches!(self.value(), 2 | 3 | 5 | 7 | 11 | 13)
    }

    /// Dense index 0..52 (suit-major in [`Suit::ALL`] order, then rank A..K); the
    /// recognizer's class index and a compact key for tables.
    pub fn index(self) -> usize {
        self.suit.index() * 13 + usize::from(self.value() - 1)
    }

    /// Inverse of [`Card::index`]; `None` for indices ≥ 52.
    pub fn from_index(index: usize) -> Option<Card> {
        if index >= 52 {
            return None;
        }
        let suit = Suit::ALL[index / 13];
        let rank = Rank::new((index % 13) as u8 + 1)?;
        Some(Card::new(rank, suit))
    }

    /// The 52 cards of one deck, in index order.
    pub fn deck() -> Vec<Card> {
        (0..52).filter_map(Card::from_index).collect()
    }

    /// The 104 cards of the two decks the game is played with.
    pub fn double_deck() -> Vec<Card> {
        let mut cards = Card::deck();
        cards.extend(Card::deck());
        cards
    }

    /// The card with a suit symbol, for people: `9♦`, `10♥`.
    pub fn pretty(self) -> String {
        format!("{}{}", self.rank.label(), self.suit.symbol())
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank.label(), self.suit.letter())
    }
}

/// Why a card token could not be read; the message names the token.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CardParseError {
    #[error("empty card token (expected a rank and a suit, like 10H or Q♠)")]
    Empty,
    #[error("card {token:?}: unknown suit {suit:?} (expected one of S H D C or ♠ ♥ ♦ ♣)")]
    BadSuit { token: String, suit: char },
    #[error("card {token:?}: unknown rank {rank:?} (expected A or 1, 2-10, T, J, Q or K)")]
    BadRank { token: String, rank: String },
    #[error("card {token:?}: missing the suit after the rank (expected e.g. {token}H)")]
    MissingSuit { token: String },
    /// Words, or several cards in one item: what a tired hand types.
    #[error("card {token:?}: {hint}")]
    NotOneCard { token: String, hint: String },
    /// A whole card with a stray character after it (a pasted NUL, a period):
    /// the suit is not what is wrong.
    #[error("card {token:?}: {card} followed by {extra}, which is not part of a card")]
    Trailing {
        token: String,
        card: Card,
        extra: String,
    },
}

/// The card a phrase like `queen of hearts` or `10 of spades` names, if any.
fn spelled_card(text: &str) -> Option<Card> {
    let words: Vec<String> = text.split_whitespace().map(|w| w.to_lowercase()).collect();
    let [rank, of, suit] = words.as_slice() else {
        return None;
    };
    if of != "of" {
        return None;
    }
    const RANKS: [&str; 13] = [
        "ace", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack",
        "queen", "king",
    ];
    let rank = match RANKS.iter().position(|r| r == rank) {
        Some(i) => u8::try_from(i + 1).ok().and_then(Rank::new),
        None => Rank::parse(rank),
    }?;
    let suit = match suit.trim_end_matches('s') {
        "spade" => Suit::Spades,
        "heart" => Suit::Hearts,
        "diamond" => Suit::Diamonds,
        "club" => Suit::Clubs,
        _ => return None,
    };
    Some(Card::new(rank, suit))
}

/// Two or more cards in one item: separated by spaces or commas (`2C 3C`), joined
/// by a dash, slash, plus or semicolon (`4S-9D`), or typed together (`4s9d`): the
/// cards, each as typed. A single card is at most three characters, so a card is
/// never taken for two.
fn several_cards(token: &str) -> Option<Vec<String>> {
    let joined: Vec<&str> = token
        .split(|c: char| c.is_whitespace() || [',', '-', '/', '+', ';', '|'].contains(&c))
        .filter(|t| !t.is_empty())
        .collect();
    if joined.len() > 1 && joined.iter().all(|p| p.parse::<Card>().is_ok()) {
        return Some(joined.iter().map(|p| (*p).to_string()).collect());
    }
    // Cut the token into pieces of two or three characters, each a card: the
    // longest card first, so that `10h10s` is 10h and 10s.
    fn cut(chars: &[char]) -> Option<Vec<String>> {
        if chars.is_empty() {
            return Some(Vec::new());
        }
        for len in [3, 2] {
            if chars.len() < len {
                continue;
            }
            let piece: String = chars[..len].iter().collect();
            if piece.parse::<Card>().is_ok() {
                if let Some(mut rest) = cut(&chars[len..]) {
                    rest.insert(0, piece);
                    return Some(rest);
                }
            }
        }
        None
    }
    let chars: Vec<char> = token.chars().collect();
    // Four cards of a sequence, or a shown hand of a few: enough to be useful
    // without cutting long garbage.
    if chars.len() < 4 || chars.len() > 60 {
        return None;
    }
    cut(&chars).filter(|parts| parts.len() > 1)
}

/// A card written suit first (`♥10`, `H10`). No card starts with a suit (no rank
/// is written S, H, D, C or a suit sign), so this never reads a card otherwise.
fn suit_first(token: &str) -> Option<Card> {
    let mut chars = token.chars();
    let suit = Suit::from_char(chars.next()?)?;
    let rank = Rank::parse(chars.as_str())?;
    Some(Card::new(rank, suit))
}

/// What to say of a token that holds words or several cards.
fn not_one_card(token: &str) -> Option<CardParseError> {
    let hint = if let Some(card) = spelled_card(token) {
        format!(
            "write a card as its rank and suit: {card} (or {})",
            card.pretty()
        )
    } else if let Some(parts) = several_cards(token) {
        format!(
            "{} cards in one; give each card on its own: {}",
            parts.len(),
            parts
                .iter()
                .map(|p| format!("{p:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    } else if token.contains(|c: char| c.is_whitespace() || c == ',') {
        "one card is a rank and a suit, like QH, 10S or Q♥".to_string()
    } else if let Some(card) = suit_first(token) {
        format!(
            "the rank comes first, then the suit: {card} (or {})",
            card.pretty()
        )
    } else if token.chars().count() > 3 && token.chars().all(char::is_alphabetic) {
        "write a card as its rank and suit, like QH, 10S or Q♥, not as a word".to_string()
    } else {
        return None;
    };
    Some(CardParseError::NotOneCard {
        token: token.to_string(),
        hint,
    })
}

impl FromStr for Card {
    type Err = CardParseError;

    fn from_str(text: &str) -> Result<Card, CardParseError> {
        // Phone keyboards send a suit sign with a variation selector after it (the
        // emoji "♥️" is U+2665 U+FE0F): it asks for a way of drawing, not a suit.
        let token = text.trim().trim_end_matches(['\u{FE0F}', '\u{FE0E}']);
        if let Some(error) = not_one_card(token) {
            return Err(error);
        }
        let last = token.chars().last().ok_or(CardParseError::Empty)?;
        let rank_text = &token[..token.len() - last.len_utf8()];
        let Some(suit) = Suit::from_char(last) else {
            // "10" or "Q" alone: the suit is missing, not wrong.
            if Rank::parse(token).is_some() {
                return Err(CardParseError::MissingSuit {
                    token: token.to_string(),
                });
            }
            if let Ok(card) = rank_text.parse::<Card>() {
                let extra = if last.is_control() || last.is_whitespace() {
                    format!("U+{:04X}", u32::from(last))
                } else {
                    format!("{last:?} (U+{:04X})", u32::from(last))
                };
                return Err(CardParseError::Trailing {
                    token: token.to_string(),
                    card,
                    extra,
                });
            }
            return Err(CardParseError::BadSuit {
                token: token.to_string(),
                suit: last,
            });
        };
        let rank = Rank::parse(rank_text).ok_or_else(|| CardParseError::BadRank {
            token: token.to_string(),
            rank: rank_text.to_string(),
        })?;
        Ok(Card::new(rank, suit))
    }
}

/// Parses a whitespace- or comma-separated list of cards (`"3H 5S, 9D"`); the error
/// says which token (1-based) failed.
pub fn parse_cards(text: &str) -> Result<Vec<Card>, CardListError> {
    if let Some(card) = spelled_card(text) {
        return Err(CardListError {
            position: 1,
            reason: CardParseError::NotOneCard {
                token: text.trim().to_string(),
                hint: format!(
                    "write a card as its rank and suit: {card} (or {})",
                    card.pretty()
                ),
            },
        });
    }
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .enumerate()
        .map(|(i, token)| {
            token.parse().map_err(|reason| CardListError {
                position: i + 1,
                reason,
            })
        })
        .collect()
}

/// A card list with one bad token. The message already holds the token's own
/// error, so that error is not also given as the `source()`: a report that prints
/// the chain of causes (`anyhow`'s `{:#}`) would say it twice.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("card {position} of the list: {reason}")]
pub struct CardListError {
    /// 1-based position of the bad token in the list.
    pub position: usize,
    /// What is wrong with that token.
    pub reason: CardParseError,
}

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// A suit is written as its notation letter (`"C"`), as in a card's name.
impl Serialize for Suit {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.letter())
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Card, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stray_character_after_a_whole_card_is_named_not_blamed_on_the_suit() {
        let err = "3H\u{0}".parse::<Card>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "card \"3H\\0\": 3H followed by U+0000, which is not part of a card"
        );
        let err = "QS.".parse::<Card>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "card \"QS.\": QS followed by '.' (U+002E), which is not part of a card"
        );
        // A wrong suit is still a wrong suit.
        assert!(matches!(
            "3X".parse::<Card>(),
            Err(CardParseError::BadSuit { suit: 'X', .. })
        ));
    }

    #[test]
    fn words_and_several_cards_in_one_item_are_told_how_to_write_a_card() {
        let said = |text: &str| text.parse::<Card>().expect_err(text).to_string();
        assert_eq!(
            said("queen of hearts"),
            "card \"queen of hearts\": write a card as its rank and suit: QH (or Q♥)"
        );
        assert!(said("10 of Spades").contains(": 10S (or 10♠)"));
        assert_eq!(
            said("2C 3C"),
            "card \"2C 3C\": 2 cards in one; give each card on its own: \"2C\", \"3C\""
        );
        // Cards typed together, or joined by a dash, are named one by one.
        assert_eq!(
            said("4s9d"),
            "card \"4s9d\": 2 cards in one; give each card on its own: \"4s\", \"9d\""
        );
        assert!(
            said("10h10sQD").contains("3 cards in one"),
            "{}",
            said("10h10sQD")
        );
        assert!(
            said("4S-9D").contains(": \"4S\", \"9D\""),
            "{}",
            said("4S-9D")
        );
        assert_eq!(
            said("♥10"),
            "card \"♥10\": the rank comes first, then the suit: 10H (or 10♥)"
        );
        assert!(said("sq").contains("QS (or Q♠)"), "{}", said("sq"));
        // Every card still reads as itself.
        for card in (0..52).filter_map(Card::from_index) {
            assert_eq!(card.to_string().parse::<Card>(), Ok(card));
            assert_eq!(card.pretty().parse::<Card>(), Ok(card));
        }
        assert!(said("queen").contains("not as a word"), "{}", said("queen"));
        assert!(said("Q of stars").contains("one card is a rank and a suit"));
        // A list typed as words names the card too, not its first word.
        let list = parse_cards("queen of hearts").expect_err("words");
        assert!(list.to_string().contains("QH (or Q♥)"), "{list}");
        // Card notation is untouched.
        assert_eq!(parse_cards("QH, 10s 2♣").map(|c| c.len()), Ok(3));
        assert_eq!(
            said("1X"),
            "card \"1X\": unknown suit 'X' (expected one of S H D C or ♠ ♥ ♦ ♣)"
        );
    }

    fn card(text: &str) -> Card {
        text.parse().expect("valid card")
    }

    #[test]
    fn parses_every_notation_form() {
        assert_eq!(card("10H"), card("TH"));
        assert_eq!(card("th"), card("10H"));
        assert_eq!(card("Q♠"), Card::new(Rank::QUEEN, Suit::Spades));
        assert_eq!(card("AC").value(), 1);
        assert_eq!(card("KD").value(), 13);
        assert_eq!(card("10♦").to_string(), "10D");
        // The README's extensions: 1 for the ace, outline suit signs, spaces around.
        assert_eq!(card("1♡"), card("AH"));
        assert_eq!(card("7♤"), card("7S"));
        assert_eq!(card("7♢"), card("7D"));
        assert_eq!(card("7♧"), card("7C"));
        assert_eq!(card(" 3H "), card("3H"));
        // Suit signs typed as emoji (a phone keyboard's "♥️").
        assert_eq!("Q♥\u{fe0f}".parse::<Card>(), "QH".parse::<Card>());
        assert_eq!("10♠\u{fe0e}".parse::<Card>(), "10S".parse::<Card>());
    }

    #[test]
    fn prints_ascii_and_pretty_forms() {
        assert_eq!(card("T♥").to_string(), "10H");
        assert_eq!(card("9d").pretty(), "9♦");
    }

    #[test]
    fn attributes_follow_the_spec() {
        assert!(card("5H").is_red() && card("5D").is_red());
        assert!(card("5S").is_black() && card("5C").is_black());
        assert!(card("JC").is_face() && !card("10C").is_face());
        let primes: Vec<u8> = Rank::all()
            .map(|r| Card::new(r, Suit::Clubs))
            .filter(|c| c.is_prime())
            .map(Card::value)
            .collect();
        assert_eq!(primes, vec![2, 3, 5, 7, 11, 13]);
        assert!(card("AS").is_odd() && card("QS").is_even());
    }

    #[test]
    fn errors_name_the_token_and_the_problem() {
        assert_eq!("".parse::<Card>(), Err(CardParseError::Empty));
        let err = "11H".parse::<Card>().unwrap_err();
        assert!(err.to_string().contains("\"11H\"") && err.to_string().contains("rank"));
        // The ranks the message offers are all the ranks accepted.
        let err = "0H".parse::<Card>().unwrap_err();
        assert!(
            err.to_string().contains("A or 1, 2-10, T, J, Q or K"),
            "{err}"
        );
        let err = "QX".parse::<Card>().unwrap_err();
        assert!(err.to_string().contains("suit 'X'"), "{err}");
        let err = "10".parse::<Card>().unwrap_err();
        assert!(matches!(err, CardParseError::MissingSuit { .. }), "{err}");
        let err = parse_cards("3H 5S 1X").unwrap_err();
        assert_eq!(err.position, 3);
        // The token's error is in the message, not repeated as a cause.
        assert!(std::error::Error::source(&err).is_none());
        let report = format!("{:#}", anyhow::Error::new(err).context("--main"));
        assert_eq!(report.matches("unknown suit").count(), 1, "{report}");
    }

    #[test]
    fn double_deck_has_two_of_each() {
        let deck = Card::double_deck();
        assert_eq!(deck.len(), 104);
        for c in Card::deck() {
            assert_eq!(deck.iter().filter(|&&d| d == c).count(), 2);
        }
    }

    #[test]
    fn index_round_trips() {
        for i in 0..52 {
            assert_eq!(Card::from_index(i).map(Card::index), Some(i));
        }
        assert_eq!(Card::from_index(52), None);
    }

    #[test]
    fn serde_uses_the_notation() {
        let json = serde_json::to_string(&vec![card("TH"), card("Q♠")]).unwrap();
        assert_eq!(json, r#"["10H","QS"]"#);
        let back: Vec<Card> = serde_json::from_str(r#"["10h","Q♠"]"#).unwrap();
        assert_eq!(back, vec![card("10H"), card("QS")]);
        assert!(serde_json::from_str::<Card>(r#""ZZ""#).is_err());
    }
}
