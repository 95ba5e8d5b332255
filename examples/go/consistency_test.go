// SPDX-License-Identifier: MIT OR Apache-2.0

package snodo

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
)

// ---- consistency.json: one core call per case, errors with their exact
// message (the core's text, the same in every language).

type consistencyCase struct {
	Op       string         `json:"op"`
	Now      raw            `json:"now"`
	Input    map[string]raw `json:"input"`
	Result   string         `json:"result"`
	Expected raw            `json:"expected"`
}

func errorMessageOut(t *testing.T, err error) string {
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("not a snodo error: %v", err)
	}
	return `{"error":` + quote(se.Name) + `,"message":` + quote(se.Message()) + `}`
}

func runConsistency(t *testing.T, f vfile, tc raw) {
	var c consistencyCase
	if err := json.Unmarshal(tc, &c); err != nil {
		t.Fatal(err)
	}
	in := c.Input
	e := engine(t, f.Config, u64(t, c.Now))
	defer e.Close()
	var out string
	failed := false
	fail := func(err error) { failed = true; out = errorMessageOut(t, err) }
	switch c.Op {
	case "decide_twice", "principal":
		p, has := in["principal"]
		if c.Op == "principal" && !has {
			// Go, like C, cannot omit an argument: Anonymous is explicit.
			failed, out = true, `{"error":"OMITTED"}`
			break
		}
		call, resp, err := e.Begin([]byte(str(t, in["request"])), principal(t, p))
		if err != nil {
			fail(err)
			break
		}
		defer call.Close()
		defer resp.Close()
		if call == nil {
			t.Fatal("begin gave no call")
		}
		if c.Op == "principal" {
			name, ok, err := call.Principal()
			if err != nil {
				t.Fatal(err)
			}
			out = `{"principal":null}`
			if ok {
				out = `{"principal":` + quote(name) + `}`
			}
			break
		}
		r1, err := e.Decide(call, string(in["outcome"]))
		if err != nil {
			t.Fatalf("first decide: %v", err)
		}
		r1.Close()
		r2, err := e.Decide(call, string(in["outcome"]))
		if err == nil {
			r2.Close()
			t.Fatal("a second decide succeeded")
		}
		fail(err)
	case "missing_capabilities", "filter_supported":
		fn := MissingCapabilities
		if c.Op == "filter_supported" {
			fn = FilterSupported
		}
		res, err := fn(text(in["requests"]), text(in["capabilities"]))
		if err != nil {
			fail(err)
		} else {
			out = `{"result":` + res + `}`
		}
	case "binding_digest":
		d, err := BindingDigest(str(t, in["method"]), str(t, in["params"]))
		if err != nil {
			fail(err)
		} else {
			out = `{"digestHex":"` + hex.EncodeToString(d[:]) + `"}`
		}
	case "canonicalize":
		var b []byte
		if h, ok := in["hex"]; ok {
			var err error
			if b, err = hex.DecodeString(str(t, h)); err != nil {
				t.Fatal(err)
			}
		} else {
			pad := 0
			if p, ok := in["padSpaces"]; ok {
				pad = int(u64(t, p))
			}
			b = []byte(strings.Repeat(" ", pad) + str(t, in["text"]))
		}
		s, err := Canonicalize(b)
		if err != nil {
			fail(err)
		} else {
			out = `{"canonical":` + quote(s) + `}`
		}
	case "opened":
		d, err := BindingDigest(str(t, in["method"]), str(t, in["params"]))
		if err != nil {
			t.Fatal(err)
		}
		// Absent round and flow start get the core's defaults (1, now).
		round, flow := uint32(1), u64(t, c.Now)
		if r, ok := in["round"]; ok {
			round = uint32(u64(t, r))
		}
		if fs, ok := in["flowStart"]; ok {
			flow = u64(t, fs)
		}
		q, s := "", ""
		if v, ok := in["questions"]; ok {
			q = string(v)
		}
		if v, ok := in["state"]; ok {
			s = string(v)
		}
		tok, err := e.Seal(principal(t, in["principal"]), d, round, flow, q, s)
		if err != nil {
			t.Fatalf("seal: %v", err)
		}
		as := in["principal"]
		if v, ok := in["openAs"]; ok {
			as = v
		}
		opened, err := e.Open(tok, principal(t, as), d)
		if err != nil {
			var se *Error
			if !errors.As(err, &se) || se.Status != StatusToken {
				t.Fatalf("open: %v", err)
			}
			failed = true
			out = `{"error":"TOKEN","reason":` + quote(se.Reason) + `,"message":` + quote(se.Message()) + `}`
		} else {
			out = `{"opened":` + opened + `}`
		}
	case "config":
		if str(t, in["spelling"]) != "snake" {
			// Limits are named in snake_case through the C ABI; the
			// camelCase cases are Node's (the C runner leaves them too).
			naCamel.Lock()
			naCamel.n++
			naCamel.Unlock()
			t.Logf("n/a through the C ABI (camelCase spelling)")
			return
		}
		cf, err := NewConfig()
		if err != nil {
			t.Fatal(err)
		}
		defer cf.Close()
		key := []byte(strings.Repeat("\x07", 32))
		if err := cf.AddKey("k1", key); err != nil {
			t.Fatal(err)
		}
		err = cf.SetLimit(str(t, in["name"]), u64(t, in["value"]))
		if err == nil {
			var built *Engine
			built, err = NewEngine(cf)
			if err == nil {
				built.Close()
			}
		}
		if err != nil {
			fail(err)
		} else {
			out = `{"ok":true}`
		}
	default:
		t.Fatalf("unknown op %q", c.Op)
	}
	if failed != (c.Result == "invalid") {
		t.Errorf("result %q, failed = %v (%s)", c.Result, failed, out)
	}
	sameJSON(t, "expected output", out, c.Expected)
}

// naCamel counts consistency cases that do not apply through the C ABI.
var naCamel = struct {
	sync.Mutex
	n int
}{}
