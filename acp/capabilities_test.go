package acp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNegotiateVersion(t *testing.T) {
	for client, want := range map[int]int{1: 1, 0: 1, 2: 1, 99: 1, -1: 1} {
		if got := NegotiateVersion(client); got != want {
			t.Errorf("NegotiateVersion(%d) = %d, want %d", client, got, want)
		}
	}
}

type clientCaps struct {
	Read, Write, Terminal, Notices, Booleans bool
}

func TestClientCapabilities(t *testing.T) {
	cases := []struct {
		name string
		caps string // the clientCapabilities member; "" = absent
		want clientCaps
	}{
		{"absent", ``, clientCaps{}},
		{"empty", `{}`, clientCaps{}},
		{"fs read only", `{"fs":{"readTextFile":true}}`, clientCaps{Read: true}},
		{"everything", `{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true,"session":{"notices":{}},"_meta":{"goose":{"customNotifications":true}}}`,
			clientCaps{Read: true, Write: true, Terminal: true, Notices: true}},
		{"notices true, read leniently as absent", `{"session":{"notices":true}}`, clientCaps{}},
		{"notices false", `{"session":{"notices":false}}`, clientCaps{}},
		{"notices null", `{"session":{"notices":null}}`, clientCaps{}},
		{"session without notices", `{"session":{}}`, clientCaps{}},
		{"boolean config options", `{"session":{"configOptions":{"boolean":{}}}}`, clientCaps{Booleans: true}},
		{"boolean config options null", `{"session":{"configOptions":{"boolean":null}}}`, clientCaps{}},
		{"config options without boolean", `{"session":{"configOptions":{}}}`, clientCaps{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			params := `{"protocolVersion":1}`
			if tc.caps != "" {
				params = `{"protocolVersion":1,"clientCapabilities":` + tc.caps + `}`
			}
			p, err := DecodeParams[InitializeParams]([]byte(params))
			if err != nil {
				t.Fatal(err)
			}
			c := p.ClientCapabilities
			got := clientCaps{c.FS.ReadTextFile, c.FS.WriteTextFile, c.Terminal, c.AcceptsNotices(), c.AcceptsBooleanConfigOptions()}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

type agentCaps struct {
	Image, Audio, Embedded, List, Delete, Resume, Close, Fork bool
	Accepts                                                   [6]bool // text, link, image, audio, resource, unknown
}

func TestAgentCapabilities(t *testing.T) {
	blocks := []ContentBlock{TextContent{}, ResourceLink{}, ImageContent{}, AudioContent{}, EmbeddedResource{}, UnknownContent{Type: "x"}}
	cases := []struct {
		name string
		caps string
		want agentCaps
	}{
		{"absent", `{}`, agentCaps{Accepts: [6]bool{true, true}}},
		{"prompt kinds", `{"promptCapabilities":{"image":true,"audio":true,"embeddedContext":true}}`,
			agentCaps{Image: true, Audio: true, Embedded: true, Accepts: [6]bool{true, true, true, true, true}}},
		{"session methods", `{"sessionCapabilities":{"list":{},"resume":{},"close":null}}`,
			agentCaps{List: true, Resume: true, Accepts: [6]bool{true, true}}},
		{"session delete and close", `{"sessionCapabilities":{"delete":{},"close":{}}}`,
			agentCaps{Delete: true, Close: true, Accepts: [6]bool{true, true}}},
		{"session fork", `{"sessionCapabilities":{"fork":{}}}`, agentCaps{Fork: true, Accepts: [6]bool{true, true}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := DecodeResult[InitializeResult]([]byte(`{"protocolVersion":1,"agentCapabilities":` + tc.caps + `}`))
			if err != nil {
				t.Fatal(err)
			}
			c := r.AgentCapabilities
			got := agentCaps{Image: c.PromptCapabilities.Image, Audio: c.PromptCapabilities.Audio, Embedded: c.PromptCapabilities.EmbeddedContext,
				List: c.SupportsSessionList(), Delete: c.SupportsSessionDelete(), Resume: c.SupportsSessionResume(), Close: c.SupportsSessionClose(), Fork: c.SupportsSessionFork()}
			for i, b := range blocks {
				got.Accepts[i] = c.Accepts(b)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestResultsRoundTrip(t *testing.T) {
	check := func(t *testing.T, want, got any) {
		t.Helper()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}
	roundTripResult := func(t *testing.T, v any) []byte {
		t.Helper()
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	t.Run("initialize", func(t *testing.T) {
		v := InitializeResult{ProtocolVersion: 1, AgentCapabilities: AgentCapabilities{LoadSession: true,
			SessionCapabilities: &SessionCapabilities{Close: &SessionCloseCapabilities{}, Delete: &SessionDeleteCapabilities{}},
			Auth:                &AgentAuthCapabilities{Logout: &LogoutCapabilities{}}}, AgentInfo: &Implementation{Name: "a", Version: "1"},
			AuthMethods: []AuthMethod{
				{ID: "oauth", Name: "OAuth", Description: "browser"},
				{Type: AuthMethodTerminal, ID: "tui", Name: "Log in", Args: []string{"--login"}, Env: map[string]string{"MODE": "tui"}},
			}}
		got, err := DecodeResult[InitializeResult](roundTripResult(t, v))
		if err != nil {
			t.Fatal(err)
		}
		check(t, v, got)
	})
	t.Run("session/new", func(t *testing.T) {
		v := NewSessionResult{SessionID: "s", ConfigOptions: []SessionConfigOption{
			{ID: "m", Name: "M", Type: "select", CurrentValue: "a", Options: SessionConfigSelectOptions{Options: []SessionConfigSelectOption{}}},
			{ID: "b", Name: "B", Type: "boolean", CurrentBool: true},
		}}
		got, err := DecodeResult[NewSessionResult](roundTripResult(t, v))
		if err != nil {
			t.Fatal(err)
		}
		check(t, v, got)
	})
	t.Run("session/list", func(t *testing.T) {
		v := ListSessionsResult{Sessions: []SessionInfo{{SessionID: "s", Cwd: "/", AdditionalDirectories: []string{"/x"}, UpdatedAt: "2026-01-01T00:00:00Z"}}}
		got, err := DecodeResult[ListSessionsResult](roundTripResult(t, v))
		if err != nil {
			t.Fatal(err)
		}
		check(t, v, got)
	})
	t.Run("session/prompt", func(t *testing.T) {
		v := PromptResult{StopReason: StopReasonCancelled, Usage: &Usage{TotalTokens: 3, InputTokens: 1, OutputTokens: 2, ThoughtTokens: ptrOf(uint64(0))}}
		got, err := DecodeResult[PromptResult](roundTripResult(t, v))
		if err != nil {
			t.Fatal(err)
		}
		check(t, v, got)
	})
	t.Run("permission cancelled", func(t *testing.T) {
		v := RequestPermissionResult{Outcome: PermissionOutcome{Outcome: PermissionCancelled}}
		raw := roundTripResult(t, v)
		check(t, `{"outcome":{"outcome":"cancelled"}}`, string(raw))
		got, err := DecodeResult[RequestPermissionResult](raw)
		if err != nil {
			t.Fatal(err)
		}
		check(t, v, got)
	})
	t.Run("wait for exit", func(t *testing.T) {
		v := WaitForTerminalExitResult{Signal: "SIGKILL"}
		got, err := DecodeResult[WaitForTerminalExitResult](roundTripResult(t, v))
		if err != nil {
			t.Fatal(err)
		}
		check(t, v, got)
	})
	t.Run("session/load and session/resume", func(t *testing.T) {
		v := LoadSessionResult{
			Modes:         &SessionModeState{CurrentModeID: "ask", AvailableModes: []SessionMode{{ID: "ask", Name: "Ask", Description: "read only"}}},
			ConfigOptions: []SessionConfigOption{{ID: "m", Name: "M", Type: "select", CurrentValue: "a", Options: SessionConfigSelectOptions{Options: []SessionConfigSelectOption{}}}},
			Meta:          json.RawMessage(`{"k":1}`),
		}
		got, err := DecodeResult[LoadSessionResult](roundTripResult(t, v))
		if err != nil {
			t.Fatal(err)
		}
		check(t, v, got)
	})
	t.Run("client-side results", func(t *testing.T) {
		read := ReadTextFileResult{Content: "line 1\nline 2\n"}
		gotRead, err := DecodeResult[ReadTextFileResult](roundTripResult(t, read))
		if err != nil {
			t.Fatal(err)
		}
		check(t, read, gotRead)
		term := CreateTerminalResult{TerminalID: "term-1"}
		gotTerm, err := DecodeResult[CreateTerminalResult](roundTripResult(t, term))
		if err != nil {
			t.Fatal(err)
		}
		check(t, term, gotTerm)
		out := TerminalOutputResult{Output: "FAIL", Truncated: true, ExitStatus: &TerminalExitStatus{ExitCode: ptrOf(1)}}
		gotOut, err := DecodeResult[TerminalOutputResult](roundTripResult(t, out))
		if err != nil {
			t.Fatal(err)
		}
		check(t, out, gotOut)
	})
	t.Run("malformed", func(t *testing.T) {
		if _, err := DecodeResult[PromptResult]([]byte(`{"stopReason":1}`)); err == nil {
			t.Error("DecodeResult accepted a numeric stopReason")
		}
	})
}

// TestRequiredArraysNeverNull checks that a value built with nil slices
// still sends its required arrays as [], never null.
func TestRequiredArraysNeverNull(t *testing.T) {
	cases := []struct {
		name string
		v    any
		want string
	}{
		{"initialize result", InitializeResult{}, `"authMethods":[]`},
		{"session list", ListSessionsResult{}, `"sessions":[]`},
		{"mode state", SessionModeState{}, `"availableModes":[]`},
		{"set config option result", SetSessionConfigOptionResult{}, `"configOptions":[]`},
		{"request permission", RequestPermissionParams{}, `"options":[]`},
		{"prompt", PromptParams{}, `"prompt":[]`},
		{"new session", NewSessionParams{}, `"mcpServers":[]`},
		{"select option", SessionConfigOption{Type: ConfigOptionSelect}, `"options":[]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := json.Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(out), tc.want) || strings.Contains(string(out), "null") {
				t.Errorf("json.Marshal = %s; want it to contain %s and no null", out, tc.want)
			}
		})
	}
}
