package bridge

import (
	"encoding/json"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acpv2"
)

// BenchmarkAgentChunk is the cost of one streamed agent text chunk, the
// update a turn sends most, from the translator's update to the line
// sent: v1 encodes it as it is, v2 renders it first (the baseline is
// v1).
func BenchmarkAgentChunk(b *testing.B) {
	u := acp.AgentMessageChunk{Content: acp.TextContent{Text: "Let me look at the failing test first, then the handler."}}
	b.Run("v1", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(acp.SessionNotification{SessionID: "s", Update: u}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("v2", func(b *testing.B) {
		r := &v2Render{nonce: "11111111"}
		var out []acpv2.Update
		b.ReportAllocs()
		for b.Loop() {
			out = r.render(out[:0], u)
			if _, err := json.Marshal(acpv2.SessionNotification{SessionID: "s", Update: out[0]}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
