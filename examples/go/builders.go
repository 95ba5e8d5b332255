// SPDX-License-Identifier: MIT OR Apache-2.0

package snodo

/*
#include <stdlib.h>
#include <snodo.h>

// The deprecated builders warn at compile time; the wrapper keeps them
// (the vectors still pin their output) and silences the warning only here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static snodo_status go_snodo_sampling(const uint8_t *p, size_t n, snodo_question **out) {
	return snodo_sampling(p, n, out);
}
static snodo_status go_snodo_list_roots(snodo_question **out) {
	return snodo_list_roots(out);
}
#pragma GCC diagnostic pop
*/
import "C"

import "unsafe"

// The functions below are stateless and safe from any goroutine.

// two runs a libsnodo function of two texts that returns one text.
func two(a, b string, f func(*C.uint8_t, C.size_t, *C.uint8_t, C.size_t, **C.char, *C.size_t) C.snodo_status) (string, error) {
	ab, bb := []byte(a), []byte(b)
	return textOut(func(o **C.char, n *C.size_t) C.snodo_status {
		ap, al := bytesIn(ab)
		bp, bl := bytesIn(bb)
		return f(ap, al, bp, bl, o, n)
	})
}

// twoQuestion runs a builder of two texts.
func twoQuestion(a, b string, f func(*C.uint8_t, C.size_t, *C.uint8_t, C.size_t, **C.snodo_question) C.snodo_status) (*Question, error) {
	ab, bb := []byte(a), []byte(b)
	return questionOut(func(o **C.snodo_question) C.snodo_status {
		ap, al := bytesIn(ab)
		bp, bl := bytesIn(bb)
		return f(ap, al, bp, bl, o)
	})
}

// ElicitForm builds a form elicitation question from a message and a
// requestedSchema (JSON text); a schema outside the spec's subset is
// StatusSchema.
func ElicitForm(message, schema string) (*Question, error) {
	return twoQuestion(message, schema, func(a *C.uint8_t, al C.size_t, b *C.uint8_t, bl C.size_t, o **C.snodo_question) C.snodo_status {
		return C.snodo_elicit_form(a, al, b, bl, o)
	})
}

// ElicitURL builds a URL elicitation question.
func ElicitURL(message, url string) (*Question, error) {
	return twoQuestion(message, url, func(a *C.uint8_t, al C.size_t, b *C.uint8_t, bl C.size_t, o **C.snodo_question) C.snodo_status {
		return C.snodo_elicit_url(a, al, b, bl, o)
	})
}

// ElicitFormWithoutLint is ElicitForm without the advisory lint checks.
func ElicitFormWithoutLint(message, schema string) (*Question, error) {
	return twoQuestion(message, schema, func(a *C.uint8_t, al C.size_t, b *C.uint8_t, bl C.size_t, o **C.snodo_question) C.snodo_status {
		return C.snodo_elicit_form_without_lint(a, al, b, bl, o)
	})
}

// ElicitURLWithoutLint is ElicitURL without the advisory lint checks.
func ElicitURLWithoutLint(message, url string) (*Question, error) {
	return twoQuestion(message, url, func(a *C.uint8_t, al C.size_t, b *C.uint8_t, bl C.size_t, o **C.snodo_question) C.snodo_status {
		return C.snodo_elicit_url_without_lint(a, al, b, bl, o)
	})
}

// Sampling builds a sampling question from CreateMessage params (JSON).
//
// Deprecated: sampling input requests are deprecated in MCP 2026-07-28.
func Sampling(params string) (*Question, error) {
	b := []byte(params)
	return questionOut(func(o **C.snodo_question) C.snodo_status {
		p, l := bytesIn(b)
		return C.go_snodo_sampling(p, l, o)
	})
}

// ListRoots builds a roots/list question.
//
// Deprecated: roots input requests are deprecated in MCP 2026-07-28.
func ListRoots() (*Question, error) {
	return questionOut(func(o **C.snodo_question) C.snodo_status { return C.go_snodo_list_roots(o) })
}

// MissingCapabilities is the capabilities (JSON) a client declaring
// capabilities must add to receive every request in requests ("{}" if none).
func MissingCapabilities(requests, capabilities string) (string, error) {
	return two(requests, capabilities, func(a *C.uint8_t, al C.size_t, b *C.uint8_t, bl C.size_t, o **C.char, n *C.size_t) C.snodo_status {
		return C.snodo_missing_capabilities(a, al, b, bl, o, n)
	})
}

// FilterSupported keeps only the requests the client can receive (JSON object).
func FilterSupported(requests, capabilities string) (string, error) {
	return two(requests, capabilities, func(a *C.uint8_t, al C.size_t, b *C.uint8_t, bl C.size_t, o **C.char, n *C.size_t) C.snodo_status {
		return C.snodo_filter_supported(a, al, b, bl, o, n)
	})
}

// CheckTaskInputRequests checks the input requests of a tasks/get result's
// Task (JSON) against the client's capabilities; a malformed task is
// StatusInputRequest.
func CheckTaskInputRequests(task, capabilities string) (string, error) {
	return two(task, capabilities, func(a *C.uint8_t, al C.size_t, b *C.uint8_t, bl C.size_t, o **C.char, n *C.size_t) C.snodo_status {
		return C.snodo_check_task_input_requests(a, al, b, bl, o, n)
	})
}

// Canonicalize is the canonical form of a JSON text (sorted keys, numbers
// by their lexical text); input that is not strict UTF-8 JSON is StatusJSON.
func Canonicalize(input []byte) (string, error) {
	return textOut(func(o **C.char, n *C.size_t) C.snodo_status {
		p, l := bytesIn(input)
		return C.snodo_canonicalize(p, l, o, n)
	})
}

// BindingDigest is the request binding digest of method and params (a JSON
// object text).
func BindingDigest(method, params string) ([BindingLen]byte, error) {
	var d [BindingLen]byte
	mb, pb := []byte(method), []byte(params)
	err := call(func() C.snodo_status {
		mp, ml := bytesIn(mb)
		pp, pl := bytesIn(pb)
		return C.snodo_binding_digest(mp, ml, pp, pl, (*C.uint8_t)(unsafe.Pointer(&d[0])))
	})
	return d, err
}

// Header is one HTTP request header as received.
type Header struct{ Name, Value string }

// cHeaders is headers as libsnodo's snodo_header array (nil for none) and
// the function that frees it. The array holds pointers, and cgo forbids
// passing Go memory that holds Go pointers: the array and the texts live
// in C memory.
func cHeaders(headers []Header) (*C.snodo_header, func(), error) {
	var blocks []unsafe.Pointer
	free := func() {
		for _, b := range blocks {
			C.free(b)
		}
	}
	if len(headers) == 0 {
		return nil, free, nil
	}
	size := C.size_t(len(headers)) * C.size_t(unsafe.Sizeof(C.snodo_header{}))
	mem := C.malloc(size)
	if mem == nil {
		return nil, free, &Error{Status: StatusArgument, Name: "ARGUMENT", Detail: "ARGUMENT: out of memory for headers"}
	}
	blocks = append(blocks, mem)
	arr := (*C.snodo_header)(mem)
	items := unsafe.Slice(arr, len(headers))
	for i, h := range headers {
		name, value := C.CBytes(append([]byte(h.Name), 0)), C.CBytes(append([]byte(h.Value), 0))
		blocks = append(blocks, name, value)
		items[i] = C.snodo_header{
			name: (*C.uint8_t)(name), name_len: C.size_t(len(h.Name)),
			value: (*C.uint8_t)(value), value_len: C.size_t(len(h.Value)),
		}
	}
	return arr, free, nil
}

// CheckHTTPHeaders checks the headers of an HTTP POST against the JSON-RPC
// request it carries. A nil Response means go on to Begin; otherwise send
// it as is (a -32020 header mismatch, HTTP 400).
func CheckHTTPHeaders(headers []Header, request []byte) (*Response, error) {
	arr, free, err := cHeaders(headers)
	defer free()
	if err != nil {
		return nil, err
	}
	var rp *C.snodo_response
	err = call(func() C.snodo_status {
		qp, ql := bytesIn(request)
		return C.snodo_check_http_headers(arr, C.size_t(len(headers)), qp, ql, &rp)
	})
	if err != nil {
		return nil, err
	}
	return wrapResponse(rp), nil
}
