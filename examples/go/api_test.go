// SPDX-License-Identifier: MIT OR Apache-2.0

package snodo

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

const toolCall = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"book","arguments":{"n":2},` +
	`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
	`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}}}}}}`

func testEngine(t *testing.T) *Engine {
	t.Helper()
	c, err := NewConfig()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.AddKey("k1", []byte(strings.Repeat("\x07", 32))); err != nil {
		t.Fatal(err)
	}
	if err := c.SetFixedTime(1800000000); err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(c)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// Misuse is an *Error with the status, its name and the core's detail,
// never a crash; closed handles are refused before reaching C.
func TestErrors(t *testing.T) {
	if LibraryABIVersion() != ABIVersion {
		t.Fatalf("libsnodo ABI %d, header %d", LibraryABIVersion(), ABIVersion)
	}
	_, err := ElicitForm("Pick", `{"type":"object","properties":{"age":{"type":"integer","pattern":"x"}}}`)
	var se *Error
	if !errors.As(err, &se) || se.Status != StatusSchema || se.Name != "SCHEMA" || !strings.HasPrefix(se.Detail, "SCHEMA: ") {
		t.Fatalf("schema error: %#v", err)
	}
	if _, err := Canonicalize([]byte{0xff}); !errors.As(err, &se) || se.Status != StatusJSON {
		t.Fatalf("invalid UTF-8 canonicalize: %v", err)
	}
	e := testEngine(t)
	if _, _, err := e.Begin([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), Anonymous); !errors.As(err, &se) || se.Status != StatusNotARequest {
		t.Fatalf("notification: %v", err)
	}
	if _, _, err := e.Begin([]byte(fmt.Sprintf(toolCall, 1)), User("")); !errors.As(err, &se) || se.Status != StatusArgument {
		t.Fatalf("empty principal: %v", err)
	}
	call, _, err := e.Begin([]byte(fmt.Sprintf(toolCall, 1)), User("alice"))
	if err != nil || call == nil {
		t.Fatalf("begin: %v", err)
	}
	r, err := e.Decide(call, `{"type":"complete","result":{"content":[]}}`)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	r.Close() // idempotent
	if _, err := e.Decide(call, `{"type":"complete","result":{}}`); !errors.As(err, &se) || se.Status != StatusAlreadyDecided {
		t.Fatalf("second decide: %v", err)
	}
	call.Close()
	if _, err := call.Round(); err != errClosed {
		t.Fatalf("closed call: %v", err)
	}
	e.Close()
	if _, _, err := e.Begin([]byte(fmt.Sprintf(toolCall, 1)), Anonymous); err != errClosed {
		t.Fatalf("closed engine: %v", err)
	}
}

// One Engine shared by many goroutines (the C docs: engines are
// thread-safe), each with its own calls; under -race this also checks that
// the wrapper adds no unsynchronised state. Errors read on the failing
// goroutine's own thread must be that call's error.
func TestSharedEngine(t *testing.T) {
	e := testEngine(t)
	defer e.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				call, _, err := e.Begin([]byte(fmt.Sprintf(toolCall, g*1000+i)), User(fmt.Sprintf("u%d", g)))
				if err != nil {
					errs <- err
					return
				}
				r, err := e.Decide(call, `{"type":"complete","result":{"content":[]}}`)
				if err != nil {
					errs <- err
					return
				}
				body, err := r.Body()
				if err != nil || !strings.Contains(body, fmt.Sprintf(`"id":%d`, g*1000+i)) {
					errs <- fmt.Errorf("body %s: %v", body, err)
				}
				_, err = e.Decide(call, `{"type":"complete","result":{}}`)
				var se *Error
				if !errors.As(err, &se) || !strings.HasPrefix(se.Detail, "ALREADY_DECIDED") {
					errs <- fmt.Errorf("second decide: %#v", err)
				}
				r.Close()
				call.Close()
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// The edge checks through the wrappers: a bad policy entry is a CONFIG
// *Error, a nil list is empty, and a session admits only its opener.
func TestEdge(t *testing.T) {
	var se *Error
	if _, err := NewOriginPolicy([]string{"a b"}, nil); !errors.As(err, &se) || se.Status != StatusConfig ||
		!strings.Contains(se.Message(), `host entry "a b" is not valid`) {
		t.Fatalf("bad host entry: %v", err)
	}
	p, err := NewOriginPolicy([]string{"mcp.example.com"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := CheckHTTPOrigin(p, []Header{{"Host", "mcp.example.com"}, {"Origin", "https://mcp.example.com"}})
	if err != nil || r != nil {
		t.Fatalf("same origin behind a proxy: %v %v", r, err)
	}
	r, err = CheckHTTPOrigin(p, []Header{{"Host", "localhost:1"}})
	if err != nil || r == nil {
		t.Fatalf("loopback is not implied: %v", err)
	}
	if status, _ := r.HTTPStatus(); status != 421 {
		t.Errorf("HTTP %d", status)
	}
	r.Close()
	p.Close()
	if _, err := CheckHTTPOrigin(p, nil); err != errClosed {
		t.Fatalf("closed policy: %v", err)
	}

	s, err := NewSession("2025-11-25", `{"elicitation":{}}`, "", User("alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if name, ok, err := s.Principal(); err != nil || !ok || name != "alice" {
		t.Fatalf("principal %q %v %v", name, ok, err)
	}
	if r, err := s.CheckPrincipal(User("alice")); err != nil || r != nil {
		t.Fatalf("the opener: %v %v", r, err)
	}
	for _, who := range []Principal{User("bob"), Anonymous} {
		r, err := s.CheckPrincipal(who)
		if err != nil || r == nil {
			t.Fatalf("%v: not refused (%v)", who, err)
		}
		body, _ := r.Body()
		if status, _ := r.HTTPStatus(); status != 404 || !strings.Contains(body, `"code":-32001`) {
			t.Errorf("%v: HTTP %d %s", who, status, body)
		}
		r.Close()
	}
	anon, err := NewSession("2025-11-25", `{}`, "", Anonymous)
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Close()
	if _, ok, err := anon.Principal(); err != nil || ok {
		t.Fatalf("anonymous session: ok %v, %v", ok, err)
	}
	if _, err := NewSession("2025-11-25", `{}`, "", User("")); !errors.As(err, &se) || se.Status != StatusArgument {
		t.Fatalf("empty principal: %v", err)
	}
}
