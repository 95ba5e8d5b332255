//! Arbitrary command lines into `snodo-mrtr` (`run_cli`): NUL-separated
//! arguments, the first being the token-ish input most of the time. The
//! inspector reads untrusted tokens and a user's arguments; it must never
//! panic, hang or print a key byte. It does echo what it was given (an
//! unknown command, a token that does not decode), as it is or escaped as
//! Rust's `{:?}` escapes it (a NUL before `00102030405` prints as
//! `\000102030405`), so the key's hex counts as printed only when neither
//! the input nor an escaped echo of it already holds it.
#![no_main]

use libfuzzer_sys::fuzz_target;

const KEYS: &str = "k1:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
/// The start of the key's hex: found in the output, a key byte was printed.
const KEY_HEX: &str = "000102030405";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = snodo::decode_token(text, 16 * 1024);
    let parts: Vec<String> = text.split('\0').map(str::to_owned).collect();
    let read =
        |_: &str| Ok(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pick"}}"#.to_owned());
    for args in [vec!["inspect".to_owned(), text.to_owned()], parts] {
        // Everything the input itself can put in the output.
        let echoes: Vec<String> =
            std::iter::once(text.to_owned()).chain(args.iter().map(|a| format!("{a:?}"))).collect();
        for keys in [None, Some(KEYS)] {
            let out = snodo::run_cli(&args, keys, 1_800_000_000, &read);
            if !echoes.iter().any(|e| e.contains(KEY_HEX))
                && (out.stdout.contains(KEY_HEX) || out.stderr.contains(KEY_HEX))
            {
                std::process::abort();
            }
        }
    }
});
