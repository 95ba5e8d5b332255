// SPDX-License-Identifier: MIT OR Apache-2.0

package snodo

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

const seatSchema = `{"type":"object","properties":{"seat":{"type":"string"}},"required":["seat"]}`

// Questions as values: readers, kinds, the JSON round trip and refusals.
func TestQuestion(t *testing.T) {
	q, err := ElicitForm("Seat?", seatSchema)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	js, err := q.JSON()
	want := `{"method":"elicitation/create","params":{"message":"Seat?","mode":"form",` +
		`"requestedSchema":{"properties":{"seat":{"type":"string"}},"required":["seat"],"type":"object"}}}`
	if err != nil || js != want {
		t.Fatalf("JSON %s, %v", js, err)
	}
	if k, err := q.Kind(); err != nil || k != KindForm {
		t.Fatalf("kind %d, %v", k, err)
	}
	again, err := QuestionFromJSON(js)
	if err != nil {
		t.Fatal(err)
	}
	if js2, _ := again.JSON(); js2 != js {
		t.Fatalf("round trip %s", js2)
	}
	again.Close()
	if _, err := again.JSON(); err != errClosed {
		t.Fatalf("closed question: %v", err)
	}
	u, err := ElicitURL("Pay", "https://pay.example.com/x")
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	if k, _ := u.Kind(); k != KindURL {
		t.Fatalf("url kind %d", k)
	}
	var se *Error
	for text, status := range map[string]Status{
		`{"method":`:                StatusJSON,
		`{"method":"tools/list"}`:   StatusInputRequest,
		`{"method":"a","method":1}`: StatusJSON,
	} {
		if _, err := QuestionFromJSON(text); !errors.As(err, &se) || se.Status != status {
			t.Errorf("%s: %v, want %s", text, err, status.Name())
		}
	}
}

// Asking with questions and with the outcome as JSON text gives the same
// response byte for byte, and one question is shared by goroutines (under
// -race: the wrapper adds no unsynchronised state to it).
func TestQuestionsShared(t *testing.T) {
	q, err := ElicitForm("Seat?", seatSchema)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	js, _ := q.JSON()
	first := func(e *Engine, id int, text bool) string {
		t.Helper()
		call, _, err := e.Begin([]byte(fmt.Sprintf(toolCall, id)), User("alice"))
		if err != nil {
			t.Fatal(err)
		}
		defer call.Close()
		var r *Response
		if text {
			r, err = e.Decide(call, `{"type":"input_required","inputRequests":{"seat":`+js+`},"state":{"n":1.0}}`)
		} else {
			r, err = e.DecideInputRequired(call, []Ask{{"seat", q}}, `{"n":1.0}`)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		body, err := r.Body()
		if err != nil {
			t.Fatal(err)
		}
		return body
	}
	e1, e2 := testEngine(t), testEngine(t)
	defer e1.Close()
	defer e2.Close()
	byText, byQuestion := first(e1, 1, true), first(e2, 1, false)
	if !strings.Contains(byText, `"requestState"`) || !strings.Contains(byText, `"seat":{"method":"elicitation/create"`) {
		t.Fatalf("body %s", byText)
	}
	// Tokens carry random ids (no seed here): compare without them.
	cut := func(s string) string { return s[:strings.Index(s, `"requestState"`)] }
	if cut(byText) != cut(byQuestion) {
		t.Fatalf("text %s\nquestions %s", byText, byQuestion)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				call, _, err := e1.Begin([]byte(fmt.Sprintf(toolCall, g*1000+i)), User("alice"))
				if err != nil {
					errs <- err
					return
				}
				if kind, _, err := call.Response("seat", q); err != nil || kind != AnswerMissing {
					errs <- fmt.Errorf("response %s %v", kind, err)
				}
				r, err := e1.DecideInputRequired(call, []Ask{{"seat", q}}, "")
				if err != nil {
					errs <- err
					return
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
	// A closed question in an Ask is refused (libsnodo sees NULL).
	closed, _ := ListRoots() //nolint:staticcheck // a question to close
	closed.Close()
	call, _, _ := e1.Begin([]byte(fmt.Sprintf(toolCall, 9)), User("alice"))
	defer call.Close()
	var se *Error
	if _, err := e1.DecideInputRequired(call, []Ask{{"k", closed}}, ""); !errors.As(err, &se) || se.Status != StatusNullArgument {
		t.Fatalf("closed question: %v", err)
	}
}

// A legacy call asks a question as a pending flow, whose request carries
// the question's JSON.
func TestQuestionOnLegacy(t *testing.T) {
	e := testEngine(t)
	defer e.Close()
	q, err := ElicitForm("Seat?", seatSchema)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	s, err := NewSession("2025-11-25", `{"elicitation":{}}`, "", User("alice"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	call, resp, err := e.BeginLegacy([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"book"}}`), s, User("alice"))
	if err != nil || resp != nil {
		t.Fatalf("begin_legacy: %v %v", resp, err)
	}
	defer call.Close()
	kind, r, p, next, err := e.DecideLegacyInputRequired(call, []Ask{{"seat", q}}, "")
	if err != nil || kind != BridgeSend || r != nil || next != nil || p == nil {
		t.Fatalf("decide_legacy: %v %v %v %v %v", kind, r, p, next, err)
	}
	defer p.Close()
	requests, err := p.Requests()
	if err != nil || !strings.Contains(requests, `"params":{"message":"Seat?","mode":"form"`) {
		t.Fatalf("requests %s %v", requests, err)
	}
}
