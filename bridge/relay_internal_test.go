package bridge

import (
	"testing"

	"github.com/acpkit/acpkit/acp"
)

// TestWithSessionID checks that a request an agent relays reaches the
// editor under the session's id alone, however the agent spelled its
// sessionId member: twice, or with escapes, where a JSON decoder reads
// a member the first match of a path expression does not.
func TestWithSessionID(t *testing.T) {
	tests := []string{
		`{"sessionId":"s1","path":"/a"}`,
		`{"path":"/a","sessionId":"s1"}`,
		`{"sessionId":"s1","path":"/a","sessionId":"other"}`,
		`{"sessionId":"s1","path":"/a","session\u0049d":"other"}`,
		`{"path":"/a","session\u0049d":"other"}`,
		`{"path":"/a","sessionId":{"nested":true},"sessionId":"other"}`,
		`{"sessionId":"s1","path":"/a","SessionID":"other"}`,
		`{"SESSIONID":"other","path":"/a"}`,
	}
	for _, params := range tests {
		got := withSessionID([]byte(params), "mine")
		p, err := acp.DecodeParams[acp.ReadTextFileParams](got)
		if err != nil || p.SessionID != "mine" || p.Path != "/a" {
			t.Errorf("withSessionID(%s) = %s, which the editor reads as session %q, path %q (%v); want session mine", params, got, p.SessionID, p.Path, err)
		}
	}
}
