package bridge_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/bridge"
	"github.com/google/go-cmp/cmp"
)

// formHost is a Host of an editor that takes forms, keeping the
// questions put to it.
type formHost struct {
	logHost
	asked []bridge.Question
}

func (h *formHost) Forms() bool           { return true }
func (h *formHost) Ask(q bridge.Question) { h.asked = append(h.asked, q) }

// askTwo is Claude Code's can_use_tool for AskUserQuestion with a
// single-choice question and a multiple-choice one.
const askTwo = `{"type":"control_request","request_id":"ask-2","request":{"subtype":"can_use_tool","tool_name":"AskUserQuestion",` +
	`"input":{"questions":[` +
	`{"question":"Which language?","header":"Language","options":[{"label":"Go","description":""},{"label":"Python","description":""}],"multiSelect":false},` +
	`{"question":"Which colours?","header":"Colours","options":[{"label":"Red","description":""},{"label":"Blue","description":""}],"multiSelect":true}]},` +
	`"tool_use_id":"toolu_ask","requires_user_interaction":true}}`

// TestClaudeAnswerForm checks what Claude Code is told for each answer
// of an editor's to an AskUserQuestion form: the answers accepted, with
// a note beside a single choice and a multiple choice joined as Claude
// Code joins it; no answers for a declined form; a refusal the model
// reads for one dismissed, or that could not be asked.
func TestClaudeAnswerForm(t *testing.T) {
	const allow = `{"type":"control_response","response":{"subtype":"success","request_id":"ask-2","response":{"behavior":"allow","updatedInput":`
	const deny = `{"type":"control_response","response":{"subtype":"success","request_id":"ask-2","response":{"behavior":"deny","message":`
	tests := []struct {
		name string
		res  acp.CreateElicitationResult
		err  error
		want string // the line Claude Code got
	}{
		{"accepted", acp.CreateElicitationResult{Action: acp.ElicitationAccept, Content: json.RawMessage(
			`{"question_0":"Go","question_0_custom":" with generics ","question_1":["Red","Blue"],"question_1_custom":"Green, pale"}`)},
			nil, allow + `{"annotations":{"Which language?":{"notes":"with generics"}},"answers":{"Which colours?":"Red, Blue, \"Green, pale\"","Which language?":"Go"},"questions":`},
		{"declined", acp.CreateElicitationResult{Action: acp.ElicitationDecline}, nil, allow + `{"answers":{},"questions":`},
		{"dismissed", acp.CreateElicitationResult{Action: acp.ElicitationCancel}, nil, deny + `"The user dismissed the questions without answering."`},
		{"not asked", acp.CreateElicitationResult{}, errors.New("editor gone"), deny + `"The editor could not ask the questions."`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conv, err := bridge.Claude.NewConversation(bridge.ConversationConfig{Cwd: "/work", Logger: slog.New(slog.DiscardHandler)})
			must(t, err)
			var stdin bytes.Buffer
			h := &formHost{logHost: logHost{fuzzHost: fuzzHost{t: t}}}
			conv.CommandLine("default", "default")
			conv.Start(nopCloser{&stdin})
			must(t, conv.Prompt([]acp.ContentBlock{acp.TextContent{Text: "Ask me."}}))
			conv.Line(h, []byte(askTwo))
			if len(h.asked) != 1 || h.asked[0].Form == nil {
				t.Fatalf("the editor was asked %+v, want one form", h.asked)
			}
			stdin.Reset()
			conv.(bridge.FormAnswerer).AnswerForm(h, h.asked[0], tt.res, tt.err)
			got := strings.TrimSpace(stdin.String())
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("Claude Code got\n%s\nwant it to begin\n%s", got, tt.want)
			}
			// A form answered once takes no second answer.
			stdin.Reset()
			conv.(bridge.FormAnswerer).AnswerForm(h, h.asked[0], tt.res, tt.err)
			if diff := cmp.Diff("", stdin.String()); diff != "" {
				t.Errorf("a second answer to the form reached Claude Code (-want +got):\n%s", diff)
			}
		})
	}
}
