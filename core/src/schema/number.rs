//! Exact comparison of JSON numbers by their lexical text.
//!
//! Bounds are compared on the decimal value, not on `f64`: with `minimum: 18`,
//! the answer `17.99999999999999999` is below the minimum even though it
//! rounds to 18.0, and integers above 2^53 compare exactly.

use std::cmp::Ordering;

use serde_json::Number;

/// A finite decimal: sign, significant digits (ASCII, no leading or trailing
/// zeros; empty for zero) and the position of the decimal point relative to
/// the first digit: value = 0.DIGITS x 10^point.
struct Decimal {
    negative: bool,
    digits: Vec<u8>,
    point: i64,
}

/// Exponents beyond this are clamped; no JSON text that fits in memory can
/// tell the difference in a comparison with a schema bound.
const EXP_CLAMP: i64 = 1 << 40;

fn parse(text: &str) -> Option<Decimal> {
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(i) => (unsigned.get(..i)?, unsigned.get(i + 1..)?),
        None => (unsigned, "0"),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() || !int.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let exp = parse_exponent(exponent)?;
    let mut digits: Vec<u8> = int.bytes().chain(frac.bytes()).collect();
    let leading = digits.iter().take_while(|&&d| d == b'0').count();
    digits.drain(..leading);
    while digits.last() == Some(&b'0') {
        digits.pop();
    }
    let int_len = i64::try_from(int.len()).unwrap_or(EXP_CLAMP);
    let lead = i64::try_from(leading).unwrap_or(EXP_CLAMP);
    let point = int_len.saturating_sub(lead).saturating_add(exp);
    Some(Decimal { negative, digits, point })
}

fn parse_exponent(text: &str) -> Option<i64> {
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, text.get(1..)?),
        Some(b'+') => (false, text.get(1..)?),
        _ => (false, text),
    };
    if body.is_empty() {
        return None;
    }
    let mut value: i64 = 0;
    for b in body.bytes() {
        if !b.is_ascii_digit() {
            return None;
        }
        value = value.saturating_mul(10).saturating_add(i64::from(b - b'0')).min(EXP_CLAMP);
    }
    Some(if negative { -value } else { value })
}

/// Compares two JSON numbers exactly; `None` only if a text is not a JSON
/// number (which a `Number` from the strict parser never is).
pub(super) fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    let a = parse(&a.to_string())?;
    let b = parse(&b.to_string())?;
    let a_zero = a.digits.is_empty();
    let b_zero = b.digits.is_empty();
    // -0 equals 0: compare signs only for non-zero values.
    let sign = |d: &Decimal, zero: bool| {
        if zero {
            0
        } else if d.negative {
            -1
        } else {
            1
        }
    };
    let (sa, sb) = (sign(&a, a_zero), sign(&b, b_zero));
    if sa != sb || sa == 0 {
        return Some(sa.cmp(&sb));
    }
    let magnitude = a.point.cmp(&b.point).then_with(|| a.digits.cmp(&b.digits));
    Some(if sa < 0 { magnitude.reverse() } else { magnitude })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn n(s: &str) -> Number {
        s.parse().unwrap()
    }

    #[test]
    fn exact_order() {
        let lt = [
            ("17.99999999999999999", "18"),
            ("-1", "0"),
            ("-0.5", "-0.25"),
            ("9007199254740992", "9007199254740993"),
            ("1e2", "101"),
            ("0.001", "1e-2"),
            ("-1e400", "1e-400"),
            ("99", "1E2"),
        ];
        for (a, b) in lt {
            assert_eq!(compare(&n(a), &n(b)), Some(Ordering::Less), "{a} < {b}");
            assert_eq!(compare(&n(b), &n(a)), Some(Ordering::Greater), "{b} > {a}");
        }
        for (a, b) in [("30", "30.0"), ("-0", "0"), ("1e2", "100.000"), ("0.0e5", "-0.0"), ("12.5", "125e-1")]
        {
            assert_eq!(compare(&n(a), &n(b)), Some(Ordering::Equal), "{a} == {b}");
        }
    }
}
