// Package interop says what an interop test does when the real peer it
// needs (a program from npm or Debian, an SDK) cannot be had: it skips,
// saying why and how to make that a failure, unless
// ACPKIT_REQUIRE_INTEROP=1 is set, as .ci/run sets it, when it fails.
// So a developer's offline machine passes, and CI never skips an interop
// test silently. Only tests import it.
package interop

import (
	"fmt"
	"os"
)

// RequireEnv names the environment variable that, set to 1, makes an
// interop test whose peer cannot be had fail rather than skip.
const RequireEnv = "ACPKIT_REQUIRE_INTEROP"

// TB is the part of testing.TB that [Unavailable] uses.
type TB interface {
	Helper()
	Skip(args ...any)
	Fatal(args ...any)
}

// Unavailable ends a test that needs a peer, what, that it could not
// have, for the reason err: it skips the test, saying why, or, with
// ACPKIT_REQUIRE_INTEROP=1, fails it.
func Unavailable(t TB, what string, err error) {
	t.Helper()
	msg := fmt.Sprintf("%s is not available: %v (%s=1 makes this a failure)", what, err, RequireEnv)
	if os.Getenv(RequireEnv) == "1" {
		t.Fatal(msg)
		return
	}
	t.Skip(msg)
}
