package bridge

import "testing"

// olderRelease tells a Codex release too old for the bridge from one it
// speaks to, whatever the CLI prints.
func TestOlderRelease(t *testing.T) {
	tests := []struct {
		v    string
		want bool
	}{
		{"0.171.0", false},
		{"0.171.1", false},
		{"0.172.0-alpha.3", false},
		{"1.0.0", false},
		{"0.170.9", true},
		{"0.99.0", true},
		{"0.171", false}, // 0.171.0
		{"0.171.0.1", false},
		{"0.160.2", true},
		{"", false},       // unknown: let it try
		{"dev", false},    // likewise
		{"0.x.1", false},  // likewise
		{"-1.0.0", false}, // likewise
	}
	for _, tt := range tests {
		if got := olderRelease(tt.v, "0.171.0"); got != tt.want {
			t.Errorf("olderRelease(%q) = %v, want %v", tt.v, got, tt.want)
		}
	}
}

// FuzzOlderRelease checks that olderRelease never panics, and that no
// two releases are each older than the other.
func FuzzOlderRelease(f *testing.F) {
	for _, s := range []string{"0.171.0", "0.170.9", "1.2.3-beta.1", "", "..", "9999999999999999999.0"} {
		f.Add(s, "0.171.0")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if olderRelease(a, b) && olderRelease(b, a) {
			t.Errorf("%q and %q are each older than the other", a, b)
		}
	})
}
