package codex_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpkit/acpkit/codex"
	"github.com/google/go-cmp/cmp"
)

// TestSessionFileCaptured checks the layout rules against every captured
// rollout: its name and folders come from the thread's start and id, and
// the pattern of its id finds it.
func TestSessionFileCaptured(t *testing.T) {
	for _, p := range storeFiles(t) {
		dir, rel, _ := strings.Cut(filepath.ToSlash(p), "/sessions/")
		id, start, ok := codex.ParseSessionFile(filepath.Base(p), time.UTC) // the captures ran with TZ=UTC
		if !ok {
			t.Fatalf("ParseSessionFile(%q) failed", filepath.Base(p))
		}
		var meta codex.Entry
		for e := range codex.ReadEntries(open(t, p)) {
			meta = e
			break
		}
		if id != meta.SessionID {
			t.Errorf("%s: id %q, its session_meta says %q", p, id, meta.SessionID)
		}
		if d := meta.Timestamp - start.UnixMilli(); d < 0 || d >= 1000 {
			t.Errorf("%s: start %v, session_meta written %d ms later", p, start, d)
		}
		got, err := codex.SessionFile(start, id)
		if err != nil || got != rel {
			t.Errorf("SessionFile(%v, %q) = %q, %v; want %q", start, id, got, err, rel)
		}
		pattern, err := codex.SessionFilePattern(id)
		if err != nil {
			t.Fatal(err)
		}
		matches, err := fs.Glob(os.DirFS(dir+"/sessions"), pattern)
		if err != nil || len(matches) != 1 || matches[0] != rel {
			t.Errorf("Glob(%q) = %q, %v; want [%q]", pattern, matches, err, rel)
		}
	}
}

func TestSessionFile(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skip(err)
	}
	const id = "01a23365-0657-7662-80b4-4726987395b1"
	start := time.Date(2026, 12, 31, 23, 30, 5, 0, time.UTC)
	tests := []struct {
		start time.Time
		want  string
	}{
		{start, "2026/12/31/rollout-2026-12-31T23-30-05-" + id + ".jsonl"},
		{start.In(paris), "2027/01/01/rollout-2027-01-01T00-30-05-" + id + ".jsonl"}, // the wall clock of the CLI's zone
	}
	for _, tt := range tests {
		got, err := codex.SessionFile(tt.start, id)
		if err != nil || got != tt.want {
			t.Errorf("SessionFile(%v) = %q, %v; want %q", tt.start, got, err, tt.want)
		}
		gotID, gotStart, ok := codex.ParseSessionFile(filepath.Base(got), tt.start.Location())
		if !ok || gotID != id || !gotStart.Equal(start) {
			t.Errorf("ParseSessionFile(%q) = %q, %v, %v", filepath.Base(got), gotID, gotStart, ok)
		}
	}
}

func TestParseSessionFile(t *testing.T) {
	for _, name := range []string{
		"", "rollout-.jsonl", "rollout-2026-12-01T20-56-20-01a23364-e60f-7ea1-a8d3-8612e1f6ea53.json",
		"rollout-2026-12-01T20-56-20-01a23364-e60f-7ea1-a8d3-8612e1f6ea5.jsonl",
		"rollout-2026-13-01T20-56-20-01a23364-e60f-7ea1-a8d3-8612e1f6ea53.jsonl",
		"rollout-2026-12-01T20-56-20_01a23364-e60f-7ea1-a8d3-8612e1f6ea53.jsonl",
		"rollout-2026-12-01T20-56-20-../../../../etc/passwd.jsonl",
		"session-2026-12-01T20-56-20-01a23364-e60f-7ea1-a8d3-8612e1f6ea53.jsonl",
	} {
		if id, _, ok := codex.ParseSessionFile(name, nil); ok {
			t.Errorf("ParseSessionFile(%q) = %q, true", name, id)
		}
	}
}

// hostileIDs are ids that must never become a path.
var hostileIDs = []string{
	"", "../x", "..", "/abs", "/etc/passwd", `..\x`, "a/b", "*", "[0-9]*",
	"01a23365-0657-7662-80b4-4726987395b1/../../x",
	"01a23365-0657-7662-80b4-4726987395b1\x00",
	"01a23365-0657-7662-80b4-4726987395b",
	"01a23365-0657-7662-80b4-4726987395b1 ",
	"01a23365-0657-7662-80b4-472698739?b1",
	"０1a23365-0657-7662-80b4-4726987395b1",
	strings.Repeat("a", 4096),
}

func TestValidSessionID(t *testing.T) {
	for _, id := range hostileIDs {
		if codex.ValidSessionID(id) {
			t.Errorf("ValidSessionID(%q) = true", id)
		}
		for name, f := range map[string]func() (string, error){
			"SessionFile":        func() (string, error) { return codex.SessionFile(time.Unix(0, 0), id) },
			"SessionFilePattern": func() (string, error) { return codex.SessionFilePattern(id) },
		} {
			p, err := f()
			if !errors.Is(err, codex.ErrInvalidSessionID) || p != "" || len(err.Error()) > 200 {
				t.Errorf("%s(%q) = %q, %v; want a short ErrInvalidSessionID", name, id, p, err)
			}
		}
	}
	got := []bool{codex.ValidSessionID("01a23365-0657-7662-80b4-4726987395b1"), codex.ValidSessionID("8a1d387c-a8a1-4fc2-8f5a-921509e35353")}
	if diff := cmp.Diff([]bool{true, true}, got); diff != "" {
		t.Errorf("valid ids (-want +got):\n%s", diff)
	}
}
