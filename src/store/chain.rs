//! The hash chain over a game's event log.
//!
//! Every stored event carries `hash = sha256(prev_hash ‖ seq ‖ payload)` where
//! `prev_hash` is the 32 raw bytes of the previous event's hash (32 zero bytes for
//! the first event of a game; a round's first event chains to the last event of the
//! round before it), `seq` is the event's 1-based number in its round as 8 bytes
//! big-endian, and `payload` is the stored JSON text in UTF-8. Hashes are stored and
//! printed as lowercase hex. Editing a payload, deleting or reordering rows breaks
//! the chain at the first affected event; only the tail of the newest round can be
//! cut without a trace in the file itself, which is why `record` prints each new
//! head hash in its acknowledgement (keep the last one).

use sha2::{Digest, Sha256};

use super::RoundRef;

/// The `prev_hash` of the very first event of a game.
pub const GENESIS: [u8; 32] = [0; 32];

/// `sha256(prev ‖ seq as u64 big-endian ‖ payload)`.
pub fn link_hash(prev: &[u8; 32], seq: u64, payload: &str) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(prev);
    hasher.update(seq.to_be_bytes());
    hasher.update(payload.as_bytes());
    hasher.finalize().into()
}

/// Parses a stored 64-digit hex hash.
pub fn parse_hash(text: &str) -> Option<[u8; 32]> {
    let bytes = hex::decode(text).ok()?;
    bytes.try_into().ok()
}

/// One row of the log as the chain sees it.
#[derive(Debug, Clone)]
pub struct Link<'a> {
    pub round: RoundRef,
    pub seq: u64,
    pub payload: &'a str,
    pub prev_hash: &'a str,
    pub hash: &'a str,
}

/// Where and why the chain breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Break {
    pub round: RoundRef,
    /// The sequence number the chain expected at this point.
    pub seq: u64,
    pub reason: String,
}

impl std::fmt::Display for Break {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "round {} event {}: {}",
            self.round, self.seq, self.reason
        )
    }
}

/// Checks links in log order (rounds by number, events by seq). Returns the head
/// hash when every link holds, or the first broken link.
pub fn verify<'a>(links: impl IntoIterator<Item = Link<'a>>) -> Result<[u8; 32], Break> {
    let mut prev = GENESIS;
    let mut expected: Option<(RoundRef, u64)> = None;
    for link in links {
        let want_seq = match expected {
            Some((round, seq)) if round == link.round => seq + 1,
            Some((round, _)) if link.round.number != round.number + 1 => {
                return Err(Break {
                    round: RoundRef {
                        game: round.game,
                        number: round.number + 1,
                    },
                    seq: 1,
                    reason: format!("round {} is missing", round.number + 1),
                })
            }
            _ => 1,
        };
        if expected.is_none() && link.round.number != 1 {
            return Err(Break {
                round: link.round,
                seq: 1,
                reason: "the game's first round is missing".into(),
            });
        }
        if link.seq != want_seq {
            return Err(Break {
                round: link.round,
                seq: want_seq,
                reason: format!("event {want_seq} is missing (next stored is {})", link.seq),
            });
        }
        if link.prev_hash != hex::encode(prev) {
            return Err(Break {
                round: link.round,
                seq: link.seq,
                reason: "its previous-hash field does not match the previous event".into(),
            });
        }
        let computed = link_hash(&prev, link.seq, link.payload);
        if link.hash != hex::encode(computed) {
            return Err(Break {
                round: link.round,
                seq: link.seq,
                reason: "its content does not match its hash (the event was altered)".into(),
            });
        }
        prev = computed;
        expected = Some((link.round, link.seq));
    }
    Ok(prev)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::GameId;

    fn round(n: u32) -> RoundRef {
        RoundRef {
            game: GameId(1),
            number: n,
        }
    }

    struct Row {
        round: RoundRef,
        seq: u64,
        payload: String,
        prev: String,
        hash: String,
    }

    fn chain(spec: &[(u32, &str)]) -> Vec<Row> {
        let mut prev = GENESIS;
        let mut rows = Vec::new();
        let mut last_round = 0;
        let mut seq = 0;
        for &(r, payload) in spec {
            seq = if r == last_round { seq + 1 } else { 1 };
            last_round = r;
            let hash = link_hash(&prev, seq, payload);
            rows.push(Row {
                round: round(r),
                seq,
                payload: payload.to_string(),
                prev: hex::encode(prev),
                hash: hex::encode(hash),
            });
            prev = hash;
        }
        rows
    }

    fn links(rows: &[Row]) -> Vec<Link<'_>> {
        rows.iter()
            .map(|r| Link {
                round: r.round,
                seq: r.seq,
                payload: &r.payload,
                prev_hash: &r.prev,
                hash: &r.hash,
            })
            .collect()
    }

    const LOG: &[(u32, &str)] = &[
        (1, r#"{"event":"round"}"#),
        (1, r#"{"cards":["8H"],"event":"play"}"#),
        (1, r#"{"cards":["9D"],"event":"play"}"#),
        (2, r#"{"event":"round"}"#),
        (2, r#"{"cards":["2C"],"event":"play"}"#),
    ];

    #[test]
    fn an_intact_chain_verifies_to_its_head() {
        let rows = chain(LOG);
        let head = verify(links(&rows)).expect("intact");
        assert_eq!(hex::encode(head), rows[4].hash);
    }

    #[test]
    fn the_hash_covers_prev_seq_and_payload() {
        let a = link_hash(&GENESIS, 1, "x");
        assert_ne!(a, link_hash(&GENESIS, 2, "x"));
        assert_ne!(a, link_hash(&GENESIS, 1, "y"));
        assert_ne!(a, link_hash(&[1; 32], 1, "x"));
        // Known answer: sha256 of 32 zero bytes, 00..01, "x".
        let mut manual = vec![0u8; 32];
        manual.extend_from_slice(&1u64.to_be_bytes());
        manual.push(b'x');
        assert_eq!(a, <[u8; 32]>::from(Sha256::digest(&manual)));
    }

    #[test]
    fn an_edited_payload_is_found_at_its_event() {
        let mut rows = chain(LOG);
        rows[2].payload = r#"{"cards":["9H"],"event":"play"}"#.into();
        let err = verify(links(&rows)).unwrap_err();
        assert_eq!((err.round, err.seq), (round(1), 3));
        assert!(err.reason.contains("altered"), "{err}");
    }

    #[test]
    fn a_rehashed_edit_breaks_the_next_link() {
        let mut rows = chain(LOG);
        rows[1].payload = r#"{"cards":["8D"],"event":"play"}"#.into();
        let prev = parse_hash(&rows[1].prev).expect("hex");
        rows[1].hash = hex::encode(link_hash(&prev, 2, &rows[1].payload));
        let err = verify(links(&rows)).unwrap_err();
        assert_eq!((err.round, err.seq), (round(1), 3));
    }

    #[test]
    fn deleted_events_and_rounds_are_found() {
        let mut rows = chain(LOG);
        rows.remove(1);
        let err = verify(links(&rows)).unwrap_err();
        assert_eq!((err.round, err.seq), (round(1), 2));

        let mut rows = chain(LOG);
        rows.remove(2); // the last event of round 1: round 2 no longer links
        let err = verify(links(&rows)).unwrap_err();
        assert_eq!((err.round, err.seq), (round(2), 1));

        let rows = chain(LOG);
        let first_round_gone: Vec<_> = links(&rows).into_iter().skip(3).collect();
        assert!(verify(first_round_gone).is_err());
    }

    proptest::proptest! {
        #[test]
        fn any_edit_of_any_payload_breaks_the_chain_at_that_event(
            payloads in proptest::collection::vec("[a-z0-9{}\":,]{1,40}", 1..30),
            pick in 0usize..30,
            byte in 0usize..40,
        ) {
            let spec: Vec<(u32, &str)> = payloads.iter().map(|p| (1, p.as_str())).collect();
            let mut rows = chain(&spec);
            let i = pick % rows.len();
            let mut bytes = rows[i].payload.clone().into_bytes();
            let at = byte % bytes.len();
            bytes[at] = if bytes[at] == b'x' { b'y' } else { b'x' };
            rows[i].payload = String::from_utf8(bytes).expect("ascii");
            let err = verify(links(&rows)).unwrap_err();
            proptest::prop_assert_eq!(err.seq, i as u64 + 1);
        }
    }
}
