//! `float.__repr__` in Rust (no Python call per float), for both writers.

/// Appends `float.__repr__(f)` for a finite `f`: the shortest digits that
/// round-trip (Rust's `{:e}` gives the same digits as CPython's `repr`),
/// spelled as CPython does: positional with at least one fractional digit
/// (`1.0`, `0.0001`) when the decimal exponent is in -4..16, else
/// `d.ddde+XX` with a signed exponent of at least two digits (`1e+16`,
/// `1.5e-05`).
pub(super) fn float_repr(f: f64, out: &mut String) {
    use std::fmt::Write as _;
    if short_dyadic(f, out) {
        return;
    }
    let mut sci = Buf { bytes: [0; 40], len: 0 };
    // `{:e}` of an f64 is at most 25 bytes: the write cannot overflow.
    let _ = write!(sci, "{f:e}");
    let sci = std::str::from_utf8(sci.bytes.get(..sci.len).unwrap_or_default()).unwrap_or_default();
    let (negative, body) = match sci.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, sci),
    };
    let (mantissa, exp) = body.split_once('e').unwrap_or((body, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut digit_buf = [b'0'; 24];
    let mut n = 0;
    for b in mantissa.bytes().filter(u8::is_ascii_digit) {
        if let Some(slot) = digit_buf.get_mut(n) {
            *slot = b;
            n += 1;
        }
    }
    let digits = std::str::from_utf8(digit_buf.get(..n.max(1)).unwrap_or_default()).unwrap_or("0");
    // The value is 0.DIGITS × 10^point.
    let point = exp + 1;
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

fn push_u64(out: &mut String, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.push_str(std::str::from_utf8(&buf[at..]).unwrap_or_default());
}

/// A fixed buffer for one formatted float (no heap allocation).
struct Buf {
    bytes: [u8; 40],
    len: usize,
}

impl std::fmt::Write for Buf {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        let slot = self.bytes.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        slot.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}
