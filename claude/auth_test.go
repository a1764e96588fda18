package claude_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/claude/claudetest"
)

// TestAuthFailures checks that a turn the API refused for its credentials
// (real Claude Code 2.1.328: an invalid key, a 401; no key at all, and
// the CLI's "Not logged in") fails with ErrAuth, which is an ErrAPI too,
// and that other API failures do not.
func TestAuthFailures(t *testing.T) {
	tests := []struct {
		transcript string
		auth       bool
		message    string
	}{
		{"auth-invalid-key.ndjson", true, "Invalid API key · Fix external API key"},
		{"auth-logged-out.ndjson", true, "Not logged in · Please run /login"},
		{"../control/two-turns.ndjson", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.transcript, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", "capture", tt.transcript))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			recs, err := claudetest.ReadRecords(f)
			if err != nil {
				t.Fatal(err)
			}
			s := claude.NewSession(discard{}, "")
			var apiErr *claude.APIError
			var runErr error
			for _, r := range recs {
				if r.Dir != claudetest.DirOut {
					continue
				}
				events, err := s.Feed([]byte(r.Line), nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, ev := range events {
					switch ev := ev.(type) {
					case claude.APIError:
						apiErr = &ev
					case claude.Result:
						if runErr == nil {
							runErr = ev.Err(apiErr)
						}
					}
				}
			}
			if got := errors.Is(runErr, claude.ErrAuth); got != tt.auth {
				t.Fatalf("errors.Is(%v, ErrAuth) = %v, want %v", runErr, got, tt.auth)
			}
			if !tt.auth {
				return
			}
			var re *claude.RunError
			if !errors.As(runErr, &re) || !errors.Is(runErr, claude.ErrAPI) || re.Message != tt.message {
				t.Errorf("got %#v, want a RunError matching ErrAPI with message %q", runErr, tt.message)
			}
		})
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
