//! Dict key text remembered across calls (issue 16, the per-call cost of
//! `decide`, `Call.response`, `seal`): an application passes the same key
//! objects on every call (string literals in its code, the questions it
//! built once), and reading a `str`'s text into a `String` costs a call
//! into Python and a copy, where a remembered key costs the copy alone.
//!
//! Keys are found by the address of their `str` object. To make that
//! address mean the same object forever, the table holds a strong
//! reference to each key it remembers and never gives it back: at most
//! [`SLOTS`] short strings stay alive for the life of the process (the
//! first ones seen in each slot; a later key whose slot is taken is read
//! the ordinary way). Every use holds the GIL, so the lock is never
//! contended.

use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::PyString;

/// Slots in the table (a key's slot comes from its address).
const SLOTS: usize = 256;

/// Keys longer than this are not remembered (a long key is rare, and is not
/// kept alive for nothing).
const MAX_KEY_BYTES: usize = 64;

/// A remembered key: its object's address and its text.
type Entry = Option<(usize, Box<str>)>;

static TABLE: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

fn slot(addr: usize) -> usize {
    // Objects are 16-byte aligned: drop the low bits, fold in higher ones.
    ((addr >> 4) ^ (addr >> 12)) % SLOTS
}

/// The UTF-8 of the dict key `key` appended to `out`, from the table when
/// it is there (the state text writer's keys: no `String` made on a hit).
pub(super) fn push_key_text(key: &Bound<'_, PyString>, out: &mut String) -> PyResult<()> {
    let addr = key.as_ptr() as usize;
    if let Ok(table) = TABLE.lock()
        && let Some(Some((a, text))) = table.get(slot(addr))
        && *a == addr
    {
        out.push_str(text);
        return Ok(());
    }
    out.push_str(&key_text(key)?);
    Ok(())
}

/// The text of the dict key `key`, from the table when it is there.
pub(super) fn key_text(key: &Bound<'_, PyString>) -> PyResult<String> {
    let addr = key.as_ptr() as usize;
    let at = slot(addr);
    // A poisoned lock (a panic elsewhere while held) only loses the cache.
    if let Ok(table) = TABLE.lock()
        && let Some(Some((a, text))) = table.get(at)
        && *a == addr
    {
        return Ok(String::from(&**text));
    }
    let text = key.to_cow()?.into_owned();
    if text.len() <= MAX_KEY_BYTES
        && let Ok(mut table) = TABLE.lock()
    {
        if table.is_empty() {
            table.resize_with(SLOTS, || None);
        }
        if let Some(entry @ None) = table.get_mut(at) {
            *entry = Some((addr, text.clone().into_boxed_str()));
            // The table's reference: this object now lives as long as the
            // process, so no other object can take its address.
            std::mem::forget(key.clone());
        }
    }
    Ok(text)
}
