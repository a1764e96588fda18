package bridge_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/bridge"
	"github.com/google/go-cmp/cmp"
)

var formsEditor = acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.ElicitationFormCapabilities{}}}

// agentTexts returns the agent text the editor saw, joined.
func agentTexts(ed *featureEditor) string {
	var b strings.Builder
	for _, l := range ed.seenOf("update") {
		var n acp.SessionNotification
		json.Unmarshal([]byte(strings.TrimPrefix(l, "update ")), &n)
		if c, ok := n.Update.(acp.AgentMessageChunk); ok {
			if t, ok := c.Content.(acp.TextContent); ok {
				b.WriteString(t.Text)
			}
		}
	}
	return b.String()
}

// TestAskUserQuestion plays sessions of the real Claude Code 2.1.328
// whose model asks the person a question (AskUserQuestion): to an
// editor that takes forms, as a form (elicitation/create, form mode)
// answered or declined; to one that does not, as a permission question
// whose options are the choices, or, for questions a permission question
// cannot hold, refused with words the model reads. Each time the answer
// reaches the model as the tool's result, which its reply repeats.
func TestAskUserQuestion(t *testing.T) {
	accept := func(ctx context.Context, p acp.CreateElicitationParams) (acp.CreateElicitationResult, error) {
		return acp.CreateElicitationResult{Action: acp.ElicitationAccept, Content: json.RawMessage(`{"question_0":"Go","question_0_custom":""}`)}, nil
	}
	decline := func(ctx context.Context, p acp.CreateElicitationParams) (acp.CreateElicitationResult, error) {
		return acp.CreateElicitationResult{Action: acp.ElicitationDecline}, nil
	}
	pick := func(p acp.RequestPermissionParams) acp.RequestPermissionResult {
		return acp.RequestPermissionResult{Outcome: acp.PermissionOutcome{Outcome: acp.PermissionSelected, OptionID: "answer_0"}}
	}
	tests := []struct {
		name, transcript string
		caps             acp.ClientCapabilities
		ed               *featureEditor
		asked            string // the kind of question the editor got: "elicitation", "permission" or ""
		text             string
	}{
		{"form answered", "ask-user-accept", formsEditor, &featureEditor{elicitation: accept}, "elicitation",
			`The answer came back: Your questions have been answered: "Which language should the script use?"="Go". You can now continue with these answers in mind.`},
		{"form declined", "ask-user-decline", formsEditor, &featureEditor{elicitation: decline}, "elicitation",
			"The answer came back: The user did not answer the questions."},
		{"permission question", "ask-user-accept", acp.ClientCapabilities{}, &featureEditor{permission: pick}, "permission",
			`The answer came back: Your questions have been answered: "Which language should the script use?"="Go". You can now continue with these answers in mind.`},
		{"questions a permission cannot hold", "ask-user-refused", acp.ClientCapabilities{}, &featureEditor{}, "",
			"The answer came back: The editor cannot show these questions (only one question with a single choice can be asked there). Ask the user in your reply instead."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newFeatureEnv(t, capture(tt.transcript), bridge.Config{Model: "sonnet"}, tt.ed, tt.caps)
				defer e.close()
				res, err := e.prompt(e.newSession(), "Write me a script.")
				must(t, err)
				if res.StopReason != acp.StopReasonEndTurn {
					t.Errorf("stop reason %s", res.StopReason)
				}
				if got := agentTexts(tt.ed); got != tt.text {
					t.Errorf("agent text %q, want %q", got, tt.text)
				}
				asked := tt.ed.seenOf("elicitation", "permission")
				if tt.asked == "" {
					if asked != nil {
						t.Errorf("the editor was asked %q", asked)
					}
					return
				}
				if len(asked) != 1 || !strings.HasPrefix(asked[0], tt.asked) {
					t.Fatalf("the editor was asked %q, want one %s", asked, tt.asked)
				}
				checkAsked(t, asked[0])
			})
		})
	}
}

// checkAsked checks the question the editor got for ask-user's call.
func checkAsked(t *testing.T, asked string) {
	t.Helper()
	kind, body, _ := strings.Cut(asked, " ")
	if kind == "permission" {
		var p acp.RequestPermissionParams
		must(t, json.Unmarshal([]byte(body), &p))
		want := []acp.PermissionOption{
			{OptionID: "answer_0", Name: "Go", Kind: acp.PermissionAllowOnce},
			{OptionID: "answer_1", Name: "Python", Kind: acp.PermissionAllowOnce},
			{OptionID: "reject", Name: "Skip", Kind: acp.PermissionRejectOnce},
		}
		if diff := cmp.Diff(want, p.Options); diff != "" || p.ToolCall.Title != "Which language should the script use?" {
			t.Errorf("permission question %q (-want +got options):\n%s", p.ToolCall.Title, diff)
		}
		return
	}
	var p acp.CreateElicitationParams
	must(t, json.Unmarshal([]byte(body), &p))
	if !strings.HasPrefix(p.ToolCallID, "toolu_01") {
		t.Errorf("elicitation tied to tool call %q, want the AskUserQuestion call", p.ToolCallID)
	}
	p.ToolCallID = "the call"
	want := `{"message":"Which language should the script use?","mode":"form","sessionId":"11111111-2222-4333-8444-555555555555","toolCallId":"the call",` +
		`"requestedSchema":{"type":"object","properties":{` +
		`"question_0":{"type":"string","title":"Language","oneOf":[{"const":"Go","title":"Go","description":"Compiled, one static binary"},{"const":"Python","title":"Python","description":"Quick to write"}]},` +
		`"question_0_custom":{"type":"string","title":"Other","description":"Type your own answer, or add a note to the choice above (optional)."}}}}`
	got, _ := json.Marshal(p)
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("elicitation (-want +got):\n%s", diff)
	}
}

// askLine is Claude Code's can_use_tool for AskUserQuestion, in the
// shape of the ask-user transcripts.
const askLine = `{"type":"control_request","request_id":"ask-1","request":{"subtype":"can_use_tool","tool_name":"AskUserQuestion","display_name":"AskUserQuestion",` +
	`"input":{"questions":[{"question":"Which language?","header":"Language","options":[{"label":"Go","description":""},{"label":"Python","description":""}],"multiSelect":false}]},` +
	`"tool_use_id":"toolu_ask","requires_user_interaction":true}}`

// TestAskCancelled checks that session/cancel and session/close answer a
// form the editor has not answered yet: its request is cancelled
// ($/cancel_request, which ends the editor's handler's context), the
// CLI is interrupted or stopped, and the prompt is answered.
func TestAskCancelled(t *testing.T) {
	for _, how := range []string{"cancel", "close"} {
		t.Run(how, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				started := make(chan *script, 2)
				withdrawn := make(chan struct{})
				ed := &featureEditor{elicitation: func(ctx context.Context, p acp.CreateElicitationParams) (acp.CreateElicitationResult, error) {
					<-ctx.Done()
					close(withdrawn)
					return acp.CreateElicitationResult{}, ctx.Err()
				}}
				cfg := bridge.Config{Start: func(dir string, args []string) (bridge.Process, error) {
					s := newScript(t, dir, args, false)
					started <- s
					return s, nil
				}}
				e := newFeatureEnv(t, "", cfg, ed, formsEditor)
				defer e.close()
				sid := e.newSession()
				answer := make(chan error, 1)
				go func() {
					_, err := e.prompt(sid, "Ask me.")
					answer <- err
				}()
				synctest.Wait()
				p := <-started
				p.turn(askLine)
				synctest.Wait()
				if n := len(ed.seenOf("elicitation")); n != 1 {
					t.Fatalf("%d elicitations, want the question asked", n)
				}
				switch how {
				case "cancel":
					must(t, acp.SessionCancel.Notify(bg, e.client, acp.CancelParams{SessionID: sid}))
					synctest.Wait()
					p.write(controlAnswer(p.requestID("interrupt")), `{"type":"control_cancel_request","request_id":"ask-1"}`, abortedLine)
				case "close":
					go acp.SessionClose.Call(bg, e.client, acp.CloseSessionParams{SessionID: sid})
				}
				synctest.Wait()
				select {
				case <-withdrawn:
				default:
					t.Fatal("the editor's form was not withdrawn")
				}
				select {
				case err := <-answer:
					if err != nil {
						t.Errorf("prompt answered %v, want cancelled", err)
					}
				default:
					t.Fatal("the prompt has no answer")
				}
				if how == "close" && !p.inputClosed() {
					t.Error("the CLI's input is still open")
				}
			})
		})
	}
}

// TestAskOptionOutOfRange checks that an editor's answer to
// AskUserQuestion asked as a permission question that names an option
// it was not offered ("answer_-1", "answer_7") is taken as no answer,
// not a choice: the editor's bytes must not bring the session down.
func TestAskOptionOutOfRange(t *testing.T) {
	for _, option := range []string{"answer_-1", "answer_7", "answer_+0x1"} {
		t.Run(option, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				started := make(chan *script, 2)
				ed := &featureEditor{permission: func(p acp.RequestPermissionParams) acp.RequestPermissionResult {
					return acp.RequestPermissionResult{Outcome: acp.PermissionOutcome{Outcome: acp.PermissionSelected, OptionID: option}}
				}}
				cfg := bridge.Config{Start: func(dir string, args []string) (bridge.Process, error) {
					s := newScript(t, dir, args, false)
					started <- s
					return s, nil
				}}
				e := newFeatureEnv(t, "", cfg, ed, acp.ClientCapabilities{})
				defer e.close()
				sid := e.newSession()
				go e.prompt(sid, "Ask me.")
				synctest.Wait()
				p := <-started
				p.turn(askLine)
				synctest.Wait()
				var answer string
				for _, l := range p.lines() {
					if strings.Contains(l, `"ask-1"`) {
						answer = l
					}
				}
				if !strings.Contains(answer, `"behavior":"allow"`) || !strings.Contains(answer, `"answers":{}`) {
					t.Errorf("the CLI got %s, want AskUserQuestion allowed with no answers", answer)
				}
			})
		})
	}
}
