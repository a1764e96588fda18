package codex_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acpkit/acpkit/codex"
	"github.com/acpkit/acpkit/codex/codextest"
	"github.com/google/go-cmp/cmp"
)

// upTo returns the records of recs before the first for which stop is
// true, the n-th match (1-based) counting.
func upTo(t *testing.T, recs []codextest.AppServerRecord, n int, stop func(codextest.AppServerRecord) bool) []codextest.AppServerRecord {
	t.Helper()
	for i, r := range recs {
		if stop(r) {
			if n--; n == 0 {
				return append([]codextest.AppServerRecord(nil), recs[:i]...)
			}
		}
	}
	t.Fatal("no record to stop at")
	return nil
}

// method matches the records of the given direction whose line has the
// given method.
func method(dir, m string) func(codextest.AppServerRecord) bool {
	return func(r codextest.AppServerRecord) bool {
		return r.Dir == dir && strings.Contains(string(r.Msg), `"method":"`+m+`"`)
	}
}

func server(line string) codextest.AppServerRecord {
	return codextest.AppServerRecord{Dir: codextest.DirServer, Msg: json.RawMessage(line)}
}

// startPlainTurn runs the plain capture's handshake, thread and first
// turn's start.
func startPlainTurn(a *appServer) string {
	a.t.Helper()
	a.initialize()
	th := must[codex.ThreadResult](a.t, "StartThread")(a.s.StartThread(a.ctx, codex.ThreadOptions{CWD: "/tmp/cx-app/plain/cwd"}))
	must[codex.ThreadTurn](a.t, "StartTurn")(a.s.StartTurn(a.ctx, th.Thread.ID, []codex.Input{codex.TextInput("Say hello and tell me what 2 + 2 is.")}, codex.TurnOptions{}))
	return th.Thread.ID
}

// TestAppServerExitsMidTurn: the server dies after the first piece of the
// answer. The reading loop ends with an error that names the turn, a call
// waiting for an answer fails, and later calls fail at once: nothing
// hangs.
func TestAppServerExitsMidTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		recs := upTo(t, records(t, "plain"), 2, method(codextest.DirServer, "item/agentMessage/delta"))
		a := startAppServer(t, append(recs, codextest.AppServerRecord{Dir: codextest.DirExit}))
		thread := startPlainTurn(a)
		waitFor[codex.TextDelta](a, "the first piece", nil)
		if err := a.finish(); err != nil {
			t.Errorf("fake: %v", err)
		}
		_, errs := a.all()
		if len(errs) != 1 || !errors.Is(errs[0], codex.ErrOutputEnded) || !strings.Contains(errs[0].Error(), "turn 01a23b10-5d05-7352-9d08-e017057ccbd0 of thread "+thread) {
			t.Errorf("errors = %v, want one matching ErrOutputEnded naming the turn", errs)
		}
		if _, ok := a.s.ActiveTurn(thread); ok {
			t.Error("a turn is still under way after the output ended")
		}
		_, err := a.s.ListModels(a.ctx, codex.ModelListOptions{})
		if !errors.Is(err, codex.ErrOutputEnded) {
			t.Errorf("a call after the end = %v, want ErrOutputEnded", err)
		}
	})
}

// TestAppServerExitsBeforeAnswering: the server dies while a call waits
// for its answer, which fails with ErrOutputEnded.
func TestAppServerExitsBeforeAnswering(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		recs := upTo(t, records(t, "plain"), 1, func(r codextest.AppServerRecord) bool {
			return r.Dir == codextest.DirServer && strings.HasPrefix(string(r.Msg), `{"id":2,`)
		})
		a := startAppServer(t, append(recs, codextest.AppServerRecord{Dir: codextest.DirExit}))
		a.initialize()
		_, err := a.s.StartThread(a.ctx, codex.ThreadOptions{CWD: "/tmp/cx-app/plain/cwd"})
		if !errors.Is(err, codex.ErrOutputEnded) || !strings.Contains(err.Error(), "thread/start") {
			t.Errorf("StartThread = %v, want ErrOutputEnded naming thread/start", err)
		}
		if err := a.finish(); err != nil {
			t.Errorf("fake: %v", err)
		}
		if p := a.s.Pending(); len(p) != 1 || p[0].Method != "thread/start" {
			t.Errorf("pending = %v, want the unanswered thread/start", p)
		}
	})
}

// TestAppServerLineNotJSON: a line that is not JSON in the middle of a
// turn is reported where it is, and the turn goes on to its end.
func TestAppServerLineNotJSON(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		recs := records(t, "plain")
		i := len(upTo(t, recs, 1, method(codextest.DirServer, "item/agentMessage/delta")))
		recs = append(recs[:i:i], append([]codextest.AppServerRecord{{Dir: codextest.DirServer, Raw: "thread 'tokio-runtime-worker' panicked at src/x.rs:1"}}, recs[i:]...)...)
		a := startAppServer(t, recs)
		startPlainTurn(a)
		end := a.turnEnd()
		if end.Turn.Status != codex.TurnStatusCompleted {
			t.Errorf("turn ended %q", end.Turn.Status)
		}
		_, errs := a.all()
		var le *codex.LineError
		var se *codex.SyntaxError
		if len(errs) != 1 || !errors.As(errs[0], &le) || !errors.As(errs[0], &se) || le.Line != 12 || se.Offset != 1 {
			t.Errorf("errors = %v, want a LineError at line 12 wrapping a SyntaxError at offset 1", errs)
		}
		a.s.StartTurn(a.ctx, end.ThreadID, []codex.Input{codex.TextInput("Thanks. Now say hello again.")}, codex.TurnOptions{})
		a.turnEnd()
		if err := a.finish(); err != nil {
			t.Errorf("fake: %v", err)
		}
	})
}

// TestAppServerNeverAnswers: the server never answers a request; the call
// gives up when its context ends, saying which request, and the client
// can still close cleanly.
func TestAppServerNeverAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		recs := upTo(t, records(t, "plain"), 1, func(r codextest.AppServerRecord) bool {
			return r.Dir == codextest.DirServer && strings.HasPrefix(string(r.Msg), `{"id":2,`)
		})
		a := startAppServer(t, recs)
		a.initialize()
		ctx, cancel := context.WithTimeout(a.ctx, 30*time.Second)
		defer cancel()
		start := time.Now()
		_, err := a.s.StartThread(ctx, codex.ThreadOptions{CWD: "/tmp/cx-app/plain/cwd"})
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer to thread/start") {
			t.Errorf("StartThread = %v, want DeadlineExceeded naming thread/start", err)
		}
		if waited := time.Since(start); waited != 30*time.Second {
			t.Errorf("waited %v, want the context's 30s", waited)
		}
		if err := a.finish(); err != nil {
			t.Errorf("fake: %v", err)
		}
	})
}

// TestAppServerUnknownMessages: a notification, a request and an item of
// kinds this package does not model are kept raw, the request answered
// by Decline as not supported, and the turn goes on.
func TestAppServerUnknownMessages(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		recs := records(t, "plain")
		i := len(upTo(t, recs, 1, method(codextest.DirServer, "item/agentMessage/delta")))
		extra := []codextest.AppServerRecord{
			server(`{"method":"future/thing","params":{"x":[1,2]},"emittedAtMs":17}`),
			server(`{"method":"item/started","params":{"item":{"type":"imageGeneration","id":"ig_1","status":"inProgress"},"threadId":"t","turnId":"u","startedAtMs":1},"emittedAtMs":18}`),
			server(`{"method":"item/tool/requestUserInput","id":7,"params":{"threadId":"t","questions":[]}}`),
			{Dir: codextest.DirClient, Msg: json.RawMessage(`{"id":7,"error":{"code":-32601,"message":"x"}}`)},
			server(`{"method":"turn/completed","params":"not an object","emittedAtMs":19}`),
		}
		recs = append(recs[:i:i], append(extra, recs[i:]...)...)
		a := startAppServer(t, recs)
		startPlainTurn(a)
		req := waitFor[codex.UnknownRequest](a, "the unknown request", nil)
		if err := a.s.Decline(req); err != nil {
			t.Fatalf("Decline: %v", err)
		}
		end := a.turnEnd()
		a.s.StartTurn(a.ctx, end.ThreadID, []codex.Input{codex.TextInput("Thanks. Now say hello again.")}, codex.TurnOptions{})
		a.turnEnd()
		if err := a.finish(); err != nil {
			t.Errorf("fake: %v", err)
		}
		events, errs := a.all()
		var got []codex.Event
		for _, e := range events {
			switch e := e.(type) {
			case codex.UnknownNotification:
				if e.Method != "remoteControl/status/changed" {
					got = append(got, e)
				}
			case codex.UnknownItem, codex.UnknownRequest:
				got = append(got, e)
			}
		}
		want := []codex.Event{
			codex.UnknownNotification{Method: "future/thing", Params: json.RawMessage(`{"x":[1,2]}`), EmittedAt: 17},
			codex.UnknownItem{ItemID: "ig_1", Phase: codex.PhaseStarted, Type: "imageGeneration",
				Raw: json.RawMessage(`{"type":"imageGeneration","id":"ig_1","status":"inProgress"}`), ThreadID: "t", TurnID: "u"},
			codex.UnknownRequest{ID: "7", MethodName: "item/tool/requestUserInput", Params: json.RawMessage(`{"threadId":"t","questions":[]}`)},
			codex.UnknownNotification{Method: "turn/completed", Params: json.RawMessage(`"not an object"`), EmittedAt: 19},
		}
		if diff := cmp.Diff(want, got); diff != "" || len(errs) != 0 {
			t.Errorf("unknown events (-want +got):\n%s\nerrors: %v", diff, errs)
		}
	})
}

// TestAppServerResolvedBeforeAnswer: the server settles an approval
// itself (as when its turn is interrupted); the Session reports the
// withdrawn request and refuses a late answer, writing nothing.
func TestAppServerResolvedBeforeAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var recs []codextest.AppServerRecord
		for _, r := range records(t, "command-approval-accept") {
			if r.Dir == codextest.DirClient && strings.Contains(string(r.Msg), `"decision"`) {
				continue // the client never answers
			}
			recs = append(recs, r)
		}
		a := startAppServer(t, recs)
		a.initialize()
		th := must[codex.ThreadResult](t, "StartThread")(a.s.StartThread(a.ctx, codex.ThreadOptions{CWD: "/tmp/cx-app/command-approval-accept/cwd",
			ApprovalPolicy: codex.ApprovalUntrusted, Sandbox: codex.SandboxWorkspaceWrite}))
		must[codex.ThreadTurn](t, "StartTurn")(a.s.StartTurn(a.ctx, th.Thread.ID, []codex.Input{codex.TextInput("Create cmd-ran.txt with a shell command.")}, codex.TurnOptions{}))
		req := waitFor[codex.CommandApproval](a, "the approval", nil)
		resolved := waitFor[codex.RequestResolved](a, "its withdrawal", nil)
		if diff := cmp.Diff(codex.Request(req), resolved.Request); diff != "" {
			t.Errorf("withdrawn request (-want +got):\n%s", diff)
		}
		if err := a.s.Decide(req, codex.DecisionAccept); !errors.Is(err, codex.ErrCancelled) {
			t.Errorf("a late answer = %v, want ErrCancelled", err)
		}
		a.turnEnd()
		if err := a.finish(); err != nil {
			t.Errorf("fake (which would see any line written): %v", err)
		}
	})
}
