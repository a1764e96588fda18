package claude_test

import (
	"testing"

	"github.com/acpkit/acpkit/internal/parsetest"
)

// The Event doc lists every event type, as it says it does.
func TestEventDoc(t *testing.T) { parsetest.CheckEventDoc(t, ".") }
