package geminitest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/acpkit/acpkit/internal/fakecli"
	"github.com/google/go-cmp/cmp"
)

// acpTranscript is a session in the captures' format: its initialize,
// a set_model the client below does not send, a prompt answered after a
// permission question, and a line that is not JSON.
const acpTranscript = `{"dir":"client","t_ms":1,"msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}}
{"dir":"agent","t_ms":2,"msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}}
{"dir":"client","t_ms":3,"msg":{"jsonrpc":"2.0","id":1,"method":"session/set_model","params":{"sessionId":"s","modelId":"m"}}}
{"dir":"agent","t_ms":4,"msg":{"jsonrpc":"2.0","id":1,"result":{}}}
{"dir":"client","t_ms":5,"msg":{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}}
{"dir":"agent","t_ms":6,"msg":{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"s"}}}
{"dir":"client","t_ms":7,"msg":{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"cancelled"}}}}
{"dir":"agent","t_ms":8,"raw":"Loaded cached credentials."}
{"dir":"agent","t_ms":9,"msg":{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}}
`

// TestRunACP replays an ACP transcript to a client whose request ids
// are not the recorded ones, which skips an exchange and sends a request
// the transcript does not have.
func TestRunACP(t *testing.T) {
	tests := []struct {
		name, transcript string
		client           []string
		want             []string
		code             int
	}{{
		name:       "session",
		transcript: acpTranscript,
		client: []string{
			`{"jsonrpc":"2.0","id":10,"method":"initialize","params":{"protocolVersion":1}}`,
			`{"jsonrpc":"2.0","id":11,"method":"foo/bar","params":{}}`,
			`{"jsonrpc":"2.0","id":12,"method":"session/prompt","params":{"sessionId":"s","prompt":[]}}`,
			`{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"cancelled"}}}`,
		},
		want: []string{
			`{"jsonrpc":"2.0","id":10,"result":{"protocolVersion":1}}`,
			`{"jsonrpc":"2.0","id":11,"error":{"code":-32601,"message":"\"foo/bar\" is not in the transcript here"}}`,
			`{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"s"}}`,
			`Loaded cached credentials.`,
			`{"jsonrpc":"2.0","id":12,"result":{"stopReason":"end_turn"}}`,
		},
	}, {
		name: "exit",
		transcript: `{"dir":"client","msg":{"jsonrpc":"2.0","id":0,"method":"initialize"}}
{"dir":"agent","exit":3}
`,
		client: []string{`{"jsonrpc":"2.0","id":0,"method":"initialize"}`},
		code:   3,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := fstest.MapFS{"t.ndjson": {Data: []byte(tt.transcript)}}
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			exit := make(chan int, 1)
			go func() {
				exit <- Run(context.Background(), Env{Args: []string{"--acp"}, Stdin: inR, Stdout: outW, Stderr: io.Discard, Open: files.Open,
					Getenv: func(k string) string { return map[string]string{EnvTranscript: "t.ndjson"}[k] }})
				outW.Close()
			}()
			done := make(chan struct{})
			defer close(done)
			out := fakecli.ReadLines(outR, 1<<20, done)
			go func() {
				for _, l := range tt.client {
					io.WriteString(inW, l+"\n")
				}
				inW.Close()
			}()
			var got []string
			for in := range out {
				if in.Err != nil {
					break
				}
				got = append(got, string(in.Line))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("the agent wrote (-want +got):\n%s", diff)
			}
			if code := <-exit; code != tt.code {
				t.Errorf("exit status %d, want %d", code, tt.code)
			}
		})
	}
}

// TestReadACPRefuses checks that a line that is no entry is refused,
// naming it.
func TestReadACPRefuses(t *testing.T) {
	for _, line := range []string{`{"dir":"editor","msg":{}}`, `{"dir":"client","exit":1}`, `[]`} {
		if _, err := ReadACP(strings.NewReader(line + "\n")); !errors.Is(err, ErrNotACPEntry) {
			t.Errorf("ReadACP(%s): %v, want ErrNotACPEntry", line, err)
		}
	}
}

// FuzzReadACP checks that ReadACP refuses or reads any input, never
// panicking, and reads back what it accepts.
func FuzzReadACP(f *testing.F) {
	f.Add([]byte(acpTranscript))
	f.Add([]byte(`{"dir":"agent","exit":1}` + "\n" + `{"dir":"agent","raw":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := ReadACP(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, e := range entries {
			if e.Dir != "client" && e.Dir != "agent" {
				t.Fatalf("read an entry of %q", e.Dir)
			}
		}
	})
}
