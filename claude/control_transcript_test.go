package claude_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/claude/claudetest"
	"github.com/acpkit/acpkit/internal/scripted"
	"github.com/google/go-cmp/cmp"
)

// step is one record of a control transcript in a golden file: the events
// an output line gave, or why a recorded input line was not written.
type step struct {
	Record  int              `json:"record"`
	Dir     string           `json:"dir"`
	Kind    string           `json:"kind"`
	Error   string           `json:"error,omitempty"`
	Refused string           `json:"refused,omitempty"`
	Events  []namedEvent     `json:"events,omitempty"`
	Pending []claude.Pending `json:"pending,omitempty"`
}

type namedEvent struct {
	Type  string       `json:"type"`
	Event claude.Event `json:"event"`
}

// finalState is what a Session holds at the end of a transcript.
type finalState struct {
	SessionID string
	Pending   []claude.Pending
	InTurn    bool
	LastTurn  claude.TurnEnd
}

// TestControlTranscripts plays the client side of every recorded
// streaming-input session through a Session: each line the SDK-driven
// client wrote must come out of the Session byte for byte (the request ids
// aside, which the Session numbers itself), and the events read from the
// CLI's lines, with the requests pending after each, must match the golden
// file. Run with -update to rewrite the golden files.
func TestControlTranscripts(t *testing.T) {
	paths, err := filepath.Glob("testdata/control/*.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 7 {
		t.Fatalf("found %d control transcripts, want the 7 of testdata/control/README.md", len(paths))
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".ndjson"), func(t *testing.T) {
			got := playControl(t, path)
			golden := strings.TrimSuffix(path, ".ndjson") + ".golden"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("events of %s differ from %s (-want +got):\n%s", path, golden, diff)
			}
		})
	}
}

func readRecords(t *testing.T, path string) []claudetest.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records, err := claudetest.ReadRecords(f)
	if err != nil {
		t.Fatal(err)
	}
	return records
}

// playControl plays the transcript at path and renders the golden file.
func playControl(t *testing.T, path string) []byte {
	t.Helper()
	var stdin bytes.Buffer
	s := claude.NewSession(&stdin, "")
	c := scripted.New(s)
	var steps []step
	lastPending := []claude.Pending{}
	for i, rec := range readRecords(t, path) {
		st := step{Record: i + 1, Dir: rec.Dir, Kind: claudetest.Kind([]byte(rec.Line))}
		switch rec.Dir {
		case claudetest.DirIn:
			stdin.Reset()
			err := c.Act([]byte(rec.Line))
			if errors.Is(err, scripted.ErrNotSent) {
				if stdin.Len() != 0 {
					t.Errorf("record %d: refused, yet wrote %q", i+1, stdin.String())
				}
				st.Refused = err.Error()
				break
			}
			if err != nil {
				t.Fatalf("record %d: %v", i+1, err)
			}
			if diff := cmp.Diff(string(c.Expected([]byte(rec.Line))), stdin.String()); diff != "" {
				t.Errorf("record %d: the Session wrote another line than the SDK (-sdk +session):\n%s", i+1, diff)
			}
		case claudetest.DirOut:
			events, err := s.Feed(c.Rewrite([]byte(rec.Line)), nil)
			if err != nil {
				st.Error = err.Error()
			}
			c.Observe(events)
			for _, e := range events {
				st.Events = append(st.Events, namedEvent{strings.TrimPrefix(fmt.Sprintf("%T", e), "claude."), e})
			}
		default:
			continue
		}
		if p := s.Pending(); !cmp.Equal(p, lastPending) {
			st.Pending, lastPending = p, p
			if len(p) == 0 {
				st.Pending = []claude.Pending{} // shown as empty, not left out
			}
		}
		if st.Refused != "" || st.Error != "" || len(st.Events) > 0 || st.Pending != nil {
			steps = append(steps, st)
		}
	}
	last, _ := s.LastTurn()
	out := struct {
		Steps []step
		Final finalState
	}{steps, finalState{s.SessionID(), s.Pending(), s.InTurn(), last}}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
