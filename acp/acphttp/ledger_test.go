package acphttp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// announce is the session/update with which an agent exposes child on
// parent.
func announce(parent, child string) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":{"sessionUpdate":"subagent_update","sessionId":%q}}}`, parent, child)
}

// open makes l hold session s, as session/new's response does.
func open(t *testing.T, l *ledger, s string) {
	t.Helper()
	if ref, _ := l.admit(message{kind: kindRequest, id: `"new"`, method: "session/new"}, 10); ref != nil {
		t.Fatalf("session/new refused: %v", ref)
	}
	l.answered(`"new"`, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":"new","result":{"sessionId":%q}}`, s))
}

// closeSession closes session s on l, as session/close's response does.
func closeSession(t *testing.T, l *ledger, s string) {
	t.Helper()
	if ref, _ := l.admit(message{kind: kindRequest, id: `"close"`, method: "session/close", session: s}, 10); ref != nil {
		t.Fatalf("session/close refused: %v", ref)
	}
	l.answered(`"close"`, []byte(`{"jsonrpc":"2.0","id":"close","result":{}}`))
}

// The ledger learns the children announced on the sessions it holds and
// on their children, by their first announcement, within its bound, and
// forgets them with their parent.
func TestLedgerChildren(t *testing.T) {
	tests := []struct {
		name string
		// announce are (parent, child) pairs, in order; "close P" closes P.
		steps [][2]string
		want  map[string]string
	}{
		{"on a held session", [][2]string{{"p", "c"}}, map[string]string{"c": "p"}},
		{"nested", [][2]string{{"p", "c"}, {"c", "g"}}, map[string]string{"c": "p", "g": "c"}},
		{"on an unknown session", [][2]string{{"stranger", "c"}}, map[string]string{}},
		{"first announcement decides", [][2]string{{"p", "c"}, {"q", "c"}, {"c", "p"}}, map[string]string{"c": "p"}},
		{"id too long", [][2]string{{"p", strings.Repeat("x", maxIDLength+1)}}, map[string]string{}},
		{"empty id", [][2]string{{"p", ""}}, map[string]string{}},
		{"parent closed", [][2]string{{"p", "c"}, {"c", "g"}, {"q", "d"}, {"close", "p"}}, map[string]string{"d": "q"}},
		{"child closed", [][2]string{{"p", "c"}, {"c", "g"}, {"close", "c"}}, map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLedger(4, 1<<20)
			open(t, l, "p")
			open(t, l, "q")
			for _, s := range tt.steps {
				if s[0] == "close" {
					closeSession(t, l, s[1])
					continue
				}
				l.learn(announce(s[0], s[1]))
			}
			if diff := cmp.Diff(tt.want, l.children); diff != "" {
				t.Errorf("children (-want +got):\n%s", diff)
			}
		})
	}
}

// However many distinct children an agent announces, a connection keeps
// at most maxChildren of them; those it keeps are reachable.
func TestLedgerChildFlood(t *testing.T) {
	l := newLedger(4, 1<<20)
	open(t, l, "p")
	for i := range 100 * l.maxChildren {
		l.learn(announce("p", fmt.Sprintf("child-%d", i)))
	}
	if got := len(l.children); got != l.maxChildren {
		t.Errorf("learned %d children, want the bound, %d", got, l.maxChildren)
	}
	if !l.reaches("child-0") || l.reaches(fmt.Sprintf("child-%d", l.maxChildren)) {
		t.Errorf("reaches child-0 = %v, child-%d = %v; want the first learned, not the one past the bound", l.reaches("child-0"), l.maxChildren, l.reaches(fmt.Sprintf("child-%d", l.maxChildren)))
	}
	closeSession(t, l, "p")
	if got := len(l.children); got != 0 {
		t.Errorf("%d children left once their parent closed, want 0", got)
	}
}

// FuzzLearn checks that no message makes learn panic or pass its bounds.
func FuzzLearn(f *testing.F) {
	f.Add(announce("p", "c"))
	f.Add([]byte(`{"method":"session/update","params":{"sessionId":"p","update":{"sessionUpdate":"subagent_update","sessionId":7}}}`))
	f.Add([]byte(`"subagent_update"`))
	f.Fuzz(func(t *testing.T, msg []byte) {
		l := newLedger(1, 1<<20)
		open(t, l, "p")
		l.learn(msg)
		for c := range l.children {
			if c == "" || len(c) > maxIDLength || c == "p" {
				t.Errorf("learned child %q", c)
			}
		}
		if len(l.children) > l.maxChildren {
			t.Errorf("learned %d children, bound %d", len(l.children), l.maxChildren)
		}
	})
}
