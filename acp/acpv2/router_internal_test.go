package acpv2

import (
	"context"
	"runtime"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/acpkit/acpkit/internal/testwait"
)

// TestRouterForgets checks that a Router forgets a connection once its
// Conn is garbage, so that a server's one Router does not grow with
// every connection it ever served.
func TestRouterForgets(t *testing.T) {
	r := NewRouter(acp.Methods{}, nil)
	func() {
		conn, _, closePair := acptest.NewPair(context.Background(), nil, nil, nil)
		r.Version(conn)
		testwait.Do(t, "the pair to close", func() { closePair() })
	}()
	for range 100 {
		runtime.GC()
		r.mu.Lock()
		n := len(r.conns)
		r.mu.Unlock()
		if n == 0 {
			return
		}
		runtime.Gosched()
	}
	t.Error("the Router still holds the state of a connection long gone")
}
