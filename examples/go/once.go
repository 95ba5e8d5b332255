// SPDX-License-Identifier: MIT OR Apache-2.0

package snodo

/*
#include <snodo.h>
*/
import "C"

import "runtime"

// Issue 17: what a final round keys consume-once and remembered results
// on (docs/once.md; the store itself is the application's, e.g. Redis run
// as in examples/c/once_redis.c).

// optionalID reads one of the call's optional ids (NULL on a first round).
func (c *Call) optionalID(f func(*C.snodo_call, **C.char, *C.size_t) C.snodo_status) (string, bool, error) {
	if c == nil || c.p == nil {
		return "", false, errClosed
	}
	var p *C.char
	var n C.size_t
	err := call(func() C.snodo_status { return f(c.p, &p, &n) })
	runtime.KeepAlive(c)
	if err != nil || p == nil {
		return "", false, err
	}
	return take(p, n), true, nil
}

// FlowID is the flow id of the token this retry opened (the same for every
// round of one flow); ok is false on a first round.
func (c *Call) FlowID() (id string, ok bool, err error) {
	return c.optionalID(func(p *C.snodo_call, o **C.char, n *C.size_t) C.snodo_status {
		return C.snodo_call_flow_id(p, o, n)
	})
}

// TokenID is the random id of the token this retry opened (new every
// round: the consume-once key); ok is false on a first round.
func (c *Call) TokenID() (id string, ok bool, err error) {
	return c.optionalID(func(p *C.snodo_call, o **C.char, n *C.size_t) C.snodo_status {
		return C.snodo_call_token_id(p, o, n)
	})
}

// TokenExpiresAt is when the token this retry opened expires (Unix
// seconds); ok is false on a first round.
func (c *Call) TokenExpiresAt() (at uint64, ok bool, err error) {
	if c == nil || c.p == nil {
		return 0, false, errClosed
	}
	var v C.uint64_t
	err = call(func() C.snodo_status { return C.snodo_call_token_expires_at(c.p, &v) })
	runtime.KeepAlive(c)
	// libsnodo writes 0 on a first round: 0 is never a real expiry.
	return uint64(v), err == nil && v != 0, err
}

// AnswersDigest is base64url SHA-256 of the canonical inputResponses
// ({} when absent): with FlowID, the key of a remembered final result.
func (c *Call) AnswersDigest() (string, error) {
	return c.reader(func(p *C.snodo_call, o **C.char, n *C.size_t) C.snodo_status {
		return C.snodo_call_answers_digest(p, o, n)
	})
}
