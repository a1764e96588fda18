package bridge_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/bridge"
	"github.com/google/go-cmp/cmp"
)

// These tests drive a session's states one event at a time, in a
// synctest bubble, with scripted CLI processes (see harness_test.go).

var bg = context.Background()

// The CLI is stopped when idle, and the next prompt resumes the
// conversation in a new process; commands announced once are not
// announced again.
func TestIdleStopThenResume(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{Idle: time.Minute}, acp.ClientCapabilities{})
		defer e.close()
		sid, first, p1 := e.begin("hi")
		if !hasArg(p1.args, "--session-id="+sid) {
			t.Errorf("a new conversation's CLI was started with %q, want --session-id=%s", p1.args, sid)
		}
		p1.turn(textLine, resultLine)
		stopReason(t, got(t, first), acp.StopReasonEndTurn)

		time.Sleep(time.Minute - time.Millisecond)
		synctest.Wait()
		if p1.inputClosed() {
			t.Fatal("the CLI was stopped before the idle period ended")
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if !p1.inputClosed() || !p1.exited() {
			t.Fatal("the idle CLI was not stopped")
		}

		second := e.promptAsync(bg, sid, "again")
		p2 := e.process()
		if !hasArg(p2.args, "--resume=a3ff07eb") {
			t.Errorf("the second CLI was started with %q, want it to resume a3ff07eb", p2.args)
		}
		p2.turn(textLine, resultLine)
		stopReason(t, got(t, second), acp.StopReasonEndTurn)
		if diff := cmp.Diff([]string{"initialize", "user"}, p2.kinds()); diff != "" {
			t.Errorf("the second CLI got (-want +got):\n%s", diff)
		}
		want := []string{"available_commands_update", "config_option_update", "agent_message_chunk", "agent_message_chunk"}
		if diff := cmp.Diff(want, e.kinds()); diff != "" {
			t.Errorf("the editor got (-want +got):\n%s", diff)
		}
	})
}

// A CLI that ignores the interrupt is signalled a grace period later,
// and killed one more later; the prompt is answered cancelled, and the
// next one resumes the conversation in a new process.
func TestCancelStuckCLI(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{Grace: 5 * time.Second}, acp.ClientCapabilities{})
		defer e.close()
		sid, first, p1 := e.begin("tell me a long story")
		p1.ignore[bridge.Interrupt] = true
		p1.turn(textLine)
		e.cancel(sid)
		synctest.Wait()
		if diff := cmp.Diff([]string{"initialize", "user", "interrupt"}, p1.kinds()); diff != "" {
			t.Errorf("the CLI got (-want +got):\n%s", diff)
		}
		time.Sleep(5 * time.Second)
		pending(t, first)
		if diff := cmp.Diff([]bridge.Signal{bridge.Interrupt}, p1.gotSignals()); diff != "" {
			t.Errorf("after one grace period (-want +got):\n%s", diff)
		}
		time.Sleep(5 * time.Second)
		stopReason(t, got(t, first), acp.StopReasonCancelled)
		if diff := cmp.Diff([]bridge.Signal{bridge.Interrupt, bridge.Kill}, p1.gotSignals()); diff != "" {
			t.Errorf("after two grace periods (-want +got):\n%s", diff)
		}

		second := e.promptAsync(bg, sid, "hello")
		p2 := e.process()
		if !hasArg(p2.args, "--resume=a3ff07eb") {
			t.Errorf("the next CLI was started with %q, want --resume", p2.args)
		}
		p2.turn(resultLine)
		stopReason(t, got(t, second), acp.StopReasonEndTurn)
	})
}

// A CLI that ends the cancelled turn itself keeps running for the next.
func TestCancelKeepsTheCLI(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{}, acp.ClientCapabilities{})
		defer e.close()
		sid, first, p := e.begin("tell me a long story")
		p.turn(textLine)
		e.cancel(sid)
		synctest.Wait()
		p.write(controlAnswer(p.requestID("interrupt")), abortedLine)
		stopReason(t, got(t, first), acp.StopReasonCancelled)
		e.cancel(sid) // nothing to cancel
		second := e.promptAsync(bg, sid, "hello")
		synctest.Wait()
		p.write(resultLine)
		stopReason(t, got(t, second), acp.StopReasonEndTurn)
		e.noProcess()
		if len(p.gotSignals()) != 0 {
			t.Errorf("the CLI was signalled: %v", p.gotSignals())
		}
	})
}

// A CLI that crashes mid-turn fails the turn, with the end of its
// standard error; the next prompt resumes in a new process.
func TestCrashMidTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{}, acp.ClientCapabilities{})
		defer e.close()
		sid, first, p1 := e.begin("refactor the parser")
		p1.turn(textLine)
		p1.stderr("Error: Claude Code process exited unexpectedly\n")
		synctest.Wait()
		p1.exit(1)
		msg := failure(t, got(t, first), bridge.KindCrash)
		if want := "Claude Code exited without finishing the turn: exit status 1; stderr ends: Error: Claude Code process exited unexpectedly"; msg != want {
			t.Errorf("error %q, want %q", msg, want)
		}
		second := e.promptAsync(bg, sid, "again")
		p2 := e.process()
		if !hasArg(p2.args, "--resume=a3ff07eb") {
			t.Errorf("the next CLI was started with %q, want --resume", p2.args)
		}
		p2.turn(resultLine)
		stopReason(t, got(t, second), acp.StopReasonEndTurn)
	})
}

// A CLI silent past the turn timeout is killed and its turn fails; one
// that keeps writing is not.
func TestTurnTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{TurnTimeout: time.Minute}, acp.ClientCapabilities{})
		defer e.close()
		sid, first, p1 := e.begin("think hard")
		p1.turn()
		for range 4 {
			time.Sleep(45 * time.Second)
			p1.write(`{"type":"system","subtype":"status","status":"requesting","session_id":"a3ff07eb"}`)
		}
		pending(t, first)
		time.Sleep(59 * time.Second)
		pending(t, first)
		time.Sleep(16 * time.Second)
		msg := failure(t, got(t, first), bridge.KindTimeout)
		if want := "Claude Code wrote nothing for 1m0s; the turn was stopped"; msg != want {
			t.Errorf("error %q, want %q", msg, want)
		}
		if diff := cmp.Diff([]bridge.Signal{bridge.Kill}, p1.gotSignals()); diff != "" {
			t.Errorf("signals (-want +got):\n%s", diff)
		}
		second := e.promptAsync(bg, sid, "again")
		p2 := e.process()
		p2.turn(resultLine)
		stopReason(t, got(t, second), acp.StopReasonEndTurn)
	})
}

// session/close during a turn cancels it and stops the CLI; the close
// is answered once the CLI has exited.
func TestCloseDuringTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{Grace: time.Second}, acp.ClientCapabilities{})
		defer e.close()
		sid, first, p := e.begin("tell me a long story")
		p.stayAtEOF = true
		p.turn(textLine)
		queued := e.promptAsync(bg, sid, "and another")
		synctest.Wait()
		closed := make(chan error, 1)
		go func() {
			_, err := acp.SessionClose.Call(bg, e.client, acp.CloseSessionParams{SessionID: sid})
			closed <- err
		}()
		synctest.Wait()
		stopReason(t, got(t, queued), acp.StopReasonCancelled)
		if !p.inputClosed() {
			t.Error("the CLI's input was not closed")
		}
		if diff := cmp.Diff([]string{"initialize", "user", "interrupt"}, p.kinds()); diff != "" {
			t.Errorf("the CLI got (-want +got):\n%s", diff)
		}
		late := e.promptAsync(bg, sid, "too late")
		synctest.Wait()
		if a := <-late; a.err == nil {
			t.Errorf("a prompt while closing was answered %+v", a.res)
		}
		p.write(textLine, abortedLine)
		stopReason(t, got(t, first), acp.StopReasonCancelled)
		select {
		case err := <-closed:
			t.Fatalf("session/close answered (%v) before the CLI exited", err)
		default:
		}
		p.exit(0)
		synctest.Wait()
		if err := <-closed; err != nil {
			t.Fatal(err)
		}
		if _, err := acp.SessionPrompt.Call(bg, e.client, acp.PromptParams{SessionID: sid, Prompt: []acp.ContentBlock{acp.TextContent{Text: "x"}}}); err == nil {
			t.Error("a closed session took a prompt")
		}
	})
}

// A CLI that exits on the end of its input during a closed session's
// cancelled turn ends the turn as cancelled.
func TestCloseWhenTheCLIExits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{}, acp.ClientCapabilities{})
		sid, first, p := e.begin("tell me a long story")
		p.turn(textLine)
		e.cancel(sid)
		synctest.Wait()
		e.a.Close() // the turn was cancelled already
		stopReason(t, got(t, first), acp.StopReasonCancelled)
		if !p.exited() {
			t.Error("the CLI still runs")
		}
		must(t, e.closed())
	})
}

// Prompts that come while a turn runs wait, and run in order.
func TestWaitingPrompts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{}, acp.ClientCapabilities{})
		defer e.close()
		sid, first, p := e.begin("one")
		second := e.promptAsync(bg, sid, "two")
		synctest.Wait()
		third := e.promptAsync(bg, sid, "three")
		synctest.Wait()
		if diff := cmp.Diff([]string{"initialize", "user"}, p.kinds()); diff != "" {
			t.Errorf("while the first turn runs, the CLI got (-want +got):\n%s", diff)
		}
		p.turn(resultLine)
		stopReason(t, got(t, first), acp.StopReasonEndTurn)
		pending(t, second)
		p.write(resultLine)
		stopReason(t, got(t, second), acp.StopReasonEndTurn)
		p.write(resultLine)
		stopReason(t, got(t, third), acp.StopReasonEndTurn)
		var texts []string
		for _, l := range p.lines() {
			var m struct {
				Message struct{ Content []struct{ Text string } }
			}
			if json.Unmarshal([]byte(l), &m) == nil && len(m.Message.Content) > 0 {
				texts = append(texts, m.Message.Content[0].Text)
			}
		}
		if diff := cmp.Diff([]string{"one", "two", "three"}, texts); diff != "" {
			t.Errorf("the turns went to the CLI as (-want +got):\n%s", diff)
		}
	})
}

// session/cancel answers every waiting prompt cancelled at once, and
// cancels the running turn.
func TestCancelWithPromptsWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{}, acp.ClientCapabilities{})
		defer e.close()
		sid, first, p := e.begin("one")
		p.turn(textLine)
		second := e.promptAsync(bg, sid, "two")
		third := e.promptAsync(bg, sid, "three")
		synctest.Wait()
		e.cancel(sid)
		stopReason(t, got(t, second), acp.StopReasonCancelled)
		stopReason(t, got(t, third), acp.StopReasonCancelled)
		pending(t, first)
		p.write(abortedLine)
		stopReason(t, got(t, first), acp.StopReasonCancelled)
		if diff := cmp.Diff([]string{"initialize", "user", "interrupt"}, p.kinds()); diff != "" {
			t.Errorf("the CLI got (-want +got):\n%s", diff)
		}
	})
}

// A prompt whose request is withdrawn is cancelled: the running one like
// session/cancel, a waiting one alone.
func TestPromptRequestCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{}, acp.ClientCapabilities{})
		defer e.close()
		sid := e.newSession()
		ctx1, cancel1 := context.WithCancel(bg)
		first := e.promptAsync(ctx1, sid, "one")
		p := e.process()
		p.turn(textLine)
		ctx2, cancel2 := context.WithCancel(bg)
		second := e.promptAsync(ctx2, sid, "two")
		third := e.promptAsync(bg, sid, "three")
		synctest.Wait()
		cancel2()
		if a := got(t, second); a.err == nil {
			t.Errorf("a withdrawn prompt was answered %+v", a.res)
		}
		cancel1()
		if a := got(t, first); a.err == nil {
			t.Errorf("a withdrawn prompt was answered %+v", a.res)
		}
		if diff := cmp.Diff([]string{"initialize", "user", "interrupt"}, p.kinds()); diff != "" {
			t.Errorf("the CLI got (-want +got):\n%s", diff)
		}
		p.write(abortedLine)
		synctest.Wait()
		p.write(resultLine)
		stopReason(t, got(t, third), acp.StopReasonEndTurn)
	})
}

// A permission question pending at cancel gets no answer, and the
// editor's request is withdrawn before the prompt is answered. An editor
// that answers "cancelled" itself, as ACP asks, does not get its answer
// written either: the interrupt makes the CLI withdraw the question.
func TestPermissionPendingAtCancel(t *testing.T) {
	for _, editorAnswers := range []bool{false, true} {
		name := map[bool]string{false: "withdrawn", true: "editor answers"}[editorAnswers]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newEnv(t, bridge.Config{}, acp.ClientCapabilities{})
				defer e.close()
				cancelled := make(chan struct{})
				asked := make(chan context.Context, 1)
				e.answer = func(ctx context.Context, p acp.RequestPermissionParams) (acp.RequestPermissionResult, error) {
					asked <- ctx
					defer e.note("question closed")
					if editorAnswers {
						<-cancelled
						return acp.RequestPermissionResult{Outcome: acp.PermissionOutcome{Outcome: acp.PermissionCancelled}}, nil
					}
					<-ctx.Done()
					return acp.RequestPermissionResult{}, ctx.Err()
				}
				sid, first, p := e.begin("create x")
				p.turn(askBash)
				synctest.Wait()
				if len(e.asked) != 1 {
					t.Fatalf("the editor was asked %d questions, want 1", len(e.asked))
				}
				e.cancel(sid)
				close(cancelled)
				synctest.Wait()
				// The CLI ends the turn without withdrawing the question
				// itself: the session does.
				p.write(controlAnswer(p.requestID("interrupt")), abortedLine)
				stopReason(t, got(t, first), acp.StopReasonCancelled)
				// The withdrawal precedes the prompt's answer on the wire,
				// so the question's context is done once the answer is
				// in; the editor's handler may note it after the answer.
				if !editorAnswers && (<-asked).Err() == nil {
					t.Error("the prompt was answered before its question was withdrawn")
				}
				synctest.Wait()
				want, notes := []string{"question closed", "answer create x"}, e.notes()
				if !editorAnswers {
					slices.Sort(want)
					slices.Sort(notes)
				}
				if diff := cmp.Diff(want, notes); diff != "" {
					t.Errorf("the editor saw (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff([]string{"initialize", "user", "interrupt"}, p.kinds()); diff != "" {
					t.Errorf("the CLI got (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// The editor's answers to permission questions reach the CLI; a question
// withdrawn by the CLI is withdrawn from the editor; one the editor could
// not be asked is denied.
func TestPermissionAnswers(t *testing.T) {
	tests := []struct {
		name   string
		answer func(ctx context.Context) (acp.RequestPermissionResult, error)
		want   string // the answer's line, in part
	}{
		{"allow", selected("allow"), `"behavior":"allow","updatedInput":{"command":"touch x"}}`},
		{"allow always", selected("allow_always"), `"updatedPermissions":[{"type":"addRules"`},
		{"reject", selected("reject"), `"message":"The user refused permission to run this tool."`},
		{"cancelled", func(context.Context) (acp.RequestPermissionResult, error) {
			return acp.RequestPermissionResult{Outcome: acp.PermissionOutcome{Outcome: acp.PermissionCancelled}}, nil
		}, `"message":"The user cancelled.","interrupt":true`},
		{"editor failed", func(context.Context) (acp.RequestPermissionResult, error) {
			return acp.RequestPermissionResult{}, acp.Errorf(acp.CodeInternalError, "no UI")
		}, `"message":"The editor could not ask for permission."`},
	}
	const ask = `{"type":"control_request","request_id":"perm-1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"touch x"},"tool_use_id":"toolu_1","permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"touch:*"}],"behavior":"allow","destination":"localSettings"}]}}`
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newEnv(t, bridge.Config{}, acp.ClientCapabilities{})
				defer e.close()
				e.answer = func(ctx context.Context, _ acp.RequestPermissionParams) (acp.RequestPermissionResult, error) {
					return tt.answer(ctx)
				}
				_, first, p := e.begin("create x")
				p.turn(ask)
				synctest.Wait()
				ls := p.lines()
				if last := ls[len(ls)-1]; !strings.Contains(last, tt.want) {
					t.Errorf("the CLI got %s, want %s in it", last, tt.want)
				}
				p.write(resultLine)
				stopReason(t, got(t, first), acp.StopReasonEndTurn)
			})
		})
	}
}

func selected(option string) func(context.Context) (acp.RequestPermissionResult, error) {
	return func(context.Context) (acp.RequestPermissionResult, error) {
		return acp.RequestPermissionResult{Outcome: acp.PermissionOutcome{Outcome: acp.PermissionSelected, OptionID: option}}, nil
	}
}

// A question the CLI withdraws is withdrawn from the editor, and the
// turn goes on; a question outside a turn is refused at once.
func TestPermissionWithdrawn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{}, acp.ClientCapabilities{})
		defer e.close()
		withdrawnFromEditor := make(chan struct{})
		e.answer = func(ctx context.Context, _ acp.RequestPermissionParams) (acp.RequestPermissionResult, error) {
			<-ctx.Done()
			close(withdrawnFromEditor)
			return acp.RequestPermissionResult{}, ctx.Err()
		}
		_, first, p := e.begin("create x")
		p.turn(askBash)
		synctest.Wait()
		p.write(withdrawn)
		synctest.Wait()
		select {
		case <-withdrawnFromEditor:
		default:
			t.Fatal("the editor's question was not withdrawn")
		}
		p.write(resultLine)
		stopReason(t, got(t, first), acp.StopReasonEndTurn)
		p.write(askBash)
		synctest.Wait()
		ls := p.lines()
		if last := ls[len(ls)-1]; !strings.Contains(last, `"message":"No prompt is under way."`) {
			t.Errorf("a question outside a turn was answered %s", last)
		}
	})
}

// ExitPlanMode's choices name the mode to go on in: the editor hears of
// it before the CLI's answer.
func TestExitPlanMode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{}, acp.ClientCapabilities{})
		defer e.close()
		e.answer = func(ctx context.Context, p acp.RequestPermissionParams) (acp.RequestPermissionResult, error) {
			var ids []string
			for _, o := range p.Options {
				ids = append(ids, o.OptionID)
			}
			if diff := cmp.Diff([]string{"acceptEdits", "default", "reject"}, ids); diff != "" {
				t.Errorf("ExitPlanMode's options (-want +got):\n%s", diff)
			}
			return selected("acceptEdits")(ctx)
		}
		_, first, p := e.begin("plan it")
		p.turn(`{"type":"control_request","request_id":"perm-2","request":{"subtype":"can_use_tool","tool_name":"ExitPlanMode","input":{"plan":"1. Do it."},"tool_use_id":"toolu_2"}}`)
		synctest.Wait()
		ls := p.lines()
		if last := ls[len(ls)-1]; !strings.Contains(last, `"updatedPermissions":[{"destination":"session","mode":"acceptEdits","type":"setMode"}]`) {
			t.Errorf("the CLI got %s", last)
		}
		if diff := cmp.Diff([]string{"available_commands_update", "config_option_update", "tool_call", "current_mode_update", "config_option_update"}, e.kinds()); diff != "" {
			t.Errorf("the editor got (-want +got):\n%s", diff)
		}
		p.write(resultLine)
		stopReason(t, got(t, first), acp.StopReasonEndTurn)
	})
}

// A CLI that ended after its turn is replaced by the next prompt,
// whether the session saw it go before the prompt came or only after it
// wrote the prompt to a CLI that could no longer read it.
func TestCLIExitsBetweenTurns(t *testing.T) {
	for _, seen := range []bool{true, false} {
		name := map[bool]string{true: "exit seen", false: "exit seen after the prompt"}[seen]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newEnv(t, bridge.Config{}, acp.ClientCapabilities{})
				defer e.close()
				sid, first, p1 := e.begin("one")
				p1.turn(resultLine)
				stopReason(t, got(t, first), acp.StopReasonEndTurn)
				if seen {
					p1.exit(0)
				} else {
					p1.inR.Close() // it reads no more, but its output is still open
				}
				synctest.Wait()
				second := e.promptAsync(bg, sid, "two")
				synctest.Wait()
				if !seen {
					p1.exit(0)
				}
				p2 := e.process()
				if !hasArg(p2.args, "--resume=a3ff07eb") {
					t.Errorf("the next CLI was started with %q, want --resume", p2.args)
				}
				p2.turn(resultLine)
				stopReason(t, got(t, second), acp.StopReasonEndTurn)
				if diff := cmp.Diff([]string{"initialize", "user"}, p2.kinds()); diff != "" {
					t.Errorf("the next CLI got (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// A resume of a conversation the CLI does not have fails, the CLI that
// said so is let go, and the session stays bound to the id it asked for.
func TestResumeFailed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{}, acp.ClientCapabilities{})
		defer e.close()
		const id = "0b6f3d0e-8a4c-4f7e-b2d1-5c9a7e3f1a20"
		if _, err := acp.SessionResume.Call(bg, e.client, acp.ResumeSessionParams{SessionID: id, Cwd: "/work"}); err != nil {
			t.Fatal(err)
		}
		notFound := `{"type":"result","subtype":"error_during_execution","is_error":true,"session_id":"9e1c","errors":["No conversation found with session ID: ` + id + `"]}`
		for range 2 {
			ch := e.promptAsync(bg, sid(id), "go on")
			p := e.process()
			if argWith(p.args, "--session-id") != "" || !hasArg(p.args, "--resume="+id) {
				t.Errorf("the CLI was started with %q, want --resume %s", p.args, id)
			}
			p.stayAtEOF = true
			p.write(notFound)
			var ae *acp.Error
			if a := got(t, ch); !asError(a.err, &ae) || ae.Code != acp.CodeResourceNotFound {
				t.Fatalf("prompt answered %+v, %v; want resource not found", a.res, a.err)
			}
			if !p.inputClosed() {
				t.Error("the CLI that failed to resume was not stopped")
			}
			p.exit(1)
		}
	})
}

func sid(id string) string { return id }

func asError(err error, target **acp.Error) bool { return errors.As(err, target) }

// A CLI that cannot start, warm or for a prompt, fails the prompt; the
// next one tries again.
func TestStartFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{}, acp.ClientCapabilities{})
		defer e.close()
		e.failing = map[int]bool{1: true, 2: true}
		sid := e.newSession()
		msg := failure(t, got(t, e.promptAsync(bg, sid, "one")), bridge.KindCrash)
		if want := "starting Claude Code: no such program"; msg != want {
			t.Errorf("error %q, want %q", msg, want)
		}
		second := e.promptAsync(bg, sid, "two")
		p := e.process()
		p.turn(resultLine)
		stopReason(t, got(t, second), acp.StopReasonEndTurn)
		if diff := cmp.Diff([]string{"initialize", "user"}, p.kinds()); diff != "" {
			t.Errorf("the CLI got (-want +got):\n%s", diff)
		}
	})
}

// Mode and model switches go to the CLI that runs and wait for its
// answer; without one, the next CLI starts with them.
func TestSettings(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{}, acp.ClientCapabilities{})
		defer e.close()
		e.failing = map[int]bool{1: true} // no warm start: no CLI runs
		sid := e.newSession()
		set := func(key, value string) <-chan error {
			ch := make(chan error, 1)
			go func() {
				_, err := acp.SessionSetConfigOption.Call(bg, e.client, acp.SetSessionConfigOptionParams{SessionID: sid, ConfigID: key, Value: value})
				ch <- err
			}()
			return ch
		}
		if err := <-set("mode", "plan"); err != nil {
			t.Fatal(err)
		}
		if err := <-set("model", "opus"); err != nil {
			t.Fatal(err)
		}
		for _, bad := range [][2]string{{"mode", "bypassPermissions"}, {"mode", "nope"}, {"model", "-x"}, {"effort", "high"}} {
			if err := <-set(bad[0], bad[1]); err == nil {
				t.Errorf("%s %q was taken", bad[0], bad[1])
			}
		}
		first := e.promptAsync(bg, sid, "one")
		p := e.process()
		if !hasArg(p.args, "--permission-mode=plan") || !hasArg(p.args, "--model=opus") {
			t.Errorf("the CLI was started with %q, want plan mode and opus", p.args)
		}
		p.turn(resultLine)
		stopReason(t, got(t, first), acp.StopReasonEndTurn)

		// Live: the CLI answers, refuses, or exits first.
		mode := set("mode", "acceptEdits")
		synctest.Wait()
		p.write(controlAnswer(p.requestID("set_permission_mode")))
		if err := <-mode; err != nil {
			t.Errorf("set mode: %v", err)
		}
		model := set("model", "default")
		synctest.Wait()
		if ls := p.lines(); !strings.Contains(ls[len(ls)-1], `"subtype":"set_model","model":null`) {
			t.Errorf("the CLI got %s for the default model", ls[len(ls)-1])
		}
		p.write(controlRefusal(p.requestID("set_model"), "Unknown model"))
		if err := <-model; err == nil || !strings.Contains(err.Error(), "Claude Code refused: Unknown model") {
			t.Errorf("set model = %v, want the refusal", err)
		}
		mode = set("mode", "default")
		synctest.Wait()
		p.exit(0)
		if err := <-mode; err == nil || !strings.Contains(err.Error(), "exited before answering") {
			t.Errorf("set mode = %v, want the CLI's exit", err)
		}
		synctest.Wait()
		res, err := acp.SessionResume.Call(bg, e.client, acp.ResumeSessionParams{SessionID: sid, Cwd: "/work"})
		if err != nil || res.Modes.CurrentModeID != "acceptEdits" {
			t.Errorf("the open session resumed as %+v, %v; want mode acceptEdits", res.Modes, err)
		}
	})
}

// A cancelled per-turn CLI is interrupted by signal, then killed; a
// prompt waits for the turn, and the next turn resumes the conversation.
func TestPerTurnCLI(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{CLI: bridge.Gemini, Grace: time.Second}, acp.ClientCapabilities{})
		e.stayAtEOF = true
		defer e.close()
		sid, first, p1 := e.begin("one")
		second := e.promptAsync(bg, sid, "two")
		synctest.Wait()
		if diff := cmp.Diff([]string{"one"}, p1.lines()); diff != "" || !p1.inputClosed() {
			t.Errorf("the CLI's input (-want +got):\n%s", diff)
		}
		p1.write(`{"type":"init","session_id":"9775d6bb-e238-4068-94e5-d4b9b10aadc3","model":"auto"}`,
			`{"type":"message","role":"assistant","content":"One."}`,
			`{"type":"result","status":"success","stats":{"total_tokens":15,"input_tokens":10,"output_tokens":5}}`)
		pending(t, first)
		p1.exit(0)
		stopReason(t, got(t, first), acp.StopReasonEndTurn)

		p2 := e.process()
		if !hasArg(p2.args, "--resume=9775d6bb-e238-4068-94e5-d4b9b10aadc3") {
			t.Errorf("the second turn's CLI was started with %q", p2.args)
		}
		p2.ignore[bridge.Interrupt] = true
		e.cancel(sid)
		synctest.Wait()
		if diff := cmp.Diff([]bridge.Signal{bridge.Interrupt}, p2.gotSignals()); diff != "" {
			t.Errorf("signals (-want +got):\n%s", diff)
		}
		time.Sleep(time.Second)
		stopReason(t, got(t, second), acp.StopReasonCancelled)
		if diff := cmp.Diff([]bridge.Signal{bridge.Interrupt, bridge.Kill}, p2.gotSignals()); diff != "" {
			t.Errorf("signals (-want +got):\n%s", diff)
		}
	})
}

// Invalid prompts are refused before they reach a CLI, or start one.
func TestInvalidPrompts(t *testing.T) {
	for _, cli := range []bridge.CLI{bridge.Claude, bridge.Codex, bridge.Gemini} {
		t.Run(cli.Info().Name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newEnv(t, bridge.Config{CLI: cli}, acp.ClientCapabilities{})
				defer e.close()
				sid := e.newSession()
				for _, prompt := range [][]acp.ContentBlock{
					nil,
					{acp.EmbeddedResource{Resource: acp.ResourceContents{URI: "file:///x.bin", Blob: ptr("AAAA")}}},
					{acp.AudioContent{Data: "AAAA", MimeType: "audio/wav"}},
				} {
					_, err := acp.SessionPrompt.Call(bg, e.client, acp.PromptParams{SessionID: sid, Prompt: prompt})
					var ae *acp.Error
					if !asError(err, &ae) || ae.Code != acp.CodeInvalidParams {
						t.Errorf("prompt %+v answered %v, want invalid params", prompt, err)
					}
				}
				if !cli.Info().PerTurn {
					if p := e.process(); len(p.lines()) != 1 {
						t.Errorf("the CLI started for the session got %q, want its initialize only", p.lines())
					}
				}
				e.noProcess()
			})
		})
	}
}

// What a session takes while its turn is being cancelled: a prompt waits
// for it, a setting goes to the CLI, and the Agent's Close waits for the
// turn's end too.
func TestCancellingState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{Grace: time.Second}, acp.ClientCapabilities{})
		sid, first, p := e.begin("one")
		p.stayAtEOF = true
		p.ignore[bridge.Interrupt] = true
		p.turn(textLine)
		e.cancel(sid)
		synctest.Wait()
		second := e.promptAsync(bg, sid, "two")
		if err := e.setMode(p, sid, "plan"); err != nil {
			t.Fatal(err)
		}
		closed := make(chan struct{})
		go func() {
			e.a.Close()
			close(closed)
		}()
		synctest.Wait()
		stopReason(t, got(t, second), acp.StopReasonCancelled)
		if _, err := acp.SessionSetMode.Call(bg, e.client, acp.SetSessionModeParams{SessionID: sid, ModeID: "default"}); err == nil {
			t.Error("a closing session took a setting")
		}
		if a := <-e.promptAsync(bg, sid, "three"); a.err == nil {
			t.Error("a closing session took a prompt")
		}
		go func() {
			acp.SessionClose.Call(bg, e.client, acp.CloseSessionParams{SessionID: sid})
		}()
		time.Sleep(time.Second) // the interrupt's grace period: SIGINT, ignored
		pending(t, first)
		time.Sleep(time.Second) // then SIGKILL
		stopReason(t, got(t, first), acp.StopReasonCancelled)
		<-closed
		if diff := cmp.Diff([]bridge.Signal{bridge.Interrupt, bridge.Kill}, p.gotSignals()); diff != "" {
			t.Errorf("signals (-want +got):\n%s", diff)
		}
		must(t, e.closed())
	})
}

// A CLI gone between turns is replaced; when the new one cannot start,
// the prompt fails.
func TestCLIGoneAndNoneStarts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{}, acp.ClientCapabilities{})
		defer e.close()
		sid, first, p1 := e.begin("one")
		p1.turn(resultLine)
		stopReason(t, got(t, first), acp.StopReasonEndTurn)
		p1.inR.Close()
		e.failing = map[int]bool{2: true}
		second := e.promptAsync(bg, sid, "two")
		synctest.Wait()
		p1.exit(0)
		failure(t, got(t, second), bridge.KindCrash)
	})
}

// The content of a Claude prompt: text, images, links and embedded text
// become the blocks of the user message.
func TestClaudePromptContent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{}, acp.ClientCapabilities{})
		defer e.close()
		sid := e.newSession()
		ch := make(chan error, 1)
		go func() {
			_, err := acp.SessionPrompt.Call(bg, e.client, acp.PromptParams{SessionID: sid, Prompt: []acp.ContentBlock{
				acp.TextContent{Text: "Look:"},
				acp.ImageContent{Data: "iVBORw0K", MimeType: "image/png"},
				acp.ResourceLink{Name: "main.go", URI: "file:///work/main.go"},
				acp.EmbeddedResource{Resource: acp.ResourceContents{URI: "file:///work/a.txt", Text: ptr("a")}},
			}})
			ch <- err
		}()
		p := e.process()
		want := `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"Look:"},` +
			`{"source":{"data":"iVBORw0K","media_type":"image/png","type":"base64"},"type":"image"},` +
			`{"type":"text","text":"[@main.go](file:///work/main.go)"},` +
			`{"type":"text","text":"<context ref=\"file:///work/a.txt\">\na\n</context>"}]},"parent_tool_use_id":null,"session_id":"default"}`
		if got := p.lines()[1]; got != want {
			t.Errorf("the user message is\n%s\nwant\n%s", got, want)
		}
		p.turn(resultLine)
		synctest.Wait()
		must(t, <-ch)
	})
}

// Lines of Claude Code's that the bridge does not show: lines that are
// not JSON, requests it does not serve (declined at once), an initialize
// answer it cannot read.
func TestClaudeOtherLines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{}, acp.ClientCapabilities{})
		defer e.close()
		_, ch, p := e.begin("hi")
		p.write(
			`{"type":"control_response","response":{"subtype":"success","request_id":"`+p.requestID("initialize")+`","response":{"commands":"none"}}}`,
			`[DEBUG] not json`,
			`{"type":"control_request","request_id":"mcp-1","request":{"subtype":"mcp_message","server_name":"sdk","message":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}}`,
			`{"type":"control_request","request_id":"hook-1","request":{"subtype":"hook_callback","callback_id":"h1","input":{}}}`,
			`{"type":"control_request","request_id":"new-1","request":{"subtype":"elicitation"}}`,
			resultLine,
		)
		stopReason(t, got(t, ch), acp.StopReasonEndTurn)
		ls := p.lines()
		for i, want := range []string{`"request_id":"mcp-1","response":{"mcp_response":{"jsonrpc":"2.0","id":1,"error":{"code":-32601`, `"request_id":"hook-1","response":{}`, `"request_id":"new-1","error":"Unsupported control request subtype: elicitation"`} {
			if !strings.Contains(ls[2+i], want) {
				t.Errorf("answer %d is %s, want %s in it", i, ls[2+i], want)
			}
		}
		if len(e.kinds()) != 0 {
			t.Errorf("the editor got %v", e.kinds())
		}
	})
}

// A session's additional directories reach each CLI's command line, once
// each and without the session's own; a relative one is refused, and so
// is another list for a session already open.
func TestAdditionalDirectories(t *testing.T) {
	tests := []struct {
		cli  bridge.CLI
		want []string
	}{
		{bridge.Claude, []string{"--add-dir=/lib", "--add-dir=/docs"}},
		{bridge.Gemini, []string{"--include-directories=/lib,/docs"}},
	}
	for _, tt := range tests {
		t.Run(tt.cli.Info().Name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newEnv(t, bridge.Config{CLI: tt.cli}, acp.ClientCapabilities{})
				e.stayAtEOF = tt.cli.Info().PerTurn
				defer e.close()
				res, err := acp.Initialize.Call(bg, e.client, acp.InitializeParams{ProtocolVersion: 1})
				must(t, err)
				if res.AgentCapabilities.SessionCapabilities.AdditionalDirectories == nil {
					t.Error("additionalDirectories is not advertised")
				}
				_, err = acp.SessionNew.Call(bg, e.client, acp.NewSessionParams{Cwd: "/work", AdditionalDirectories: []string{"lib"}})
				var ae *acp.Error
				if !asError(err, &ae) || ae.Code != acp.CodeInvalidParams {
					t.Errorf("a relative directory was answered %v, want invalid params", err)
				}
				dirs := []string{"/lib", "/work", "/docs", "/lib"}
				s, err := acp.SessionNew.Call(bg, e.client, acp.NewSessionParams{Cwd: "/work", AdditionalDirectories: dirs})
				must(t, err)
				ch := e.promptAsync(bg, s.SessionID, "hi")
				p := e.process()
				var got []string
				for _, a := range p.args {
					if strings.HasPrefix(a, "--add-dir") || strings.HasPrefix(a, "--include-directories") {
						got = append(got, a)
					}
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("the CLI's directories (-want +got):\n%s", diff)
				}
				if _, err := acp.SessionResume.Call(bg, e.client, acp.ResumeSessionParams{SessionID: s.SessionID, Cwd: "/work", AdditionalDirectories: dirs}); err != nil {
					t.Errorf("resuming the open session with its directories: %v", err)
				}
				if _, err := acp.SessionResume.Call(bg, e.client, acp.ResumeSessionParams{SessionID: s.SessionID, Cwd: "/work"}); err == nil {
					t.Error("the open session was resumed without its directories")
				}
				p.exit(1)
				<-ch
			})
		})
	}
}

// A session's CLI starts as soon as the session is open: its commands and
// models reach the editor before any prompt, the first prompt goes to it,
// and one that nobody prompts is stopped when idle. A per-turn CLI starts
// with its turn only.
func TestWarmStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{Idle: time.Minute}, acp.ClientCapabilities{})
		defer e.close()
		sid := e.newSession()
		p := e.process()
		if diff := cmp.Diff([]string{"initialize"}, p.kinds()); diff != "" {
			t.Errorf("the CLI got (-want +got):\n%s", diff)
		}
		p.write(initAnswer(p.requestID("initialize")))
		synctest.Wait()
		if diff := cmp.Diff([]string{"available_commands_update", "config_option_update"}, e.kinds()); diff != "" {
			t.Errorf("before any prompt, the editor got (-want +got):\n%s", diff)
		}
		ch := e.promptAsync(bg, sid, "hi")
		synctest.Wait()
		p.write(systemInit, textLine, resultLine)
		stopReason(t, got(t, ch), acp.StopReasonEndTurn)
		e.noProcess()

		const id = "0b6f3d0e-8a4c-4f7e-b2d1-5c9a7e3f1a20"
		_, err := acp.SessionResume.Call(bg, e.client, acp.ResumeSessionParams{SessionID: id, Cwd: "/work"})
		must(t, err)
		p2 := e.process()
		if !hasArg(p2.args, "--resume="+id) {
			t.Errorf("the resumed session's CLI was started with %q", p2.args)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if !p2.exited() {
			t.Error("the CLI of a session never prompted was not stopped when idle")
		}
	})
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{CLI: bridge.Gemini}, acp.ClientCapabilities{})
		defer e.close()
		e.newSession()
		e.noProcess()
	})
}

// A CLI started for a resumed session that says, before any prompt, that
// the conversation does not exist is let go, and the prompt asks a new
// one for the same conversation, not the id of the failed run.
func TestWarmResumeFailed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, bridge.Config{}, acp.ClientCapabilities{})
		defer e.close()
		const id = "0b6f3d0e-8a4c-4f7e-b2d1-5c9a7e3f1a20"
		_, err := acp.SessionResume.Call(bg, e.client, acp.ResumeSessionParams{SessionID: id, Cwd: "/work"})
		must(t, err)
		p1 := e.process()
		p1.stayAtEOF = true
		p1.write(`{"type":"result","subtype":"error_during_execution","is_error":true,"session_id":"9e1c","errors":["No conversation found with session ID: ` + id + `"]}`)
		synctest.Wait()
		if !p1.inputClosed() {
			t.Fatal("the CLI that failed to resume was not stopped")
		}
		p1.exit(1)
		ch := e.promptAsync(bg, id, "go on")
		p2 := e.process()
		if !hasArg(p2.args, "--resume="+id) {
			t.Errorf("the next CLI was started with %q, want --resume=%s", p2.args, id)
		}
		p2.turn(resultLine)
		stopReason(t, got(t, ch), acp.StopReasonEndTurn)
	})
}

// A session's cwd must be an absolute path, and, when the Config has a
// CheckDir, one it accepts: session/new, load and resume refuse another
// with -32602 naming cwd and saying which directory, and start nothing.
func TestSessionDirectoryRefused(t *testing.T) {
	const id = "0b6f3d0e-8a4c-4f7e-b2d1-5c9a7e3f1a20"
	missing := errors.New("no such directory")
	checkDir := func(dir string) error {
		if dir == "/gone" {
			return missing
		}
		return nil
	}
	calls := map[string]func(c *acp.Conn, cwd string) error{
		"session/new": func(c *acp.Conn, cwd string) error {
			_, err := acp.SessionNew.Call(bg, c, acp.NewSessionParams{Cwd: cwd})
			return err
		},
		"session/load": func(c *acp.Conn, cwd string) error {
			_, err := acp.SessionLoad.Call(bg, c, acp.LoadSessionParams{SessionID: id, Cwd: cwd})
			return err
		},
		"session/resume": func(c *acp.Conn, cwd string) error {
			_, err := acp.SessionResume.Call(bg, c, acp.ResumeSessionParams{SessionID: id, Cwd: cwd})
			return err
		},
		"session/new additionalDirectories": func(c *acp.Conn, cwd string) error {
			_, err := acp.SessionNew.Call(bg, c, acp.NewSessionParams{Cwd: "/work", AdditionalDirectories: []string{cwd}})
			return err
		},
	}
	for name, call := range calls {
		for _, cwd := range []string{"relative/dir", "/gone"} {
			t.Run(name+" "+cwd, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					store := memStore{fstest.MapFS{}}
					store.add("-work/"+id+".jsonl", claudeSession(id, "/work", "Fix the bug.", epoch))
					e := newEnv(t, bridge.Config{Store: store, CheckDir: checkDir}, acp.ClientCapabilities{})
					defer e.close()
					err := call(e.client, cwd)
					code(t, name, err, acp.CodeInvalidParams)
					field, _ := acp.InvalidField(err)
					want := "cwd"
					if strings.Contains(name, "additional") {
						want = "additionalDirectories[0]"
					}
					if field != want || err == nil || !strings.Contains(err.Error(), cwd) {
						t.Errorf("%s with %q: %v, naming %q; want it to name %s and the directory", name, cwd, err, field, want)
					}
					e.noProcess()
				})
			})
		}
	}
}
