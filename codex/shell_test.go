package codex

import "testing"

// TestShellJoin checks the quoting against the shlex crate's rules
// (bytes::quoting_strategy and append_quoted_chunk, shlex 1.3), which
// Codex uses to print the commands it ran.
func TestShellJoin(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"/bin/bash", "-lc", "echo hi"}, `/bin/bash -lc 'echo hi'`}, // as captured
		{[]string{"go", "test", "./..."}, `go test ./...`},
		{[]string{""}, `''`},
		{nil, ``},
		{[]string{"a+b-c.d/e:f@g]h_i"}, `a+b-c.d/e:f@g]h_i`},
		{[]string{"a,b"}, `'a,b'`},
		{[]string{"$HOME"}, `'$HOME'`},
		{[]string{"it's"}, `"it's"`},
		{[]string{`'"`}, `"'\""`}, // shlex's own test
		{[]string{"a'$b"}, `"a'"'$b'`},
		{[]string{`back\slash`}, `"back\\slash"`},
		{[]string{"^x"}, `'^x'`},
		{[]string{"x^"}, `x'^'`},
		{[]string{"naïve"}, `'naïve'`},
		{[]string{"a!b"}, `'a!b'`},
		{[]string{"'!"}, `"'"'!'`},
		{[]string{"tab\there", "new\nline"}, "'tab\there' 'new\nline'"},
		{[]string{"nul\x00", "x y"}, "nul\x00 x y"}, // no quoting carries a NUL: joined as is
	}
	for _, tt := range tests {
		if got := shellJoin(tt.args); got != tt.want {
			t.Errorf("shellJoin(%q) = %s, want %s", tt.args, got, tt.want)
		}
	}
}
