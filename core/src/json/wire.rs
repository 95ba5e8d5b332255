//! The compact wire text of a `Value` (`to_wire`), written without serde
//! (issue 16, seventh pass).
//!
//! Every response a binding sends goes through `to_wire` once
//! (`Response::to_json`), and most of it is one long string: the token.
//! serde's writer looks every byte of a string up in its escape table; at
//! 256 B of state that was about 13k instructions of a Node round, more
//! than a tenth of what the addon adds to the core. This writer is the
//! same text, byte for byte: serde's compact form has no whitespace, writes
//! members in the map's order, numbers as spelled (the `arbitrary_precision`
//! feature keeps the spelling) and escapes strings exactly as the canonical
//! form does (`"` and `\`, `\b \f \n \r \t`, other controls as `\u00xx` in
//! lowercase hex, all else raw). So where maps iterate sorted it is the
//! canonical writer's walk (which skips plain string runs eight bytes at a
//! time), and serde's own writer where they do not. The tests hold it to
//! `serde_json::to_string` on random values.

use serde_json::Value;

use super::canonical::{map_iterates_sorted, write_canonical};

/// The compact JSON text of `value`, as `serde_json::to_string` writes it.
pub(crate) fn wire(value: &Value) -> String {
    // serde's compact text writes members in the map's order. When maps
    // iterate sorted (serde_json without `preserve_order`, the usual
    // build), that is the canonical walk, byte for byte; otherwise the
    // order is the insertion order, which only serde's writer keeps.
    if !map_iterates_sorted() {
        // Serialising a Value into a String cannot fail; the canonical
        // text stands in rather than an unwrap (the no-panic rule).
        return serde_json::to_string(value)
            .unwrap_or_else(|_| String::from_utf8_lossy(&super::canonical(value)).into_owned());
    }
    let mut out = Vec::with_capacity(size_hint(value));
    write_canonical(value, &mut out);
    // Every piece written is UTF-8 (strings and keys come from `str`s,
    // number spellings are ASCII), so this never takes the fallback.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// A first capacity: the top level's strings and a little per member, so
/// that a response (one long token string, a few short members) is written
/// without growing; deeper values grow the buffer as they need.
fn size_hint(value: &Value) -> usize {
    match value {
        Value::Object(m) => m.iter().map(|(k, v)| k.len() + 4 + shallow(v)).sum::<usize>() + 2,
        v => shallow(v),
    }
}

fn shallow(value: &Value) -> usize {
    match value {
        Value::String(s) => s.len() + 2,
        Value::Object(m) => m.iter().map(|(k, v)| k.len() + 4 + shallow_leaf(v)).sum::<usize>() + 2,
        _ => 16,
    }
}

fn shallow_leaf(value: &Value) -> usize {
    match value {
        Value::String(s) => s.len() + 2,
        _ => 16,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use serde_json::{Map, Number, Value, json};

    use super::wire;

    /// xorshift64*, seeded, so a failure reproduces.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    /// Strings that exercise the escaping: every control character, quotes,
    /// backslashes, DEL, non-ASCII of every UTF-8 length, long plain runs
    /// (the word loop) with an escape at every offset.
    fn string(rng: &mut Rng) -> String {
        const PIECES: &[&str] = &[
            "a",
            "seat",
            "\"",
            "\\",
            "\u{7f}",
            "é",
            "€",
            "😀",
            "/",
            " ",
            "\u{2028}",
            "\u{0}",
            "\u{1f}",
            "\n",
            "\r",
            "\t",
            "\u{8}",
            "\u{c}",
            "\u{b}",
            "xxxxxxxxxxxxxxxxxxxxxxxx",
        ];
        let mut s = String::new();
        for _ in 0..rng.below(12) {
            if rng.below(4) == 0 {
                s.push(char::from(u8::try_from(rng.below(0x80)).unwrap()));
            } else {
                s.push_str(PIECES[rng.below(PIECES.len() as u64) as usize]);
            }
        }
        s
    }

    fn number(rng: &mut Rng) -> Number {
        // Spellings as the strict parser keeps them (arbitrary_precision).
        const SPELLINGS: &[&str] = &[
            "0",
            "-0",
            "1",
            "1.0",
            "-12.50",
            "1e3",
            "1E+3",
            "2.5e-7",
            "18446744073709551616",
            "-9007199254740993",
            "0.1",
            "123456789012345678901234567890.5",
        ];
        let text = SPELLINGS[rng.below(SPELLINGS.len() as u64) as usize];
        serde_json::from_str(text).unwrap()
    }

    fn value(rng: &mut Rng, depth: u32) -> Value {
        match rng.below(if depth > 5 { 5 } else { 8 }) {
            0 => Value::Null,
            1 => Value::Bool(rng.below(2) == 0),
            2 => Value::Number(number(rng)),
            3 | 4 => Value::String(string(rng)),
            5 => Value::Array((0..rng.below(5)).map(|_| value(rng, depth + 1)).collect()),
            _ => {
                let mut m = Map::new();
                for _ in 0..rng.below(6) {
                    m.insert(string(rng), value(rng, depth + 1));
                }
                Value::Object(m)
            }
        }
    }

    #[test]
    fn wire_is_serdes_compact_text_on_random_values() {
        let mut rng = Rng(0x5eed_0007);
        for case in 0..20_000 {
            let v = value(&mut rng, 0);
            assert_eq!(wire(&v), serde_json::to_string(&v).unwrap(), "case {case}: {v:?}");
        }
    }

    #[test]
    fn wire_of_a_response_shape_and_every_control_character() {
        let token = "A".repeat(600);
        let v = json!({"jsonrpc": "2.0", "id": 7, "result": {"resultType": "input_required",
            "inputRequests": {"seat": {"mode": "form", "message": "Which seat?"}}, "requestState": token}});
        assert_eq!(wire(&v), serde_json::to_string(&v).unwrap());
        for b in 0u8..0x80 {
            for at in 0..20 {
                let s: String = "x".repeat(at) + &char::from(b).to_string() + "tail";
                let v = Value::String(s);
                assert_eq!(wire(&v), serde_json::to_string(&v).unwrap(), "byte {b:#x} at {at}");
            }
        }
        for v in [json!(null), json!([]), json!({}), json!([[]]), json!({"": {}}), json!(true), json!("")] {
            assert_eq!(wire(&v), serde_json::to_string(&v).unwrap());
        }
    }
}
