//! The base64url (no padding) engine for a token's
//! long parts, the payload and v2's sealed body.
//!
//! The `base64` crate's `Simd` engine (its default `simd-unsafe` feature;
//! the `unsafe` is the crate's, none here) encodes and decodes whole
//! blocks with AVX2 or NEON when the processor has them, detected once,
//! and is the crate's scalar `GeneralPurpose` engine otherwise, and for
//! any input below its thresholds (128 bytes to encode, 64 to decode): a
//! retry's ~750-byte token was a tenth of `begin` in scalar decoding and
//! its encoding a fourteenth of `decide`. Same alphabet, same `NO_PAD`
//! configuration as `URL_SAFE_NO_PAD`, and the crate leaves the last
//! quad and any block with a byte outside the alphabet to the scalar
//! decoder, so the bytes out, and which inputs are refused, are the
//! same; a property test holds both directions to `URL_SAFE_NO_PAD`.

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) fn url() -> &'static impl base64::Engine {
    use std::sync::LazyLock;
    static URL: LazyLock<base64::engine::Simd> =
        LazyLock::new(|| base64::engine::Simd::url_safe(base64::engine::general_purpose::NO_PAD));
    &*URL
}

/// Elsewhere the crate has no block engine: the scalar one.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(crate) fn url() -> &'static impl base64::Engine {
    &base64::engine::general_purpose::URL_SAFE_NO_PAD
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use base64::Engine as _;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use proptest::prelude::*;

    use super::url;

    /// Text that is mostly base64url, sometimes with a byte outside the
    /// alphabet, padding or a stray last symbol, at lengths around the
    /// block engine's thresholds and block sizes.
    fn arb_text() -> impl Strategy<Value = String> {
        let symbol = prop_oneof![
            20 => prop::sample::select(
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".chars().collect::<Vec<_>>()
            ),
            1 => prop::sample::select(vec!['+', '/', '=', '.', ' ', '\n', 'é', '\0']),
        ];
        prop::collection::vec(symbol, 0..400).prop_map(|c| c.into_iter().collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// Encoding: the same text as the scalar engine, for any bytes.
        #[test]
        fn encodes_as_the_scalar_engine(bytes in prop::collection::vec(any::<u8>(), 0..700)) {
            let want = URL_SAFE_NO_PAD.encode(&bytes);
            prop_assert_eq!(&url().encode(&bytes), &want);
            let mut out = vec![0u8; base64::encoded_len(bytes.len(), false).unwrap()];
            let n = url().encode_slice(&bytes, &mut out).unwrap();
            prop_assert_eq!(&out[..n], want.as_bytes());
        }

        /// Decoding: the same bytes, or a refusal exactly where the
        /// scalar engine refuses, into a `Vec` or an exact slice.
        #[test]
        fn decodes_as_the_scalar_engine(text in arb_text(), bytes in prop::collection::vec(any::<u8>(), 0..600)) {
            let valid = URL_SAFE_NO_PAD.encode(&bytes);
            for t in [text.as_str(), valid.as_str()] {
                let want = URL_SAFE_NO_PAD.decode(t).ok();
                prop_assert_eq!(url().decode(t).ok(), want.clone());
                let mut out = vec![0u8; base64::decoded_len_estimate(t.len())];
                let got = url().decode_slice(t, &mut out).ok().map(|n| out[..n].to_vec());
                prop_assert_eq!(got, want);
            }
        }
    }
}
