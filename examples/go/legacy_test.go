// SPDX-License-Identifier: MIT OR Apache-2.0

package snodo

// legacy.json: the 2025-era bridge through libsnodo, asserting
// what the C runner (tests/c/vectors.c run_legacy) asserts: each output is
// built in the same shape and compared by canonical JSON, the handles each
// kind promises (and no others), and whether the case saw an error.

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

type legacyStep struct {
	Op        string  `json:"op"`
	Now       raw     `json:"now"`
	Principal raw     `json:"principal"`
	Outcome   raw     `json:"outcome"`
	Response  *string `json:"response"`
	Reason    raw     `json:"reason"`
	Answers   []struct {
		Key      string `json:"key"`
		Request  raw    `json:"request"`
		Expected raw    `json:"expected"`
	} `json:"answers"`
	RawAnswers []struct {
		Key      string `json:"key"`
		Expected raw    `json:"expected"`
	} `json:"rawAnswers"`
	Expected raw `json:"expected"`
}

type legacyCase struct {
	Config    raw    `json:"config"`
	Now       raw    `json:"now"`
	Principal raw    `json:"principal"`
	Result    string `json:"result"`
	Request   string `json:"request"`
	Begin     raw    `json:"begin"`
	Session   struct {
		ID              string `json:"id"`
		ProtocolVersion string `json:"protocolVersion"`
		Capabilities    raw    `json:"capabilities"`
		ClientInfo      raw    `json:"clientInfo"`
		Principal       raw    `json:"principal"`
	} `json:"session"`
	Steps []legacyStep `json:"steps"`
}

// legacyCallOut is the call as legacy.json spells it.
func legacyCallOut(t *testing.T, c *Call) string {
	t.Helper()
	must := func(s string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	flag := func(b bool, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return strconv.FormatBool(b)
	}
	round, err := c.Round()
	if err != nil {
		t.Fatal(err)
	}
	return `{"id":` + must(c.ID()) +
		`,"method":` + quote(must(c.Method())) +
		`,"round":` + strconv.FormatUint(uint64(round), 10) +
		`,"protocolVersion":` + quote(must(c.ProtocolVersion())) +
		`,"capabilities":` + must(c.ClientCapabilities()) +
		`,"mrtrAllowed":` + flag(c.MRTRAllowed()) +
		`,"legacy":` + flag(c.IsLegacy()) +
		`,"state":` + must(c.State()) +
		`,"askedKeys":` + must(c.AskedKeys()) + `}`
}

// legacyPendingOut is the pending flow as legacy.json spells it.
func legacyPendingOut(t *testing.T, p *PendingFlow) string {
	t.Helper()
	send, err := p.Requests()
	if err != nil {
		t.Fatal(err)
	}
	eids, err := p.ElicitationIDs()
	if err != nil {
		t.Fatal(err)
	}
	deadline, err := p.Deadline()
	if err != nil {
		t.Fatal(err)
	}
	round, err := p.Round()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`{"send":%s,"deadline":%d,"round":%d,"elicitationIds":%s}`, send, deadline, round, eids)
}

// legacyFeedOut is a feed/timeout result; on resume the new call replaces
// *call (the old one is closed).
func legacyFeedOut(t *testing.T, kind FeedKind, next *Call, resp *Response, cancels string, call **Call) string {
	t.Helper()
	// A closure, so that a resumed call handed to *call is not closed.
	defer func() {
		next.Close()
		resp.Close()
	}()
	var out string
	switch kind {
	case FeedWaiting:
		if next != nil || resp != nil {
			t.Errorf("waiting with a handle")
		}
		out = `{"waiting":true}`
	case FeedResume:
		if next == nil || resp != nil {
			t.Fatalf("resume without exactly a call")
		}
		out = `{"resume":` + legacyCallOut(t, next) + `}`
		(*call).Close()
		*call, next = next, nil
	case FeedRespond:
		if resp == nil || next != nil {
			t.Fatalf("respond without exactly a response")
		}
		out = `{"respond":` + responseOut(t, resp) + `,"cancellations":` + cancels + `}`
	default:
		t.Fatalf("feed kind %d", kind)
	}
	if kind != FeedRespond && cancels != "[]" {
		t.Errorf("cancellations %s", cancels)
	}
	return out
}

// withLegs puts the ids of the flow's requests in for {{leg:n}} (n from 1).
func withLegs(t *testing.T, text string, p *PendingFlow) string {
	t.Helper()
	idsText, err := p.RequestIDs()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	if err := json.Unmarshal([]byte(idsText), &ids); err != nil {
		t.Fatalf("request ids %s: %v", idsText, err)
	}
	for k, id := range ids {
		text = strings.ReplaceAll(text, fmt.Sprintf("{{leg:%d}}", k+1), id)
	}
	return text
}

// hasError: the output is an error, or a response whose body is one.
func hasError(t *testing.T, out string) bool {
	var got struct {
		Error   raw `json:"error"`
		Respond struct {
			Body struct {
				Error raw `json:"error"`
			} `json:"body"`
		} `json:"respond"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output %s: %v", out, err)
	}
	return present(got.Error) || present(got.Respond.Body.Error)
}

func runLegacy(t *testing.T, f vfile, tc raw) {
	var c legacyCase
	if err := json.Unmarshal(tc, &c); err != nil {
		t.Fatalf("legacy case: %v", err)
	}
	cfg := f.Config
	if present(c.Config) {
		cfg = c.Config
	}
	now := u64(t, c.Now)
	info := ""
	if !isNull(c.Session.ClientInfo) {
		info = string(c.Session.ClientInfo)
	}
	// The test's principal sends every message unless a step names its
	// own; the session's opener is its own principal, else the test's.
	who, opener := principal(t, c.Principal), principal(t, c.Principal)
	if present(c.Session.Principal) {
		opener = principal(t, c.Session.Principal)
	}
	session, err := NewSession(c.Session.ProtocolVersion, string(c.Session.Capabilities), info, opener)
	if err != nil {
		t.Fatalf("session: %v", err)
	}
	defer session.Close()
	if err := session.SetID(c.Session.ID); err != nil {
		t.Fatalf("session id: %v", err)
	}

	e := engine(t, cfg, now)
	call, resp, err := e.BeginLegacy([]byte(c.Request), session, who)
	e.Close()
	if err != nil {
		t.Fatalf("begin: %v", err)
	}
	var pending *PendingFlow
	defer func() {
		call.Close()
		pending.Close()
	}()
	sawError := false
	var out string
	switch {
	case resp != nil && call == nil:
		sawError = true
		out = `{"respond":` + responseOut(t, resp) + `}`
		resp.Close()
	case call != nil && resp == nil:
		out = `{"call":` + legacyCallOut(t, call) + `}`
	default:
		t.Fatalf("begin: not exactly one of a call and a response")
	}
	sameJSON(t, "begin", out, c.Begin)

	for i, s := range c.Steps {
		snow := now
		if present(s.Now) {
			snow = u64(t, s.Now)
		}
		e := engine(t, cfg, snow)
		switch s.Op {
		case "decide":
			if call == nil {
				t.Fatalf("step %d: no call to decide", i+1)
			}
			checkAnswers(t, call, s.Answers, s.RawAnswers)
			kind, r, p, next, err := e.DecideLegacy(call, string(s.Outcome))
			if err != nil {
				t.Fatalf("step %d: decide: %v", i+1, err)
			}
			switch kind {
			case BridgeRespond:
				if r == nil || p != nil || next != nil {
					t.Fatalf("step %d: respond without exactly a response", i+1)
				}
				out = `{"respond":` + responseOut(t, r) + `}`
			case BridgeSend:
				if p == nil || r != nil || next != nil {
					t.Fatalf("step %d: send without exactly a flow", i+1)
				}
				out = legacyPendingOut(t, p)
				pending.Close()
				pending = p
			case BridgeResume:
				if next == nil || r != nil || p != nil {
					t.Fatalf("step %d: resume without exactly a call", i+1)
				}
				out = `{"resume":` + legacyCallOut(t, next) + `}`
			default:
				t.Fatalf("step %d: bridge kind %d", i+1, kind)
			}
			r.Close()
			call.Close()
			call = next
		case "feed", "timeout":
			if pending == nil {
				t.Fatalf("step %d: no pending flow", i+1)
			}
			var kind FeedKind
			var next *Call
			var r *Response
			var cancels string
			if s.Op == "feed" {
				if s.Response == nil {
					t.Fatalf("step %d: feed without a response", i+1)
				}
				by := who
				if present(s.Principal) {
					by = principal(t, s.Principal)
				}
				kind, next, r, cancels, err = e.Feed(pending, []byte(withLegs(t, *s.Response, pending)), by)
			} else {
				kind, next, r, cancels, err = e.Timeout(pending)
			}
			if err != nil {
				if next != nil || r != nil || cancels != "" {
					t.Errorf("step %d: outs written on an error", i+1)
				}
				out = errorMessageOut(t, err)
			} else {
				out = legacyFeedOut(t, kind, next, r, cancels, &call)
			}
		case "cancel":
			if pending == nil {
				t.Fatalf("step %d: no pending flow", i+1)
			}
			var reason *string
			if !isNull(s.Reason) {
				r := str(t, s.Reason)
				reason = &r
			}
			cancels, err := pending.Cancel(reason)
			if err != nil {
				t.Fatalf("step %d: cancel: %v", i+1, err)
			}
			out = `{"cancellations":` + cancels + `}`
		default:
			t.Fatalf("step %d: unknown op %q", i+1, s.Op)
		}
		e.Close()
		sawError = sawError || hasError(t, out)
		sameJSON(t, fmt.Sprintf("step %d", i+1), out, s.Expected)
	}
	if sawError != (c.Result == "invalid") {
		t.Errorf("result: saw an error = %v, vector result %q", sawError, c.Result)
	}
}
