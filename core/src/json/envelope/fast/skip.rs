//! Issue 16, sixth pass: a plain JSON value measured, not built (a
//! token's state, which `seal` writes canonical).

use serde_json::Value;

use super::super::super::canonical::plain_run;
use super::super::super::strict::MAX_DEPTH;
use super::Reader;

/// Issue 16, sixth pass: the JSON value at the start of `bytes`, as
/// text, if it is plain (no whitespace, no escapes, nesting at most
/// [`MAX_DEPTH`]) and valid, else `None`; for a token's state, which
/// `seal` writes canonical. Whatever it returns, serde_json reads as one
/// value of that text (grammar checked here, UTF-8 over the slice).
pub(crate) fn plain_value_len(bytes: &[u8]) -> Option<&str> {
    let mut r = Reader { text: bytes, at: 0 };
    r.skip(0)?;
    // A number or word ends where serde_json's stream reader ends one.
    let delimited = matches!(bytes.first(), Some(b'{' | b'[' | b'"'));
    if !delimited
        && !matches!(
            r.peek(),
            None | Some(b' ' | b'\n' | b'\t' | b'\r' | b'"' | b'[' | b']' | b'{' | b'}' | b',' | b':')
        )
    {
        return None;
    }
    std::str::from_utf8(bytes.get(..r.at)?).ok()
}

impl Reader<'_> {
    /// Checks one plain value at nesting `depth` (see [`plain_value_len`]).
    fn skip(&mut self, depth: usize) -> Option<()> {
        match self.peek()? {
            b'{' | b'[' => {
                let close = if self.peek()? == b'{' { b'}' } else { b']' };
                if depth >= MAX_DEPTH {
                    return None;
                }
                self.at += 1;
                if self.eat(close).is_some() {
                    return Some(());
                }
                loop {
                    if close == b'}' {
                        self.skip_string()?;
                        self.eat(b':')?;
                    }
                    self.skip(depth + 1)?;
                    match self.peek()? {
                        b',' => self.at += 1,
                        b if b == close => {
                            self.at += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b'"' => self.skip_string(),
            b'-' | b'0'..=b'9' => {
                self.number_any()?;
                Some(())
            }
            b't' => self.word(b"true", Value::Null).map(drop),
            b'f' => self.word(b"false", Value::Null).map(drop),
            b'n' => self.word(b"null", Value::Null).map(drop),
            _ => None,
        }
    }

    /// A string without escapes or control characters (UTF-8 is checked
    /// by the caller over the whole value).
    fn skip_string(&mut self) -> Option<()> {
        self.eat(b'"')?;
        let rest = self.text.get(self.at..)?;
        let len = plain_run(rest);
        (rest.get(len) == Some(&b'"')).then(|| self.at += len + 1)
    }

    /// Any JSON number (exponents too), by the grammar.
    fn number_any(&mut self) -> Option<()> {
        self.eat(b'-');
        match self.peek()? {
            b'0' => self.at += 1,
            b'1'..=b'9' => self.digits(),
            _ => return None,
        }
        if self.eat(b'.').is_some() {
            self.peek()?.is_ascii_digit().then_some(())?;
            self.digits();
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            self.peek()?.is_ascii_digit().then_some(())?;
            self.digits();
        }
        Some(())
    }
}
