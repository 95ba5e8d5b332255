//! Issue 16, sixth pass: the stack decoding of a token body against the
//! plain `Vec` decoding.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use proptest::prelude::*;

use super::{SMALL_PAYLOAD, decode_body};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Bodies of every length around the stack bound, often invalid
    /// (padding, other alphabets, stray characters, bad trailing bits).
    #[test]
    fn the_stack_decoding_is_the_vec_decoding(
        body in "[A-Za-z0-9_\\-]{0,1400}[=+/. A-Za-z0-9_\\-]{0,3}",
    ) {
        let (mut small, mut heap) = ([0u8; SMALL_PAYLOAD], Vec::new());
        let got = decode_body(&body, &mut small, &mut heap).map(<[u8]>::to_vec).map_err(|e| e.reason);
        let want = URL_SAFE_NO_PAD.decode(&body).map_err(|_| crate::token::TokenReason::Malformed);
        prop_assert_eq!(got, want);
    }
}

#[test]
fn bodies_at_the_stack_bound_decode_both_ways() {
    for len in 1360..1372 {
        let body = "A".repeat(len);
        let (mut small, mut heap) = ([0u8; SMALL_PAYLOAD], Vec::new());
        let got = decode_body(&body, &mut small, &mut heap).map(<[u8]>::to_vec).map_err(|e| e.reason);
        let want = URL_SAFE_NO_PAD.decode(&body).map_err(|_| crate::token::TokenReason::Malformed);
        assert_eq!(got, want, "{len}");
    }
}
