// SPDX-License-Identifier: MIT OR Apache-2.0

package snodo

import (
	"encoding/json"
	"fmt"
	"testing"
)

// Issue 17: over three rounds the flow id stays, the token id changes, the
// expiry is the token's and the digest is SHA-256 of the canonical answers
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
		for _, err := range []error{err1, err2, err3, err4} {
			if err != nil {
				t.Fatal(err)
			}
		}
		if okF != (flow != "") || okT != (token != "") || okE != (exp != 0) || okF != okT || okT != okE {
			t.Fatalf("ok flags: %v %v %v", okF, okT, okE)
		}
		r, err := e.Decide(call, `{"type":"input_required","inputRequests":{"name":`+form+`}}`)
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
