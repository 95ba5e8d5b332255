// SPDX-License-Identifier: MIT OR Apache-2.0

package snodo

// The legacy bridge: a 2025-era session (negotiated at
// initialize) sends plain requests; an input_required outcome becomes
// server-to-client requests and a PendingFlow that the client's responses
// are fed to, instead of an MRTR result.

/*
#include <stdlib.h>
#include <snodo.h>
*/
import "C"

import "runtime"

// Session is what a 2025-era session negotiated at initialize, and the
// principal that opened it. Immutable once its id is set, and then safe to
// share across goroutines. Every later message on the session goes through
// CheckPrincipal first.
type Session struct{ p *C.snodo_session }

// NewSession is a session that negotiated protocolVersion, with the
// client's capabilities (JSON object text) and clientInfo (JSON object
// text, or "" for none), opened by who (the verified user of the
// initialize request). Its id is random until SetID.
func NewSession(protocolVersion, capabilities, clientInfo string, who Principal) (*Session, error) {
	vb, cb, ib := []byte(protocolVersion), []byte(capabilities), []byte(clientInfo)
	s := &Session{}
	err := call(func() C.snodo_status {
		vp, vl := bytesIn(vb)
		cp, cl := bytesIn(cb)
		// NULL, not an empty text, is how libsnodo hears "no clientInfo".
		var ip *C.uint8_t
		var il C.size_t
		if len(ib) > 0 {
			ip, il = bytesIn(ib)
		}
		pp, pl := who.in()
		return C.snodo_session_new(vp, vl, cp, cl, ip, il, pp, pl, &s.p)
	})
	if err != nil {
		return nil, err
	}
	runtime.SetFinalizer(s, (*Session).Close)
	return s, nil
}

// SetID sets the transport's session id (1 to 128 printable ASCII bytes);
// on an error the session is unchanged. Set it before sharing the session.
func (s *Session) SetID(id string) error {
	if s == nil || s.p == nil {
		return errClosed
	}
	b := []byte(id)
	err := call(func() C.snodo_status {
		ip, il := bytesIn(b)
		return C.snodo_session_with_id(s.p, ip, il)
	})
	runtime.KeepAlive(s)
	return err
}

// Principal is the principal that opened the session: its name, or ok
// false for anonymous.
func (s *Session) Principal() (name string, ok bool, err error) {
	if s == nil || s.p == nil {
		return "", false, errClosed
	}
	var p *C.char
	var n C.size_t
	err = call(func() C.snodo_status { return C.snodo_session_principal(s.p, &p, &n) })
	runtime.KeepAlive(s)
	if err != nil || p == nil {
		return "", false, err
	}
	return take(p, n), true, nil
}

// CheckPrincipal checks that a message on the session (a request, an
// answer, a notification, a GET or DELETE) comes from the principal that
// opened it. A nil Response means go on; otherwise send it as is (HTTP
// 404, -32001 "Session not found"), without touching the session.
func (s *Session) CheckPrincipal(who Principal) (*Response, error) {
	if s == nil || s.p == nil {
		return nil, errClosed
	}
	var rp *C.snodo_response
	err := call(func() C.snodo_status {
		pp, pl := who.in()
		return C.snodo_session_check_principal(s.p, pp, pl, &rp)
	})
	runtime.KeepAlive(s)
	if err != nil {
		return nil, err
	}
	return wrapResponse(rp), nil
}

// Close frees the session; calls and flows made with it stay valid.
func (s *Session) Close() {
	if s != nil && s.p != nil {
		C.snodo_session_free(s.p)
		s.p = nil
		runtime.SetFinalizer(s, nil)
	}
}

// BeginLegacy reads a request that arrived on a 2025-era session. As
// Begin: exactly one of the Call (decide it with DecideLegacy) and the
// ready Response is non-nil on success.
func (e *Engine) BeginLegacy(request []byte, s *Session, who Principal) (*Call, *Response, error) {
	if e.p == nil || s == nil || s.p == nil {
		return nil, nil, errClosed
	}
	var cp *C.snodo_call
	var rp *C.snodo_response
	err := call(func() C.snodo_status {
		qp, ql := bytesIn(request)
		pp, pl := who.in()
		return C.snodo_engine_begin_legacy(e.p, qp, ql, s.p, pp, pl, &cp, &rp)
	})
	runtime.KeepAlive(e)
	runtime.KeepAlive(s)
	if err != nil {
		return nil, nil, err
	}
	return wrapCall(cp), wrapResponse(rp), nil
}

// BridgeKind says which handle DecideLegacy produced.
type BridgeKind int

// The C library's snodo_bridge_kind values.
const (
	BridgeRespond BridgeKind = C.SNODO_BRIDGE_KIND_RESPOND
	BridgeSend    BridgeKind = C.SNODO_BRIDGE_KIND_SEND
	BridgeResume  BridgeKind = C.SNODO_BRIDGE_KIND_RESUME
)

// DecideLegacy decides a call from BeginLegacy. On success exactly the
// handle the kind names is non-nil: Respond a Response to send, Send a
// PendingFlow whose Requests go to the client, Resume a Call to run the
// handler on again (every question was already answered).
func (e *Engine) DecideLegacy(c *Call, outcome string) (BridgeKind, *Response, *PendingFlow, *Call, error) {
	if e.p == nil || c == nil || c.p == nil {
		return BridgeRespond, nil, nil, nil, errClosed
	}
	var kind C.snodo_bridge_kind
	var rp *C.snodo_response
	var fp *C.snodo_pending_flow
	var cp *C.snodo_call
	b := []byte(outcome)
	err := call(func() C.snodo_status {
		op, ol := bytesIn(b)
		return C.snodo_engine_decide_legacy(e.p, c.p, op, ol, &kind, &rp, &fp, &cp)
	})
	runtime.KeepAlive(e)
	runtime.KeepAlive(c)
	if err != nil {
		return BridgeRespond, nil, nil, nil, err
	}
	return BridgeKind(kind), wrapResponse(rp), wrapPending(fp), wrapCall(cp), nil
}

// FeedKind says what Feed and Timeout produced.
type FeedKind int

// The C library's snodo_feed_kind values.
const (
	FeedWaiting FeedKind = C.SNODO_FEED_KIND_WAITING
	FeedResume  FeedKind = C.SNODO_FEED_KIND_RESUME
	FeedRespond FeedKind = C.SNODO_FEED_KIND_RESPOND
)

// feedOuts runs snodo_engine_feed or snodo_engine_timeout and wraps its outs.
func feedOuts(f func(*C.snodo_feed_kind, **C.snodo_call, **C.snodo_response, **C.char, *C.size_t) C.snodo_status) (FeedKind, *Call, *Response, string, error) {
	var kind C.snodo_feed_kind
	var cp *C.snodo_call
	var rp *C.snodo_response
	var xp *C.char
	var xn C.size_t
	err := call(func() C.snodo_status { return f(&kind, &cp, &rp, &xp, &xn) })
	if err != nil {
		return FeedWaiting, nil, nil, "", err
	}
	return FeedKind(kind), wrapCall(cp), wrapResponse(rp), take(xp, xn), nil
}

// Feed gives the client's JSON-RPC response (bytes as received), sent by
// who, to the flow. Waiting: more answers are due. Resume: a Call to run
// the handler on. Respond: a Response to send for the original request,
// and the notifications/cancelled (JSON array text) for unanswered
// requests. A refused response (malformed, unknown id, duplicate, late,
// from another principal than the flow's) is an error and changes nothing.
func (e *Engine) Feed(p *PendingFlow, response []byte, who Principal) (FeedKind, *Call, *Response, string, error) {
	if e.p == nil || p == nil || p.p == nil {
		return FeedWaiting, nil, nil, "", errClosed
	}
	k, c, r, x, err := feedOuts(func(k *C.snodo_feed_kind, c **C.snodo_call, r **C.snodo_response, x **C.char, n *C.size_t) C.snodo_status {
		qp, ql := bytesIn(response)
		pp, pl := who.in()
		return C.snodo_engine_feed(e.p, p.p, qp, ql, pp, pl, k, c, r, x, n)
	})
	runtime.KeepAlive(e)
	runtime.KeepAlive(p)
	return k, c, r, x, err
}

// Timeout ends the flow because its deadline passed: a failure Response
// and the cancellations, as Feed's Respond.
func (e *Engine) Timeout(p *PendingFlow) (FeedKind, *Call, *Response, string, error) {
	if e.p == nil || p == nil || p.p == nil {
		return FeedWaiting, nil, nil, "", errClosed
	}
	k, c, r, x, err := feedOuts(func(k *C.snodo_feed_kind, c **C.snodo_call, r **C.snodo_response, x **C.char, n *C.size_t) C.snodo_status {
		return C.snodo_engine_timeout(e.p, p.p, k, c, r, x, n)
	})
	runtime.KeepAlive(e)
	runtime.KeepAlive(p)
	return k, c, r, x, err
}

// PendingFlow is one legacy round in flight (one goroutine at a time).
// Closing it is also how a disconnect is handled.
type PendingFlow struct{ p *C.snodo_pending_flow }

func wrapPending(p *C.snodo_pending_flow) *PendingFlow {
	if p == nil {
		return nil
	}
	f := &PendingFlow{p: p}
	runtime.SetFinalizer(f, (*PendingFlow).Close)
	return f
}

// Close frees the flow; later calls do nothing.
func (f *PendingFlow) Close() {
	if f != nil && f.p != nil {
		C.snodo_pending_flow_free(f.p)
		f.p = nil
		runtime.SetFinalizer(f, nil)
	}
}

func (f *PendingFlow) reader(r func(*C.snodo_pending_flow, **C.char, *C.size_t) C.snodo_status) (string, error) {
	if f == nil || f.p == nil {
		return "", errClosed
	}
	s, err := textOut(func(out **C.char, n *C.size_t) C.snodo_status { return r(f.p, out, n) })
	runtime.KeepAlive(f)
	return s, err
}

// Requests is the JSON array of requests to send to the client.
func (f *PendingFlow) Requests() (string, error) {
	return f.reader(func(p *C.snodo_pending_flow, o **C.char, n *C.size_t) C.snodo_status {
		return C.snodo_pending_flow_requests(p, o, n)
	})
}

// RequestIDs is the JSON array of this round's request ids.
func (f *PendingFlow) RequestIDs() (string, error) {
	return f.reader(func(p *C.snodo_pending_flow, o **C.char, n *C.size_t) C.snodo_status {
		return C.snodo_pending_flow_request_ids(p, o, n)
	})
}

// ElicitationIDs is the JSON object of URL elicitation ids to their keys.
func (f *PendingFlow) ElicitationIDs() (string, error) {
	return f.reader(func(p *C.snodo_pending_flow, o **C.char, n *C.size_t) C.snodo_status {
		return C.snodo_pending_flow_elicitation_ids(p, o, n)
	})
}

// Deadline is when to call Timeout (Unix seconds).
func (f *PendingFlow) Deadline() (uint64, error) {
	if f == nil || f.p == nil {
		return 0, errClosed
	}
	var d C.uint64_t
	err := call(func() C.snodo_status { return C.snodo_pending_flow_deadline(f.p, &d) })
	runtime.KeepAlive(f)
	return uint64(d), err
}

// Round is the round these requests belong to.
func (f *PendingFlow) Round() (uint32, error) {
	if f == nil || f.p == nil {
		return 0, errClosed
	}
	var r C.uint32_t
	err := call(func() C.snodo_status { return C.snodo_pending_flow_round(f.p, &r) })
	runtime.KeepAlive(f)
	return uint32(r), err
}

// Cancel ends the flow because the client cancelled the original request;
// the result is the JSON array of notifications/cancelled to send. reason
// nil is none.
func (f *PendingFlow) Cancel(reason *string) (string, error) {
	if f == nil || f.p == nil {
		return "", errClosed
	}
	var rb []byte
	if reason != nil {
		rb = []byte(*reason)
	}
	s, err := textOut(func(out **C.char, n *C.size_t) C.snodo_status {
		var rp *C.uint8_t
		var rl C.size_t
		if reason != nil {
			rp, rl = bytesIn(rb)
		}
		return C.snodo_pending_flow_cancel(f.p, rp, rl, out, n)
	})
	runtime.KeepAlive(f)
	return s, err
}

// ID is the request's JSON-RPC id as JSON text, as received.
func (c *Call) ID() (string, error) {
	return c.reader(func(p *C.snodo_call, o **C.char, n *C.size_t) C.snodo_status { return C.snodo_call_id(p, o, n) })
}

// ProtocolVersion is the revision the request runs under.
func (c *Call) ProtocolVersion() (string, error) {
	return c.reader(func(p *C.snodo_call, o **C.char, n *C.size_t) C.snodo_status {
		return C.snodo_call_protocol_version(p, o, n)
	})
}

func (c *Call) flag(f func(*C.snodo_call, *C.bool) C.snodo_status) (bool, error) {
	if c == nil || c.p == nil {
		return false, errClosed
	}
	var b C.bool
	err := call(func() C.snodo_status { return f(c.p, &b) })
	runtime.KeepAlive(c)
	return bool(b), err
}

// MRTRAllowed is whether the handler may answer input_required the MRTR way.
func (c *Call) MRTRAllowed() (bool, error) {
	return c.flag(func(p *C.snodo_call, o *C.bool) C.snodo_status { return C.snodo_call_mrtr_allowed(p, o) })
}

// IsLegacy is whether the call came from BeginLegacy (decide it with
// DecideLegacy).
func (c *Call) IsLegacy() (bool, error) {
	return c.flag(func(p *C.snodo_call, o *C.bool) C.snodo_status { return C.snodo_call_is_legacy(p, o) })
}
