//! eleusis — a referee for the card game Eleusis at a real table.
//!
//! The crate is laid out by domain. Pure logic (`cards`, `rule`, `referee`) knows
//! nothing of HTTP, SQL or cameras; the adapters (`vision`, `store`, `cli`) depend on
//! it, never the reverse.

pub mod cards;
pub mod cli;
pub mod json_input;
pub mod referee;
pub mod rule;
pub mod store;
pub mod vision;
pub mod web;
