package acp

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// Realistic inbound lines: a prompt carrying a text block and an embedded
// file (a resource block with a few hundred bytes of text), and one streamed
// chunk of an agent's reply.
var benchLines = []struct {
	name string
	line []byte
}{
	{"prompt", []byte(`{"jsonrpc":"2.0","id":42,"method":"session/prompt","params":{"sessionId":"sess_01JD8X4W3QK9V2","prompt":[` +
		`{"type":"text","text":"Why does the retry loop in fetch.go give up after one attempt? Please fix it and add a test."},` +
		`{"type":"resource","resource":{"uri":"file:///home/dev/project/internal/net/fetch.go","mimeType":"text/x-go","text":` +
		`"package net\n\nimport (\n\t\"context\"\n\t\"errors\"\n\t\"time\"\n)\n\n// Fetch calls get until it succeeds or attempts run out.\n` +
		`func Fetch(ctx context.Context, get func() error, attempts int) error {\n\tvar err error\n\tfor i := 0; i < attempts; i++ {\n` +
		`\t\tif err = get(); err == nil {\n\t\t\treturn nil\n\t\t}\n\t\tif errors.Is(err, context.Canceled) {\n\t\t\treturn err\n\t\t}\n` +
		`\t\tselect {\n\t\tcase <-ctx.Done():\n\t\t\treturn ctx.Err()\n\t\tcase <-time.After(time.Duration(i) * time.Second):\n\t\t}\n` +
		`\t\treturn err\n\t}\n\treturn err\n}\n"}}]}}`)},
	{"chunk", []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_01JD8X4W3QK9V2","update":` +
		`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"The loop returns at the end of its first iteration: ` +
		`the final ` + "`return err`" + ` sits inside the for body, so a second attempt never runs. "}}}}`)},
}

func BenchmarkClassify(b *testing.B) {
	for _, bl := range benchLines {
		b.Run(bl.name, func(b *testing.B) {
			if m := Classify(bl.line); m.Kind == KindInvalid {
				b.Fatalf("benchmark line is invalid: %v", m.Err)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(bl.line)))
			for b.Loop() {
				benchSink = Classify(bl.line)
			}
		})
	}
}

var benchSink Message

// stdEnvelope is what the baseline decodes a line into.
type stdEnvelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// classifyStdJSON does Classify's job for well-formed lines with
// encoding/json: UTF-8 check, full decode of the envelope (which validates
// the line), and the same checks on its members.
func classifyStdJSON(line []byte) (stdEnvelope, bool) {
	var env stdEnvelope
	if !utf8.Valid(line) || json.Unmarshal(line, &env) != nil || env.JSONRPC != "2.0" {
		return env, false
	}
	if env.Method != "" {
		switch {
		case env.ID != nil && !isIDValue(env.ID):
			return env, false
		case env.Params != nil && env.Params[0] != '{' && env.Params[0] != '[' && !bytes.Equal(env.Params, []byte("null")):
			return env, false
		}
		return env, true
	}
	return env, env.ID != nil && (env.Result == nil) != (env.Error == nil)
}

func BenchmarkClassifyStdJSON(b *testing.B) {
	for _, bl := range benchLines {
		b.Run(bl.name, func(b *testing.B) {
			if _, ok := classifyStdJSON(bl.line); !ok {
				b.Fatalf("benchmark line is invalid")
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(bl.line)))
			for b.Loop() {
				benchStdSink, _ = classifyStdJSON(bl.line)
			}
		})
	}
}

var benchStdSink stdEnvelope
