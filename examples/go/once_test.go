// SPDX-License-Identifier: MIT OR Apache-2.0

package snodo

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Over three rounds the flow id stays, the token id changes, the
// expiries are the token's and the flow's, and the digest is SHA-256 of the
// canonical answers
// (computed outside snodo, so the key order and spacing of the wire do not
// count); a first round has none of them.
func TestOnceReaders(t *testing.T) {
	const digestEmpty = "RBNvo1WzZ4oRRq0W9-hknpT7T8If536DEMBg9hyq_4o"
	const digestAda = "wqmp0kb1QdrPbmSfCdQyWbpBIH4VhA2VCoyR8HetSSc"
	e := testEngine(t)
	defer e.Close()
	form, err := ElicitForm("Your name?", `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)
	if err != nil {
		t.Fatal(err)
	}
	defer form.Close()
	// One round: begin, read the ids, ask the question again; returns the
	// ids and the next requestState.
	round := func(request string) (flow, token string, exp uint64, digest, state string) {
		t.Helper()
		call, resp, err := e.Begin([]byte(request), User("alice"))
		if err != nil || resp != nil {
			t.Fatalf("begin: %v %v", err, resp)
		}
		defer call.Close()
		flow, okF, err1 := call.FlowID()
		token, okT, err2 := call.TokenID()
		exp, okE, err3 := call.TokenExpiresAt()
		digest, err4 := call.AnswersDigest()
		flowExp, okX, err5 := call.FlowExpiresAt()
		for _, err := range []error{err1, err2, err3, err4, err5} {
			if err != nil {
				t.Fatal(err)
			}
		}
		if okF != (flow != "") || okT != (token != "") || okE != (exp != 0) || okF != okT || okT != okE || okX != okE {
			t.Fatalf("ok flags: %v %v %v %v", okF, okT, okE, okX)
		}
		// The fixed flow start + the default max flow age + clock skew.
		if okX && flowExp != 1800000000+3600+60 {
			t.Fatalf("flow expires at %d", flowExp)
		}
		r, err := e.DecideInputRequired(call, []Ask{{"name", form}}, "")
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		body, err := r.Body()
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			Result struct {
				RequestState string `json:"requestState"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(body), &v); err != nil || v.Result.RequestState == "" {
			t.Fatalf("no requestState in %s", body)
		}
		return flow, token, exp, digest, v.Result.RequestState
	}
	retry := func(id int, answers, state string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"book","arguments":{"n":2},`+
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",`+
			`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}}}},`+
			`"inputResponses":%s,"requestState":%q}}`, id, answers, state)
	}
	f1, t1, x1, d1, s1 := round(fmt.Sprintf(toolCall, 1))
	if f1 != "" || t1 != "" || x1 != 0 || d1 != digestEmpty {
		t.Fatalf("round 1: %q %q %d %q", f1, t1, x1, d1)
	}
	f2, t2, x2, d2, s2 := round(retry(2, `{ "name" : {"content":{"name":"Ada"},"action":"accept"}}`, s1))
	if len(f2) != 22 || len(t2) != 22 || x2 != 1800000000+300 || d2 != digestAda {
		t.Fatalf("round 2: %q %q %d %q", f2, t2, x2, d2)
	}
	f3, t3, _, d3, _ := round(retry(3, `{"name":{"action":"accept","content":{"name":"Ada"}}}`, s2))
	if f3 != f2 || t3 == t2 || d3 != digestAda {
		t.Fatalf("round 3: flow %q (was %q), token %q (was %q), digest %q", f3, f2, t3, t2, d3)
	}
	var closed *Call
	if _, _, err := closed.FlowID(); err != errClosed {
		t.Fatalf("closed: %v", err)
	}
}

// onceFlow is one flow of the "book" tool: its round-1 token, and final
// rounds carrying it with a name as the answer.
type onceFlow struct {
	t     *testing.T
	e     *Engine
	state string
}

func newOnceFlow(t *testing.T, e *Engine) *onceFlow {
	t.Helper()
	call, _, err := e.Begin([]byte(fmt.Sprintf(toolCall, 1)), User("alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer call.Close()
	return &onceFlow{t, e, askName(t, e, call)}
}

// askName decides call with the name question; returns the new token.
func askName(t *testing.T, e *Engine, call *Call) string {
	t.Helper()
	form, err := ElicitForm("Your name?", `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)
	if err != nil {
		t.Fatal(err)
	}
	defer form.Close()
	// The outcome as JSON text holding the question's JSON: the core makes
	// it a question again.
	js, err := form.JSON()
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.Decide(call, `{"type":"input_required","inputRequests":{"name":`+js+`}}`)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	body, err := r.Body()
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Result struct {
			RequestState string `json:"requestState"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil || v.Result.RequestState == "" {
		t.Fatalf("no requestState in %s", body)
	}
	return v.Result.RequestState
}

// final is a retry of the flow through token with `name` as the answer
// ("" for no answers).
func (f *onceFlow) final(token, name string) *Call {
	f.t.Helper()
	answers := ""
	if name != "" {
		answers = fmt.Sprintf(`"inputResponses":{"name":{"action":"accept","content":{"name":%q}}},`, name)
	}
	req := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"book","arguments":{"n":2},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",`+
		`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}}}},%s"requestState":%q}}`,
		answers, token)
	call, resp, err := f.e.Begin([]byte(req), User("alice"))
	if err != nil || resp != nil {
		f.t.Fatalf("begin: %v %v", err, resp)
	}
	return call
}

func isReplayed(err error) bool {
	var se *Error
	return errors.As(err, &se) && se.Status == StatusToken && se.Reason == "replayed" &&
		se.Message() == OnceReplayedMessage
}

// Eight goroutines, each with its own call of one flow, half answering
// Ada and half Bob, on one MemoryStore: one effect; the goroutines with
// the winner's answers get its text, the others the replay.
func TestOnceGoroutinesOneFlow(t *testing.T) {
	e := testEngine(t)
	defer e.Close()
	flow := newOnceFlow(t, e)
	for round := 0; round < 10; round++ {
		store, err := NewMemoryStore(0, 0)
		if err != nil {
			t.Fatal(err)
		}
		var effects int32
		var wg sync.WaitGroup
		texts := make([]string, 8)
		errs := make([]error, 8)
		calls := make([]*Call, 8)
		for g := range calls {
			calls[g] = flow.final(flow.state, []string{"Ada", "Bob"}[g%2])
		}
		for g := range calls {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				texts[g], errs[g] = RunOnce(store, calls[g], OnceOptions{}, func(l *OnceLease) (string, error) {
					n := atomic.AddInt32(&effects, 1)
					return fmt.Sprintf(`{"entry":%d,"fence":%d}`, n, l.Fence), nil
				})
			}(g)
		}
		wg.Wait()
		winner, done, replayed := -1, 0, 0
		for g := range calls {
			calls[g].Close()
			switch {
			case errs[g] == nil && texts[g] == `{"entry":1,"fence":1}`:
				if winner < 0 {
					winner = g % 2
				}
				if winner != g%2 {
					t.Fatalf("round %d: goroutine %d got the text with the other answers", round, g)
				}
				done++
			case isReplayed(errs[g]):
				replayed++
			default:
				t.Fatalf("round %d: goroutine %d: %q %v", round, g, texts[g], errs[g])
			}
		}
		if effects != 1 || done != 4 || replayed != 4 {
			t.Fatalf("round %d: %d effects, %d done, %d replayed", round, effects, done, replayed)
		}
		store.Close()
	}
}

// Replays and lookups: a booked flow answers its result to the same
// answers through any token of the flow, and the replay to others; a
// failed effect is released and rebooked with a greater fence.
func TestOnceReplayAndLookup(t *testing.T) {
	e := testEngine(t)
	defer e.Close()
	store, err := NewMemoryStore(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	flow := newOnceFlow(t, e)
	ada := flow.final(flow.state, "Ada")
	defer ada.Close()
	if _, ok, err := CheckOnce(store, ada, OnceOptions{}); ok || err != nil {
		t.Fatalf("a fresh flow: %v %v", ok, err)
	}
	ledgerDown := errors.New("ledger down")
	if _, err := RunOnce(store, ada, OnceOptions{}, func(l *OnceLease) (string, error) {
		if l.Fence != 1 {
			t.Errorf("fence %d", l.Fence)
		}
		return "", ledgerDown
	}); err != ledgerDown {
		t.Fatalf("a failed effect: %v", err)
	}
	booked, err := RunOnce(store, ada, OnceOptions{}, func(l *OnceLease) (string, error) {
		if ok, err := l.Extend(); !ok || err != nil {
			t.Errorf("extend: %v %v", ok, err)
		}
		return fmt.Sprintf(`{"fence":%d}`, l.Fence), nil
	})
	if err != nil || booked != `{"fence":2}` {
		t.Fatalf("rebooked: %q %v", booked, err)
	}
	if text, ok, err := CheckOnce(store, ada, OnceOptions{}); !ok || err != nil || text != booked {
		t.Fatalf("lookup: %q %v %v", text, ok, err)
	}
	// The booked token without answers: refused up front.
	again := flow.final(flow.state, "")
	defer again.Close()
	if _, _, err := CheckOnce(store, again, OnceOptions{}); !isReplayed(err) {
		t.Fatalf("asked again: %v", err)
	}
	// A new token of the same flow: other answers are a replay, the same
	// answers the remembered result, and no effect runs either way.
	token := askName(t, e, again)
	bob := flow.final(token, "Bob")
	defer bob.Close()
	never := func(*OnceLease) (string, error) { t.Fatal("a second effect"); return "", nil }
	if _, err := RunOnce(store, bob, OnceOptions{}, never); !isReplayed(err) {
		t.Fatalf("other answers: %v", err)
	}
	same := flow.final(token, "Ada")
	defer same.Close()
	if text, err := RunOnce(store, same, OnceOptions{}, never); err != nil || text != booked {
		t.Fatalf("same answers: %q %v", text, err)
	}
	// Another prefix is another record: the lookup finds nothing there.
	if _, ok, err := CheckOnce(store, same, OnceOptions{Prefix: "other:"}); ok || err != nil {
		t.Fatalf("other prefix: %v %v", ok, err)
	}
}

// The machine step by step on the store's clock: a lapsed lease is taken
// over with a greater fence, and the former owner can change nothing.
func TestOnceLeaseLapse(t *testing.T) {
	e := testEngine(t)
	defer e.Close()
	store, err := NewMemoryStore(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	flow := newOnceFlow(t, e)
	call := flow.final(flow.state, "Ada")
	defer call.Close()
	const t0 = 1800000000 * 1000
	must := func(s *OnceStep, err error) *OnceStep {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	exec := func(run *OnceRun, s *OnceStep, at uint64) (*OnceStep, error) {
		t.Helper()
		c, err := s.Command()
		if err != nil {
			t.Fatal(err)
		}
		store.NowMs = at
		reply, err := store.Execute(c)
		if err != nil {
			t.Fatal(err)
		}
		return run.Feed(reply)
	}
	a, err := NewOnceRun(call, OnceOptions{Lease: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := NewOnceRun(call, OnceOptions{Lease: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ea := must(exec(a, must(a.Start()), t0))
	sb := must(exec(b, must(b.Start()), t0+500))
	if k, _ := sb.Kind(); k != OnceSleepStep {
		t.Fatalf("B within A's lease: kind %d", k)
	}
	eb := must(exec(b, must(b.Resume()), t0+1001))
	if f, _ := eb.Fence(); f != 2 {
		t.Fatalf("B took over with fence %d", f)
	}
	lease := &OnceLease{store: store, step: ea}
	if ok, err := lease.Extend(); ok || err != nil {
		t.Fatalf("A's extension after the takeover: %v %v", ok, err)
	}
	done := must(a.EffectDone("A"))
	var se *Error
	if _, err := exec(a, done, t0+1002); !errors.As(err, &se) || se.Status != StatusStore {
		t.Fatalf("A's completion: %v", err)
	}
	fin := must(exec(b, must(b.EffectDone("B")), t0+1003))
	if text, err := fin.Text(); err != nil || text != "B" {
		t.Fatalf("B's result: %q %v", text, err)
	}
	// Out of order and misuse: clear errors, never a crash.
	if _, err := b.Resume(); !errors.As(err, &se) || se.Status != StatusArgument {
		t.Fatalf("resume after the end: %v", err)
	}
	if _, err := fin.Fence(); !errors.As(err, &se) || se.Status != StatusArgument {
		t.Fatalf("fence of a DONE step: %v", err)
	}
	first, _, err := e.Begin([]byte(fmt.Sprintf(toolCall, 1)), User("alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if _, err := NewOnceRun(first, OnceOptions{}); !errors.As(err, &se) || se.Status != StatusArgument {
		t.Fatalf("a first round: %v", err)
	}
	if _, err := NewOnceRun(call, OnceOptions{Prefix: "a b"}); !errors.As(err, &se) || se.Status != StatusConfig {
		t.Fatalf("a bad prefix: %v", err)
	}
	c, _ := fin.Command()
	if c != nil {
		t.Fatal("a DONE step lends no command")
	}
	fin.Close()
	if _, err := fin.Text(); err != errClosed {
		t.Fatalf("closed step: %v", err)
	}
}
