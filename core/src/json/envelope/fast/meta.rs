//! The hand reader's `params._meta` (issue 16, sixth and twelfth passes):
//! the members `begin` reads split off; the capabilities and client info
//! shared from this thread's memo (`memo.rs`); a protocol version or
//! method snodo knows held as a `'static` text, not a copy.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::super::META_KNOWN;
use super::{Reader, memo};

/// The method names and protocol versions a `Call` holds without a copy
/// of its own (issue 16, twelfth pass: an allocation each per request):
/// `text` as the same text, `'static`, when it is one of them.
pub(crate) fn interned(text: &str) -> Option<&'static str> {
    Some(match text {
        "tools/call" => "tools/call",
        "resources/read" => "resources/read",
        "prompts/get" => "prompts/get",
        "tasks/update" => "tasks/update",
        "tools/list" => "tools/list",
        "resources/list" => "resources/list",
        "prompts/list" => "prompts/list",
        "ping" => "ping",
        "2026-07-28" => "2026-07-28",
        "2025-11-25" => "2025-11-25",
        "2025-06-18" => "2025-06-18",
        "2025-03-26" => "2025-03-26",
        _ => return None,
    })
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
                        if i == 0 && version.is_none() && r.peek()? == b'"' {
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
