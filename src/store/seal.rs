//! The sealed rule: God's secret rule is committed to at the start of a round and
//! revealed at its end, so that players can check God did not change it.
//!
//! The salt is 64 lowercase hex digits drawn from the operating system's random
//! source (256 bits). The commitment is `sha256(salt ‖ rule)` over the salt's 64
//! ASCII characters followed by the rule's UTF-8 bytes, printed as hex, so anyone can
//! check a reveal by hand:
//!
//! ```text
//! printf '%s%s' "$SALT" "$RULE" | sha256sum
//! ```
//!
//! The rule text is only reachable through [`Sealed::reveal`] (after the round) and
//! [`Sealed::for_god`] (God's own copy); everything public carries the commitment.

use rand::RngCore;
use sha2::{Digest, Sha256};

/// A rule with its salt, as kept in the store. Neither field is public: the text
/// leaves only through the two named doors.
#[derive(Clone, PartialEq, Eq)]
pub struct Sealed {
    rule: String,
    salt: String,
}

impl std::fmt::Debug for Sealed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Debug output ends up in logs; it must not leak the rule.
        f.debug_struct("Sealed")
            .field("commitment", &self.commitment())
            .finish()
    }
}

/// What is published at the end of a round: enough to re-hash.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Reveal {
    pub rule: String,
    pub salt: String,
    pub commitment: String,
}

/// `sha256(salt ‖ rule)` in hex.
pub fn commitment(salt: &str, rule: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(salt.as_bytes());
    hasher.update(rule.as_bytes());
    hex::encode(hasher.finalize())
}

impl Sealed {
    /// Seals a rule under a fresh salt from the operating system's random source.
    pub fn new(rule: &str) -> Sealed {
        let mut salt = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut salt);
        Sealed {
            rule: rule.to_string(),
            salt: hex::encode(salt),
        }
    }

    /// A seal read back from the store.
    pub(crate) fn from_parts(rule: String, salt: String) -> Sealed {
        Sealed { rule, salt }
    }

    pub(crate) fn salt(&self) -> &str {
        &self.salt
    }

    /// The public commitment.
    pub fn commitment(&self) -> String {
        commitment(&self.salt, &self.rule)
    }

    /// Whether this seal matches a published commitment.
    pub fn matches(&self, published: &str) -> bool {
        self.commitment() == published
    }

    /// The reveal, for the end of the round.
    pub fn reveal(&self) -> Reveal {
        Reveal {
            rule: self.rule.clone(),
            salt: self.salt.clone(),
            commitment: self.commitment(),
        }
    }

    /// God's own copy of the rule, before the reveal (the God console, a God-side
    /// export). Callers must have established that the asker is God.
    pub fn for_god(&self) -> &str {
        &self.rule
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commitment_is_sha256_of_salt_then_rule() {
        let salt = "00".repeat(32);
        let c = commitment(&salt, "if last.odd then black else red");
        let manual = Sha256::digest(format!("{salt}if last.odd then black else red"));
        assert_eq!(c, hex::encode(manual));
    }

    #[test]
    fn fresh_salts_differ_and_hide_the_rule() {
        let a = Sealed::new("true");
        let b = Sealed::new("true");
        assert_ne!(a.salt(), b.salt());
        assert_ne!(a.commitment(), b.commitment());
        assert_eq!(a.salt().len(), 64);
        assert!(!format!("{a:?}").contains("true"));
    }

    #[test]
    fn a_reveal_re_hashes_to_the_commitment() {
        let seal = Sealed::new("red");
        let published = seal.commitment();
        let reveal = seal.reveal();
        assert_eq!(commitment(&reveal.salt, &reveal.rule), published);
        assert!(!Sealed::from_parts("black".into(), reveal.salt).matches(&published));
    }
}
