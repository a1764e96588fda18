package interop

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tb records how Unavailable ended a test.
type tb struct{ ended string }

func (*tb) Helper()             {}
func (t *tb) Skip(args ...any)  { t.ended = "skip: " + fmt.Sprint(args...) }
func (t *tb) Fatal(args ...any) { t.ended = "fail: " + fmt.Sprint(args...) }

// TestUnavailable checks that a test whose peer cannot be had is skipped,
// saying why and how to make it a failure, and fails under
// ACPKIT_REQUIRE_INTEROP=1.
func TestUnavailable(t *testing.T) {
	for _, tt := range []struct{ require, want string }{{"", "skip"}, {"0", "skip"}, {"1", "fail"}} {
		t.Setenv(RequireEnv, tt.require)
		var r tb
		Unavailable(&r, "the peer", fmt.Errorf("npm install: ENOTFOUND"))
		got, msg, _ := strings.Cut(r.ended, ": ")
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s=%q (-want +got):\n%s", RequireEnv, tt.require, diff)
		}
		for _, want := range []string{"the peer", "ENOTFOUND", RequireEnv + "=1"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s=%q: the message %q does not say %q", RequireEnv, tt.require, msg, want)
			}
		}
	}
}
