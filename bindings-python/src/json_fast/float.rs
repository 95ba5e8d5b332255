//! `float.__repr__` in Rust (no Python call per float), for both writers.

/// Appends `float.__repr__(f)` for a finite `f`: the shortest digits that
/// round-trip, the closest of them to `f`, and on an exact tie the one
/// with the even last digit (CPython's `repr`, and ryu's; Rust's `{:e}`
/// takes the upper one: `562949953421312.25` must be `...312.2`), spelled
/// as CPython does: positional with at least one fractional digit (`1.0`,
/// `0.0001`) when the decimal exponent is in -4..16, else `d.ddde+XX` with
/// a signed exponent of at least two digits (`1e+16`, `1.5e-05`).
pub(super) fn float_repr(f: f64, out: &mut String) {
    use std::fmt::Write as _;
    if short_dyadic(f, out) {
        return;
    }
    let mut ryu = ryu::Buffer::new();
    // ryu's own layout (`1e16`, `0.001`, `1.5e-5`, `123.0`): only its
    // digits and where its point falls are used.
    let text = ryu.format_finite(f);
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exp) = body.split_once('e').unwrap_or((body, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut digit_buf = [b'0'; 24];
    let mut n = 0;
    // Digits of the mantissa without its leading zeros, and how many of
    // them stand before its point.
    let mut before_point: i32 = 0;
    let mut seen_point = false;
    for b in mantissa.bytes() {
        match b {
            b'.' => seen_point = true,
            // A leading zero after the point moves the first digit down.
            b'0' if n == 0 && seen_point => before_point -= 1,
            b'0' if n == 0 => {}
            b'0'..=b'9' => {
                if let Some(slot) = digit_buf.get_mut(n) {
                    *slot = b;
                    n += 1;
                }
                if !seen_point {
                    before_point += 1;
                }
            }
            _ => {}
        }
    }
    // Trailing zeros are not significant (`123.0`, `100.0`).
    while n > 1 && digit_buf.get(n - 1) == Some(&b'0') {
        n -= 1;
    }
    let digits = std::str::from_utf8(digit_buf.get(..n.max(1)).unwrap_or_default()).unwrap_or("0");
    let point = before_point + exp;
    let exp = point - 1;
    // The value is 0.DIGITS × 10^point.
    if negative {
        out.push('-');
    }
    if (-3..=16).contains(&point) {
        if point <= 0 {
            out.push_str("0.");
            for _ in 0..-point {
                out.push('0');
            }
            out.push_str(digits);
        } else {
            let point = point as usize;
            if point < digits.len() {
                out.push_str(&digits[..point]);
                out.push('.');
                out.push_str(&digits[point..]);
            } else {
                out.push_str(digits);
                for _ in digits.len()..point {
                    out.push('0');
                }
                out.push_str(".0");
            }
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.unsigned_abs());
    }
}

/// The fast case of [`float_repr`] (no shortest-digits search): `f` is a
/// whole number of sixteenths (`129.5`, `-3.0`, `0.0625`, `-0.0`) below
/// 1e11 in size. Such a double is exactly `m / 2^k` (`m` odd, or `k = 0`),
/// whose decimal expansion `m·5^k / 10^k` ends at its `k`-th fractional
/// digit, a 5; with at most 15 significant digits, no decimal with fewer
/// digits is within the double's spacing, so that exact expansion is the
/// shortest text that round-trips, which `repr` prints positionally (its
/// decimal exponent is in -2..11). `false`: not this case, nothing written.
fn short_dyadic(f: f64, out: &mut String) -> bool {
    // NaN compares false to everything, so it is tested on its own.
    if f.is_nan() || f.abs() >= 1e11 {
        return false;
    }
    let mut scaled = f;
    for k in 0..=4u32 {
        if scaled.fract() == 0.0 {
            // |scaled| < 1.6e12: exact as an integer.
            let digits = (scaled.abs() as u64) * 5u64.pow(k);
            let unit = 10u64.pow(k);
            if f.is_sign_negative() {
                out.push('-');
            }
            push_u64(out, digits / unit);
            out.push('.');
            if k == 0 {
                out.push('0');
            } else {
                let frac = digits % unit;
                // Leading zeros of the fractional part (`0.0625`).
                for _ in 0..k.saturating_sub(decimal_len(frac)) {
                    out.push('0');
                }
                push_u64(out, frac);
            }
            return true;
        }
        scaled *= 2.0;
    }
    false
}

fn decimal_len(mut n: u64) -> u32 {
    let mut len = 1;
    while n >= 10 {
        n /= 10;
        len += 1;
    }
    len
}

fn push_u64(out: &mut String, n: u64) {
    out.push_str(itoa::Buffer::new().format(n));
}
