//! Issue 16, tenth pass: constant-time equality of fixed-size byte arrays
//! (the principal tag, the request binding, the MAC tag) eight bytes at a
//! time. `subtle`'s slice comparison goes byte by byte, each byte through
//! its optimisation barrier, which was a few percent of a retry's `begin`.
//! Here the differences of all the words are folded with XOR and OR (no
//! branch on the data, every byte read whatever the others hold) and the
//! one result compared by `subtle`, so the time still does not depend on
//! where, or whether, the arrays differ.

use subtle::ConstantTimeEq;

/// Whether `a` and `b` hold the same bytes, in time independent of them.
pub(crate) fn same<const N: usize>(a: &[u8; N], b: &[u8; N]) -> bool {
    let (words_a, rest_a) = a.as_chunks::<8>();
    let (words_b, rest_b) = b.as_chunks::<8>();
    let mut diff = words_a
        .iter()
        .zip(words_b)
        .fold(0u64, |acc, (x, y)| acc | (u64::from_ne_bytes(*x) ^ u64::from_ne_bytes(*y)));
    for (x, y) in rest_a.iter().zip(rest_b) {
        diff |= u64::from(x ^ y);
    }
    bool::from(diff.ct_eq(&0))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use proptest::prelude::*;
    use subtle::ConstantTimeEq;

    use super::same;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// The same answer as `subtle`'s slice comparison, for arrays that
        /// are equal, differ in one bit, or differ anywhere.
        #[test]
        fn agrees_with_subtle(a in any::<[u8; 32]>(), other in any::<[u8; 32]>(), bit in 0usize..256, how in 0u8..3) {
            let b = match how {
                0 => a,
                1 => { let mut b = a; b[bit / 8] ^= 1 << (bit % 8); b }
                _ => other,
            };
            prop_assert_eq!(same(&a, &b), bool::from(a[..].ct_eq(&b[..])));
            let (a16, b16): ([u8; 16], [u8; 16]) = (a[..16].try_into().unwrap(), b[..16].try_into().unwrap());
            prop_assert_eq!(same(&a16, &b16), bool::from(a16[..].ct_eq(&b16[..])));
            let (a13, b13): ([u8; 13], [u8; 13]) = (a[3..16].try_into().unwrap(), b[3..16].try_into().unwrap());
            prop_assert_eq!(same(&a13, &b13), bool::from(a13[..].ct_eq(&b13[..])));
        }
    }
}
