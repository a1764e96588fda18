package acp

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/acpkit/acpkit/internal/wire"
)

// TestAppendersCheckForeignBytes checks that the bytes an appender takes
// from the caller (a _meta, an unknown variant kept raw) are checked as
// any other value's are, although the appenders' own output is not.
func TestAppendersCheckForeignBytes(t *testing.T) {
	// Valid alone, but one level too deep as a member of the params.
	deep := json.RawMessage(strings.Repeat("[", jsonscan.MaxDepth) + strings.Repeat("]", jsonscan.MaxDepth))
	badUTF8 := json.RawMessage("{\"a\":\"\xff\"}")
	text := "fine"
	tests := []struct {
		name  string
		value any
	}{
		{"notification _meta in invalid UTF-8", SessionNotification{SessionID: "s", Update: AgentMessageChunk{Content: TextContent{Text: "t"}}, Meta: badUTF8}},
		{"notification _meta too deep inside the params", SessionNotification{SessionID: "s", Update: AgentMessageChunk{Content: TextContent{Text: "t"}}, Meta: deep}},
		{"chunk _meta in invalid UTF-8", SessionNotification{SessionID: "s", Update: AgentMessageChunk{Content: TextContent{Text: "t"}, Meta: badUTF8}}},
		{"block _meta in invalid UTF-8", SessionNotification{SessionID: "s", Update: AgentThoughtChunk{Content: TextContent{Text: "t", Meta: badUTF8}}}},
		{"annotations _meta in invalid UTF-8", PromptParams{SessionID: "s", Prompt: ContentBlocks{ImageContent{Data: "AA==", MimeType: "image/png", Annotations: &Annotations{Meta: badUTF8}}}}},
		{"resource _meta in invalid UTF-8", PromptParams{SessionID: "s", Prompt: ContentBlocks{EmbeddedResource{Resource: ResourceContents{URI: "u", Text: &text, Meta: badUTF8}}}}},
		{"unknown block in invalid UTF-8", PromptParams{SessionID: "s", Prompt: ContentBlocks{UnknownContent{Type: "x", Raw: badUTF8}}}},
		{"unknown update in invalid UTF-8", SessionNotification{SessionID: "s", Update: UnknownUpdate{Kind: "x", Raw: badUTF8}}},
		{"unknown update with white space, then invalid UTF-8", SessionNotification{SessionID: "s", Update: UnknownUpdate{Kind: "x", Raw: json.RawMessage("{\n\"a\":\"\xff\"}")}}},
		{"prompt _meta not JSON", PromptParams{SessionID: "s", Meta: json.RawMessage(`{"a":}`)}},
		{"result _meta in invalid UTF-8", PromptResult{StopReason: StopReasonEndTurn, Meta: badUTF8}},
		{"usage _meta in invalid UTF-8", PromptResult{StopReason: StopReasonEndTurn, Usage: &Usage{Meta: badUTF8}}},
	}
	for _, tt := range tests {
		if _, ok := tt.value.(jsonAppender); !ok {
			t.Fatalf("%s: %T has no appender", tt.name, tt.value)
		}
		line, err := MarshalRequest(IntID(1), "m", tt.value)
		if !errors.Is(err, ErrNotJSON) {
			t.Errorf("%s: a line of %d bytes, %v; want an error matching ErrNotJSON", tt.name, len(line), err)
		}
	}
}

// TestAppendersNilPointers checks that a nil variant, or a nil pointer to
// one, where the schema requires a variant is refused, not sent as a null
// no peer reads, and never panics.
func TestAppendersNilPointers(t *testing.T) {
	var text *TextContent
	var chunk *AgentMessageChunk
	for _, v := range []any{
		PromptParams{SessionID: "s", Prompt: ContentBlocks{text}},
		PromptParams{SessionID: "s", Prompt: ContentBlocks{nil}},
		SessionNotification{SessionID: "s", Update: chunk},
		SessionNotification{SessionID: "s", Update: AgentMessageChunk{}},
	} {
		if line, err := MarshalNotification("m", v); !errors.Is(err, wire.ErrNil) {
			t.Errorf("%#v: %s, %v; want an error matching wire.ErrNil", v, line, err)
		}
		if b, err := json.Marshal(v); !errors.Is(err, wire.ErrNil) {
			t.Errorf("json.Marshal(%#v): %s, %v; want an error matching wire.ErrNil", v, b, err)
		}
	}
}

// FuzzMarshalSessionUpdate checks that whatever update decodes from a
// peer's bytes is sent again as a line a peer accepts, holding the same
// variant, or refused with ErrNotJSON when it cannot fit a line (a raw
// variant nested too deep to be nested further).
func FuzzMarshalSessionUpdate(f *testing.F) {
	for _, tc := range sampleUpdates() {
		raw, err := json.Marshal(tc.update)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"<\u2028>\ud800","annotations":{"priority":0.5,"_meta":{"k":"\u00e9"}}},"_meta":{ "a" : [ 1 ] }}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		u, err := decodeUpdate(data, "update")
		if err != nil {
			return
		}
		line, err := MarshalNotification(SessionUpdate.Name, SessionNotification{SessionID: "s", Update: u})
		if err != nil {
			if !errors.Is(err, ErrNotJSON) {
				t.Fatalf("%q: %v", data, err)
			}
			return
		}
		if !utf8.Valid(line) || strings.ContainsAny(string(line), "\r\n") {
			t.Fatalf("%q: not one line in UTF-8: %q", data, line)
		}
		msg := Classify(line)
		if msg.Kind != KindNotification {
			t.Fatalf("%q: %q is not a notification: %v", data, line, msg.Err)
		}
		n, err := DecodeParams[SessionNotification](msg.Params)
		if err != nil {
			t.Fatalf("%q: %q does not decode: %v", data, line, err)
		}
		if n.Update.updateTag() != u.updateTag() {
			t.Fatalf("%q: variant %q became %q", data, u.updateTag(), n.Update.updateTag())
		}
	})
}
