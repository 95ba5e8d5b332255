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
	"time"
)

// At most once per flow (docs/once.md): the call's readers, libsnodo's
// once machine (OnceRun, its OnceSteps and OnceCommands), the in-memory
// store, and RunOnce / CheckOnce, the driver every binding writes, on any
// OnceStore (MemoryStore, or a Redis client running each command's script
// as examples/c/once_redis.c does).

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
// round); ok is false on a first round.
func (c *Call) TokenID() (id string, ok bool, err error) {
	return c.optionalID(func(p *C.snodo_call, o **C.char, n *C.size_t) C.snodo_status {
		return C.snodo_call_token_id(p, o, n)
	})
}

// unixReader reads one of the call's optional Unix times (0 on a first
// round: 0 is never a real one).
func (c *Call) unixReader(f func(*C.snodo_call, *C.uint64_t) C.snodo_status) (uint64, bool, error) {
	if c == nil || c.p == nil {
		return 0, false, errClosed
	}
	var v C.uint64_t
	err := call(func() C.snodo_status { return f(c.p, &v) })
	runtime.KeepAlive(c)
	return uint64(v), err == nil && v != 0, err
}

// TokenExpiresAt is when the token this retry opened expires (Unix
// seconds); ok is false on a first round.
func (c *Call) TokenExpiresAt() (at uint64, ok bool, err error) {
	return c.unixReader(func(p *C.snodo_call, o *C.uint64_t) C.snodo_status {
		return C.snodo_call_token_expires_at(p, o)
	})
}

// FlowExpiresAt is the last Unix second any token of this retry's flow can
// be accepted (flow start + max flow age + clock skew): the once machine
// keeps the flow's record that long. ok is false on a first round.
func (c *Call) FlowExpiresAt() (at uint64, ok bool, err error) {
	return c.unixReader(func(p *C.snodo_call, o *C.uint64_t) C.snodo_status {
		return C.snodo_call_flow_expires_at(p, o)
	})
}

// AnswersDigest is base64url SHA-256 of the canonical inputResponses
// ({} when absent).
func (c *Call) AnswersDigest() (string, error) {
	return c.reader(func(p *C.snodo_call, o **C.char, n *C.size_t) C.snodo_status {
		return C.snodo_call_answers_digest(p, o, n)
	})
}

// DefaultOncePrefix is the key prefix of OnceOptions{} (libsnodo's).
const DefaultOncePrefix = C.SNODO_ONCE_DEFAULT_PREFIX

// OnceReplayedMessage is the message of the StatusToken error a final round
// gets when its flow completed with other answers.
const OnceReplayedMessage = C.SNODO_ONCE_REPLAYED_MESSAGE

// OnceOptions are a run's store settings: the key prefix ("" is
// DefaultOncePrefix; every process of a fleet uses the same), the lease of
// a won claim and the longest wait for another caller's live claim (0:
// libsnodo's defaults, 30 s and 35 s).
type OnceOptions struct {
	Prefix string
	Lease  time.Duration
	Wait   time.Duration
}

func (o OnceOptions) prefix() (*C.uint8_t, C.size_t) {
	if o.Prefix == "" {
		return nil, 0
	}
	return bytesIn([]byte(o.Prefix))
}

// OnceRun is one run of libsnodo's once machine (one goroutine at a time).
// Each step method hands out the next OnceStep; an error from the machine
// ends the run. Close it when done.
type OnceRun struct{ p *C.snodo_once_run }

func newOnceRun(f func(**C.snodo_once_run) C.snodo_status) (*OnceRun, error) {
	r := &OnceRun{}
	if err := call(func() C.snodo_status { return f(&r.p) }); err != nil {
		return nil, err
	}
	runtime.SetFinalizer(r, (*OnceRun).Close)
	return r, nil
}

// NewOnceRun is a run for the final round c (a retry; a first round is
// StatusArgument).
func NewOnceRun(c *Call, o OnceOptions) (*OnceRun, error) {
	if c == nil || c.p == nil {
		return nil, errClosed
	}
	r, err := newOnceRun(func(out **C.snodo_once_run) C.snodo_status {
		pp, pl := o.prefix()
		return C.snodo_once_run_new(c.p, pp, pl, C.uint64_t(o.Lease.Milliseconds()),
			C.uint64_t(o.Wait.Milliseconds()), out)
	})
	runtime.KeepAlive(c)
	return r, err
}

// NewOnceLookup is a run that only looks whether a result is remembered
// for c's flow (o.Lease and o.Wait are not used).
func NewOnceLookup(c *Call, o OnceOptions) (*OnceRun, error) {
	if c == nil || c.p == nil {
		return nil, errClosed
	}
	r, err := newOnceRun(func(out **C.snodo_once_run) C.snodo_status {
		pp, pl := o.prefix()
		return C.snodo_once_lookup_new(c.p, pp, pl, out)
	})
	runtime.KeepAlive(c)
	return r, err
}

// Close frees the run; later calls do nothing. Closing a run that holds a
// claim feeds nothing: the claim stays pending until its lease lapses.
func (r *OnceRun) Close() {
	if r.p != nil {
		C.snodo_once_run_free(r.p)
		r.p = nil
		runtime.SetFinalizer(r, nil)
	}
}

// step runs one step function and wraps the step it hands out.
func (r *OnceRun) step(f func(*C.snodo_once_run, **C.snodo_once_step) C.snodo_status) (*OnceStep, error) {
	if r == nil || r.p == nil {
		return nil, errClosed
	}
	s := &OnceStep{}
	err := call(func() C.snodo_status { return f(r.p, &s.p) })
	runtime.KeepAlive(r)
	if err != nil {
		var se *Error
		if errors.As(err, &se) && se.Status == StatusToken {
			// The only TOKEN of the machine: the flow completed with
			// other answers (the other bindings' reason "replayed").
			se.Reason = "replayed"
		}
		return nil, err
	}
	runtime.SetFinalizer(s, (*OnceStep).Close)
	return s, nil
}

// Start is the first step: the claim (or the lookup) command.
func (r *OnceRun) Start() (*OnceStep, error) {
	return r.step(func(p *C.snodo_once_run, o **C.snodo_once_step) C.snodo_status { return C.snodo_once_run_start(p, o) })
}

// Feed gives the store's reply to the last COMMAND step. A StatusToken
// error (Reason "replayed") means the flow completed with other answers;
// StatusStore that it is still running elsewhere, or that this run lost
// its claim before completing.
func (r *OnceRun) Feed(reply string) (*OnceStep, error) {
	b := []byte(reply)
	return r.step(func(p *C.snodo_once_run, o **C.snodo_once_step) C.snodo_status {
		bp, bl := bytesIn(b)
		return C.snodo_once_run_feed(p, bp, bl, o)
	})
}

// Resume claims again after a SLEEP step's pause.
func (r *OnceRun) Resume() (*OnceStep, error) {
	return r.step(func(p *C.snodo_once_run, o **C.snodo_once_step) C.snodo_status { return C.snodo_once_run_resume(p, o) })
}

// EffectDone gives the effect's result text after an EFFECT step.
func (r *OnceRun) EffectDone(text string) (*OnceStep, error) {
	b := []byte(text)
	return r.step(func(p *C.snodo_once_run, o **C.snodo_once_step) C.snodo_status {
		bp, bl := bytesIn(b)
		return C.snodo_once_run_effect_done(p, bp, bl, o)
	})
}

// EffectFailed says the effect failed before doing anything: its claim is
// released (the next step is the release command).
func (r *OnceRun) EffectFailed() (*OnceStep, error) {
	return r.step(func(p *C.snodo_once_run, o **C.snodo_once_step) C.snodo_status {
		return C.snodo_once_run_effect_failed(p, o)
	})
}

// Fence is the fencing number this run won (0 before).
func (r *OnceRun) Fence() (uint64, error) {
	if r == nil || r.p == nil {
		return 0, errClosed
	}
	var v C.uint64_t
	err := call(func() C.snodo_status { return C.snodo_once_run_fence(r.p, &v) })
	runtime.KeepAlive(r)
	return uint64(v), err
}

// OnceStepKind is what the caller does next.
type OnceStepKind int

// The step kinds of include/snodo.h.
const (
	OnceCommandStep  OnceStepKind = C.SNODO_ONCE_STEP_KIND_COMMAND
	OnceSleepStep    OnceStepKind = C.SNODO_ONCE_STEP_KIND_SLEEP
	OnceEffectStep   OnceStepKind = C.SNODO_ONCE_STEP_KIND_EFFECT
	OnceDoneStep     OnceStepKind = C.SNODO_ONCE_STEP_KIND_DONE
	OnceReleasedStep OnceStepKind = C.SNODO_ONCE_STEP_KIND_RELEASED
	OnceOpenStep     OnceStepKind = C.SNODO_ONCE_STEP_KIND_OPEN
)

// OnceStep is one step of a run (immutable). Its commands live as long as
// it does: Close it once they have run.
type OnceStep struct{ p *C.snodo_once_step }

// Close frees the step; later calls do nothing.
func (s *OnceStep) Close() {
	if s != nil && s.p != nil {
		C.snodo_once_step_free(s.p)
		s.p = nil
		runtime.SetFinalizer(s, nil)
	}
}

// u64 reads one scalar of the step.
func (s *OnceStep) u64(f func(*C.snodo_once_step, *C.uint64_t) C.snodo_status) (uint64, error) {
	if s == nil || s.p == nil {
		return 0, errClosed
	}
	var v C.uint64_t
	err := call(func() C.snodo_status { return f(s.p, &v) })
	runtime.KeepAlive(s)
	return uint64(v), err
}

// Kind is the step's kind.
func (s *OnceStep) Kind() (OnceStepKind, error) {
	if s == nil || s.p == nil {
		return 0, errClosed
	}
	var k C.snodo_once_step_kind
	err := call(func() C.snodo_status { return C.snodo_once_step_get_kind(s.p, &k) })
	runtime.KeepAlive(s)
	return OnceStepKind(k), err
}

// Sleep is a SLEEP step's pause.
func (s *OnceStep) Sleep() (time.Duration, error) {
	ms, err := s.u64(func(p *C.snodo_once_step, o *C.uint64_t) C.snodo_status { return C.snodo_once_step_sleep_ms(p, o) })
	return time.Duration(ms) * time.Millisecond, err
}

// Fence is an EFFECT step's fencing number.
func (s *OnceStep) Fence() (uint64, error) {
	return s.u64(func(p *C.snodo_once_step, o *C.uint64_t) C.snodo_status { return C.snodo_once_step_fence(p, o) })
}

// Text is a DONE step's result text.
func (s *OnceStep) Text() (string, error) {
	if s == nil || s.p == nil {
		return "", errClosed
	}
	t, err := textOut(func(out **C.char, n *C.size_t) C.snodo_status { return C.snodo_once_step_text(s.p, out, n) })
	runtime.KeepAlive(s)
	return t, err
}

// command copies a command the step lends.
func (s *OnceStep) command(f func(*C.snodo_once_step, **C.snodo_once_command) C.snodo_status) (*OnceCommand, error) {
	if s == nil || s.p == nil {
		return nil, errClosed
	}
	var p *C.snodo_once_command
	if err := call(func() C.snodo_status { return f(s.p, &p) }); err != nil {
		return nil, err
	}
	c := &OnceCommand{step: s, p: p}
	lent := func(f func(**C.char, *C.size_t) C.snodo_status) (string, error) {
		var cp *C.char
		var n C.size_t
		if err := call(func() C.snodo_status { return f(&cp, &n) }); err != nil {
			return "", err
		}
		return C.GoStringN(cp, C.int(n)), nil // a copy: the step owns cp
	}
	var op C.snodo_once_op
	var count C.size_t
	err := call(func() C.snodo_status { return C.snodo_once_command_op(p, &op) })
	if err == nil {
		err = call(func() C.snodo_status { return C.snodo_once_command_arg_count(p, &count) })
	}
	if err == nil {
		c.Key, err = lent(func(o **C.char, n *C.size_t) C.snodo_status { return C.snodo_once_command_key(p, o, n) })
	}
	if err == nil {
		c.Script, err = lent(func(o **C.char, n *C.size_t) C.snodo_status {
			return C.snodo_once_command_script(p, o, n)
		})
	}
	for i := C.size_t(0); err == nil && i < count; i++ {
		var a string
		a, err = lent(func(o **C.char, n *C.size_t) C.snodo_status { return C.snodo_once_command_arg(p, i, o, n) })
		c.Args = append(c.Args, a)
	}
	runtime.KeepAlive(s)
	c.Op = OnceOp(op)
	return c, err
}

// Command is a COMMAND step's command: run it, Feed the reply.
func (s *OnceStep) Command() (*OnceCommand, error) {
	return s.command(func(p *C.snodo_once_step, o **C.snodo_once_command) C.snodo_status {
		return C.snodo_once_step_command(p, o)
	})
}

// ExtendCommand is an EFFECT step's lease extension: run it, read the
// reply with Extended.
func (s *OnceStep) ExtendCommand() (*OnceCommand, error) {
	return s.command(func(p *C.snodo_once_step, o **C.snodo_once_command) C.snodo_status {
		return C.snodo_once_step_extend_command(p, o)
	})
}

// Extended reads the reply to ExtendCommand: false means the claim is no
// longer this run's (stop, and write nothing).
func (s *OnceStep) Extended(reply string) (bool, error) {
	if s == nil || s.p == nil {
		return false, errClosed
	}
	b := []byte(reply)
	var v C.bool
	err := call(func() C.snodo_status {
		bp, bl := bytesIn(b)
		return C.snodo_once_step_extended(s.p, bp, bl, &v)
	})
	runtime.KeepAlive(s)
	return bool(v), err
}

// OnceOp is which store step a command is.
type OnceOp int

// The ops of include/snodo.h.
const (
	OnceClaim    OnceOp = C.SNODO_ONCE_OP_CLAIM
	OnceComplete OnceOp = C.SNODO_ONCE_OP_COMPLETE
	OnceRelease  OnceOp = C.SNODO_ONCE_OP_RELEASE
	OnceExtend   OnceOp = C.SNODO_ONCE_OP_EXTEND
	OnceLookup   OnceOp = C.SNODO_ONCE_OP_LOOKUP
)

// OnceCommand is one store command, copied into Go: a Redis client runs
// Script with KEYS[1] = Key and ARGV = Args. It keeps its step alive for
// MemoryStore.Execute.
type OnceCommand struct {
	Op     OnceOp
	Key    string
	Script string
	Args   []string
	step   *OnceStep
	p      *C.snodo_once_command
}

// OnceStore runs one command of the once machine and returns the reply
// text as the store answered it. Any error means the store could not be
// reached: the effect never runs on it.
type OnceStore interface {
	Execute(c *OnceCommand) (string, error)
}

// MemoryStore is libsnodo's in-memory once store for one process: bounded,
// expiring, safe to share across goroutines. Close it once none uses it.
type MemoryStore struct {
	p *C.snodo_once_memory
	// NowMs, when not 0, is the store's clock (Unix ms): a server whose
	// engine runs on a fixed clock (tests) sets it. 0 is the system clock.
	NowMs uint64
}

// NewMemoryStore holds at most maxBytes of records, at most
// maxBytesPerPrincipal of them for one principal (0: libsnodo's defaults,
// 64 MiB and 16 MiB).
func NewMemoryStore(maxBytes, maxBytesPerPrincipal uint64) (*MemoryStore, error) {
	m := &MemoryStore{}
	err := call(func() C.snodo_status {
		return C.snodo_once_memory_new(C.size_t(maxBytes), C.size_t(maxBytesPerPrincipal), &m.p)
	})
	if err != nil {
		return nil, err
	}
	runtime.SetFinalizer(m, (*MemoryStore).Close)
	return m, nil
}

// Close frees the store; later calls do nothing.
func (m *MemoryStore) Close() {
	if m.p != nil {
		C.snodo_once_memory_free(m.p)
		m.p = nil
		runtime.SetFinalizer(m, nil)
	}
}

// Execute runs c on the store (StatusStore when full).
func (m *MemoryStore) Execute(c *OnceCommand) (string, error) {
	if m == nil || m.p == nil || c == nil || c.step == nil || c.step.p == nil {
		return "", errClosed
	}
	r, err := textOut(func(out **C.char, n *C.size_t) C.snodo_status {
		return C.snodo_once_memory_execute(m.p, c.p, C.uint64_t(m.NowMs), out, n)
	})
	runtime.KeepAlive(m)
	runtime.KeepAlive(c.step)
	return r, err
}

// OnceLease is what the effect gets: its fencing number, and a lease it
// may extend on the store.
type OnceLease struct {
	Fence uint64
	store OnceStore
	step  *OnceStep
}

// Extend moves the lease a full lease from now; false means the claim is
// no longer this run's: stop, and write nothing.
func (l *OnceLease) Extend() (bool, error) {
	c, err := l.step.ExtendCommand()
	if err != nil {
		return false, err
	}
	reply, err := l.store.Execute(c)
	if err != nil {
		return false, err
	}
	return l.step.Extended(reply)
}

// StoreError is a store that failed (its own error wrapped): the effect
// did not run on it (Effect: the effect's error, when its release could
// not reach the store).
type StoreError struct {
	Err    error
	Effect error
}

func (e *StoreError) Error() string {
	if e.Effect != nil {
		return "once store unavailable: " + e.Err.Error() + " (after the effect failed: " + e.Effect.Error() + ")"
	}
	return "once store unavailable: " + e.Err.Error()
}

func (e *StoreError) Unwrap() error { return e.Err }

// drive runs a run to its end: DONE (the text), OPEN (ok false), or an
// error (the effect's own after RELEASED).
func drive(store OnceStore, run *OnceRun, effect func(*OnceLease) (string, error)) (string, bool, error) {
	var failure error
	step, err := run.Start()
	// Also on a panic in effect, which propagates feeding nothing: the
	// claim stays pending until its lease lapses.
	defer func() { step.Close() }()
	for err == nil {
		var kind OnceStepKind
		if kind, err = step.Kind(); err != nil {
			break
		}
		var next *OnceStep
		switch kind {
		case OnceCommandStep:
			var c *OnceCommand
			if c, err = step.Command(); err != nil {
				break
			}
			reply, serr := store.Execute(c)
			if serr != nil {
				return "", false, &StoreError{Err: serr, Effect: failure}
			}
			next, err = run.Feed(reply)
		case OnceSleepStep:
			var d time.Duration
			if d, err = step.Sleep(); err == nil {
				time.Sleep(d)
				next, err = run.Resume()
			}
		case OnceEffectStep:
			lease := &OnceLease{store: store, step: step}
			if lease.Fence, err = step.Fence(); err != nil {
				break
			}
			var result string
			if result, failure = effect(lease); failure == nil {
				next, err = run.EffectDone(result)
			} else {
				next, err = run.EffectFailed()
			}
		case OnceDoneStep:
			text, err := step.Text()
			return text, err == nil, err
		case OnceOpenStep:
			return "", false, nil
		default: // released
			return "", false, failure
		}
		if err == nil {
			step.Close()
			step = next
		}
	}
	return "", false, err
}

// RunOnce runs effect at most once for the flow of the final round c and
// returns the result text: the effect's, or the one remembered for these
// answers. effect returns an error only if it failed before doing anything
// (its claim is released and that error returned, so the client's retry
// runs it). Errors: StatusToken with Reason "replayed" (the flow completed
// with other answers), StatusStore (still running elsewhere, or this run's
// claim was taken over), a *StoreError (the store failed: no effect ran).
func RunOnce(store OnceStore, c *Call, o OnceOptions, effect func(*OnceLease) (string, error)) (string, error) {
	run, err := NewOnceRun(c, o)
	if err != nil {
		return "", err
	}
	defer run.Close()
	text, _, err := drive(store, run, effect)
	return text, err
}

// CheckOnce looks before asking: ok with the result remembered for exactly
// these answers, not ok when nothing is remembered yet, and the replayed
// StatusToken error when the flow completed with other answers.
func CheckOnce(store OnceStore, c *Call, o OnceOptions) (text string, ok bool, err error) {
	run, err := NewOnceLookup(c, o)
	if err != nil {
		return "", false, err
	}
	defer run.Close()
	return drive(store, run, nil)
}
