// SPDX-License-Identifier: MIT OR Apache-2.0

package snodo

// Runs the shared vectors (tests/vectors, see its README.md) through
// libsnodo from Go, with exact expected outputs: JSON is compared by its
// canonical form (numbers by their text), so tokens compare byte for byte.
// Every case of every file this runner knows runs; an unknown file, an
// unknown op or a case that cannot run fails the test.

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

type raw = json.RawMessage

func vectorsDir(t *testing.T) string {
	if d := os.Getenv("SNODO_VECTORS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "tests", "vectors")
}

type vfile struct {
	Schema string `json:"schema"`
	Config raw    `json:"config"`
	Tests  []raw  `json:"tests"`
}

func load(t *testing.T, name string) vfile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(vectorsDir(t), name))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var f vfile
	if err := json.Unmarshal(b, &f); err != nil || f.Schema != "snodo-vectors-v1" || len(f.Tests) == 0 {
		t.Fatalf("%s: unreadable, wrong schema or no tests (%v)", name, err)
	}
	return f
}

// present: the field was in the vector (a JSON null counts as present).
func present(r raw) bool { return len(r) > 0 }

func isNull(r raw) bool { return !present(r) || string(bytes.TrimSpace(r)) == "null" }

func str(t *testing.T, r raw) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(r, &s); err != nil {
		t.Fatalf("not a string: %s", r)
	}
	return s
}

func u64(t *testing.T, r raw) uint64 {
	t.Helper()
	n, err := strconv.ParseUint(string(r), 10, 64)
	if err != nil {
		t.Fatalf("not an integer: %s", r)
	}
	return n
}

// sameJSON fails the test unless got and want have one canonical form.
func sameJSON(t *testing.T, what, got string, want raw) {
	t.Helper()
	g, err1 := Canonicalize([]byte(got))
	w, err2 := Canonicalize(want)
	if err1 != nil || err2 != nil || g != w {
		t.Errorf("%s:\n  got:      %s\n  expected: %s (%v, %v)", what, got, want, err1, err2)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func errName(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Name
	}
	return "NOT_A_SNODO_ERROR: " + err.Error()
}

func errorOut(err error) string { return `{"error":` + quote(errName(err)) + `}` }

type vconfig struct {
	Keys []struct {
		ID  string `json:"id"`
		Hex string `json:"hex"`
	} `json:"keys"`
	TTLSecs           raw      `json:"ttlSecs"`
	MaxRounds         raw      `json:"maxRounds"`
	MaxFlowAgeSecs    raw      `json:"maxFlowAgeSecs"`
	MaxTokenBytes     raw      `json:"maxTokenBytes"`
	MaxRequestBytes   raw      `json:"maxRequestBytes"`
	MaxInputResponses raw      `json:"maxInputResponses"`
	ClockSkewSecs     raw      `json:"clockSkewSecs"`
	TokenVersion      raw      `json:"tokenVersion"`
	MinTokenVersion   raw      `json:"minTokenVersion"`
	TestRandomSeed    raw      `json:"testRandomSeed"`
	StrictAnswers     *bool    `json:"strictAnswers"`
	Audience          *string  `json:"audience"`
	SupportedVersions []string `json:"supportedVersions"`
	ServerInfo        raw      `json:"serverInfo"`
}

var knownConfig = map[string]bool{"keys": true, "ttlSecs": true, "maxRounds": true, "maxFlowAgeSecs": true,
	"maxTokenBytes": true, "maxRequestBytes": true, "maxInputResponses": true, "clockSkewSecs": true,
	"strictAnswers": true, "audience": true, "supportedVersions": true, "serverInfo": true,
	"tokenVersion": true, "minTokenVersion": true, "testRandomSeed": true}

// engine builds an engine from a vector config with its clock fixed at now.
func engine(t *testing.T, cfg raw, now uint64) *Engine {
	t.Helper()
	var fields map[string]raw
	var vc vconfig
	if err := json.Unmarshal(cfg, &fields); err != nil {
		t.Fatalf("config: %v", err)
	}
	for k := range fields {
		if !knownConfig[k] {
			t.Fatalf("config field %q unknown to the Go runner", k)
		}
	}
	if err := json.Unmarshal(cfg, &vc); err != nil {
		t.Fatalf("config: %v", err)
	}
	c, err := NewConfig()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("config: %v", err)
		}
	}
	for _, k := range vc.Keys {
		key, err := hex.DecodeString(k.Hex)
		must(err)
		must(c.AddKey(k.ID, key))
	}
	if present(vc.TTLSecs) {
		must(c.SetTTLSecs(u64(t, vc.TTLSecs)))
	}
	if present(vc.MaxRounds) {
		must(c.SetMaxRounds(uint32(u64(t, vc.MaxRounds))))
	}
	if present(vc.MaxFlowAgeSecs) {
		must(c.SetMaxFlowAgeSecs(u64(t, vc.MaxFlowAgeSecs)))
	}
	if present(vc.MaxTokenBytes) {
		must(c.SetMaxTokenBytes(u64(t, vc.MaxTokenBytes)))
	}
	if present(vc.MaxRequestBytes) {
		must(c.SetMaxRequestBytes(u64(t, vc.MaxRequestBytes)))
	}
	if present(vc.MaxInputResponses) {
		must(c.SetMaxInputResponses(u64(t, vc.MaxInputResponses)))
	}
	if present(vc.ClockSkewSecs) {
		must(c.SetClockSkewSecs(u64(t, vc.ClockSkewSecs)))
	}
	// Rows of the core's LIMITS, set by name.
	if present(vc.TokenVersion) {
		must(c.SetLimit("token_version", u64(t, vc.TokenVersion)))
	}
	if present(vc.MinTokenVersion) {
		must(c.SetLimit("min_token_version", u64(t, vc.MinTokenVersion)))
	}
	// Tests only, not a row of LIMITS: a setting of the test build of
	// libsnodo (cargo feature test-knobs), which this package's tests link.
	if present(vc.TestRandomSeed) {
		must(c.SetLimit("test_random_seed", u64(t, vc.TestRandomSeed)))
	}
	if vc.StrictAnswers != nil {
		must(c.SetStrictAnswers(*vc.StrictAnswers))
	}
	if vc.Audience != nil {
		must(c.SetAudience(*vc.Audience))
	}
	for _, v := range vc.SupportedVersions {
		must(c.AddSupportedVersion(v))
	}
	if present(vc.ServerInfo) {
		must(c.SetServerInfo(string(vc.ServerInfo)))
	}
	must(c.SetFixedTime(now))
	e, err := NewEngine(c)
	must(err)
	return e
}

func principal(t *testing.T, r raw) Principal {
	if isNull(r) {
		return Anonymous
	}
	return User(str(t, r))
}

func responseOut(t *testing.T, r *Response) string {
	t.Helper()
	status, err := r.HTTPStatus()
	if err != nil {
		t.Fatal(err)
	}
	body, err := r.Body()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`{"httpStatus":%d,"body":%s}`, status, body)
}

// run runs every case of a file through fn, each as its own subtest, and
// reports how many ran.
func run(t *testing.T, name string, fn func(t *testing.T, f vfile, tc raw)) {
	f := load(t, name)
	for _, tc := range f.Tests {
		var id struct {
			TcID raw `json:"tcId"`
		}
		if err := json.Unmarshal(tc, &id); err != nil || !present(id.TcID) {
			t.Fatalf("%s: a case without tcId", name)
		}
		tc := tc
		t.Run("tc"+string(id.TcID), func(t *testing.T) { fn(t, f, tc) })
	}
	ran.add(name, len(f.Tests))
	t.Logf("%s: %d cases", name, len(f.Tests))
}

type counter struct {
	sync.Mutex
	n map[string]int
}

func (c *counter) add(name string, n int) {
	c.Lock()
	defer c.Unlock()
	c.n[name] += n
}

var ran = counter{n: map[string]int{}}

// The files this runner knows; any other vector file fails TestEveryVectorFile.
var runners = map[string]func(*testing.T, vfile, raw){
	"flows.json":         runFlow,
	"wire.json":          runFlow,
	"tokens.json":        runToken,
	"builders.json":      runBuilder,
	"wire-builders.json": runBuilder,
	"canonical.json":     runCanonical,
	"headers.json":       runHeaders,
	"origin.json":        runOrigin,
	"consistency.json":   runConsistency,
	"parts.json":         runParts,
	"legacy.json":        runLegacy,
}

func TestEveryVectorFile(t *testing.T) {
	names, err := filepath.Glob(filepath.Join(vectorsDir(t), "*.json"))
	if err != nil || len(names) < 4 {
		t.Fatalf("vector files in %s: %v (%d)", vectorsDir(t), err, len(names))
	}
	sort.Strings(names)
	total := 0
	for _, p := range names {
		name := filepath.Base(p)
		fn, ok := runners[name]
		if !ok {
			t.Errorf("%s: no Go runner for this vector file", name)
			continue
		}
		t.Run(strings.TrimSuffix(name, ".json"), func(t *testing.T) { run(t, name, fn) })
		total += ran.n[name]
	}
	// A file this runner knows that is missing or ran no case fails: a
	// renamed or emptied file must not pass as zero cases.
	for name := range runners {
		if ran.n[name] == 0 {
			t.Errorf("%s: no case ran", name)
		}
	}
	t.Logf("vectors: %d cases in %d files through libsnodo %s", total, len(names), Version())
}

// ---- flows.json, wire.json

type flowStep struct {
	Request   string `json:"request"`
	Config    raw    `json:"config"`
	Now       raw    `json:"now"`
	Principal raw    `json:"principal"`
	Parts     *struct {
		ID     raw    `json:"id"`
		Method string `json:"method"`
		Params raw    `json:"params"`
	} `json:"parts"`
	Answers []struct {
		Key      string `json:"key"`
		Request  raw    `json:"request"`
		Expected raw    `json:"expected"`
	} `json:"answers"`
	RawAnswers []struct {
		Key      string `json:"key"`
		Expected raw    `json:"expected"`
	} `json:"rawAnswers"`
	Call *struct {
		Round     raw `json:"round"`
		State     raw `json:"state"`
		AskedKeys raw `json:"askedKeys"`
		// Null ids and expiry on a first round.
		FlowID         raw `json:"flowId"`
		TokenID        raw `json:"tokenId"`
		TokenExpiresAt raw `json:"tokenExpiresAt"`
		AnswersDigest  raw `json:"answersDigest"`
	} `json:"call"`
	Outcome    raw     `json:"outcome"`
	Diagnostic *string `json:"diagnostic"`
	Expected   raw     `json:"expected"`
}

type flowCase struct {
	Config    raw        `json:"config"`
	Now       raw        `json:"now"`
	Principal raw        `json:"principal"`
	Result    string     `json:"result"`
	Steps     []flowStep `json:"steps"`
}

// withStates substitutes {{state:N}} with step N's requestState.
func withStates(text string, states map[int]string, upto int) string {
	for k := 0; k < upto; k++ {
		if st, ok := states[k]; ok {
			text = strings.ReplaceAll(text, fmt.Sprintf("{{state:%d}}", k+1), st)
		}
	}
	return text
}

// finishStep takes what begin gave for one step through the answers, the
// call's readers and decide, and returns the step's output (the response
// as {"httpStatus","body"} or {"error"}) and whether it is an error.
func finishStep(t *testing.T, e *Engine, i int, s *flowStep, call *Call, resp *Response, err error) (string, bool) {
	t.Helper()
	defer call.Close()
	var out string
	switch {
	case err != nil:
		if s.Diagnostic != nil {
			t.Errorf("step %d: a diagnostic is expected but begin failed: %v", i+1, err)
		}
		return errorOut(err), true
	case resp != nil:
		if call != nil {
			t.Errorf("step %d: both a call and a response", i+1)
		}
		out = responseOut(t, resp)
	default:
		checkAnswers(t, call, s.Answers, s.RawAnswers)
		if s.Call != nil {
			round, err := call.Round()
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, "round", strconv.FormatUint(uint64(round), 10), s.Call.Round)
			state, err := call.State()
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, "state", state, s.Call.State)
			asked, err := call.AskedKeys()
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, "askedKeys", asked, s.Call.AskedKeys)
			sameIDs(t, call, s)
		}
		if !present(s.Outcome) {
			t.Fatalf("step %d: a call but no outcome", i+1)
		}
		resp, err = e.Decide(call, string(s.Outcome))
		if err != nil {
			t.Fatalf("step %d: decide: %v", i+1, err)
		}
		out = responseOut(t, resp)
	}
	defer resp.Close()
	if s.Diagnostic != nil {
		if d, ok, err := resp.Diagnostic(); err != nil || !ok || !strings.HasPrefix(d, *s.Diagnostic) {
			t.Errorf("step %d: diagnostic %q (%v), want it to start with %q", i+1, d, err, *s.Diagnostic)
		}
	}
	return out, false
}

// stepResult reads a step's output: whether its body is an error, and its
// requestState (if any) for the next steps.
func stepResult(t *testing.T, out string) (bool, *string) {
	var got struct {
		Body struct {
			Error  raw `json:"error"`
			Result struct {
				RequestState *string `json:"requestState"`
			} `json:"result"`
		} `json:"body"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("output %s: %v", out, err)
	}
	return present(got.Body.Error), got.Body.Result.RequestState
}

func runFlow(t *testing.T, f vfile, tc raw) {
	var c flowCase
	if err := json.Unmarshal(tc, &c); err != nil || len(c.Steps) == 0 {
		t.Fatalf("flow case: %v", err)
	}
	cfg := f.Config
	if present(c.Config) {
		cfg = c.Config
	}
	states := map[int]string{}
	sawError := false
	for i, s := range c.Steps {
		scfg, now, who := cfg, c.Now, c.Principal
		if present(s.Config) {
			scfg = s.Config
		}
		if present(s.Now) {
			now = s.Now
		}
		if present(s.Principal) {
			who = s.Principal
		}
		e := engine(t, scfg, u64(t, now))
		text := withStates(s.Request, states, i)
		call, resp, err := e.Begin([]byte(text), principal(t, who))
		out, failed := finishStep(t, e, i, &c.Steps[i], call, resp, err)
		bodyError, rs := stepResult(t, out)
		sawError = sawError || failed || bodyError
		if rs != nil {
			states[i] = *rs
		}
		sameJSON(t, fmt.Sprintf("step %d", i+1), out, s.Expected)
		e.Close()
	}
	if sawError != (c.Result == "invalid") {
		t.Errorf("result: saw an error = %v, vector result %q", sawError, c.Result)
	}
}

// sameIDs compares the call's id readers (the flow id the once machine keys on, and
// remembered results) with the call block; an absent field fails, as the
// Rust runner makes every call block carry all four.
func sameIDs(t *testing.T, call *Call, s *flowStep) {
	t.Helper()
	optional := func(v string, ok bool, err error) string {
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return "null"
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	sameJSON(t, "flowId", optional(call.FlowID()), s.Call.FlowID)
	sameJSON(t, "tokenId", optional(call.TokenID()), s.Call.TokenID)
	at, ok, err := call.TokenExpiresAt()
	if err != nil {
		t.Fatal(err)
	}
	exp := "null"
	if ok {
		exp = strconv.FormatUint(at, 10)
	}
	sameJSON(t, "tokenExpiresAt", exp, s.Call.TokenExpiresAt)
	digest, err := call.AnswersDigest()
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "answersDigest", optional(digest, true, nil), s.Call.AnswersDigest)
}

func checkAnswers(t *testing.T, call *Call, answers []struct {
	Key      string `json:"key"`
	Request  raw    `json:"request"`
	Expected raw    `json:"expected"`
}, raws []struct {
	Key      string `json:"key"`
	Expected raw    `json:"expected"`
}) {
	t.Helper()
	for _, a := range answers {
		q, err := QuestionFromJSON(string(a.Request))
		if err != nil {
			t.Fatalf("question %s: %v", a.Key, err)
		}
		kind, value, err := call.Response(a.Key, q)
		q.Close()
		if err != nil {
			t.Fatalf("answer %s: %v", a.Key, err)
		}
		var want struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(a.Expected, &want); err != nil {
			t.Fatal(err)
		}
		if want.Kind == "invalid" {
			// Only the kind: the reason text is each language's own.
			if kind != AnswerInvalid {
				t.Errorf("answer %s: kind %s, want invalid", a.Key, kind)
			}
			continue
		}
		got := `{"kind":` + quote(kind.String())
		if kind == AnswerAccepted {
			got += `,"value":` + value
		}
		sameJSON(t, "answer "+a.Key, got+"}", a.Expected)
	}
	for _, r := range raws {
		got, err := call.RawResponse(r.Key)
		if err != nil {
			t.Fatalf("raw answer %s: %v", r.Key, err)
		}
		sameJSON(t, "raw answer "+r.Key, got, r.Expected)
	}
}

// ---- tokens.json

type tokenCase struct {
	TcID      uint64 `json:"tcId"`
	Op        string `json:"op"`
	Config    raw    `json:"config"`
	Now       raw    `json:"now"`
	Principal raw    `json:"principal"`
	Method    string `json:"method"`
	Params    string `json:"params"`
	Round     raw    `json:"round"`
	FlowStart raw    `json:"flowStart"`
	Questions raw    `json:"questions"`
	State     raw    `json:"state"`
	Token     string `json:"token"`
	TokenFrom *struct {
		TcID uint64 `json:"tcId"`
		Edit string `json:"edit"`
	} `json:"tokenFrom"`
	Check    map[string]raw `json:"check"`
	Result   string         `json:"result"`
	Expected raw            `json:"expected"`
}

// sealed holds the tokens of tokens.json's seal cases by tcId, for the open
// cases that name them in tokenFrom (the file runs in order).
var sealed = struct {
	sync.Mutex
	m map[uint64]string
}{m: map[uint64]string{}}

func editToken(t *testing.T, tok, edit string) string {
	op, arg, _ := strings.Cut(edit, ":")
	switch op {
	case "":
		return tok
	case "append":
		return tok + arg
	case "truncate":
		n, err := strconv.Atoi(arg)
		if err != nil || n > len(tok) {
			t.Fatalf("edit %q", edit)
		}
		return tok[:len(tok)-n]
	case "flip":
		i, err := strconv.Atoi(arg)
		if err != nil || i >= len(tok) {
			t.Fatalf("edit %q", edit)
		}
		b := []byte(tok)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	case "replace-prefix":
		if dot := strings.IndexByte(tok, '.'); dot >= 0 {
			return arg + tok[dot:]
		}
		return arg
	case "keep":
		n, err := strconv.Atoi(arg)
		if err != nil || n > len(tok) {
			t.Fatalf("edit %q", edit)
		}
		return tok[:n]
	case "replace-kid":
		// The second part (the key id) replaced.
		parts := strings.Split(tok, ".")
		if len(parts) < 3 {
			t.Fatalf("edit %q on %q", edit, tok)
		}
		parts[1] = arg
		return strings.Join(parts, ".")
	}
	t.Fatalf("unknown edit %q", edit)
	return ""
}

func runToken(t *testing.T, f vfile, tc raw) {
	var c tokenCase
	if err := json.Unmarshal(tc, &c); err != nil {
		t.Fatal(err)
	}
	cfg := f.Config
	if present(c.Config) {
		cfg = c.Config
	}
	e := engine(t, cfg, u64(t, c.Now))
	defer e.Close()
	who := principal(t, c.Principal)
	binding, err := BindingDigest(c.Method, c.Params)
	if err != nil {
		t.Fatalf("binding: %v", err)
	}
	var out string
	switch c.Op {
	case "seal":
		state := ""
		if !isNull(c.State) {
			state = string(c.State)
		}
		if !present(c.Questions) {
			t.Fatal("seal case without questions")
		}
		tok, err := e.Seal(who, binding, uint32(u64(t, c.Round)), u64(t, c.FlowStart), string(c.Questions), state)
		if err != nil {
			out = errorOut(err)
		} else {
			out = `{"token":` + quote(tok) + `}`
			sealed.Lock()
			sealed.m[c.TcID] = tok
			sealed.Unlock()
		}
	case "open":
		tok := c.Token
		if c.TokenFrom != nil {
			sealed.Lock()
			src, ok := sealed.m[c.TokenFrom.TcID]
			sealed.Unlock()
			if !ok {
				t.Fatalf("tokenFrom %d: no such sealed token", c.TokenFrom.TcID)
			}
			if edited := editToken(t, src, c.TokenFrom.Edit); edited != c.Token {
				t.Errorf("tokenFrom edit gives %q, the vector says %q", edited, c.Token)
			}
		}
		opened, err := e.Open(tok, who, binding)
		if err == nil {
			var o map[string]raw
			if err := json.Unmarshal([]byte(opened), &o); err != nil {
				t.Fatal(err)
			}
			parts := []string{}
			for _, k := range []string{"round", "flowStart", "issuedAt", "expiresAt", "questionKeys", "state", "tokenId", "flowId"} {
				parts = append(parts, quote(k)+":"+string(o[k]))
			}
			out = "{" + strings.Join(parts, ",") + "}"
		} else {
			var se *Error
			if !errors.As(err, &se) || se.Status != StatusToken {
				t.Fatalf("open: %v", err)
			}
			// The one message names the same reason as the accessor.
			if want := "Invalid or expired requestState (" + se.Reason + ")"; se.Message() != want {
				t.Errorf("open message %q, want %q", se.Message(), want)
			}
			out = `{"reason":` + quote(se.Reason) + `}`
		}
	default:
		t.Fatalf("unknown op %q", c.Op)
	}
	var got map[string]raw
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	for k, v := range c.Check {
		sameJSON(t, "check "+k, string(got[k]), v)
	}
	invalid := present(got["error"]) || present(got["reason"])
	if invalid != (c.Result == "invalid") {
		t.Errorf("result: invalid = %v, vector %q", invalid, c.Result)
	}
	sameJSON(t, "expected output", out, c.Expected)
}

// ---- builders.json, wire-builders.json

type builderCase struct {
	Op           string `json:"op"`
	Message      string `json:"message"`
	URL          string `json:"url"`
	Schema       raw    `json:"schema"`
	Params       raw    `json:"params"`
	Requests     raw    `json:"requests"`
	Capabilities raw    `json:"capabilities"`
	Task         raw    `json:"task"`
	Result       string `json:"result"`
	Expected     raw    `json:"expected"`
}

// text is a JSON argument as text; an absent one is "null", as in C.
func text(r raw) string {
	if !present(r) {
		return "null"
	}
	return string(r)
}

// orderedKeys is the keys of a JSON object text in their order.
func orderedKeys(t *testing.T, obj string) []string {
	d := json.NewDecoder(strings.NewReader(obj))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", obj)
	}
	keys := []string{}
	for d.More() {
		k, err := d.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip raw
		if err := d.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func runBuilder(t *testing.T, _ vfile, tc raw) {
	var c builderCase
	if err := json.Unmarshal(tc, &c); err != nil {
		t.Fatal(err)
	}
	field := "request"
	var res string
	var err error
	// The builders make questions; what is compared is the question's JSON.
	var q *Question
	switch c.Op {
	case "elicit_form":
		q, err = ElicitForm(c.Message, text(c.Schema))
	case "elicit_url":
		q, err = ElicitURL(c.Message, c.URL)
	case "elicit_form_without_lint":
		q, err = ElicitFormWithoutLint(c.Message, text(c.Schema))
	case "elicit_url_without_lint":
		q, err = ElicitURLWithoutLint(c.Message, c.URL)
	case "sampling":
		q, err = Sampling(text(c.Params)) //nolint:staticcheck // the vectors pin the deprecated builder
	case "list_roots":
		q, err = ListRoots() //nolint:staticcheck // as above
	case "task_input_requests":
		field = "missing"
		res, err = CheckTaskInputRequests(text(c.Task), text(c.Capabilities))
		var se *Error
		if errors.As(err, &se) && se.Status == StatusInputRequest {
			// A malformed task is INPUT_REQUEST in C; the vectors call it INVALID_TASK.
			if c.Result != "invalid" {
				t.Errorf("result %q, got %v", c.Result, err)
			}
			sameJSON(t, "expected output", `{"error":"INVALID_TASK"}`, c.Expected)
			return
		}
	case "missing_capabilities":
		field = "missing"
		res, err = MissingCapabilities(text(c.Requests), text(c.Capabilities))
	case "filter_supported":
		field = "keys"
		res, err = FilterSupported(text(c.Requests), text(c.Capabilities))
		if err == nil {
			// The kept requests' keys, in the order snodo returned them.
			k, _ := json.Marshal(orderedKeys(t, res))
			res = string(k)
		}
	default:
		t.Fatalf("unknown op %q", c.Op)
	}
	if q != nil {
		res, err = q.JSON()
		q.Close()
	}
	out := ""
	if err == nil {
		out = `{` + quote(field) + `:` + res + `}`
	} else {
		out = errorOut(err)
	}
	if (err != nil) != (c.Result == "invalid") {
		t.Errorf("result %q, got %v", c.Result, err)
	}
	sameJSON(t, "expected output", out, c.Expected)
}

// ---- canonical.json

func runCanonical(t *testing.T, _ vfile, tc raw) {
	var c struct {
		Op       string `json:"op"`
		Input    string `json:"input"`
		Method   string `json:"method"`
		Params   string `json:"params"`
		Result   string `json:"result"`
		Expected raw    `json:"expected"`
	}
	if err := json.Unmarshal(tc, &c); err != nil {
		t.Fatal(err)
	}
	var out string
	invalid := false
	switch c.Op {
	case "canonical":
		s, err := Canonicalize([]byte(c.Input))
		if err != nil {
			invalid = true
			out = errorOut(err)
		} else {
			out = `{"canonical":` + quote(s) + `}`
		}
	case "binding":
		d, err := BindingDigest(c.Method, c.Params)
		if err != nil {
			t.Fatalf("binding: %v", err)
		}
		out = `{"digestHex":"` + hex.EncodeToString(d[:]) + `"}`
	default:
		t.Fatalf("unknown op %q", c.Op)
	}
	if invalid != (c.Result == "invalid") {
		t.Errorf("result %q, invalid = %v", c.Result, invalid)
	}
	sameJSON(t, "expected output", out, c.Expected)
}

// ---- headers.json

func runHeaders(t *testing.T, _ vfile, tc raw) {
	var c struct {
		Op       string      `json:"op"`
		Headers  [][2]string `json:"headers"`
		Request  string      `json:"request"`
		Result   string      `json:"result"`
		Expected raw         `json:"expected"`
	}
	if err := json.Unmarshal(tc, &c); err != nil || c.Op != "check_http_headers" {
		t.Fatalf("headers case: op %q, %v", c.Op, err)
	}
	hs := make([]Header, len(c.Headers))
	for i, h := range c.Headers {
		hs[i] = Header{Name: h[0], Value: h[1]}
	}
	r, err := CheckHTTPHeaders(hs, []byte(c.Request))
	if err != nil {
		t.Fatalf("check_http_headers: %v", err)
	}
	defer r.Close()
	if isNull(c.Expected) {
		if r != nil {
			t.Errorf("expected no response, got %s", responseOut(t, r))
		}
		if c.Result != "valid" {
			t.Errorf("result %q for an accepted request", c.Result)
		}
		return
	}
	if r == nil {
		t.Fatalf("expected a response")
	}
	sameJSON(t, "expected output", responseOut(t, r), c.Expected)
}

// ---- origin.json: the Origin/Host check under a policy (null: loopback)

func runOrigin(t *testing.T, _ vfile, tc raw) {
	var c struct {
		Op     string `json:"op"`
		Policy *struct {
			Hosts   []string `json:"hosts"`
			Origins []string `json:"origins"`
		} `json:"policy"`
		Headers  [][2]string `json:"headers"`
		Result   string      `json:"result"`
		Expected raw         `json:"expected"`
	}
	if err := json.Unmarshal(tc, &c); err != nil || c.Op != "check_http_origin" {
		t.Fatalf("origin case: op %q, %v", c.Op, err)
	}
	var policy *OriginPolicy
	var err error
	if c.Policy == nil {
		policy, err = LoopbackOriginPolicy()
	} else {
		policy, err = NewOriginPolicy(c.Policy.Hosts, c.Policy.Origins)
	}
	if err != nil {
		t.Fatalf("policy: %v", err)
	}
	defer policy.Close()
	hs := make([]Header, len(c.Headers))
	for i, h := range c.Headers {
		hs[i] = Header{Name: h[0], Value: h[1]}
	}
	r, err := CheckHTTPOrigin(policy, hs)
	if err != nil {
		t.Fatalf("check_http_origin: %v", err)
	}
	defer r.Close()
	if (c.Result == "valid") != isNull(c.Expected) {
		t.Errorf("result %q with expected %s", c.Result, c.Expected)
	}
	if isNull(c.Expected) {
		if r != nil {
			t.Errorf("expected no response, got %s", responseOut(t, r))
		}
		return
	}
	if r == nil {
		t.Fatalf("expected a response")
	}
	sameJSON(t, "expected output", responseOut(t, r), c.Expected)
}

// ---- parts.json: begin on the text and BeginParts on the parts (id and
// params as JSON text) give the same output, which must be the expected one.

func runParts(t *testing.T, f vfile, tc raw) {
	var c flowCase
	if err := json.Unmarshal(tc, &c); err != nil || len(c.Steps) == 0 {
		t.Fatalf("parts case: %v", err)
	}
	e := engine(t, f.Config, u64(t, c.Now))
	defer e.Close()
	who := principal(t, c.Principal)
	states := map[int]string{}
	sawError := false
	for i := range c.Steps {
		s := &c.Steps[i]
		if s.Parts == nil {
			t.Fatalf("step %d: no parts", i+1)
		}
		call, resp, err := e.Begin([]byte(withStates(s.Request, states, i)), who)
		byBytes, failed := finishStep(t, e, i, s, call, resp, err)
		params := ""
		if !isNull(s.Parts.Params) {
			params = withStates(string(s.Parts.Params), states, i)
		}
		call, resp, err = e.BeginParts(text(s.Parts.ID), s.Parts.Method, params, who)
		byParts, _ := finishStep(t, e, i, s, call, resp, err)
		if byBytes != byParts {
			t.Errorf("step %d: parts and bytes differ:\n  bytes: %s\n  parts: %s", i+1, byBytes, byParts)
		}
		bodyError, rs := stepResult(t, byBytes)
		sawError = sawError || failed || bodyError
		if rs != nil {
			states[i] = *rs
		}
		sameJSON(t, fmt.Sprintf("step %d", i+1), byBytes, s.Expected)
	}
	if sawError != (c.Result == "invalid") {
		t.Errorf("result: saw an error = %v, vector result %q", sawError, c.Result)
	}
}
