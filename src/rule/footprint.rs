//! What a rule reads, computed from the syntax tree (never guessed from the text):
//! how far back on the main line it looks, whether it reads positions, sidelines,
//! and which card attributes it touches. The rule checker builds its hints on this.

use serde::Serialize;

use super::check::const_int;
use super::syntax::{Adjective, Attribute, Collection, Expr, Kind, List, Subject, Type};

/// What a rule reads, derived from the syntax tree, for the rule checker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Footprint {
    /// Deepest `main[-k]` read (`last` = 1, `prev` = 2, the judged card only = 0);
    /// `None` when the rule reads the main line without bound (`count`/`sum` over
    /// main, `main[i]` with `i >= 0`, a non-constant index, `len(main)`, `in main`).
    pub lookback: Option<usize>,
    /// `len(main)` or main-line access counted from the start (or not constant).
    pub reads_position: bool,
    /// `side` in any form: advanced rule.
    pub reads_side: bool,
    /// `wrong` in any form: advanced rule.
    pub reads_wrong: bool,
    /// A card of `side` or `wrong` read by index (`side[-1]`): it does not exist
    /// while that sideline is short, and the card played is then accepted by
    /// default, which the rule checker warns about as it does for `main[-3]`.
    pub indexes_sidelines: bool,
    pub uses_rank: bool,
    pub uses_suit: bool,
    pub uses_colour: bool,
}

impl Footprint {
    /// The footprint of a checked tree.
    pub(crate) fn of(expr: &Expr) -> Footprint {
        let mut walker = Walker {
            footprint: Footprint {
                lookback: Some(0),
                ..Footprint::default()
            },
        };
        walker.walk(expr);
        walker.footprint
    }
}

struct Walker {
    footprint: Footprint,
}

impl Walker {
    fn look_back(&mut self, depth: usize) {
        if let Some(current) = self.footprint.lookback {
            self.footprint.lookback = Some(current.max(depth));
        }
    }

    fn unbounded(&mut self) {
        self.footprint.lookback = None;
    }

    fn list(&mut self, list: List) {
        match list {
            List::Main => self.unbounded(),
            List::Side => self.footprint.reads_side = true,
            List::Wrong => self.footprint.reads_wrong = true,
        }
    }

    /// A card attribute (or a bare adjective, which tests `card`).
    fn card_adjective(&mut self, adjective: Adjective) {
        match adjective {
            Adjective::Colour(_) => self.footprint.uses_colour = true,
            Adjective::Suit(_) => self.footprint.uses_suit = true,
            Adjective::Odd | Adjective::Even | Adjective::Face | Adjective::Prime => {
                self.footprint.uses_rank = true
            }
        }
    }

    /// A whole card compared or looked up: both rank and suit matter.
    fn whole_cards(&mut self, ty: Type) {
        if ty == Type::Card {
            self.footprint.uses_rank = true;
            self.footprint.uses_suit = true;
        }
    }

    fn walk(&mut self, expr: &Expr) {
        match &expr.kind {
            Kind::Subject(Subject::Last) => self.look_back(1),
            Kind::Subject(Subject::Prev) => self.look_back(2),
            Kind::Bare(adjective) => self.card_adjective(*adjective),
            Kind::Index(list, index) => match list {
                List::Main => match const_int(index) {
                    Some(k) if k < 0 => {
                        // `unsigned_abs`: `-k` overflows for the most negative index.
                        self.look_back(usize::try_from(k.unsigned_abs()).unwrap_or(usize::MAX))
                    }
                    _ => {
                        self.unbounded();
                        self.footprint.reads_position = true;
                    }
                },
                other => {
                    self.list(*other);
                    self.footprint.indexes_sidelines = true;
                }
            },
            Kind::Len(list) => {
                self.list(*list);
                if *list == List::Main {
                    self.footprint.reads_position = true;
                }
            }
            Kind::Count(list, _) | Kind::Sum(list, _) => self.list(*list),
            Kind::Attr(base, attribute) => {
                // Attributes of numbers (`count(…).odd`) or of suits (`card.suit.red`)
                // touch nothing new: their base already recorded what it read.
                if is_card(base) {
                    match attribute {
                        Attribute::Rank => self.footprint.uses_rank = true,
                        Attribute::Suit => self.footprint.uses_suit = true,
                        Attribute::Colour => self.footprint.uses_colour = true,
                        Attribute::Is(adjective) => self.card_adjective(*adjective),
                    }
                } else if let (Attribute::Colour | Attribute::Is(Adjective::Colour(_)), true) =
                    (attribute, is_suit(base))
                {
                    self.footprint.uses_colour = true;
                }
            }
            Kind::Compare { operands, .. } => self.whole_cards(*operands),
            Kind::In {
                operands,
                collection,
                ..
            } => {
                self.whole_cards(*operands);
                if let Collection::List(list) = collection {
                    self.list(*list);
                }
            }
            _ => {}
        }
        for child in expr.kind.children() {
            self.walk(child);
        }
    }
}

fn is_card(expr: &Expr) -> bool {
    matches!(
        expr.kind,
        Kind::Subject(_) | Kind::Index(..) | Kind::CardLit(_)
    )
}

fn is_suit(expr: &Expr) -> bool {
    matches!(expr.kind, Kind::SuitLit(_) | Kind::Attr(_, Attribute::Suit))
}
