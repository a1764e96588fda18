package gemini_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/acpkit/acpkit/gemini"
	"github.com/google/go-cmp/cmp"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

func TestCommandLine(t *testing.T) {
	tests := []struct {
		name string
		o    gemini.Options
		want []string
	}{
		{"defaults", gemini.Options{}, []string{"--output-format=stream-json"}},
		{"everything", gemini.Options{
			Resume: "-odd-id", Model: "gemini-2.5-pro", ApprovalMode: "yolo", Sandbox: true, SkipTrust: true,
			IncludeDirectories: []string{"../a", "", "/b"}, Extensions: []string{"none"}, AllowedMCPServerNames: []string{"", ""},
		}, []string{
			"--output-format=stream-json", "--resume=-odd-id", "--model=gemini-2.5-pro", "--approval-mode=yolo",
			"--sandbox", "--skip-trust", "--include-directories=../a,/b", "--extensions=none",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, stdin := gemini.CommandLine(tt.o, "--help me")
			if diff := cmp.Diff([]any{tt.want, "--help me"}, []any{args, string(stdin)}); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
