//! The plumbing every export shares: the panic boundary, reading pointer + length arguments, out-params, and
//! snodo-allocated strings.
//!
//! Each `unsafe fn` here asks the header's pointer contract of its pointers (NULL, or valid for what the
//! argument says, for the call's duration); NULL is checked here, the rest is the caller's promise.

use std::any::Any;
use std::ffi::c_char;
use std::panic::{AssertUnwindSafe, catch_unwind};

use serde_json::Value;

use crate::error::{Fail, set_last_error, snodo_status};

fn panic_detail(payload: &(dyn Any + Send)) -> String {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown payload".into());
    format!("panic: {what}")
}

/// The panic boundary of every fallible export: clears the last error, runs `f`, and turns an `Err` or a
/// panic into a status plus last error.
pub(crate) fn guard(f: impl FnOnce() -> Result<(), Fail>) -> snodo_status {
    set_last_error(None);
    guard_keep_error(f)
}

/// [`guard`] without clearing the last error first (for `snodo_last_error`).
pub(crate) fn guard_keep_error(f: impl FnOnce() -> Result<(), Fail>) -> snodo_status {
    // AssertUnwindSafe: on a panic nothing observable is left half-updated, because out-params are written
    // only as the last step of success.
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => snodo_status::Ok,
        Ok(Err(fail)) => {
            let status = fail.status;
            set_last_error(Some(fail));
            status
        }
        Err(payload) => {
            set_last_error(Some(Fail::new(snodo_status::Panic, panic_detail(payload.as_ref()))));
            snodo_status::Panic
        }
    }
}

/// Moves a value into a new handle for the C caller.
pub(crate) fn into_handle<T>(value: T) -> *mut T {
    Box::into_raw(Box::new(value))
}

/// Frees a handle made by [`into_handle`] (NULL is a no-op), inside the panic boundary of the `void` exports.
///
/// # Safety
///
/// `ptr` is NULL or a handle from [`into_handle`] not yet freed.
pub(crate) unsafe fn free_handle<T: ?Sized>(ptr: *mut T) {
    if !ptr.is_null() {
        // SAFETY: made by Box::into_raw and not yet freed, per the contract.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(ptr) })));
    }
}

/// Borrows an array of `len` values at `ptr`; NULL is an empty array when `len` is 0, else NULL_ARGUMENT.
pub(crate) unsafe fn slice<'a, T>(ptr: *const T, len: usize, what: &str) -> Result<&'a [T], Fail> {
    if ptr.is_null() {
        return if len == 0 { Ok(&[]) } else { Err(Fail::null(what)) };
    }
    // slice::from_raw_parts requires len * size <= isize::MAX; refuse before UB.
    if len > isize::MAX as usize / size_of::<T>().max(1) {
        return Err(Fail::new(snodo_status::Argument, format!("{what}: length {len} is too large")));
    }
    // SAFETY: non-NULL and valid for `len` values, per the contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Borrows `len` bytes at `ptr`. NULL is NULL_ARGUMENT even with `len` 0: an empty input is any non-NULL
/// pointer with length 0.
pub(crate) unsafe fn bytes<'a>(ptr: *const u8, len: usize, what: &str) -> Result<&'a [u8], Fail> {
    if ptr.is_null() {
        return Err(Fail::null(what));
    }
    unsafe { slice(ptr, len, what) }
}

/// Borrows UTF-8 text at `ptr` (see [`bytes`]).
pub(crate) unsafe fn text<'a>(ptr: *const u8, len: usize, what: &str) -> Result<&'a str, Fail> {
    std::str::from_utf8(unsafe { bytes(ptr, len, what) }?).map_err(|e| {
        Fail::new(snodo_status::InvalidUtf8, format!("{what}: invalid UTF-8 at byte {}", e.valid_up_to()))
    })
}

/// [`text`], NULL meaning absent.
pub(crate) unsafe fn text_opt<'a>(ptr: *const u8, len: usize, what: &str) -> Result<Option<&'a str>, Fail> {
    if ptr.is_null() { Ok(None) } else { unsafe { text(ptr, len, what) }.map(Some) }
}

/// Parses a JSON argument strictly with the core's one reader.
pub(crate) unsafe fn json(ptr: *const u8, len: usize, what: &str) -> Result<Value, Fail> {
    Ok(snodo::parse_json(unsafe { text(ptr, len, what) }?.as_bytes(), what)?)
}

/// [`json`], NULL meaning absent.
pub(crate) unsafe fn json_opt(ptr: *const u8, len: usize, what: &str) -> Result<Option<Value>, Fail> {
    if ptr.is_null() { Ok(None) } else { unsafe { json(ptr, len, what) }.map(Some) }
}

/// A JSON array of strings; anything else is CONFIG.
pub(crate) unsafe fn string_list(ptr: *const u8, len: usize, what: &str) -> Result<Vec<String>, Fail> {
    let list = unsafe { json(ptr, len, what) }?;
    let items = list.as_array().and_then(|a| a.iter().map(|v| v.as_str().map(str::to_owned)).collect());
    items.ok_or_else(|| Fail::new(snodo_status::Config, format!("{what}: must be a JSON array of strings")))
}

/// Borrows the object behind a handle (NULL or a live `T` made by snodo).
pub(crate) unsafe fn handle<'a, T>(ptr: *const T, what: &str) -> Result<&'a T, Fail> {
    // SAFETY: per the contract, non-NULL means a live, properly aligned T.
    unsafe { ptr.as_ref() }.ok_or_else(|| Fail::null(what))
}

/// [`handle`] for a call that changes the handle (no other thread uses it).
pub(crate) unsafe fn handle_mut<'a, T>(ptr: *mut T, what: &str) -> Result<&'a mut T, Fail> {
    // SAFETY: per the contract, non-NULL means a live T used by this thread only.
    unsafe { ptr.as_mut() }.ok_or_else(|| Fail::null(what))
}

/// The body of every handle's text readers: checks the handle and the outs, then writes what `f` returns
/// (`None`: NULL and length 0), so that the NULL and panic rules cannot differ between handles.
pub(crate) unsafe fn read_text<H>(
    ptr: *const H,
    what: &str,
    out: *mut *mut c_char,
    out_len: *mut usize,
    f: impl FnOnce(&H) -> Option<String>,
) -> snodo_status {
    unsafe { read_text_or(ptr, what, out, out_len, |h| Ok(f(h))) }
}

/// [`read_text`] whose `f` may fail: it reads more arguments, or applies to some handles only.
pub(crate) unsafe fn read_text_or<H>(
    ptr: *const H,
    what: &str,
    out: *mut *mut c_char,
    out_len: *mut usize,
    f: impl FnOnce(&H) -> Result<Option<String>, Fail>,
) -> snodo_status {
    guard(|| {
        let h = unsafe { handle(ptr, what) }?;
        unsafe { OutStr::new(out, out_len) }?.write_opt(f(h)?.as_deref().map(str::as_bytes))
    })
}

/// [`read_text`] of a JSON value (`None`: the text `null`).
pub(crate) unsafe fn read_json<H>(
    ptr: *const H,
    what: &str,
    out: *mut *mut c_char,
    out_len: *mut usize,
    f: impl FnOnce(&H) -> Option<Value>,
) -> snodo_status {
    unsafe { read_text(ptr, what, out, out_len, |h| Some(snodo::to_wire(&f(h).unwrap_or(Value::Null)))) }
}

/// The body of the exports that make a handle: `f` reads the arguments and makes the value inside the panic
/// boundary, and the new handle goes to `*out`.
pub(crate) unsafe fn make<T>(out: *mut *mut T, f: impl FnOnce() -> Result<T, Fail>) -> snodo_status {
    guard(|| unsafe { Out::new(out, "out") }?.write(into_handle(f()?)))
}

/// The body of every handle's scalar readers.
pub(crate) unsafe fn read_scalar<H, T>(
    ptr: *const H,
    what: &str,
    out: *mut T,
    f: impl FnOnce(&H) -> T,
) -> snodo_status {
    unsafe { read_scalar_or(ptr, what, out, |h| Ok(f(h))) }
}

/// [`read_scalar`] whose `f` may fail, as [`read_text_or`]'s.
pub(crate) unsafe fn read_scalar_or<H, T>(
    ptr: *const H,
    what: &str,
    out: *mut T,
    f: impl FnOnce(&H) -> Result<T, Fail>,
) -> snodo_status {
    guard(|| {
        let h = unsafe { handle(ptr, what) }?;
        unsafe { Out::new(out, "out") }?.write(f(h)?)
    })
}

/// The texts a store command lends C: its key and arguments, NUL-terminated so that C gets both a pointer +
/// length and a C string.
#[derive(Debug)]
pub(crate) struct Lent {
    pub(crate) key: Box<[u8]>,
    pub(crate) args: Vec<Box<[u8]>>,
}

pub(crate) fn nul_terminated(s: &str) -> Box<[u8]> {
    [s.as_bytes(), &[0]].concat().into_boxed_slice()
}

impl Lent {
    pub(crate) fn new(key: &str, args: &[String]) -> Lent {
        Lent { key: nul_terminated(key), args: args.iter().map(|a| nul_terminated(a)).collect() }
    }

    /// Argument `index` of a `machine` command whose op is `op`, or ARGUMENT saying how many it has.
    pub(crate) fn arg(&self, machine: &str, op: &str, index: usize) -> Result<&[u8], Fail> {
        let n = self.args.len();
        self.args.get(index).map(AsRef::as_ref).ok_or_else(|| {
            let why = format!("{machine} command: no argument {index} (a {op} command has {n})");
            Fail::new(snodo_status::Argument, why)
        })
    }
}

/// The body of the lent text readers: `*out` points at `f`'s bytes (which end with a NUL), `*out_len`
/// (optional) is the length without it.
pub(crate) unsafe fn read_lent<H>(
    ptr: *const H,
    what: &str,
    out: *mut *const c_char,
    out_len: *mut usize,
    f: impl for<'a> FnOnce(&'a H) -> Result<&'a [u8], Fail>,
) -> snodo_status {
    guard(|| {
        let (h, out) = unsafe { (handle(ptr, what)?, Out::new(out, "out")?) };
        let bytes = f(h)?;
        if !out_len.is_null() {
            // SAFETY: non-NULL, and valid for one write per the header's contract.
            unsafe { out_len.write(bytes.len().saturating_sub(1)) }
        }
        out.write(bytes.as_ptr().cast())
    })
}

/// An out-param, checked non-NULL when made and written only on success.
pub(crate) struct Out<T>(*mut T);

impl<T> Out<T> {
    /// # Safety
    ///
    /// `ptr` is NULL or valid for one write of `T` until [`Out::write`].
    pub(crate) unsafe fn new(ptr: *mut T, what: &str) -> Result<Out<T>, Fail> {
        if ptr.is_null() { Err(Fail::null(what)) } else { Ok(Out(ptr)) }
    }

    /// Writes the value; `Ok`, so that the write, the last step of a success, can end an export's body.
    pub(crate) fn write(self, value: T) -> Result<(), Fail> {
        // SAFETY: non-NULL, and valid for one write as `new`'s caller promised.
        unsafe { self.0.write(value) };
        Ok(())
    }
}

/// A text out-param pair: `char **out` (required) and `size_t *out_len` (optional, NULL or valid for one
/// write).
pub(crate) struct OutStr(Out<*mut c_char>, *mut usize);

impl OutStr {
    pub(crate) unsafe fn new(out: *mut *mut c_char, out_len: *mut usize) -> Result<OutStr, Fail> {
        Ok(OutStr(unsafe { Out::new(out, "out") }?, out_len))
    }

    /// Writes a snodo-allocated, NUL-terminated copy of `bytes`, or NULL and length 0 for `None`.
    pub(crate) fn write_opt(self, bytes: Option<&[u8]>) -> Result<(), Fail> {
        if !self.1.is_null() {
            // SAFETY: non-NULL, and valid for one write as `new`'s caller promised.
            unsafe { self.1.write(bytes.map_or(0, <[u8]>::len)) }
        }
        self.0.write(bytes.map_or(std::ptr::null_mut(), alloc_string))
    }

    pub(crate) fn write(self, bytes: &[u8]) -> Result<(), Fail> {
        self.write_opt(Some(bytes))
    }

    /// Writes `value` as compact JSON text.
    pub(crate) fn write_json(self, value: &Value) -> Result<(), Fail> {
        self.write(snodo::to_wire(value).as_bytes())
    }
}

/// Bytes before every snodo string that hold its length, so that `snodo_string_free` needs only the pointer.
const HEADER: usize = std::mem::size_of::<usize>();

fn alloc_string(bytes: &[u8]) -> *mut c_char {
    let mut buf = Vec::with_capacity(HEADER + bytes.len() + 1);
    buf.extend_from_slice(&bytes.len().to_ne_bytes());
    buf.extend_from_slice(bytes);
    buf.push(0);
    let raw = Box::into_raw(buf.into_boxed_slice()).cast::<u8>();
    // SAFETY: the allocation is HEADER + len + 1 bytes long.
    unsafe { raw.add(HEADER) }.cast::<c_char>()
}

/// Frees a string that snodo returned (any `char **out` of this API). NULL is a no-op; any other pointer (a
/// string not from snodo, or one already freed) is undefined behaviour. A string may be freed on any thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_string_free(s: *mut c_char) {
    if s.is_null() {
        return;
    }
    // SAFETY: `s` came from alloc_string, HEADER bytes past the start of a boxed slice whose first HEADER
    // bytes hold the text length.
    unsafe {
        let start = s.cast::<u8>().sub(HEADER);
        let len = start.cast::<usize>().read_unaligned();
        free_handle(std::ptr::slice_from_raw_parts_mut(start, HEADER + len + 1));
    }
}
