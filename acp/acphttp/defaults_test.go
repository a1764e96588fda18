package acphttp_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acpkit/acpkit/acp/acphttp"
)

// TestDefaultLimits checks that a Server made with zero ServerOptions
// holds its documented limits: a Streamable HTTP connection left alone
// ends after DefaultIdleTimeout and not before, a message over
// DefaultMaxMessageBytes is refused 413, and one of it is taken. (The
// stall and buffer limits come from the same defaulting, checked with
// explicit values by TestOutputStall.)
func TestDefaultLimits(t *testing.T) {
	post := func(t *testing.T, env *pipeEnv, conn, body string) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, env.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(acphttp.HeaderConnectionID, conn)
		resp, err := env.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	const note = `{"jsonrpc":"2.0","method":"_x/note"}`

	t.Run("idle", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			env := newPipeEnv(t, newTestAgent().methods(), acphttp.ServerOptions{})
			touched, alone := rawInit(t, env), rawInit(t, env)
			time.Sleep(acphttp.DefaultIdleTimeout - time.Minute)
			synctest.Wait()
			if status := post(t, env, touched, note); status != http.StatusAccepted {
				t.Errorf("a connection idle for less than DefaultIdleTimeout: %d, want 202", status)
			}
			time.Sleep(2 * time.Minute)
			synctest.Wait()
			if status := post(t, env, alone, note); status != http.StatusNotFound {
				t.Errorf("a connection idle for longer than DefaultIdleTimeout: %d, want 404", status)
			}
		})
	})

	t.Run("message size", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			env := newPipeEnv(t, newTestAgent().methods(), acphttp.ServerOptions{})
			conn := rawInit(t, env)
			pad := func(n int) string {
				head := `{"jsonrpc":"2.0","method":"_x/note","params":{"pad":"`
				return head + string(bytes.Repeat([]byte("a"), n-len(head)-3)) + `"}}`
			}
			if status := post(t, env, conn, pad(acphttp.DefaultMaxMessageBytes)); status != http.StatusAccepted {
				t.Errorf("a message of DefaultMaxMessageBytes: %d, want 202", status)
			}
			if status := post(t, env, conn, pad(acphttp.DefaultMaxMessageBytes+1)); status != http.StatusRequestEntityTooLarge {
				t.Errorf("a message over DefaultMaxMessageBytes: %d, want 413", status)
			}
		})
	})
}
