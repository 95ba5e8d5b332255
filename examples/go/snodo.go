// Package snodo wraps libsnodo, the C ABI of snodo (MCP multi round-trip
// requests), for Go through cgo. It needs nothing but include/snodo.h and an
// installed libsnodo: there is no Go binding in the project, and this package
// is the proof that one is not needed (see README.md for building).
//
// Ownership follows the C library: every handle (Config, Engine, Call,
// Response) has a Close method that frees it; Close is idempotent, and a
// finalizer frees a handle that was never closed, as a safety net only.
//
// Goroutine safety follows the C docs: an Engine is immutable and may be
// shared by any number of goroutines; a Config, a Call and a Response must be
// used by one goroutine at a time. Closing a handle while another goroutine
// still uses it is a bug in the caller.
//
// SPDX-License-Identifier: MIT OR Apache-2.0
package snodo

/*
#cgo LDFLAGS: -lsnodo
#include <stdlib.h>
#include <snodo.h>

*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"
)

// BindingLen is the length of a request binding digest in bytes.
const BindingLen = C.SNODO_BINDING_LEN

// ABIVersion is the C ABI version of the header this package was built with.
const ABIVersion = C.SNODO_ABI_VERSION

// Status is a libsnodo status code. The numbers are the C library's.
type Status int

// The statuses of include/snodo.h; new ones may appear, so treat any value
// other than StatusOK as a failure.
const (
	StatusOK             Status = C.SNODO_STATUS_OK
	StatusConfig         Status = C.SNODO_STATUS_CONFIG
	StatusSchema         Status = C.SNODO_STATUS_SCHEMA
	StatusURL            Status = C.SNODO_STATUS_URL
	StatusSampling       Status = C.SNODO_STATUS_SAMPLING
	StatusInputRequest   Status = C.SNODO_STATUS_INPUT_REQUEST
	StatusJSON           Status = C.SNODO_STATUS_JSON
	StatusStateTooLarge  Status = C.SNODO_STATUS_STATE_TOO_LARGE
	StatusToken          Status = C.SNODO_STATUS_TOKEN
	StatusNotARequest    Status = C.SNODO_STATUS_NOT_A_REQUEST
	StatusArgument       Status = C.SNODO_STATUS_ARGUMENT
	StatusAlreadyDecided Status = C.SNODO_STATUS_ALREADY_DECIDED
	StatusStore          Status = C.SNODO_STATUS_STORE
	StatusNullArgument   Status = C.SNODO_STATUS_NULL_ARGUMENT
	StatusInvalidUTF8    Status = C.SNODO_STATUS_INVALID_UTF8
	StatusPanic          Status = C.SNODO_STATUS_PANIC
)

// Name is the stable name of the status, e.g. "SCHEMA" ("UNKNOWN" for a
// value libsnodo does not know).
func (s Status) Name() string { return C.GoString(C.snodo_status_name(C.int(s))) }

// String is the static message of the status.
func (s Status) String() string { return C.GoString(C.snodo_status_message(C.int(s))) }

// Error is a failed libsnodo call: the status, its stable name, the
// thread's last-error detail ("NAME: detail") read right after the call, and
// for StatusToken the stable token reason (e.g. "expired").
type Error struct {
	Status Status
	Name   string
	Detail string
	Reason string
}

func (e *Error) Error() string {
	if e.Detail != "" {
		return "snodo: " + e.Detail
	}
	return fmt.Sprintf("snodo: %s: %s", e.Name, e.Status)
}

// Message is the detail without its "NAME: " prefix (the core's message).
func (e *Error) Message() string {
	p := e.Name + ": "
	if len(e.Detail) >= len(p) && e.Detail[:len(p)] == p {
		return e.Detail[len(p):]
	}
	return e.Detail
}

// call runs one fallible libsnodo function and turns a failure into an
// *Error. libsnodo keeps the error detail in a thread-local, and the Go
// scheduler may move a goroutine to another OS thread between two cgo
// calls, so the goroutine stays on its thread from the call until the
// detail has been read.
func call(f func() C.snodo_status) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	st := Status(f())
	if st == StatusOK {
		return nil
	}
	e := &Error{Status: st, Name: st.Name()}
	var p *C.char
	var n C.size_t
	if C.snodo_last_error(&p, &n) == C.SNODO_STATUS_OK {
		e.Detail = take(p, n)
	}
	if st == StatusToken {
		p, n = nil, 0
		if C.snodo_last_token_reason(&p, &n) == C.SNODO_STATUS_OK {
			e.Reason = take(p, n)
		}
	}
	return e
}

// take copies a snodo-allocated string into Go memory and frees it.
func take(p *C.char, n C.size_t) string {
	if p == nil {
		return ""
	}
	s := C.GoStringN(p, C.int(n))
	C.snodo_string_free(p)
	return s
}

// nonEmpty backs empty inputs: libsnodo wants a non-NULL pointer even for
// length 0 (NULL is a misuse, or "absent" where documented).
var nonEmpty [1]byte

// bytesIn is Go bytes as libsnodo's pointer + length. The pointer is to Go
// memory holding no Go pointers, which cgo allows for the call's duration.
func bytesIn(b []byte) (*C.uint8_t, C.size_t) {
	if len(b) == 0 {
		return (*C.uint8_t)(unsafe.Pointer(&nonEmpty[0])), 0
	}
	return (*C.uint8_t)(unsafe.Pointer(&b[0])), C.size_t(len(b))
}

// textOut runs a function that returns one snodo string.
func textOut(f func(out **C.char, n *C.size_t) C.snodo_status) (string, error) {
	var p *C.char
	var n C.size_t
	if err := call(func() C.snodo_status { return f(&p, &n) }); err != nil {
		return "", err
	}
	return take(p, n), nil
}

// Version is the library version, e.g. "0.1.0".
func Version() string { return C.GoString(C.snodo_version()) }

// LibraryABIVersion is the ABI version of the loaded shared library; compare
// it with ABIVersion at start-up to catch a mismatched libsnodo.
func LibraryABIVersion() uint32 { return uint32(C.snodo_abi_version()) }

// Principal is the verified user a request runs for. The zero value is the
// explicit anonymous principal; User names one (an empty name is refused
// with StatusArgument, as in C).
type Principal struct {
	name  string
	named bool
}

// Anonymous is the explicit anonymous principal.
var Anonymous = Principal{}

// User is the principal with this name.
func User(name string) Principal { return Principal{name: name, named: true} }

// in is the principal as libsnodo's pointer + length (NULL = anonymous).
func (p Principal) in() (*C.uint8_t, C.size_t) {
	if !p.named {
		return nil, 0
	}
	return bytesIn([]byte(p.name))
}
