//! Tests of snapshot files: restore-and-continue equals never stopping, the header, refusals of
//! another scenario or configuration, damaged files, and a decoder that never panics.

use proptest::prelude::*;

use super::*;
use crate::sim::{directed_street_world, observed_street_world, World};

fn stepped(mut world: World, frames: u64) -> World {
    for _ in 0..frames {
        world.step();
    }
    world
}

fn directed() -> World {
    directed_street_world(40, 3).expect("world")
}

/// A snapshot file of `directed()` at frame 30 (tasks, paths and directives in flight).
fn file_at_30() -> Vec<u8> {
    stepped(directed(), 30).snapshot_bytes().expect("encodes")
}

#[test]
fn a_file_restored_into_a_fresh_world_continues_bit_for_bit() {
    let worlds: [fn() -> World; 2] = [directed, || observed_street_world(60, 5).expect("world")];
    for make in worlds {
        let mut straight = stepped(make(), 30);
        let bytes = straight.snapshot_bytes().expect("encodes");
        let mut fresh = make();
        let header = fresh.restore_bytes(&bytes).expect("restores");
        assert_eq!(header.frame, 30);
        assert_eq!(header.version, SNAPSHOT_FORMAT_VERSION);
        assert_eq!(header.scenario, "long-street");
        assert_eq!(header.config_digest, straight.config().digest);
        assert_eq!(fresh.state_digest(), straight.state_digest());
        // Encoding the restored world gives the same bytes.
        assert_eq!(fresh.snapshot_bytes().expect("encodes"), bytes);
        for _ in 0..60 {
            straight.step();
            fresh.step();
        }
        assert_eq!(fresh.frame(), 90);
        assert_eq!(fresh.state_digest_hex(), straight.state_digest_hex());
    }
}

#[test]
fn the_header_reads_without_the_payload() {
    let bytes = file_at_30();
    assert_eq!(&bytes[..8], b"STGSNAP\0");
    assert_eq!(&bytes[8..12], &4u32.to_le_bytes());
    let header = read_header(&bytes).expect("a header");
    assert_eq!(
        (header.frame, header.scenario.as_str()),
        (30, "long-street")
    );
    assert_eq!(header.config_digest, directed().config().digest);
}

#[test]
fn another_configuration_is_refused_with_both_digests_and_changes_nothing() {
    let bytes = file_at_30();
    // Another seed: the same scenario id, another configuration digest.
    let mut other = stepped(directed_street_world(40, 4).expect("world"), 5);
    let before = other.state_digest();
    let error = other.restore_bytes(&bytes).expect_err("refused");
    let text = error.to_string();
    assert!(
        matches!(&error, SnapshotFileError::OtherConfiguration { scenario, .. } if scenario == "long-street"),
        "{error:?}"
    );
    assert!(text.contains("another configuration"), "{text}");
    assert!(text.contains(&hex(&other.config().digest)), "{text}");
    assert_eq!(other.state_digest(), before);
    assert_eq!(other.frame(), 5);
}

#[test]
fn another_scenario_is_refused_by_name() {
    let mut bytes = file_at_30();
    // Rename the scenario in the header (same length, so the layout stays).
    let at = 8 + 4 + 32 + 8 + 4;
    bytes[at..at + 11].copy_from_slice(b"short-stree");
    let mut world = directed();
    let error = world.restore_bytes(&bytes).expect_err("refused");
    assert_eq!(
        error.to_string(),
        "the snapshot is of scenario `short-stree`, not of `long-street`"
    );
    assert_eq!(world.frame(), 0);
}

#[test]
fn damaged_files_are_refused_by_what_is_wrong() {
    let bytes = file_at_30();
    let mut world = directed();
    let digest = world.state_digest();
    let mut refuse = |bytes: &[u8]| world.restore_bytes(bytes).expect_err("refused");
    assert_eq!(refuse(b"hello"), SnapshotFileError::NotASnapshot);
    assert_eq!(
        refuse(&bytes[..10]),
        SnapshotFileError::Truncated {
            field: "the format version",
            offset: 8
        }
    );
    assert_eq!(
        refuse(&bytes[..bytes.len() - 1]),
        SnapshotFileError::Truncated {
            field: "the payload",
            offset: 8 + 4 + 32 + 8 + 4 + 11 + 8 + 32
        }
    );
    let mut newer = bytes.clone();
    newer[8] = 5;
    assert_eq!(
        refuse(&newer),
        SnapshotFileError::UnsupportedVersion {
            found: 5,
            supported: 4
        }
    );
    // A version 2 file (before ped event records) is refused by version.
    let mut before_events = bytes.clone();
    before_events[8] = 2;
    assert_eq!(
        refuse(&before_events),
        SnapshotFileError::UnsupportedVersion {
            found: 2,
            supported: 4
        }
    );
    // A version 1 file (before knockdowns could be saved) is refused by version too.
    let mut older = bytes.clone();
    older[8] = 1;
    let error = refuse(&older);
    assert_eq!(
        error,
        SnapshotFileError::UnsupportedVersion {
            found: 1,
            supported: 4
        }
    );
    assert!(
        error.to_string().contains(
            "snapshot format version 1 is not supported (this build reads version 4; save the \
             run again"
        ),
        "{error}"
    );
    let mut longer = bytes.clone();
    longer.push(0);
    assert_eq!(
        refuse(&longer),
        SnapshotFileError::TrailingBytes {
            extra: 1,
            offset: bytes.len()
        }
    );
    let mut flipped = bytes.clone();
    let last = flipped.len() - 7;
    flipped[last] ^= 0x10;
    assert_eq!(refuse(&flipped), SnapshotFileError::ChecksumMismatch);
    assert_eq!(world.state_digest(), digest);
}

/// A valid file whose payload is replaced and re-checksummed (so the decoder itself is tested).
fn with_payload(bytes: &[u8], payload: &[u8]) -> Vec<u8> {
    let start = 8 + 4 + 32 + 8 + 4 + 11;
    let mut out = bytes[..start].to_vec();
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(blake3::hash(payload).as_bytes());
    out.extend_from_slice(payload);
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let mut world = directed();
        prop_assert!(world.restore_bytes(&bytes).is_err());
        let mut prefixed = SNAPSHOT_MAGIC.to_vec();
        prefixed.extend_from_slice(&bytes);
        prop_assert!(world.restore_bytes(&prefixed).is_err());
        prop_assert_eq!(world.frame(), 0);
    }

    #[test]
    fn a_damaged_payload_with_a_matching_checksum_never_panics(
        at in 0usize..1_000_000,
        value in any::<u8>(),
        cut in 0usize..1_000_000,
    ) {
        let bytes = file_at_30();
        let start = 8 + 4 + 32 + 8 + 4 + 11 + 8 + 32;
        let mut payload = bytes[start..].to_vec();
        let at = at % payload.len();
        payload[at] = value;
        let mut world = directed();
        // Either refused or a consistent world: never a panic.
        let _ = world.restore_bytes(&with_payload(&bytes, &payload));
        let cut = cut % payload.len();
        let mut world = directed();
        prop_assert!(world.restore_bytes(&with_payload(&bytes, &payload[..cut])).is_err());
    }
}
