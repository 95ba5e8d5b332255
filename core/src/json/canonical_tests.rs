//! Issue 16, sixth pass: the buffer sink's own ways of writing (single
//! bytes, short strings put together in a fixed block and cut to length)
//! give exactly the bytes of a sink that only appends slices, for random
//! strings of every short length and random trees, written after random
//! bytes already in the buffer.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use serde_json::Value;

use super::*;

/// A sink with only `put`: every other method is the trait's default.
struct Slices(Vec<u8>);

impl Sink for Slices {
    fn put(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
}

fn arb_string() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z]{0,20}",
        "[a-zé\u{1F600}\"\\\\\n\u{1} ]{0,24}",
        prop::collection::vec(any::<char>(), 0..20).prop_map(|c| c.into_iter().collect()),
    ]
}

fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        arb_string().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((arb_string(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn buffer_writes_what_slices_write(
        s in arb_string(),
        v in arb_value(),
        prefix in prop::collection::vec(any::<u8>(), 0..40),
        room in 0usize..64,
    ) {
        let mut fast = Vec::with_capacity(prefix.len() + room);
        fast.extend_from_slice(&prefix);
        let mut slow = Slices(prefix.clone());
        write_string(&s, &mut fast);
        write_string(&s, &mut slow);
        prop_assert_eq!(&fast, &slow.0);
        let within = write_canonical_within(&v, &mut fast, 64);
        prop_assert_eq!(within, write_canonical_within(&v, &mut slow, 64));
        prop_assert_eq!(&fast, &slow.0);
        // And the plain writer, as the digests and `canonical` use it.
        write_canonical(&v, &mut fast);
        write_canonical(&v, &mut slow);
        prop_assert_eq!(&fast, &slow.0);
    }

    /// The hashing sink's own ways (bytes and short strings copied into
    /// its gathering buffer, near its end too) hash the same bytes.
    #[test]
    fn hash_sink_hashes_what_slices_write(
        s in arb_string(),
        v in arb_value(),
        fill in 0usize..1100,
    ) {
        let prefix = vec![b'x'; fill];
        let mut sink = HashSink::new(Sha256::new());
        sink.put(&prefix);
        let mut slow = Slices(prefix);
        write_string(&s, &mut sink);
        write_string(&s, &mut slow);
        prop_assert_eq!(write_canonical_within(&v, &mut sink, 64), write_canonical_within(&v, &mut slow, 64));
        write_canonical(&v, &mut sink);
        write_canonical(&v, &mut slow);
        prop_assert_eq!(sink.written(), slow.0.len());
        let fast: [u8; 32] = sink.finish().finalize().into();
        let reference: [u8; 32] = Sha256::digest(&slow.0).into();
        prop_assert_eq!(fast, reference);
    }
}
