package jsonscan_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/tidwall/gjson"
)

// benchInputs are lines like those the module validates: a Claude
// stream-json assistant line, a tool result carrying a file, a result line
// full of numbers, and an ACP prompt.
var benchInputs = []struct {
	name string
	in   []byte
}{
	{"assistant", []byte(`{"type":"assistant","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant",` +
		`"model":"claude-sonnet-4-5-20250929","content":[{"type":"text","text":"I'll look at the retry loop first, then add a test ` +
		`that fails on the current code.\n\nThe loop returns inside its body — so only one attempt runs."},` +
		`{"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9","name":"Read","input":{"file_path":"/home/dev/project/internal/net/fetch.go"}}],` +
		`"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":4,"cache_creation_input_tokens":2145,"cache_read_input_tokens":11872,` +
		`"output_tokens":1,"service_tier":"standard"}},"parent_tool_use_id":null,"session_id":"5f2c8a4e-0d4b-4c1e-9a59-3c8f0a1b2c3d"}`)},
	{"tool_result", []byte(`{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01A09q90qw90lq917835lq9","type":"tool_result",` +
		`"content":"` + strings.Repeat(`     1\tpackage net\n     2\t\n     3\timport (\n     4\t\t\"context\"\n     5\t\t\"errors\"\n`, 60) +
		`"}]},"parent_tool_use_id":null,"session_id":"5f2c8a4e-0d4b-4c1e-9a59-3c8f0a1b2c3d"}`)},
	{"result", []byte(`{"type":"result","subtype":"success","is_error":false,"duration_ms":22476,"duration_api_ms":24563,"num_turns":7,` +
		`"result":"Fixed.","session_id":"5f2c8a4e-0d4b-4c1e-9a59-3c8f0a1b2c3d","total_cost_usd":0.08437195,"usage":{"input_tokens":21,` +
		`"cache_creation_input_tokens":6234,"cache_read_input_tokens":83452,"output_tokens":1187,"server_tool_use":{"web_search_requests":0},` +
		`"service_tier":"standard"},"modelUsage":{"claude-sonnet-4-5-20250929":{"inputTokens":21,"outputTokens":1187,"cacheReadInputTokens":83452,` +
		`"cacheCreationInputTokens":6234,"webSearchRequests":0,"costUSD":0.08437195,"contextWindow":200000}},"permission_denials":[]}`)},
	{"acp_prompt", []byte(`{"jsonrpc":"2.0","id":42,"method":"session/prompt","params":{"sessionId":"sess_01JD8X4W3QK9V2","prompt":[` +
		`{"type":"text","text":"Why does the retry loop in fetch.go give up after one attempt? Please fix it and add a test."},` +
		`{"type":"resource","resource":{"uri":"file:///home/dev/project/internal/net/fetch.go","mimeType":"text/x-go","text":` +
		`"package net\n\nimport (\n\t\"context\"\n\t\"errors\"\n\t\"time\"\n)\n\n// Fetch calls get until it succeeds or attempts run out.\n` +
		`func Fetch(ctx context.Context, get func() error, attempts int) error {\n\tvar err error\n\tfor i := 0; i < attempts; i++ {\n` +
		`\t\tif err = get(); err == nil {\n\t\t\treturn nil\n\t\t}\n\t\treturn err\n\t}\n\treturn err\n}\n"}}]}}`)},
}

func benchValid(b *testing.B, valid func([]byte) bool) {
	for _, bi := range benchInputs {
		b.Run(bi.name, func(b *testing.B) {
			if !valid(bi.in) {
				b.Fatal("benchmark input is not valid")
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(bi.in)))
			for b.Loop() {
				benchSink = valid(bi.in)
			}
		})
	}
}

var benchSink bool

func BenchmarkValid(b *testing.B) { benchValid(b, jsonscan.Valid) }

// BenchmarkValidGJSON is the baseline: the validator Valid replaces.
func BenchmarkValidGJSON(b *testing.B) { benchValid(b, gjson.ValidBytes) }

// BenchmarkValidStdJSON is encoding/json's validator, for scale.
func BenchmarkValidStdJSON(b *testing.B) { benchValid(b, json.Valid) }
