package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/acpkit/acpkit/acp/acpv2"
	"github.com/google/go-cmp/cmp"
)

// The editor in process, against scripted agents that play the same
// turn in ACP v1 and in v2: text, a thought, a plan, a tool call read,
// a command asked permission for and run, a notice and usage. Whatever
// the version, the editor must print the same.

// toolTitle is the scripted command's title.
const toolTitle = "go test ./..."

// v1Agent plays the turn in v1 for each prompt.
func v1Agent() acp.Methods {
	var m acp.Methods
	acp.Initialize.Handle(&m, func(_ context.Context, _ *acp.Conn, p acp.InitializeParams) (acp.InitializeResult, error) {
		return acp.InitializeResult{ProtocolVersion: acp.NegotiateVersion(p.ProtocolVersion)}, nil
	})
	acp.SessionNew.Handle(&m, func(context.Context, *acp.Conn, acp.NewSessionParams) (acp.NewSessionResult, error) {
		return acp.NewSessionResult{SessionID: "s", Modes: &acp.SessionModeState{CurrentModeID: "default", AvailableModes: []acp.SessionMode{{ID: "default", Name: "Default"}}}}, nil
	})
	acp.SessionPrompt.Handle(&m, func(ctx context.Context, conn *acp.Conn, p acp.PromptParams) (acp.PromptResult, error) {
		send := func(u acp.Update) {
			acp.SessionUpdate.Notify(ctx, conn, acp.SessionNotification{SessionID: p.SessionID, Update: u})
		}
		send(acp.AgentThoughtChunk{Content: acp.TextContent{Text: "Reading first."}})
		send(acp.AgentMessageChunk{Content: acp.TextContent{Text: "I'll read "}})
		send(acp.AgentMessageChunk{Content: acp.TextContent{Text: "sum.go."}})
		send(acp.Plan{Entries: []acp.PlanEntry{{Content: "Test Sum", Status: acp.PlanStatusInProgress, Priority: acp.PlanPriorityHigh}}})
		send(acp.ToolCall{ToolCallID: "t1", Title: "Read sum.go", Kind: acp.ToolKindRead, Status: acp.ToolCallStatusPending})
		send(acp.ToolCallUpdate{ToolCallID: "t1", Status: acp.ToolCallStatusCompleted})
		send(acp.ToolCall{ToolCallID: "t2", Title: toolTitle, Kind: acp.ToolKindExecute, Status: acp.ToolCallStatusPending})
		_, err := acp.SessionRequestPermission.Call(ctx, conn, acp.RequestPermissionParams{
			SessionID: p.SessionID,
			ToolCall:  acp.PermissionToolCall{ToolCallID: "t2"},
			Options:   []acp.PermissionOption{{OptionID: "no", Name: "Reject", Kind: acp.PermissionRejectOnce}, {OptionID: "yes", Name: "Allow", Kind: acp.PermissionAllowOnce}},
		})
		if err != nil {
			return acp.PromptResult{}, err
		}
		send(acp.ToolCallUpdate{ToolCallID: "t2", Status: acp.ToolCallStatusCompleted,
			Content: []acp.ToolCallContent{acp.ToolCallContentBlock{Content: acp.TextContent{Text: "ok  \tsum\t0.004s\nPASS"}}}})
		send(acp.Notice{Severity: acp.NoticeWarning, Title: "92% of the limit used", Description: "It resets at 4 PM."})
		send(acp.UsageUpdate{Used: 1200, Size: 200000, Cost: &acp.Cost{Amount: 0.25, Currency: "USD"}})
		return acp.PromptResult{StopReason: acp.StopReasonEndTurn}, nil
	})
	return m
}

// v2Agent plays the turn in v2 for each prompt: acknowledged at once, the
// turn on a goroutine of its own, which wg counts. Tool call ids are
// unique in a session, as v2's upserts need.
func v2Agent(wg *sync.WaitGroup) acp.Methods {
	var m acp.Methods
	acpv2.Initialize.Handle(&m, func(context.Context, *acp.Conn, acpv2.InitializeParams) (acpv2.InitializeResult, error) {
		return acpv2.InitializeResult{ProtocolVersion: acpv2.ProtocolVersion, Info: acpv2.Implementation{Name: "agent", Version: "1"}}, nil
	})
	acpv2.SessionNew.Handle(&m, func(context.Context, *acp.Conn, acpv2.NewSessionParams) (acpv2.NewSessionResult, error) {
		mode := acpv2.SessionConfigOption{Type: "select", ConfigID: "mode", Name: "Mode", Category: acpv2.ConfigCategoryMode, CurrentValue: "default",
			Options: acpv2.SessionConfigSelectOptions{Options: []acpv2.SessionConfigSelectOption{{Value: "default", Name: "Default"}}}}
		return acpv2.NewSessionResult{SessionID: "s", ConfigOptions: []acpv2.SessionConfigOption{mode}}, nil
	})
	n := 0
	acpv2.SessionPrompt.Handle(&m, func(ctx context.Context, conn *acp.Conn, p acpv2.PromptParams) (acpv2.PromptResult, error) {
		n++
		id := "u" + string(rune('0'+n))
		ctx = context.WithoutCancel(ctx)
		send := func(u acpv2.Update) {
			acpv2.SessionUpdate.Notify(ctx, conn, acpv2.SessionNotification{SessionID: p.SessionID, Update: u})
		}
		ptr := func(s string) *string { return &s }
		kind := func(k acpv2.ToolKind) *acpv2.ToolKind { return &k }
		status := func(s acpv2.ToolCallStatus) *acpv2.ToolCallStatus { return &s }
		send(acpv2.UserMessage{MessageID: id, Content: p.Prompt})
		wg.Go(func() {
			send(acpv2.SessionStateUpdate{State: acpv2.RunningStateUpdate{}})
			send(acpv2.AgentThoughtChunk{MessageID: "th" + id, Content: acpv2.TextContent{Text: "Reading first."}})
			send(acpv2.AgentMessageChunk{MessageID: "a" + id, Content: acpv2.TextContent{Text: "I'll read "}})
			send(acpv2.AgentMessageChunk{MessageID: "a" + id, Content: acpv2.TextContent{Text: "sum.go."}})
			send(acpv2.PlanUpdate{Plan: acpv2.PlanContent{Type: "items", PlanID: "p", Entries: []acpv2.PlanEntry{{Content: "Test Sum", Status: acpv2.PlanStatusInProgress, Priority: acpv2.PlanPriorityHigh}}}})
			send(acpv2.ToolCallUpdate{ToolCallID: "t1" + id, Title: ptr("Read sum.go"), Kind: kind(acpv2.ToolKindRead), Status: status(acpv2.ToolCallStatusPending)})
			send(acpv2.ToolCallUpdate{ToolCallID: "t1" + id, Status: status(acpv2.ToolCallStatusCompleted)})
			send(acpv2.ToolCallUpdate{ToolCallID: "t2" + id, Title: ptr(toolTitle), Kind: kind(acpv2.ToolKindExecute), Status: status(acpv2.ToolCallStatusPending)})
			_, err := acpv2.SessionRequestPermission.Call(ctx, conn, acpv2.RequestPermissionParams{
				SessionID: p.SessionID,
				Title:     toolTitle,
				Subject:   acpv2.ToolCallPermissionSubject{ToolCall: acpv2.PermissionToolCall{ToolCallID: "t2" + id}},
				Options:   []acpv2.PermissionOption{{OptionID: "no", Name: "Reject", Kind: acpv2.PermissionRejectOnce}, {OptionID: "yes", Name: "Allow", Kind: acpv2.PermissionAllowOnce}},
			})
			if err != nil {
				send(acpv2.SessionStateUpdate{State: acpv2.IdleStateUpdate{StopReason: acpv2.StopReasonError}})
				return
			}
			// The output streams in, then the status ends the call.
			send(acpv2.ToolCallContentChunk{ToolCallID: "t2" + id, Content: acpv2.ToolCallContentBlock{Content: acpv2.TextContent{Text: "ok  \tsum\t0.004s\nPASS"}}})
			send(acpv2.ToolCallUpdate{ToolCallID: "t2" + id, Status: status(acpv2.ToolCallStatusCompleted)})
			send(acpv2.Notice{Severity: acpv2.NoticeWarning, Title: "92% of the limit used", Description: "It resets at 4 PM."})
			send(acpv2.UsageUpdate{Used: 1200, Size: 200000, Cost: &acpv2.Cost{Amount: 0.25, Currency: "USD"}})
			send(acpv2.SessionStateUpdate{State: acpv2.IdleStateUpdate{StopReason: acpv2.StopReasonEndTurn}})
		})
		return acpv2.PromptResult{MessageID: id}, nil
	})
	return m
}

// playAgainst plays the editor speaking protocol against agent, and
// returns what it printed and the version it spoke.
func playAgainst(t *testing.T, agent acp.Handler, protocol string) (string, int, error) {
	var out bytes.Buffer
	v := &view{out: &out}
	var h acp.Handler = v.methods()
	var client *acpv2.Client
	if protocol != "v1" {
		client = acpv2.NewClient(v.methods(), v.methodsV2())
		h = client
	}
	conn, _, closePair := acptest.NewPair(t.Context(), h, agent, nil)
	err := play(t.Context(), conn, client, v, "/project", protocol)
	if err := closePair(); err != nil {
		t.Errorf("closing the pair: %v", err)
	}
	version := 1
	if client != nil {
		version = client.Version()
	}
	return out.String(), version, err
}

// TestEditorVersions checks which version the editor speaks for each
// -protocol, against an agent of v1 alone and one of both, and that it
// prints the same turn the same way in either (testdata/turn.golden).
func TestEditorVersions(t *testing.T) {
	golden := filepath.Join("testdata", "turn.golden")
	tests := []struct {
		protocol string
		both     bool   // the agent serves v2 too
		version  int    // the version spoken
		err      string // what play fails with, if anything
	}{
		{"auto", true, 2, ""},
		{"auto", false, 1, ""},
		{"v1", true, 1, ""},
		{"v1", false, 1, ""},
		{"v2", true, 2, ""},
		{"v2", false, 1, "speaks ACP v1 only"},
	}
	for _, tt := range tests {
		name := tt.protocol + " against v1"
		if tt.both {
			name += " and v2"
		}
		t.Run(name, func(t *testing.T) {
			var wg sync.WaitGroup
			defer wg.Wait()
			var agent acp.Handler = v1Agent()
			if tt.both {
				agent = acpv2.NewRouter(v1Agent(), v2Agent(&wg))
			}
			got, version, err := playAgainst(t, agent, tt.protocol)
			if version != tt.version {
				t.Errorf("the editor spoke v%d, want v%d", version, tt.version)
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("play: %v, want an error saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if *update && tt.protocol == "v1" && !tt.both {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("printed (-want +got):\n%s", diff)
			}
		})
	}
}
