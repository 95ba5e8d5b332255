// SPDX-License-Identifier: MIT OR Apache-2.0

package snodo

/*
#include <stdlib.h>
#include <snodo.h>
*/
import "C"

import (
	"errors"
	"runtime"
)

// errClosed is returned by methods of a handle that was already closed
// (the C library would see NULL and answer NULL_ARGUMENT; this says why).
var errClosed = errors.New("snodo: use of a closed handle")

// Config is an engine configuration under construction (one goroutine at a
// time). It is not consumed by NewEngine: close it when done.
type Config struct{ p *C.snodo_config }

// NewConfig is a configuration with no keys and every default.
func NewConfig() (*Config, error) {
	c := &Config{}
	if err := call(func() C.snodo_status { return C.snodo_config_new(&c.p) }); err != nil {
		return nil, err
	}
	runtime.SetFinalizer(c, (*Config).Close)
	return c, nil
}

// Close frees the configuration; later calls do nothing.
func (c *Config) Close() {
	if c.p != nil {
		C.snodo_config_free(c.p)
		c.p = nil
		runtime.SetFinalizer(c, nil)
	}
}

// set runs one setter, keeping c alive (no finalizer) until it returns.
func (c *Config) set(f func(*C.snodo_config) C.snodo_status) error {
	if c.p == nil {
		return errClosed
	}
	err := call(func() C.snodo_status { return f(c.p) })
	runtime.KeepAlive(c)
	return err
}

// AddKey adds a signing key: the first key signs, every key verifies.
func (c *Config) AddKey(id string, key []byte) error {
	ib := []byte(id)
	return c.set(func(p *C.snodo_config) C.snodo_status {
		ip, il := bytesIn(ib)
		kp, kl := bytesIn(key)
		return C.snodo_config_add_key(p, ip, il, kp, kl)
	})
}

// SetLimit sets a limit by its snake_case name (e.g. "max_rounds",
// "min_token_version"). "test_random_seed" is a test-only setting, as
// SetFixedTime.
func (c *Config) SetLimit(name string, value uint64) error {
	nb := []byte(name)
	return c.set(func(p *C.snodo_config) C.snodo_status {
		np, nl := bytesIn(nb)
		return C.snodo_config_set_limit(p, np, nl, C.uint64_t(value))
	})
}

// SetTTLSecs sets how long a token stays valid.
func (c *Config) SetTTLSecs(v uint64) error {
	return c.set(func(p *C.snodo_config) C.snodo_status { return C.snodo_config_set_ttl_secs(p, C.uint64_t(v)) })
}

// SetMaxRounds sets the most rounds of one flow.
func (c *Config) SetMaxRounds(v uint32) error {
	return c.set(func(p *C.snodo_config) C.snodo_status { return C.snodo_config_set_max_rounds(p, C.uint32_t(v)) })
}

// SetMaxFlowAgeSecs sets the longest a whole flow may take.
func (c *Config) SetMaxFlowAgeSecs(v uint64) error {
	return c.set(func(p *C.snodo_config) C.snodo_status {
		return C.snodo_config_set_max_flow_age_secs(p, C.uint64_t(v))
	})
}

// SetMaxTokenBytes sets the largest token snodo seals or opens.
func (c *Config) SetMaxTokenBytes(v uint64) error {
	return c.set(func(p *C.snodo_config) C.snodo_status {
		return C.snodo_config_set_max_token_bytes(p, C.size_t(v))
	})
}

// SetMaxRequestBytes sets the largest request begin accepts.
func (c *Config) SetMaxRequestBytes(v uint64) error {
	return c.set(func(p *C.snodo_config) C.snodo_status {
		return C.snodo_config_set_max_request_bytes(p, C.size_t(v))
	})
}

// SetMaxInputResponses sets the most answers one retry may carry.
func (c *Config) SetMaxInputResponses(v uint64) error {
	return c.set(func(p *C.snodo_config) C.snodo_status {
		return C.snodo_config_set_max_input_responses(p, C.size_t(v))
	})
}

// SetClockSkewSecs sets the tolerated clock skew between servers.
func (c *Config) SetClockSkewSecs(v uint64) error {
	return c.set(func(p *C.snodo_config) C.snodo_status {
		return C.snodo_config_set_clock_skew_secs(p, C.uint64_t(v))
	})
}

// AddSupportedVersion adds a protocol version the server accepts.
func (c *Config) AddSupportedVersion(v string) error {
	b := []byte(v)
	return c.set(func(p *C.snodo_config) C.snodo_status {
		vp, vl := bytesIn(b)
		return C.snodo_config_add_supported_version(p, vp, vl)
	})
}

// SetServerInfo sets the serverInfo (JSON text) of responses; "" clears it.
func (c *Config) SetServerInfo(info string) error {
	b := []byte(info)
	return c.set(func(p *C.snodo_config) C.snodo_status {
		if len(b) == 0 {
			return C.snodo_config_set_server_info(p, nil, 0)
		}
		ip, il := bytesIn(b)
		return C.snodo_config_set_server_info(p, ip, il)
	})
}

// SetStrictAnswers makes answers without a requestState errors.
func (c *Config) SetStrictAnswers(v bool) error {
	return c.set(func(p *C.snodo_config) C.snodo_status { return C.snodo_config_set_strict_answers(p, C.bool(v)) })
}

// SetAudience binds tokens to this server audience; "" clears it.
func (c *Config) SetAudience(a string) error {
	b := []byte(a)
	return c.set(func(p *C.snodo_config) C.snodo_status {
		if len(b) == 0 {
			return C.snodo_config_set_audience(p, nil, 0)
		}
		ap, al := bytesIn(b)
		return C.snodo_config_set_audience(p, ap, al)
	})
}

// SetFixedTime freezes the engine's clock at now (Unix seconds), for the
// test vectors: only a libsnodo built with the cargo feature test-knobs
// accepts it; the installed one answers StatusConfig.
func (c *Config) SetFixedTime(now uint64) error {
	return c.set(func(p *C.snodo_config) C.snodo_status { return C.snodo_config_set_fixed_time(p, C.uint64_t(now)) })
}

// Engine is the MRTR engine: immutable and safe to share across goroutines.
type Engine struct{ p *C.snodo_engine }

// NewEngine builds an engine from a configuration (which stays usable).
func NewEngine(c *Config) (*Engine, error) {
	if c == nil || c.p == nil {
		return nil, errClosed
	}
	e := &Engine{}
	err := call(func() C.snodo_status { return C.snodo_engine_new(c.p, &e.p) })
	runtime.KeepAlive(c)
	if err != nil {
		return nil, err
	}
	runtime.SetFinalizer(e, (*Engine).Close)
	return e, nil
}

// Close frees the engine once no goroutine uses it any more.
func (e *Engine) Close() {
	if e.p != nil {
		C.snodo_engine_free(e.p)
		e.p = nil
		runtime.SetFinalizer(e, nil)
	}
}

// Begin reads a request. Exactly one of the results is non-nil on success:
// a Call to run the handler on, or a ready Response (a protocol error) to
// send as is. A notification or a response is StatusNotARequest: send nothing.
func (e *Engine) Begin(request []byte, who Principal) (*Call, *Response, error) {
	if e.p == nil {
		return nil, nil, errClosed
	}
	var cp *C.snodo_call
	var rp *C.snodo_response
	err := call(func() C.snodo_status {
		qp, ql := bytesIn(request)
		pp, pl := who.in()
		return C.snodo_engine_begin(e.p, qp, ql, pp, pl, &cp, &rp)
	})
	runtime.KeepAlive(e)
	if err != nil {
		return nil, nil, err
	}
	return wrapCall(cp), wrapResponse(rp), nil
}

// BeginParts is Begin for a request an SDK already parsed: the id (JSON
// text), the method, and the params (JSON text; "" for none).
func (e *Engine) BeginParts(id, method, params string, who Principal) (*Call, *Response, error) {
	if e.p == nil {
		return nil, nil, errClosed
	}
	ib, mb, pb := []byte(id), []byte(method), []byte(params)
	var cp *C.snodo_call
	var rp *C.snodo_response
	err := call(func() C.snodo_status {
		ip, il := bytesIn(ib)
		mp, ml := bytesIn(mb)
		var pp *C.uint8_t
		var pl C.size_t
		if len(pb) > 0 {
			pp, pl = bytesIn(pb)
		}
		wp, wl := who.in()
		return C.snodo_engine_begin_parts(e.p, ip, il, mp, ml, pp, pl, wp, wl, &cp, &rp)
	})
	runtime.KeepAlive(e)
	if err != nil {
		return nil, nil, err
	}
	return wrapCall(cp), wrapResponse(rp), nil
}

// Decide turns the handler's outcome (JSON text, e.g.
// {"type":"complete","result":{...}}) into the response to send. A call is
// decided once; a second Decide is StatusAlreadyDecided.
func (e *Engine) Decide(c *Call, outcome string) (*Response, error) {
	if e.p == nil || c == nil || c.p == nil {
		return nil, errClosed
	}
	var rp *C.snodo_response
	b := []byte(outcome)
	err := call(func() C.snodo_status {
		op, ol := bytesIn(b)
		return C.snodo_engine_decide(e.p, c.p, op, ol, &rp)
	})
	runtime.KeepAlive(e)
	runtime.KeepAlive(c)
	if err != nil {
		return nil, err
	}
	return wrapResponse(rp), nil
}

// Seal seals a continuation token at the engine's time. questions (a JSON
// object of key -> input request) and state (JSON) may be "" for none.
func (e *Engine) Seal(who Principal, binding [BindingLen]byte, round uint32, flowStart uint64, questions, state string) (string, error) {
	if e.p == nil {
		return "", errClosed
	}
	qb, sb := []byte(questions), []byte(state)
	s, err := textOut(func(out **C.char, n *C.size_t) C.snodo_status {
		pp, pl := who.in()
		bp, _ := bytesIn(binding[:])
		var qp, sp *C.uint8_t
		var ql, sl C.size_t
		if len(qb) > 0 {
			qp, ql = bytesIn(qb)
		}
		if len(sb) > 0 {
			sp, sl = bytesIn(sb)
		}
		return C.snodo_engine_seal(e.p, pp, pl, bp, C.uint32_t(round), C.uint64_t(flowStart), qp, ql, sp, sl, out, n)
	})
	runtime.KeepAlive(e)
	return s, err
}

// Open opens a token for the principal and request binding; on success the
// JSON object {"keyId","issuedAt","expiresAt","flowStart","round",
// "questionKeys","state"}. A bad token is an *Error with StatusToken and
// its Reason set.
func (e *Engine) Open(token string, who Principal, binding [BindingLen]byte) (string, error) {
	if e.p == nil {
		return "", errClosed
	}
	tb := []byte(token)
	s, err := textOut(func(out **C.char, n *C.size_t) C.snodo_status {
		tp, tl := bytesIn(tb)
		pp, pl := who.in()
		bp, _ := bytesIn(binding[:])
		return C.snodo_engine_open(e.p, tp, tl, pp, pl, bp, out, n)
	})
	runtime.KeepAlive(e)
	return s, err
}

// AnswerKind is the kind of a client's answer to one input request.
type AnswerKind int

// The answer kinds of include/snodo.h.
const (
	AnswerMissing   AnswerKind = C.SNODO_ANSWER_KIND_MISSING
	AnswerAccepted  AnswerKind = C.SNODO_ANSWER_KIND_ACCEPTED
	AnswerDeclined  AnswerKind = C.SNODO_ANSWER_KIND_DECLINED
	AnswerCancelled AnswerKind = C.SNODO_ANSWER_KIND_CANCELLED
	AnswerInvalid   AnswerKind = C.SNODO_ANSWER_KIND_INVALID
	AnswerChanged   AnswerKind = C.SNODO_ANSWER_KIND_CHANGED
)

var answerNames = [...]string{"missing", "accepted", "declined", "cancelled", "invalid", "changed"}

// String is the kind's name as the vectors spell it ("accepted", ...).
func (k AnswerKind) String() string {
	if k >= 0 && int(k) < len(answerNames) {
		return answerNames[k]
	}
	return "unknown"
}

// Call is one request as the handler sees it (one goroutine at a time).
type Call struct{ p *C.snodo_call }

func wrapCall(p *C.snodo_call) *Call {
	if p == nil {
		return nil
	}
	c := &Call{p: p}
	runtime.SetFinalizer(c, (*Call).Close)
	return c
}

// Close frees the call; later calls do nothing.
func (c *Call) Close() {
	if c != nil && c.p != nil {
		C.snodo_call_free(c.p)
		c.p = nil
		runtime.SetFinalizer(c, nil)
	}
}

// reader runs one of the call's JSON/text readers.
func (c *Call) reader(f func(*C.snodo_call, **C.char, *C.size_t) C.snodo_status) (string, error) {
	if c == nil || c.p == nil {
		return "", errClosed
	}
	s, err := textOut(func(out **C.char, n *C.size_t) C.snodo_status { return f(c.p, out, n) })
	runtime.KeepAlive(c)
	return s, err
}

// Method is the request's method, e.g. "tools/call".
func (c *Call) Method() (string, error) {
	return c.reader(func(p *C.snodo_call, o **C.char, n *C.size_t) C.snodo_status { return C.snodo_call_method(p, o, n) })
}

// Params is the request's params as JSON.
func (c *Call) Params() (string, error) {
	return c.reader(func(p *C.snodo_call, o **C.char, n *C.size_t) C.snodo_status { return C.snodo_call_params(p, o, n) })
}

// State is the state the previous round sealed, as JSON ("null" if none).
func (c *Call) State() (string, error) {
	return c.reader(func(p *C.snodo_call, o **C.char, n *C.size_t) C.snodo_status { return C.snodo_call_state(p, o, n) })
}

// AskedKeys is the keys asked in the previous round, as a JSON array.
func (c *Call) AskedKeys() (string, error) {
	return c.reader(func(p *C.snodo_call, o **C.char, n *C.size_t) C.snodo_status {
		return C.snodo_call_asked_keys(p, o, n)
	})
}

// ClientCapabilities is the capabilities the request declared, as JSON.
func (c *Call) ClientCapabilities() (string, error) {
	return c.reader(func(p *C.snodo_call, o **C.char, n *C.size_t) C.snodo_status {
		return C.snodo_call_client_capabilities(p, o, n)
	})
}

// Principal is the call's principal: its name, or ok false for anonymous.
func (c *Call) Principal() (name string, ok bool, err error) {
	if c == nil || c.p == nil {
		return "", false, errClosed
	}
	var p *C.char
	var n C.size_t
	err = call(func() C.snodo_status { return C.snodo_call_principal(c.p, &p, &n) })
	runtime.KeepAlive(c)
	if err != nil || p == nil {
		return "", false, err
	}
	return take(p, n), true, nil
}

// Round is the round of this request (1 for a first call).
func (c *Call) Round() (uint32, error) {
	if c == nil || c.p == nil {
		return 0, errClosed
	}
	var r C.uint32_t
	err := call(func() C.snodo_status { return C.snodo_call_round(c.p, &r) })
	runtime.KeepAlive(c)
	return uint32(r), err
}

// Response is the client's answer for key to q, the question the handler
// asks under key this round (the same one every round): its kind and value
// (JSON).
func (c *Call) Response(key string, q *Question) (AnswerKind, string, error) {
	if c == nil || c.p == nil || q == nil || q.p == nil {
		return AnswerMissing, "", errClosed
	}
	kb := []byte(key)
	var kind C.snodo_answer_kind
	var p *C.char
	var n C.size_t
	err := call(func() C.snodo_status {
		kp, kl := bytesIn(kb)
		return C.snodo_call_response(c.p, kp, kl, q.p, &kind, &p, &n)
	})
	runtime.KeepAlive(c)
	runtime.KeepAlive(q)
	if err != nil {
		return AnswerMissing, "", err
	}
	return AnswerKind(kind), take(p, n), nil
}

// RawResponse is the raw answer object the client sent for key ("null" if none).
func (c *Call) RawResponse(key string) (string, error) {
	kb := []byte(key)
	return c.reader(func(p *C.snodo_call, o **C.char, n *C.size_t) C.snodo_status {
		kp, kl := bytesIn(kb)
		return C.snodo_call_raw_response(p, kp, kl, o, n)
	})
}

// Response is a JSON-RPC response ready for the wire (one goroutine at a time).
type Response struct{ p *C.snodo_response }

func wrapResponse(p *C.snodo_response) *Response {
	if p == nil {
		return nil
	}
	r := &Response{p: p}
	runtime.SetFinalizer(r, (*Response).Close)
	return r
}

// Close frees the response; later calls do nothing.
func (r *Response) Close() {
	if r != nil && r.p != nil {
		C.snodo_response_free(r.p)
		r.p = nil
		runtime.SetFinalizer(r, nil)
	}
}

// Body is the whole JSON-RPC message as compact JSON, to send as is.
func (r *Response) Body() (string, error) {
	if r == nil || r.p == nil {
		return "", errClosed
	}
	s, err := textOut(func(o **C.char, n *C.size_t) C.snodo_status { return C.snodo_response_body(r.p, o, n) })
	runtime.KeepAlive(r)
	return s, err
}

// HTTPStatus is the status a Streamable HTTP server should answer with.
func (r *Response) HTTPStatus() (int, error) {
	if r == nil || r.p == nil {
		return 0, errClosed
	}
	var s C.uint16_t
	err := call(func() C.snodo_status { return C.snodo_response_http_status(r.p, &s) })
	runtime.KeepAlive(r)
	return int(s), err
}

// IsError is whether the response is a JSON-RPC error.
func (r *Response) IsError() (bool, error) {
	if r == nil || r.p == nil {
		return false, errClosed
	}
	var b C.bool
	err := call(func() C.snodo_status { return C.snodo_response_is_error(r.p, &b) })
	runtime.KeepAlive(r)
	return bool(b), err
}

// Diagnostic is why snodo replaced the handler's outcome with -32603, for
// the server's log; ok is false when there is none.
func (r *Response) Diagnostic() (text string, ok bool, err error) {
	if r == nil || r.p == nil {
		return "", false, errClosed
	}
	var p *C.char
	var n C.size_t
	err = call(func() C.snodo_status { return C.snodo_response_diagnostic(r.p, &p, &n) })
	runtime.KeepAlive(r)
	if err != nil || p == nil {
		return "", false, err
	}
	return take(p, n), true, nil
}
