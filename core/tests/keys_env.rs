//! `Config::from_env` and `Engine::from_env` against the real process
//! environment. A binary of its own, with one test, so that no other test
//! reads the environment while this one changes it.
#![allow(clippy::unwrap_used)]

use snodo::{Config, Engine, ErrorCode, KEYS_ENV, Key};

const HEX: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

fn set(name: &str, value: Option<String>) {
    // SAFETY: the only test of this binary, so no other thread reads the
    // environment meanwhile.
    match value {
        Some(v) => unsafe { std::env::set_var(name, v) },
        None => unsafe { std::env::remove_var(name) },
    }
}

#[test]
fn from_env_reads_the_variable_and_names_it() {
    let name = "SNODO_KEYS_TEST_FROM_ENV";
    set(name, None);
    let e = Config::from_env_var(name).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Config);
    assert_eq!(e.message(), "SNODO_KEYS_TEST_FROM_ENV is not set: `snodo-mrtr keygen` prints an entry");
    set(name, Some("  ".into()));
    assert_eq!(Config::from_env_var(name).unwrap_err().message(), e.message());
    set(name, Some(format!("k1:{HEX},")));
    let e = Config::from_env_var(name).unwrap_err();
    assert_eq!(e.message(), "SNODO_KEYS_TEST_FROM_ENV entry 2 is empty (a stray comma?)");
    set(name, Some(format!("k2:{HEX},k1:{HEX}")));
    let mut config = Config::from_env_var(name).unwrap();
    assert_eq!(config.keys.iter().map(Key::id).collect::<Vec<_>>(), ["k2", "k1"]);
    assert_eq!(config.ttl_secs, snodo::DEFAULT_TTL_SECS);
    config.ttl_secs = 60;
    assert!(Engine::new(config).is_ok());

    set(KEYS_ENV, Some(format!("k9:{HEX}")));
    assert_eq!(Config::from_env().unwrap().keys[0].id(), "k9");
    assert!(format!("{:?}", Engine::from_env().unwrap()).contains("k9"));
    set(KEYS_ENV, Some("k9".into()));
    let e = Engine::from_env().unwrap_err();
    assert_eq!(
        (e.code(), e.message()),
        (ErrorCode::Config, "SNODO_KEYS entry 1: expected id:hex or id:base64")
    );
    set(KEYS_ENV, None);
    let e = Engine::from_env().unwrap_err();
    assert_eq!(e.message(), "SNODO_KEYS is not set: `snodo-mrtr keygen` prints an entry");
}
