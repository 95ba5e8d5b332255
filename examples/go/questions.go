// SPDX-License-Identifier: MIT OR Apache-2.0

package snodo

/*
#include <stdlib.h>
#include <snodo.h>
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// Question is an input request as an immutable value (libsnodo's
// snodo_question): validated once, with its canonical JSON and digest
// computed once. The builders (ElicitForm, ElicitURL, ...) and
// QuestionFromJSON make one; Call.Response reads its answer and
// Engine.DecideInputRequired asks it. Build a question once, at start-up,
// and use it from any number of goroutines; Close it when none uses it any
// more (a finalizer frees a forgotten one).
type Question struct{ p *C.snodo_question }

// RequestKind is the kind of a question.
type RequestKind int

// The request kinds of include/snodo.h.
const (
	KindForm     RequestKind = C.SNODO_REQUEST_KIND_FORM
	KindURL      RequestKind = C.SNODO_REQUEST_KIND_URL
	KindSampling RequestKind = C.SNODO_REQUEST_KIND_SAMPLING
	KindRoots    RequestKind = C.SNODO_REQUEST_KIND_ROOTS
)

// questionOut runs a libsnodo function that makes one question.
func questionOut(f func(**C.snodo_question) C.snodo_status) (*Question, error) {
	q := &Question{}
	if err := call(func() C.snodo_status { return f(&q.p) }); err != nil {
		return nil, err
	}
	runtime.SetFinalizer(q, (*Question).Close)
	return q, nil
}

// QuestionFromJSON is the question of an input request written as JSON
// (what the builders make, or a request written by hand), with the
// builders' checks: StatusJSON, StatusInputRequest, StatusSchema, ...
func QuestionFromJSON(text string) (*Question, error) {
	b := []byte(text)
	return questionOut(func(o **C.snodo_question) C.snodo_status {
		p, l := bytesIn(b)
		return C.snodo_question_from_json(p, l, o)
	})
}

// Close frees the question; later calls do nothing. No goroutine may be
// using it any more.
func (q *Question) Close() {
	if q != nil && q.p != nil {
		C.snodo_question_free(q.p)
		q.p = nil
		runtime.SetFinalizer(q, nil)
	}
}

// JSON is the question's canonical JSON text (also compact wire JSON).
func (q *Question) JSON() (string, error) {
	if q == nil || q.p == nil {
		return "", errClosed
	}
	s, err := textOut(func(o **C.char, n *C.size_t) C.snodo_status { return C.snodo_question_to_json(q.p, o, n) })
	runtime.KeepAlive(q)
	return s, err
}

// Kind is the question's kind.
func (q *Question) Kind() (RequestKind, error) {
	if q == nil || q.p == nil {
		return KindForm, errClosed
	}
	var k C.snodo_request_kind
	err := call(func() C.snodo_status { return C.snodo_question_kind(q.p, &k) })
	runtime.KeepAlive(q)
	return RequestKind(k), err
}

// Ask is one entry of an input_required outcome: a key and the question
// asked under it.
type Ask struct {
	Key      string
	Question *Question
}

// cAsks is asks as libsnodo's snodo_input_request array (nil for none) and
// the function that frees it. The entries hold pointers, so the array and
// the keys live in C memory (cgo forbids passing Go memory that holds Go
// pointers); the questions are libsnodo's own handles. A closed question is
// passed as NULL, which libsnodo refuses with StatusNullArgument.
func cAsks(asks []Ask) (*C.snodo_input_request, func()) {
	var blocks []unsafe.Pointer
	free := func() {
		for _, b := range blocks {
			C.free(b)
		}
	}
	if len(asks) == 0 {
		return nil, free
	}
	mem := C.calloc(C.size_t(len(asks)), C.size_t(unsafe.Sizeof(C.snodo_input_request{})))
	blocks = append(blocks, mem)
	items := unsafe.Slice((*C.snodo_input_request)(mem), len(asks))
	for i, a := range asks {
		key := C.CBytes(append([]byte(a.Key), 0))
		blocks = append(blocks, key)
		var q *C.snodo_question
		if a.Question != nil {
			q = a.Question.p
		}
		items[i] = C.snodo_input_request{key: (*C.uint8_t)(key), key_len: C.size_t(len(a.Key)), question: q}
	}
	return (*C.snodo_input_request)(mem), free
}

// stateIn is an optional JSON state ("" = none) as pointer + length.
func stateIn(b []byte) (*C.uint8_t, C.size_t) {
	if len(b) == 0 {
		return nil, 0
	}
	return bytesIn(b)
}

// DecideInputRequired asks the questions of asks, carrying state (JSON text;
// "" for none) to the retry: the same response as Decide with the outcome
// {"type":"input_required","inputRequests":{...},"state":...}.
func (e *Engine) DecideInputRequired(c *Call, asks []Ask, state string) (*Response, error) {
	if e.p == nil || c == nil || c.p == nil {
		return nil, errClosed
	}
	arr, free := cAsks(asks)
	defer free()
	var rp *C.snodo_response
	sb := []byte(state)
	err := call(func() C.snodo_status {
		sp, sl := stateIn(sb)
		return C.snodo_engine_decide_input_required(e.p, c.p, arr, C.size_t(len(asks)), sp, sl, &rp)
	})
	runtime.KeepAlive(e)
	runtime.KeepAlive(c)
	runtime.KeepAlive(asks)
	if err != nil {
		return nil, err
	}
	return wrapResponse(rp), nil
}

// DecideLegacyInputRequired is DecideLegacy of the outcome that asks asks
// (as DecideInputRequired).
func (e *Engine) DecideLegacyInputRequired(c *Call, asks []Ask, state string) (BridgeKind, *Response, *PendingFlow, *Call, error) {
	if e.p == nil || c == nil || c.p == nil {
		return BridgeRespond, nil, nil, nil, errClosed
	}
	arr, free := cAsks(asks)
	defer free()
	var kind C.snodo_bridge_kind
	var rp *C.snodo_response
	var fp *C.snodo_pending_flow
	var cp *C.snodo_call
	sb := []byte(state)
	err := call(func() C.snodo_status {
		sp, sl := stateIn(sb)
		return C.snodo_engine_decide_legacy_input_required(e.p, c.p, arr, C.size_t(len(asks)), sp, sl, &kind, &rp, &fp, &cp)
	})
	runtime.KeepAlive(e)
	runtime.KeepAlive(c)
	runtime.KeepAlive(asks)
	if err != nil {
		return BridgeRespond, nil, nil, nil, err
	}
	return BridgeKind(kind), wrapResponse(rp), wrapPending(fp), wrapCall(cp), nil
}
