package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/acpkit/acpkit/internal/jsonscan"
)

// checkLine fails unless out is exactly one JSON object and a newline, the
// only thing a Session may write.
func checkLine(t *testing.T, out []byte) {
	t.Helper()
	line, ok := bytes.CutSuffix(out, []byte{'\n'})
	if !ok || bytes.IndexByte(line, '\n') >= 0 || len(line) == 0 || line[0] != '{' {
		t.Fatalf("wrote %q, not one line", out)
	}
	if err := jsonscan.Check(line); err != nil || !json.Valid(line) {
		t.Fatalf("wrote invalid JSON %q: %v", line, err)
	}
}

func FuzzSessionFeed(f *testing.F) {
	for _, s := range []string{
		`{"type":"control_request","request_id":"p1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"ls"},"permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash"}]}],"tool_use_id":"t"}}`,
		`{"type":"control_request","request_id":"m1","request":{"subtype":"mcp_message","server_name":"s","message":{"jsonrpc":"2.0","id":"x\"y","method":"m"}}}`,
		`{"type":"control_request","request_id":"m1","request":{"subtype":"mcp_message","message":[]}}`,
		`{"type":"control_request","request_id":"h1","request":{"subtype":"hook_callback","callback_id":"c","input":{}}}`,
		`{"type":"control_request","request_id":"u1","request":{"subtype":"new"}}`,
		`{"type":"control_request","request_id":"\u00e9","request":7}`,
		`{"type":"control_response","response":{"subtype":"success","request_id":"req_1","response":{}}}`,
		`{"type":"control_response","response":{"subtype":"error","request_id":"req_1","error":"e","error_code":"c"}}`,
		`{"type":"control_cancel_request","request_id":"p1"}`,
		`{"type":"result","subtype":"success","result_index":3,"terminal_reason":"aborted_streaming"}`,
		`{"type":"system","subtype":"init","session_id":"s"}`,
		`{"type":"control_request","request_id":"a","type":"control_cancel_request"}`,
		"not json",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var stdin bytes.Buffer
		s := NewSession(&stdin, "")
		if _, err := s.Initialize(InitializeOptions{}); err != nil {
			t.Fatal(err)
		}
		before := s.Pending()
		orig := bytes.Clone(line)
		prior := []Event{Heartbeat{Subtype: "prior"}}
		events, err := s.Feed(line, prior)
		if !bytes.Equal(orig, line) {
			t.Fatal("Feed modified its input")
		}
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *SyntaxError", err)
			}
			if len(events) != 1 || !slices.Equal(before, s.Pending()) {
				t.Fatal("a line in error changed the events or the session")
			}
			return
		}
		if len(events) < 1 || events[0] != (Heartbeat{Subtype: "prior"}) {
			t.Fatal("Feed lost the events it was given")
		}
		control := 0
		for _, e := range events[1:] {
			switch e.(type) {
			case PermissionRequest, MCPRequest, HookRequest, UnknownRequest, ControlResponse, ControlCancel:
				control++
			}
			r, ok := e.(Request)
			if !ok || r.RequestID() == "" {
				continue
			}
			if !slices.Contains(s.Pending(), Pending{ID: r.RequestID(), Subtype: requestSubtype(r), FromCLI: true}) {
				t.Fatalf("request %q is not pending: %v", r.RequestID(), s.Pending())
			}
			// Whatever the request, declining it writes one valid line
			// and settles it: the CLI is never left waiting.
			stdin.Reset()
			if err := s.Decline(r); err != nil {
				t.Fatalf("Decline(%#v): %v", r, err)
			}
			checkLine(t, stdin.Bytes())
			if err := s.Decline(r); !errors.Is(err, ErrNotPending) {
				t.Fatalf("second Decline: %v", err)
			}
		}
		if control > 1 {
			t.Fatalf("%d control events from one line", control)
		}
	})
}

func FuzzSessionWrite(f *testing.F) {
	f.Add("hello", []byte(`{"type":"document","source":{}}`), "mcp_status")
	f.Add("", []byte(`{"a":1}`), "x")
	f.Add("\u2028<&>\x00", []byte("{\n\"type\" : \"t\"\r\n}"), "set_model")
	f.Add("\xff", []byte(`{"type":"t","subtype":"s"}`), "\xfe")
	f.Add("x", []byte(`[`), "")
	f.Fuzz(func(t *testing.T, text string, raw []byte, subtype string) {
		var stdin bytes.Buffer
		s := NewSession(&stdin, "")
		check := func(what string, err error) {
			t.Helper()
			if err != nil {
				if !errors.Is(err, ErrInvalidInput) {
					t.Fatalf("%s: error %v is not ErrInvalidInput", what, err)
				}
				if stdin.Len() != 0 {
					t.Fatalf("%s: refused, yet wrote %q", what, stdin.String())
				}
				return
			}
			checkLine(t, stdin.Bytes())
			stdin.Reset()
		}
		check("SendText", s.SendText(text))
		check("Send", s.Send(TextBlock(text), RawBlock(raw)))
		_, err := s.Call(subtype, raw)
		if err == nil && utf8.ValidString(subtype) {
			// The CLI reads member names as written (JSON.parse): a map
			// matches them exactly, where a struct field would also take
			// "suBtYpe".
			var line struct {
				Request map[string]json.RawMessage `json:"request"`
			}
			var got string
			if json.Unmarshal(stdin.Bytes(), &line) != nil || json.Unmarshal(line.Request["subtype"], &got) != nil || got != subtype {
				t.Fatalf("Call(%q) wrote %q", subtype, stdin.String())
			}
		}
		check("Call", err)
		_, err = s.Initialize(InitializeOptions{
			Hooks:      map[HookEvent][]HookMatcher{HookEvent(subtype): {{Matcher: text, CallbackIDs: []string{text}}}},
			JSONSchema: raw,
			Extra:      map[string]json.RawMessage{text: raw},
		})
		if err == nil {
			// Every member is there once, the schema and the extra one
			// as given.
			var line struct {
				Request map[string]json.RawMessage `json:"request"`
			}
			var compact bytes.Buffer
			if json.Unmarshal(stdin.Bytes(), &line) != nil || json.Compact(&compact, raw) != nil ||
				string(line.Request["subtype"]) != `"initialize"` || !bytes.Equal(line.Request["jsonSchema"], compact.Bytes()) ||
				utf8.ValidString(text) && !bytes.Equal(line.Request[text], compact.Bytes()) {
				t.Fatalf("Initialize wrote %q", stdin.String())
			}
			if n := bytes.Count(stdin.Bytes(), []byte(`"jsonSchema":`)); n != 1 {
				t.Fatalf("Initialize wrote the schema %d times: %q", n, stdin.String())
			}
		}
		check("Initialize", err)
	})
}
