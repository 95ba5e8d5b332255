//! The plumbing every export shares: the panic boundary, reading pointer +
//! length arguments, writing out-params, and snodo-allocated strings.

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

/// The panic boundary of every fallible export: clears the last error, runs
/// `f`, and turns an `Err` or a panic into a status plus last error.
pub(crate) fn guard(f: impl FnOnce() -> Result<(), Fail>) -> snodo_status {
    set_last_error(None);
    guard_keep_error(f)
}

/// [`guard`] without clearing the last error first (for `snodo_last_error`).
pub(crate) fn guard_keep_error(f: impl FnOnce() -> Result<(), Fail>) -> snodo_status {
    // AssertUnwindSafe: on a panic nothing observable is left half-updated,
    // because out-params are written only as the last step of success.
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

/// The panic boundary of `void` exports (the `_free` functions).
pub(crate) fn guard_void(f: impl FnOnce()) {
    let _ = catch_unwind(AssertUnwindSafe(f));
}

/// Borrows `len` bytes at `ptr`. NULL is always NULL_ARGUMENT, even with
/// `len == 0`: an empty input is any non-NULL pointer with length 0.
///
/// # Safety
///
/// `ptr` must be NULL or valid for reads of `len` bytes for `'a`.
pub(crate) unsafe fn bytes<'a>(ptr: *const u8, len: usize, what: &str) -> Result<&'a [u8], Fail> {
    if ptr.is_null() {
        return Err(Fail::null(what));
    }
    // slice::from_raw_parts requires len <= isize::MAX; refuse before UB.
    if len > isize::MAX as usize {
        return Err(Fail::new(snodo_status::Argument, format!("{what}: length {len} is too large")));
    }
    // SAFETY: non-NULL and valid for `len` bytes per this function's contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Borrows UTF-8 text at `ptr` (see [`bytes`]).
///
/// # Safety
///
/// As [`bytes`].
pub(crate) unsafe fn text<'a>(ptr: *const u8, len: usize, what: &str) -> Result<&'a str, Fail> {
    // SAFETY: forwarded contract.
    let b = unsafe { bytes(ptr, len, what) }?;
    std::str::from_utf8(b).map_err(|e| {
        Fail::new(snodo_status::InvalidUtf8, format!("{what}: invalid UTF-8 at byte {}", e.valid_up_to()))
    })
}

/// Parses a JSON argument strictly with the core's one reader (duplicate
/// keys, depth and `snodo::MAX_ARGUMENT_BYTES` refused).
///
/// # Safety
///
/// As [`bytes`].
pub(crate) unsafe fn json(ptr: *const u8, len: usize, what: &str) -> Result<Value, Fail> {
    // SAFETY: forwarded contract.
    let t = unsafe { text(ptr, len, what) }?;
    Ok(snodo::parse_json(t.as_bytes(), what)?)
}

/// Like [`json`], but a NULL pointer means "absent".
///
/// # Safety
///
/// As [`bytes`].
pub(crate) unsafe fn json_opt(ptr: *const u8, len: usize, what: &str) -> Result<Option<Value>, Fail> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: forwarded contract.
    unsafe { json(ptr, len, what) }.map(Some)
}

/// The body of the helpers that read two JSON arguments and write one JSON
/// result (`snodo_missing_capabilities`, `snodo_filter_supported`,
/// `snodo_check_task_input_requests`): argument conversion only, `f` is the
/// core call.
///
/// # Safety
///
/// `a` and `b` valid for their lengths; `out` valid for one pointer write;
/// `out_len` NULL or valid for one `size_t` write.
pub(crate) unsafe fn json_pair_to_json(
    (a, a_len, a_what): (*const u8, usize, &str),
    (b, b_len, b_what): (*const u8, usize, &str),
    out: *mut *mut c_char,
    out_len: *mut usize,
    f: impl FnOnce(&Value, &Value) -> Result<Value, Fail>,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let a = unsafe { json(a, a_len, a_what) }?;
        // SAFETY: caller contract.
        let b = unsafe { json(b, b_len, b_what) }?;
        let out = OutStr::new(out, out_len)?;
        let result = f(&a, &b)?;
        // SAFETY: caller contract.
        unsafe { out.write_json(&result) };
        Ok(())
    })
}

/// Borrows the object behind a handle pointer.
///
/// # Safety
///
/// `ptr` must be NULL or a live handle of type `T` created by snodo.
pub(crate) unsafe fn handle<'a, T>(ptr: *const T, what: &str) -> Result<&'a T, Fail> {
    // SAFETY: per the contract, non-NULL means a live, properly aligned T.
    unsafe { ptr.as_ref() }.ok_or_else(|| Fail::null(what))
}

/// Shared body of every handle's text readers (call, session, pending
/// flow): checks the handle and the out-params, then writes what `f`
/// returns as a new string. One body so the NULL and panic rules cannot
/// differ between handles.
///
/// # Safety
///
/// `ptr` NULL or a live handle; `out`/`out_len` as in [`OutStr::write`].
pub(crate) unsafe fn read_text<H>(
    ptr: *const H,
    what: &str,
    out: *mut *mut c_char,
    out_len: *mut usize,
    f: impl FnOnce(&H) -> Vec<u8>,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let h = unsafe { handle(ptr, what) }?;
        let out = OutStr::new(out, out_len)?;
        let bytes = f(h);
        // SAFETY: caller contract.
        unsafe { out.write(&bytes) };
        Ok(())
    })
}

/// Shared body of every handle's scalar readers.
///
/// # Safety
///
/// `ptr` NULL or a live handle; `out` NULL or valid for one write.
pub(crate) unsafe fn read_scalar<H, T>(
    ptr: *const H,
    what: &str,
    out: *mut T,
    f: impl FnOnce(&H) -> T,
) -> snodo_status {
    guard(|| {
        // SAFETY: caller contract.
        let h = unsafe { handle(ptr, what) }?;
        let out = Out::new(out, "out")?;
        let value = f(h);
        // SAFETY: caller contract.
        unsafe { out.write(value) };
        Ok(())
    })
}

/// Checks a pointer out-param up front, writes it only on success.
pub(crate) struct Out<T> {
    ptr: *mut T,
}

impl<T> Out<T> {
    pub(crate) fn new(ptr: *mut T, what: &str) -> Result<Out<T>, Fail> {
        if ptr.is_null() { Err(Fail::null(what)) } else { Ok(Out { ptr }) }
    }

    /// # Safety
    ///
    /// The pointer given to [`Out::new`] must be valid for one write of `T`.
    pub(crate) unsafe fn write(self, value: T) {
        // SAFETY: non-NULL (checked in new) and valid per the contract.
        unsafe { self.ptr.write(value) }
    }
}

/// Moves a value into a new handle for the C caller.
pub(crate) fn into_handle<T>(value: T) -> *mut T {
    Box::into_raw(Box::new(value))
}

/// Frees a handle made by [`into_handle`]; NULL is a no-op.
///
/// # Safety
///
/// `ptr` must be NULL or a handle from [`into_handle`] not yet freed.
pub(crate) unsafe fn free_handle<T>(ptr: *mut T) {
    if !ptr.is_null() {
        // SAFETY: made by Box::into_raw and not yet freed, per the contract.
        drop(unsafe { Box::from_raw(ptr) });
    }
}

/// A string out-param pair: `char **out` (required) and `size_t *out_len`
/// (optional).
pub(crate) struct OutStr {
    out: *mut *mut c_char,
    out_len: *mut usize,
}

impl OutStr {
    pub(crate) fn new(out: *mut *mut c_char, out_len: *mut usize) -> Result<OutStr, Fail> {
        if out.is_null() { Err(Fail::null("out")) } else { Ok(OutStr { out, out_len }) }
    }

    /// Writes a snodo-allocated copy of `bytes` (NUL-terminated).
    ///
    /// # Safety
    ///
    /// `out` valid for one pointer write; `out_len` NULL or valid for one write.
    pub(crate) unsafe fn write(self, bytes: &[u8]) {
        let s = alloc_string(bytes);
        // SAFETY: per the contract.
        unsafe {
            self.out.write(s);
            if !self.out_len.is_null() {
                self.out_len.write(bytes.len());
            }
        }
    }

    /// Writes NULL and length 0 (an absent optional string).
    ///
    /// # Safety
    ///
    /// As [`OutStr::write`].
    pub(crate) unsafe fn write_null(self) {
        // SAFETY: per the contract.
        unsafe {
            self.out.write(std::ptr::null_mut());
            if !self.out_len.is_null() {
                self.out_len.write(0);
            }
        }
    }

    /// Writes `value` as compact JSON text.
    ///
    /// # Safety
    ///
    /// As [`OutStr::write`].
    pub(crate) unsafe fn write_json(self, value: &Value) {
        let text = snodo::to_wire(value);
        // SAFETY: per the contract.
        unsafe { self.write(text.as_bytes()) }
    }
}

/// Bytes in front of every snodo string that remember its length, so that
/// `snodo_string_free` needs only the pointer.
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

/// Frees a string that snodo returned (any `char **out` of this API).
///
/// NULL is a no-op. Passing any other pointer (a string not from snodo, or
/// one already freed) is undefined behaviour. Thread-safe: a string may be
/// freed on any thread.
///
/// # Safety
///
/// `s` must be NULL or a string returned by snodo and not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn snodo_string_free(s: *mut c_char) {
    if s.is_null() {
        return;
    }
    guard_void(|| {
        // SAFETY: `s` came from alloc_string, HEADER bytes past the start of
        // a boxed slice whose first HEADER bytes hold the text length.
        unsafe {
            let start = s.cast::<u8>().sub(HEADER);
            let len = start.cast::<usize>().read_unaligned();
            let slice = std::ptr::slice_from_raw_parts_mut(start, HEADER + len + 1);
            drop(Box::from_raw(slice));
        }
    });
}
