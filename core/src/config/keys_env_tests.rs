#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;

const HEX: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

fn message(spec: &str) -> String {
    let e = parse_keys(spec).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Config, "{spec}");
    assert!(!e.message().contains(HEX) && !e.message().contains("c2VjcmV0"), "{}", e.message());
    e.message().to_owned()
}

#[test]
fn every_bad_entry_is_named_by_position_and_valid_id() {
    let ok = format!("k1:{HEX}");
    let cases = [
        ("", "SNODO_KEYS is empty: `snodo-mrtr keygen` prints an entry".to_owned()),
        (" , ", "SNODO_KEYS entry 1 is empty (a stray comma?)".to_owned()),
        (&format!("{ok},"), "SNODO_KEYS entry 2 is empty (a stray comma?)".to_owned()),
        (&format!("{ok},c2VjcmV0"), "SNODO_KEYS entry 2: expected id:hex or id:base64".to_owned()),
        (
            &format!("{ok},k2:%%%%"),
            "SNODO_KEYS entry 2: key \"k2\": the secret is neither hex nor base64".into(),
        ),
        (
            &format!("{ok},k2:{}", &HEX[..62]),
            "SNODO_KEYS entry 2: key \"k2\": 31 bytes is too short, at least 32 required".into(),
        ),
        (
            &format!("{ok},k2:{}", "ab".repeat(1025)),
            "SNODO_KEYS entry 2: key \"k2\": longer than 1024 bytes".into(),
        ),
        (
            &format!("a.b:{HEX}"),
            "SNODO_KEYS entry 1: key id must be 1 to 32 characters of A-Z a-z 0-9 _ -".into(),
        ),
        (
            &format!("c2VjcmV0 x:{HEX}"),
            "SNODO_KEYS entry 1: key id must be 1 to 32 characters of A-Z a-z 0-9 _ -".into(),
        ),
        (
            &format!("{ok},k2:{HEX},k1:{HEX}"),
            "SNODO_KEYS entry 3: key \"k1\" repeats entry 1; ids must differ".into(),
        ),
        (&[ok.as_str(); 9].join(","), "SNODO_KEYS: 9 entries, at most 8 keys".into()),
    ];
    for (spec, expected) in cases {
        assert_eq!(message(spec), expected, "{spec:.40}");
    }
}

#[test]
fn hex_base64_and_url_safe_with_spaces() {
    let b64 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
    let url = "-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_s";
    let ring = parse_keys(&format!(" new : {b64} , old:{HEX},u:{url}")).unwrap();
    assert_eq!(ring.iter().map(Key::id).collect::<Vec<_>>(), ["new", "old", "u"]);
    assert_eq!(parse_keys(&format!("k:{HEX}")).unwrap().len(), 1);
    let eight: Vec<String> = (0..8).map(|i| format!("k{i}:{HEX}")).collect();
    assert_eq!(parse_keys(&eight.join(",")).unwrap().len(), 8);
}
