//! The hand reader's `params._meta` (issue 16, sixth and twelfth passes):
//! the members `begin` reads split off; the capabilities and client info
//! shared from this thread's memo (`memo.rs`); a protocol version or
//! method snodo knows held as a `'static` text, not a copy.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::super::META_KNOWN;
use super::{Reader, memo};

/// The other texts [`interned`] knows: the task update and the 2025
/// versions (named by layers above this one, `tasks::TASKS_UPDATE` and
/// `DEFAULT_LEGACY_VERSIONS`, which `fast/tests.rs` holds this list to),
/// and the list methods and `ping`.
const OTHER_TEXTS: [&str; 8] = [
    "tasks/update",
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "tools/list",
    "resources/list",
    "prompts/list",
    "ping",
];

/// The method names and protocol versions a `Call` holds without a copy
/// of its own (issue 16, twelfth pass: an allocation each per request):
/// `text` as a `'static` text when it is one of them (the MRTR methods
/// and version, [`OTHER_TEXTS`]); an exact match, so the same text.
pub(crate) fn interned(text: &str) -> Option<&'static str> {
    crate::MRTR_METHODS
        .iter()
        .chain([&crate::MRTR_VERSION])
        .chain(OTHER_TEXTS.iter())
        .find(|known| **known == text)
        .copied()
}

impl Reader<'_> {
    /// `params._meta` (nesting 2) when an object (else the serde walk's):
    /// the members `begin` reads into `known`, the others kept, so that
    /// `begin` takes nothing out of a map (issue 16, sixth pass). The
    /// capabilities and client info, when objects, go into `shared`
    /// instead, from this thread's memo when their text is kept there
    /// (twelfth pass, `memo.rs`).
    pub(super) fn meta(
        &mut self,
        known: &mut [Option<Value>; 3],
        shared: &mut [Option<Arc<Value>>; 2],
        version: &mut Option<&'static str>,
    ) -> Option<Value> {
        if self.peek()? != b'{' {
            return None;
        }
        let mut map = Map::new();
        self.members(|r, key| {
            if let Some(i) = META_KNOWN.iter().position(|k| *k == key) {
                let share = i.checked_sub(1).and_then(|s| shared.get_mut(s));
                if known.get(i)?.is_some()
                    || share.as_ref().is_some_and(|s| s.is_some())
                    || (i == 0 && version.is_some())
                {
                    return None;
                }
                match share {
                    Some(slot) if r.peek()? == b'{' => *slot = Some(r.shared_object()?),
                    _ => {
                        // Twelfth pass: a version snodo knows is not copied.
                        let start = r.at;
                        if i == 0 && r.peek()? == b'"' {
                            if let Some(v) = r.string().and_then(interned) {
                                *version = Some(v);
                                return Some(());
                            }
                            r.at = start;
                        }
                        *known.get_mut(i)? = Some(r.tree(3)?);
                    }
                }
                return Some(());
            }
            match map.entry(key) {
                serde_json::map::Entry::Occupied(_) => None,
                serde_json::map::Entry::Vacant(slot) => {
                    slot.insert(r.tree(3)?);
                    Some(())
                }
            }
        })?;
        Some(Value::Object(map))
    }

    /// An object member of `_meta` (nesting 3), shared: the memo's tree
    /// when the text here starts with one it keeps, else the tree built
    /// now (and kept).
    fn shared_object(&mut self) -> Option<Arc<Value>> {
        let rest = self.text.get(self.at..)?;
        if let Some((len, tree)) = memo::find(rest) {
            self.at += len;
            return Some(tree);
        }
        let start = self.at;
        let tree = Arc::new(self.tree(3)?);
        memo::keep(self.text.get(start..self.at)?, &tree);
        Some(tree)
    }
}
