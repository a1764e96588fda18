package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/acpkit/acpkit/acp/goose"
	"github.com/google/go-cmp/cmp"
)

// These tests run the agent in process, joined to a client by
// acptest.NewPair, inside a synctest bubble: the -delay between words runs
// on the bubble's fake clock, so a test can act between two words without
// racing a real one.

// pair returns a client connected to a fresh agent that waits delay before
// each word. The connections are closed when the test ends.
func pair(t *testing.T, delay time.Duration) *client {
	rec := newRecorder(t)
	a := newAgent(delay, slog.New(slog.NewTextHandler(io.Discard, nil)))
	// Not t.Context(): it ends before cleanups run, failing the connections
	// rather than letting closePair close them.
	conn, _, closePair := acptest.NewPair(context.Background(), rec.methods(), a.methods(), nil)
	t.Cleanup(func() {
		if err := closePair(); err != nil {
			t.Errorf("closing the pair: %v", err)
		}
	})
	return &client{t: t, conn: conn, rec: rec}
}

// async runs f on its own goroutine and returns a channel that yields its
// result.
func async[T any](f func() T) <-chan T {
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	return ch
}

func TestInitialize(t *testing.T) {
	for _, asked := range []int{0, 1, 2, 65535} {
		synctest.Test(t, func(t *testing.T) {
			c := pair(t, 0)
			got := call[acp.InitializeResult](c, acp.Initialize.Name, acp.InitializeParams{ProtocolVersion: asked})
			want := acp.InitializeResult{
				ProtocolVersion: 1,
				AgentInfo:       &acp.Implementation{Name: "echo-agent", Title: "Echo agent", Version: version},
				AuthMethods:     []acp.AuthMethod{},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("client asking for version %d (-want +got):\n%s", asked, diff)
			}
		})
	}
}

func TestPrompt(t *testing.T) {
	for _, tc := range []struct {
		name   string
		prompt acp.ContentBlocks
		words  []string
	}{
		{"one word", acp.ContentBlocks{acp.TextContent{Text: "hello"}}, []string{"hello"}},
		{"white space", acp.ContentBlocks{acp.TextContent{Text: "  the quick\tbrown\n\nfox  "}}, []string{"the", "quick", "brown", "fox"}},
		{"several blocks", acp.ContentBlocks{
			acp.TextContent{Text: "see"},
			acp.ResourceLink{URI: "file:///a.go", Name: "a.go"},
			acp.TextContent{Text: "this file"},
		}, []string{"see", "this", "file"}},
		{"no text", acp.ContentBlocks{}, nil},
		{"unicode", acp.ContentBlocks{acp.TextContent{Text: "héllo wörld 👋"}}, []string{"héllo", "wörld", "👋"}},
	} {
		for _, goose := range []bool{false, true} {
			t.Run(tc.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					c := pair(t, time.Second)
					c.initialize(goose)
					sid := c.newSession()
					start := time.Now()
					got := call[acp.PromptResult](c, acp.SessionPrompt.Name, acp.PromptParams{SessionID: sid, Prompt: tc.prompt})
					if got.StopReason != acp.StopReasonEndTurn {
						t.Errorf("stop reason %q, want end_turn", got.StopReason)
					}
					// The fake clock advanced by exactly the delay before each word.
					if elapsed, want := time.Since(start), time.Duration(len(tc.words))*time.Second; elapsed != want {
						t.Errorf("prompt took %v of fake time, want %v", elapsed, want)
					}
					evs := c.rec.take(sid)
					if diff := cmp.Diff(turn(runOf(evs), tc.words, defaultModel, goose), lines(evs)); diff != "" {
						t.Errorf("updates (-want +got):\n%s", diff)
					}
					for _, ev := range evs {
						if strings.HasPrefix(ev.Line, "chunk") && ev.MessageID != evs[1].MessageID {
							t.Errorf("chunk %s has message id %q, the first had %q", ev.Line, ev.MessageID, evs[1].MessageID)
						}
					}
				})
			})
		}
	}
}

func TestUsageAccumulatesAndNamesTheModel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := pair(t, 0)
		c.initialize(true)
		sid := c.newSession()
		c.prompt(sid, "a b c")
		call[acp.SetSessionModelResult](c, acp.SessionSetModel.Name, acp.SetSessionModelParams{SessionID: sid, ModelID: "echo-2"})
		c.prompt(sid, "d e")
		var got []string
		for _, l := range lines(c.rec.take(sid)) {
			if strings.HasPrefix(l, "goose") || strings.HasPrefix(l, "usage") {
				got = append(got, l)
			}
		}
		// goose's update carries the session's totals; the standard one
		// what the context holds now, the last turn's words.
		want := []string{
			"goose used=6 in=3 out=3 echo-1", "usage used=6 size=128000",
			"goose used=10 in=5 out=5 echo-2", "usage used=4 size=128000",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("usage updates (-want +got):\n%s", diff)
		}
	})
}

func TestCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := pair(t, time.Second)
		c.initialize(true)
		sid := c.newSession()
		res := async(func() acp.StopReason { return c.prompt(sid, "one two three four") })
		time.Sleep(2500 * time.Millisecond) // two words echoed, the third is waiting
		c.cancel(sid)
		if got := <-res; got != acp.StopReasonCancelled {
			t.Errorf("stop reason %q, want cancelled", got)
		}
		evs := c.rec.take(sid)
		want := []string{"run " + runOf(evs), `chunk "one"`, `chunk " two"`, "run null",
			"goose used=6 in=4 out=2 echo-1", "usage used=6 size=128000"}
		if diff := cmp.Diff(want, lines(evs)); diff != "" {
			t.Errorf("updates (-want +got):\n%s", diff)
		}

		// The session is idle again: a new prompt runs to the end.
		if got := c.prompt(sid, "again"); got != acp.StopReasonEndTurn {
			t.Errorf("next prompt: stop reason %q, want end_turn", got)
		}
	})
}

// TestCancelWithoutDelay cancels a prompt echoed with no delay, so that
// session/cancel lands at any point of the echo loop, not only while it
// waits. Real scheduling decides how far the echo gets, so the test checks
// what must hold wherever the cancel lands: a prompt that answers end_turn
// echoed every word, and the usage counts the words echoed.
func TestCancelWithoutDelay(t *testing.T) {
	const words = 5000
	text := strings.TrimSpace(strings.Repeat("w ", words))
	for range 5 {
		c := pair(t, 0)
		sid := c.newSession()
		res := async(func() acp.StopReason { return c.prompt(sid, text) })
		<-c.rec.chunked
		c.cancel(sid)
		got := <-res
		echoed := 0
		var usage string
		for _, l := range lines(c.rec.take(sid)) {
			switch {
			case strings.HasPrefix(l, "chunk "):
				echoed++
			case strings.HasPrefix(l, "usage "):
				usage = l
			}
		}
		if got == acp.StopReasonEndTurn && echoed != words {
			t.Errorf("stop reason end_turn after %d of %d words", echoed, words)
		}
		if got != acp.StopReasonEndTurn && got != acp.StopReasonCancelled {
			t.Errorf("stop reason %q", got)
		}
		if want := fmt.Sprintf("usage used=%d size=%d", words+echoed, contextWindow); usage != want {
			t.Errorf("usage %q, want %q", usage, want)
		}
	}
}

func TestCancelWithoutPromptIsIgnored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := pair(t, 0)
		sid := c.newSession()
		c.cancel(sid)
		c.cancel("unknown")
		if err := c.conn.Notify(t.Context(), acp.SessionCancel.Name, json.RawMessage(`{"no":"session"}`)); err != nil {
			t.Fatal(err)
		}
		if got := c.prompt(sid, "still here"); got != acp.StopReasonEndTurn {
			t.Errorf("stop reason %q, want end_turn", got)
		}
	})
}

func TestSessionsAreIndependent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := pair(t, time.Second)
		c.initialize(false)
		s1, s2 := c.newSession(), c.newSession()
		if s1 == s2 {
			t.Fatalf("two sessions with id %q", s1)
		}
		r1 := async(func() acp.StopReason { return c.prompt(s1, "a b c d") })
		r2 := async(func() acp.StopReason { return c.prompt(s2, "w x y z") })
		time.Sleep(1500 * time.Millisecond)
		c.cancel(s1) // cancels s1's prompt only
		if got := <-r1; got != acp.StopReasonCancelled {
			t.Errorf("session 1: stop reason %q, want cancelled", got)
		}
		// s1 is idle, s2 still busy: only s2 refuses a prompt.
		r3 := async(func() acp.StopReason { return c.prompt(s1, "e") })
		e := callErr(c, acp.SessionPrompt.Name, promptParams(s2, "no"))
		wantError(t, e, acp.CodeInvalidParams, `{"sessionId":"`+s2+`","activeRunId":"`+runOf(c.rec.take(s2))+`"}`)
		if got := <-r2; got != acp.StopReasonEndTurn {
			t.Errorf("session 2: stop reason %q, want end_turn", got)
		}
		if got := <-r3; got != acp.StopReasonEndTurn {
			t.Errorf("session 1 again: stop reason %q, want end_turn", got)
		}
	})
}

func TestBusySession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := pair(t, time.Second)
		sid := c.newSession()
		res := async(func() acp.StopReason { return c.prompt(sid, "slow words") })
		synctest.Wait()
		runID := runOf(c.rec.take(sid))
		e := callErr(c, acp.SessionPrompt.Name, promptParams(sid, "second"))
		wantError(t, e, acp.CodeInvalidParams, `{"sessionId":"`+sid+`","activeRunId":"`+runID+`"}`)
		if !strings.Contains(e.Message, runID) {
			t.Errorf("message %q does not name the active prompt %s", e.Message, runID)
		}
		if got := <-res; got != acp.StopReasonEndTurn {
			t.Errorf("first prompt: stop reason %q, want end_turn", got)
		}
		evs := c.rec.take(sid)
		if diff := cmp.Diff([]string{`chunk "slow"`, `chunk " words"`}, lines(evs[:2])); diff != "" {
			t.Errorf("the refused prompt disturbed the running one (-want +got):\n%s", diff)
		}
	})
}

func TestSteer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := pair(t, time.Second)
		c.initialize(true)
		sid := c.newSession()
		res := async(func() acp.StopReason { return c.prompt(sid, "one two three") })
		runID := <-c.rec.runs
		time.Sleep(1500 * time.Millisecond) // "one" echoed, " two" waiting
		got := call[goose.SteerResult](c, goose.SessionSteer.Name, steerParams(sid, runID, "left right"))
		if got.RunID != runID || got.MessageID == "" {
			t.Errorf("steer result %+v, want run %s and a message id", got, runID)
		}
		if r := <-res; r != acp.StopReasonEndTurn {
			t.Errorf("stop reason %q, want end_turn", r)
		}
		evs := c.rec.take(sid)
		queued, _ := json.Marshal(got)
		want := []string{"run " + runID, `chunk "one"`, "queued " + string(queued),
			`chunk " two"`, `chunk " three"`, `chunk "left"`, `chunk " right"`, "run null",
			"goose used=10 in=5 out=5 echo-1", "usage used=10 size=128000"}
		if diff := cmp.Diff(want, lines(evs)); diff != "" {
			t.Errorf("updates (-want +got):\n%s", diff)
		}
		var steered []string
		for _, ev := range evs {
			if ev.MessageID == got.MessageID {
				steered = append(steered, ev.Line)
			}
		}
		if diff := cmp.Diff([]string{`chunk "left"`, `chunk " right"`}, steered); diff != "" {
			t.Errorf("chunks with the steer's message id (-want +got):\n%s", diff)
		}
	})
}

func TestSteerRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := pair(t, time.Second)
		sid := c.newSession()

		e := callErr(c, goose.SessionSteer.Name, steerParams(sid, "run-1", "hi"))
		wantError(t, e, acp.CodeInvalidParams, `{"expectedRunId":"run-1"}`)

		res := async(func() acp.StopReason { return c.prompt(sid, "busy") })
		runID := <-c.rec.runs
		for _, tc := range []struct {
			name   string
			params any
			data   string
		}{
			{"stale run id", steerParams(sid, "run-0", "hi"), `{"expectedRunId":"run-0","actualRunId":"` + runID + `"}`},
			{"missing run id", json.RawMessage(`{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"hi"}]}`), `{"actualRunId":"` + runID + `"}`},
			{"run id not a string", json.RawMessage(`{"sessionId":"` + sid + `","expectedRunId":7,"prompt":[]}`), `{"actualRunId":"` + runID + `"}`},
			{"empty prompt", steerParams(sid, runID, " "), `{"expectedRunId":"` + runID + `","actualRunId":"` + runID + `"}`},
			{"no prompt", json.RawMessage(`{"sessionId":"` + sid + `","expectedRunId":"` + runID + `"}`), `{"expectedRunId":"` + runID + `","actualRunId":"` + runID + `"}`},
		} {
			e := callErr(c, goose.SessionSteer.Name, tc.params)
			if e.Code != acp.CodeInvalidParams || string(e.Data) != tc.data {
				t.Errorf("%s: got %v, want code %d and data %s", tc.name, e, acp.CodeInvalidParams, tc.data)
			}
		}
		if r := <-res; r != acp.StopReasonEndTurn {
			t.Errorf("stop reason %q, want end_turn", r)
		}
		if diff := cmp.Diff(turn(runID, []string{"busy"}, "", false), lines(c.rec.take(sid))); diff != "" {
			t.Errorf("refused steers changed the prompt (-want +got):\n%s", diff)
		}

		// After the run, its id is stale.
		e = callErr(c, goose.SessionSteer.Name, steerParams(sid, runID, "late"))
		wantError(t, e, acp.CodeInvalidParams, `{"expectedRunId":"`+runID+`"}`)
	})
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		method string
		params any
		code   int
		data   string
	}{
		{"prompt, unknown session", acp.SessionPrompt.Name, promptParams("nope", "hi"), acp.CodeResourceNotFound, `{"sessionId":"nope"}`},
		{"set_model, unknown session", acp.SessionSetModel.Name, acp.SetSessionModelParams{SessionID: "nope", ModelID: "m"}, acp.CodeResourceNotFound, `{"sessionId":"nope"}`},
		{"steer, unknown session", goose.SessionSteer.Name, steerParams("nope", "run-1", "hi"), acp.CodeResourceNotFound, `{"sessionId":"nope"}`},
		{"new session without cwd", acp.SessionNew.Name, json.RawMessage(`{}`), acp.CodeInvalidParams, `{"field":"cwd"}`},
		{"prompt without prompt", acp.SessionPrompt.Name, json.RawMessage(`{"sessionId":"s"}`), acp.CodeInvalidParams, `{"field":"prompt"}`},
		{"prompt with a bad block", acp.SessionPrompt.Name, json.RawMessage(`{"sessionId":"s","prompt":[{"type":"text"}]}`), acp.CodeInvalidParams, `{"field":"prompt[0].text"}`},
		{"initialize without version", acp.Initialize.Name, json.RawMessage(`{}`), acp.CodeInvalidParams, `{"field":"protocolVersion"}`},
		{"steer without session", goose.SessionSteer.Name, json.RawMessage(`{"expectedRunId":"r"}`), acp.CodeInvalidParams, `{"field":"sessionId"}`},
		{"unknown method", "session/unknown", nil, acp.CodeMethodNotFound, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := pair(t, 0)
				wantError(t, callErr(c, tc.method, tc.params), tc.code, tc.data)
			})
		})
	}
}

// TestNewSessionWithoutMCPServers checks session/new's mcpServers as the
// schema reads it: null is none, and absent is refused, as the member is
// required.
func TestNewSessionWithoutMCPServers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := pair(t, 0)
		for _, params := range []string{`{"cwd":"/","mcpServers":[]}`, `{"cwd":"/","mcpServers":null}`} {
			got := call[acp.NewSessionResult](c, acp.SessionNew.Name, json.RawMessage(params))
			if got.SessionID == "" {
				t.Errorf("%s: no session id", params)
			}
		}
		wantError(t, callErr(c, acp.SessionNew.Name, json.RawMessage(`{"cwd":"/"}`)), acp.CodeInvalidParams, `{"field":"mcpServers"}`)
	})
}
