package acp_test

import (
	"encoding/json"
	"testing"

	"github.com/acpkit/acpkit/acp"
)

// The codec benchmarks set the typed decoders and encoders, on the
// messages of W1 and W3, against encoding/json on the plain structs of
// conn_bench_test.go: DecodeParams against json.Unmarshal, the Marshal
// functions against json.Marshal of the plain envelope.

// BenchmarkDecodePromptParams decodes W3's params.
func BenchmarkDecodePromptParams(b *testing.B) {
	b.SetBytes(int64(len(filePromptJSON)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := acp.DecodeParams[acp.PromptParams](filePromptJSON)
		if err != nil || len(p.Prompt) != 2 {
			b.Fatalf("%+v: %v", p, err)
		}
	}
}

// BenchmarkDecodePromptParamsBaseline is BenchmarkDecodePromptParams'
// baseline.
func BenchmarkDecodePromptParamsBaseline(b *testing.B) {
	b.SetBytes(int64(len(filePromptJSON)))
	b.ReportAllocs()
	for b.Loop() {
		var p plainPrompt
		if err := json.Unmarshal(filePromptJSON, &p); err != nil || len(p.Prompt) != 2 {
			b.Fatalf("%+v: %v", p, err)
		}
	}
}

var chunkJSON = func() []byte {
	p, err := json.Marshal(chunk)
	if err != nil {
		panic(err)
	}
	return p
}()

// BenchmarkDecodeSessionNotification decodes W1's params.
func BenchmarkDecodeSessionNotification(b *testing.B) {
	b.SetBytes(int64(len(chunkJSON)))
	b.ReportAllocs()
	for b.Loop() {
		n, err := acp.DecodeParams[acp.SessionNotification](chunkJSON)
		if err != nil || n.SessionID == "" {
			b.Fatalf("%+v: %v", n, err)
		}
	}
}

// BenchmarkDecodeSessionNotificationBaseline is
// BenchmarkDecodeSessionNotification's baseline.
func BenchmarkDecodeSessionNotificationBaseline(b *testing.B) {
	b.SetBytes(int64(len(chunkJSON)))
	b.ReportAllocs()
	for b.Loop() {
		var n chunkParams
		if err := json.Unmarshal(chunkJSON, &n); err != nil || n.SessionID == "" {
			b.Fatalf("%+v: %v", n, err)
		}
	}
}

// BenchmarkMarshalNotification builds W1's line.
func BenchmarkMarshalNotification(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := acp.MarshalNotification(acp.SessionUpdate.Name, chunkNotification); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarshalNotificationBaseline is BenchmarkMarshalNotification's
// baseline.
func BenchmarkMarshalNotificationBaseline(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(notificationEnvelope{JSONRPC: "2.0", Method: acp.SessionUpdate.Name, Params: chunk}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarshalRequestPrompt builds W3's line.
func BenchmarkMarshalRequestPrompt(b *testing.B) {
	p := filePrompt.typed()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := acp.MarshalRequest(acp.IntID(7), acp.SessionPrompt.Name, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarshalRequestPromptBaseline is BenchmarkMarshalRequestPrompt's
// baseline.
func BenchmarkMarshalRequestPromptBaseline(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(requestEnvelope{JSONRPC: "2.0", ID: 7, Method: acp.SessionPrompt.Name, Params: filePrompt}); err != nil {
			b.Fatal(err)
		}
	}
}
