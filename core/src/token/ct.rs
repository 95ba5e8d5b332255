//! Constant-time equality of fixed-size byte arrays (the principal tag,
//! the request binding, the MAC tag), by `subtle`.

use subtle::ConstantTimeEq;

/// Whether `a` and `b` hold the same bytes, in time independent of them.
pub(crate) fn same<const N: usize>(a: &[u8; N], b: &[u8; N]) -> bool {
    bool::from(a.ct_eq(b))
}
