package codex_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/acpkit/acpkit/codex"
	"github.com/acpkit/acpkit/codex/codextest"
	"github.com/acpkit/acpkit/internal/jsonscan"
	"github.com/google/go-cmp/cmp"
)

// FuzzSessionFeed checks that a Session reads any line of a server's
// output without panicking or writing: a line that is not a JSON object
// is a LineError wrapping a SyntaxError, and nothing else is; an object
// gives at most one event, the same from any fresh Session, and none of
// its bytes stay tied to the line. It starts from every line the captures
// hold.
func FuzzSessionFeed(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "appserver", "*.ndjson"))
	for _, p := range paths {
		file, err := os.Open(p)
		if err != nil {
			f.Fatal(err)
		}
		recs, err := codextest.ReadAppServerTranscript(file)
		file.Close()
		if err != nil {
			f.Fatal(err)
		}
		for _, r := range recs {
			if r.Dir == codextest.DirServer {
				f.Add(append([]byte(nil), r.Msg...))
			}
		}
	}
	for _, s := range []string{
		`{"method":"item/started","params":{"item":{"type":"fileChange","id":"c","changes":[{"path":"/a","kind":{"type":"update","move_path":"/b"},"diff":"-x\n+y"}],"status":"inProgress"},"threadId":"t","turnId":"u"}}`,
		`{"method":"item/completed","params":{"item":{"type":"webSearch","id":"w","query":"q","action":{"type":"openPage","url":"u"}},"threadId":"t","turnId":"u"}}`,
		`{"method":"turn/plan/updated","params":{"threadId":"t","turnId":"u","explanation":null,"plan":[{"step":"a","status":"inProgress"}]}}`,
		`{"method":"mcpServer/elicitation/request","id":"e1","params":{"threadId":"t","serverName":"s","mode":"form","message":"m","requestedSchema":{},"_meta":{"codex_approval_kind":"mcp_tool_call","persist":["session"]}}}`,
		`{"method":"error","params":{"error":{"message":"m","codexErrorInfo":{"httpConnectionFailed":{"httpStatusCode":502}}},"willRetry":false,"threadId":"t","turnId":"u"}}`,
		`{"id":1,"result":{"a":1},"id":2}`,
		`{"id":null,"method":"x"}`,
		`{"method":1}`,
		`[1]`, `not json`, ``, `{"method":"turn/completed","params":{"turn":{"id":1}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		orig := bytes.Clone(line)
		var stdin bytes.Buffer
		s := codex.NewSession(&stdin)
		events, err := s.Feed(line, nil)
		if stdin.Len() != 0 {
			t.Fatalf("Feed wrote %q", stdin.String())
		}
		trimmed := bytes.TrimSpace(orig)
		_, _, isObject := jsonscan.CheckObject(trimmed)
		var le *codex.LineError
		var se *codex.SyntaxError
		switch {
		case err != nil:
			if !errors.As(err, &le) || !errors.As(err, &se) || len(events) != 0 {
				t.Fatalf("Feed = %v, %v: want a LineError wrapping a SyntaxError and no event", events, err)
			}
			if len(trimmed) == 0 || isObject {
				t.Fatalf("%v for %q", err, orig)
			}
		case len(trimmed) > 0 && !isObject:
			t.Fatalf("no error for %q", orig)
		case len(events) > 1:
			t.Fatalf("%d events from one line", len(events))
		}
		for i := range line {
			line[i] = 'x' // the events must not alias the line
		}
		again, _ := codex.NewSession(&stdin).Feed(orig, nil)
		if diff := cmp.Diff(again, events); diff != "" {
			t.Fatalf("events differ from a fresh Session's, or alias the line (-fresh +first):\n%s", diff)
		}
	})
}
