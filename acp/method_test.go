package acp_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/google/go-cmp/cmp"
)

// An extension method declared as a user would: its own types, required
// members tagged.
type vendorParams struct {
	Query string `json:"query" acp:"required"`
	Limit int    `json:"limit,omitempty"`
	Inner *struct {
		ID string `json:"id" acp:"required"`
	} `json:"inner,omitempty"`
}

type vendorResult struct {
	Hits []string `json:"hits" acp:"required"`
}

var vendorSearch = acp.Method[vendorParams, vendorResult]{Name: "_vendor/search"}

// TestMethodHandleInvalidParams checks that a typed handler is not called
// for params that do not decode, and that the reply is -32602 naming the
// member.
func TestMethodHandleInvalidParams(t *testing.T) {
	var agent acp.Methods
	called := false
	acp.SessionPrompt.Handle(&agent, func(context.Context, *acp.Conn, acp.PromptParams) (acp.PromptResult, error) {
		called = true
		return acp.PromptResult{StopReason: acp.StopReasonEndTurn}, nil
	})
	vendorSearch.Handle(&agent, func(_ context.Context, _ *acp.Conn, p vendorParams) (vendorResult, error) {
		called = true
		return vendorResult{Hits: []string{p.Query}}, nil
	})
	client, _, closePair := acptest.NewPair(context.Background(), nil, agent, nil)
	defer testwait.Do(t, "the pair to close", func() { closePair() })

	tests := []struct {
		name, method string
		params       any
		field        string
	}{
		{"missing prompt", acp.SessionPrompt.Name, map[string]any{"sessionId": "s"}, "prompt"},
		{"mistyped sessionId", acp.SessionPrompt.Name, map[string]any{"sessionId": 1, "prompt": []any{}}, "sessionId"},
		{"bad block", acp.SessionPrompt.Name, map[string]any{"sessionId": "s", "prompt": []any{map[string]any{"type": "text"}}}, "prompt[0].text"},
		{"absent params", acp.SessionPrompt.Name, nil, "sessionId"},
		{"extension missing member", vendorSearch.Name, map[string]any{"limit": 3}, "query"},
		{"extension null member", vendorSearch.Name, map[string]any{"query": nil}, "query"},
		{"extension nested member", vendorSearch.Name, map[string]any{"query": "q", "inner": map[string]any{}}, "inner.id"},
		{"extension mistyped member", vendorSearch.Name, map[string]any{"query": "q", "limit": "3"}, "limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := client.Request(testwait.Context(t), tt.method, tt.params)
			if !errors.Is(err, acp.ErrInvalidParams) {
				t.Fatalf("error %v, want -32602", err)
			}
			field, ok := acp.InvalidField(err)
			if !ok || field != tt.field {
				t.Errorf("InvalidField = %q, %v; want %q", field, ok, tt.field)
			}
		})
	}
	if called {
		t.Error("a handler was called with params that do not decode")
	}
}

// TestMethodCall checks a typed call end to end, a result that breaks the
// schema, and a method the peer did not register.
func TestMethodCall(t *testing.T) {
	agent := acp.Methods{Requests: map[string]acp.RequestFunc{
		// Raw handlers answering with results a typed client must refuse.
		acp.SessionNew.Name: func(context.Context, *acp.Conn, json.RawMessage) (any, error) {
			return map[string]any{"modes": nil}, nil
		},
		acp.SessionList.Name: func(context.Context, *acp.Conn, json.RawMessage) (any, error) {
			return json.RawMessage(`{"sessions":[{"sessionId":"a","cwd":"/"},{"sessionId":"b"}]}`), nil
		},
		acp.SessionRequestPermission.Name: func(context.Context, *acp.Conn, json.RawMessage) (any, error) {
			return json.RawMessage(`{"outcome":{"outcome":"selected"}}`), nil
		},
		acp.TerminalOutput.Name: func(context.Context, *acp.Conn, json.RawMessage) (any, error) {
			return json.RawMessage(`{"output":"x","truncated":"no"}`), nil
		},
	}}
	acp.SessionPrompt.Handle(&agent, func(_ context.Context, _ *acp.Conn, p acp.PromptParams) (acp.PromptResult, error) {
		if p.SessionID != "s" {
			return acp.PromptResult{}, acp.Errorf(acp.CodeResourceNotFound, "no session %s", p.SessionID).WithData(map[string]string{"sessionId": p.SessionID})
		}
		return acp.PromptResult{StopReason: acp.StopReasonEndTurn}, nil
	})
	client, _, closePair := acptest.NewPair(context.Background(), nil, agent, nil)
	defer testwait.Do(t, "the pair to close", func() { closePair() })
	ctx := testwait.Context(t)

	res, err := acp.SessionPrompt.Call(ctx, client, acp.PromptParams{SessionID: "s", Prompt: acp.ContentBlocks{acp.TextContent{Text: "hi"}}})
	if diff := cmp.Diff(acp.PromptResult{StopReason: acp.StopReasonEndTurn}, res); diff != "" || err != nil {
		t.Errorf("SessionPrompt.Call = %v (-want +got):\n%s", err, diff)
	}

	_, err = acp.SessionPrompt.Call(ctx, client, acp.PromptParams{SessionID: "t", Prompt: acp.ContentBlocks{}})
	var e *acp.Error
	if !errors.As(err, &e) || e.Code != acp.CodeResourceNotFound || string(e.Data) != `{"sessionId":"t"}` {
		t.Errorf("SessionPrompt.Call for an unknown session: %v", err)
	}

	// The schema reads sessions leniently: the one without its cwd is
	// dropped.
	list, err := acp.SessionList.Call(ctx, client, acp.ListSessionsParams{})
	if want := []acp.SessionInfo{{SessionID: "a", Cwd: "/"}}; err != nil || !cmp.Equal(want, list.Sessions) {
		t.Errorf("SessionList.Call = %+v, %v; want only the session with a cwd", list, err)
	}

	for _, tt := range []struct {
		name  string
		call  func() error
		field string
	}{
		{"missing sessionId", func() error {
			_, err := acp.SessionNew.Call(ctx, client, acp.NewSessionParams{Cwd: "/"})
			return err
		}, "sessionId"},
		{"nested missing optionId", func() error {
			_, err := acp.SessionRequestPermission.Call(ctx, client, acp.RequestPermissionParams{SessionID: "s", ToolCall: acp.PermissionToolCall{ToolCallID: "c"}})
			return err
		}, "outcome.optionId"},
		{"mistyped truncated", func() error {
			_, err := acp.TerminalOutput.Call(ctx, client, acp.TerminalOutputParams{SessionID: "s", TerminalID: "t"})
			return err
		}, "truncated"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if !errors.Is(err, acp.ErrInvalidResponse) || errors.Is(err, acp.ErrInvalidParams) {
				t.Fatalf("error %v, want one matching ErrInvalidResponse only", err)
			}
			if field, ok := acp.InvalidField(err); !ok || field != tt.field {
				t.Errorf("InvalidField = %q, %v; want %q", field, ok, tt.field)
			}
		})
	}

	if _, err := acp.SessionLoad.Call(ctx, client, acp.LoadSessionParams{SessionID: "s", Cwd: "/"}); !errors.Is(err, acp.ErrMethodNotFound) {
		t.Errorf("unregistered method: %v, want -32601", err)
	}
}

// TestNotificationHandle checks that a typed notification handler receives
// decoded params in order and never sees params that do not decode.
func TestNotificationHandle(t *testing.T) {
	var client acp.Methods
	got := make(chan acp.SessionNotification, 3)
	acp.SessionUpdate.Handle(&client, func(_ context.Context, _ *acp.Conn, n acp.SessionNotification) {
		got <- n
	})
	_, agent, closePair := acptest.NewPair(context.Background(), client, nil, nil)
	ctx := testwait.Context(t)
	want := []acp.SessionNotification{
		{SessionID: "s", Update: acp.AgentMessageChunk{Content: acp.TextContent{Text: "a"}}},
		{SessionID: "s", Update: acp.CurrentModeUpdate{CurrentModeID: "code"}},
	}
	if err := acp.SessionUpdate.Notify(ctx, agent, want[0]); err != nil {
		t.Fatal(err)
	}
	// A chunk without content is dropped, and the connection goes on.
	if err := agent.Notify(ctx, acp.SessionUpdate.Name, map[string]any{"sessionId": "s", "update": map[string]any{"sessionUpdate": "agent_message_chunk"}}); err != nil {
		t.Fatal(err)
	}
	if err := acp.SessionUpdate.Notify(ctx, agent, want[1]); err != nil {
		t.Fatal(err)
	}
	// The client handles notifications in order before reading on, so once
	// a request sent after them is answered, they have all been handled.
	if _, err := agent.Request(ctx, "x/sync", nil); !errors.Is(err, acp.ErrMethodNotFound) {
		t.Fatal(err)
	}
	var err error
	testwait.Do(t, "the pair to close", func() { err = closePair() })
	if err != nil {
		t.Fatal(err)
	}
	close(got)
	var all []acp.SessionNotification
	for n := range got {
		all = append(all, n)
	}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Errorf("notifications (-want +got):\n%s", diff)
	}
}
