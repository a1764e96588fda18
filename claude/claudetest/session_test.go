package claudetest_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/claude/claudetest"
	"github.com/acpkit/acpkit/internal/scripted"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var sessionArgs = claude.SessionCommandLine(claude.Options{Model: "claude-sonnet-4-5"})

// fake runs claudetest.Run in streaming-input mode on its own goroutine,
// with pipes for stdin and stdout.
type fake struct {
	stdin  *io.PipeWriter
	stdout *io.PipeReader
	stderr bytes.Buffer
	done   chan int // the exit status
}

func startFake(t *testing.T, ctx context.Context, open func(string) (fs.File, error), transcript string, args ...string) *fake {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	f := &fake{stdin: inW, stdout: outR, done: make(chan int, 1)}
	var mu sync.Mutex
	go func() {
		code := claudetest.Run(ctx, claudetest.Env{
			Args: args, Stdin: inR, Stdout: outW, Stderr: lockedWriter{&mu, &f.stderr},
			Open: open, Getenv: environ(claudetest.EnvTranscript, transcript),
		})
		inR.Close() // as when a process exits: its pipes break
		outW.Close()
		f.done <- code
	}()
	t.Cleanup(func() {
		inW.Close() // ends the fake's read of stdin
		outR.Close()
	})
	return f
}

// exit waits for the fake's exit status, failing the test after
// testwait.Limit.
func (f *fake) exit(t *testing.T) int {
	t.Helper()
	return testwait.For(t, f.done, "the fake to exit")
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func records(t *testing.T, path string) []claudetest.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := claudetest.ReadRecords(f)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestRunReplaysControlTranscripts plays every recorded streaming-input
// session against a client written with claude.Session.
func TestRunReplaysControlTranscripts(t *testing.T) {
	paths, err := filepath.Glob("../testdata/control/*.ndjson")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no control transcripts: %v", err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			name := strings.TrimPrefix(path, "../testdata/")
			f := startFake(t, t.Context(), testdata, name, sessionArgs...)
			c := scripted.New(claude.NewSession(f.stdin, ""))
			recs := records(t, path)
			var err error
			testwait.Do(t, "the transcript to play", func() { _, err = c.Play(recs, f.stdin, f.stdout) })
			if err != nil {
				t.Error(err)
			}
			if code := f.exit(t); code != 0 || f.stderr.Len() != 0 {
				t.Errorf("exit status %d, stderr %q", code, f.stderr.String())
			}
		})
	}
}

// script is a small transcript: initialize, one user turn, the end.
const script = `{"dir":"in","t":1,"line":"{\"type\":\"control_request\",\"request_id\":\"req_1_aa\",\"request\":{\"subtype\":\"initialize\",\"hooks\":null}}"}
{"dir":"out","t":2,"line":"{\"type\":\"control_response\",\"response\":{\"subtype\":\"success\",\"request_id\":\"req_1_aa\",\"response\":{}}}"}
{"dir":"in","t":3,"line":"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hi\"},\"parent_tool_use_id\":null,\"session_id\":\"default\"}"}
{"dir":"out","t":4,"line":"{\"type\":\"control_request\",\"request_id\":\"perm-1\",\"request\":{\"subtype\":\"can_use_tool\",\"tool_name\":\"Bash\",\"input\":{}}}"}
{"dir":"in","t":5,"line":"{\"type\":\"control_response\",\"response\":{\"subtype\":\"success\",\"request_id\":\"perm-1\",\"response\":{\"behavior\":\"allow\",\"updatedInput\":{}}}}"}
{"dir":"out","t":6,"line":"{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,\"result_index\":0}"}
{"dir":"stdin_closed","t":7}
{"dir":"exit","t":8,"code":1,"signal":null}
`

// TestRunUnexpectedInput checks that the fake fails loudly, naming what
// it expected and what it got, when the client strays from the script.
func TestRunUnexpectedInput(t *testing.T) {
	const initialize = `{"type":"control_request","request_id":"req_1","request":{"subtype":"initialize","hooks":null}}`
	const user = `{"type":"user","message":{"role":"user","content":"hi"},"parent_tool_use_id":null,"session_id":"default"}`
	tests := []struct {
		name   string
		input  []string // lines written; stdin is closed after them
		stderr string
	}{
		{"a turn before initialize", []string{user},
			"record 1 expects control_request/initialize from the client, got user: " + user},
		{"another control request", []string{`{"type":"control_request","request_id":"req_1","request":{"subtype":"interrupt"}}`},
			"record 1 expects control_request/initialize from the client, got control_request/interrupt"},
		{"not JSON", []string{"hello"}, "record 1: stdin line is not a JSON object (5 bytes)"},
		{"a request without an id", []string{`{"type":"control_request","request":{"subtype":"initialize"}}`},
			"record 1: control request without a fresh request_id"},
		{"stdin closed mid-turn", []string{initialize, user}, "record 5 expects control_response/success from the client, got the end of stdin"},
		{"a reused request id", []string{initialize, user, `{"type":"control_request","request_id":"req_1","request":{"subtype":"interrupt"}}`},
			"record 5 expects control_response/success from the client, got control_request/interrupt"},
		{"an answer to another request", []string{initialize, user,
			`{"type":"control_response","response":{"subtype":"success","request_id":"perm-2","response":{}}}`},
			`record 5: the answer is for request "perm-2", want "perm-1"`},
		{"input after the script", []string{initialize, user,
			`{"type":"control_response","response":{"subtype":"success","request_id":"perm-1","response":{}}}`, user},
			"record 7 expects the end of stdin from the client, got user"},
	}
	open := fstest.MapFS{"s.ndjson": {Data: []byte(script)}}.Open
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := startFake(t, t.Context(), open, "s.ndjson", sessionArgs...)
			go io.Copy(io.Discard, f.stdout)
			go func() {
				for _, l := range tt.input {
					if _, err := io.WriteString(f.stdin, l+"\n"); err != nil {
						return // the fake stopped reading
					}
				}
				f.stdin.Close()
			}()
			code := f.exit(t)
			if code != claudetest.ExitError || !strings.Contains(f.stderr.String(), "fakeclaude: s.ndjson: "+tt.stderr) {
				t.Errorf("exit status %d, stderr %q; want 1 and %q", code, f.stderr.String(), tt.stderr)
			}
		})
	}
}

// TestRunSessionInputEndsBetweenTurns checks that the fake, like the real
// CLI, exits 0 when the client closes its input where a turn could
// start.
func TestRunSessionInputEndsBetweenTurns(t *testing.T) {
	const initialize = `{"type":"control_request","request_id":"req_1","request":{"subtype":"initialize","hooks":null}}`
	open := fstest.MapFS{"s.ndjson": {Data: []byte(script)}}.Open
	f := startFake(t, t.Context(), open, "s.ndjson", sessionArgs...)
	go io.Copy(io.Discard, f.stdout)
	testwait.Do(t, "the fake to read initialize", func() { io.WriteString(f.stdin, initialize+"\n") })
	f.stdin.Close()
	if code := f.exit(t); code != claudetest.ExitOK || f.stderr.Len() != 0 {
		t.Errorf("exit status %d, stderr %q; want 0 and nothing", code, f.stderr.String())
	}
}

func TestRunSessionCommandLines(t *testing.T) {
	open := fstest.MapFS{"s.ndjson": {Data: []byte(script)}, "bad.ndjson": {Data: []byte(`{"dir":"sideways"}`)}}.Open
	tests := []struct {
		name       string
		transcript string
		args       []string
		stderr     string
	}{
		{"text output", "s.ndjson", []string{"--input-format", "stream-json", "--output-format", "text", "--verbose"},
			"requires output-format=stream-json"},
		{"no --verbose", "s.ndjson", []string{"--input-format", "stream-json", "--output-format", "stream-json"}, "requires --verbose"},
		{"a prompt argument", "s.ndjson", append(clone(sessionArgs), "hi"), "no prompt argument"},
		{"a malformed transcript", "bad.ndjson", sessionArgs, `unknown dir "sideways"`},
		{"no transcript", "", sessionArgs, claudetest.EnvTranscript},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			code := claudetest.Run(t.Context(), claudetest.Env{Args: tt.args, Stderr: &stderr, Open: open,
				Getenv: environ(claudetest.EnvTranscript, tt.transcript)})
			if code != claudetest.ExitError || !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("exit status %d, stderr %q; want 1 and %q", code, stderr.String(), tt.stderr)
			}
		})
	}
}

func clone(s []string) []string { return append([]string(nil), s...) }

// TestRunSessionStops checks that a fake waiting for the client's input
// stops when its context ends, with the status of the cause.
func TestRunSessionStops(t *testing.T) {
	open := fstest.MapFS{"s.ndjson": {Data: []byte(script)}}.Open
	ctx, cancel := context.WithCancelCause(t.Context())
	f := startFake(t, ctx, open, "s.ndjson", sessionArgs...)
	cancel(claudetest.Stopped{Code: claudetest.ExitTerminate})
	if diff := cmp.Diff(claudetest.ExitTerminate, f.exit(t)); diff != "" {
		t.Errorf("exit status mismatch (-want +got):\n%s", diff)
	}
}

func TestReadRecords(t *testing.T) {
	tests := []struct {
		in   string
		want []claudetest.Record
		err  string
	}{
		{`{"dir":"in","t":1,"line":"{}"}` + "\n\n" + `{"dir":"exit","t":2,"code":3,"signal":"SIGTERM"}`,
			[]claudetest.Record{{Dir: "in", T: 1, Line: "{}"}, {Dir: "exit", T: 2, Code: 3, Signal: "SIGTERM"}}, ""},
		{`{"dir":"exit","t":2,"code":0,"signal":null}`, []claudetest.Record{{Dir: "exit", T: 2}}, ""},
		{`{"dir":"out","t":1}`, nil, "record 1: out record without a JSON line"},
		{`{"dir":"out","line":"{"}`, nil, "record 1: out record without a JSON line"},
		{`{"dir":"in","line":"{}"}` + "\n[]", nil, "record 2: json: cannot unmarshal"},
		{`{"dir":"up"}`, nil, `record 1: unknown dir "up"`},
	}
	for _, tt := range tests {
		got, err := claudetest.ReadRecords(strings.NewReader(tt.in))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, claudetest.ErrTranscript) {
				t.Errorf("ReadRecords(%q) error = %v, want ErrTranscript with %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ReadRecords(%q): %v", tt.in, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ReadRecords(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestKind(t *testing.T) {
	tests := map[string]string{
		`{"type":"user","message":{}}`:                                       "user",
		`{"type":"control_request","request":{"subtype":"interrupt"}}`:       "control_request/interrupt",
		`{"type":"control_response","response":{"subtype":"error"}}`:         "control_response/error",
		`{"type":"control_request","request":{"subtype":"a","subtype":"b"}}`: "control_request/b",
		`{"type":"control_request"}`:                                         "control_request/(no subtype)",
		`{"type":"control_cancel_request","request_id":"x"}`:                 "control_cancel_request",
		`{"hello":1}`: "(no type)",
		`[1]`:         "",
		`{"type":`:    "",
		``:            "",
	}
	for line, want := range tests {
		if got := claudetest.Kind([]byte(line)); got != want {
			t.Errorf("Kind(%s) = %q, want %q", line, got, want)
		}
	}
}

// TestRunSessionPrintTranscript checks that, in streaming-input mode, the
// fake plays a transcript of -p runs (the CLI's lines alone): it answers
// each control request with success, plays a turn for each user message,
// up to its result line, and exits 0 when its input ends; a turn after
// the last fails the run.
func TestRunSessionPrintTranscript(t *testing.T) {
	const (
		initLine = `{"type":"system","subtype":"init","session_id":"s-1"}`
		text1    = `{"type":"assistant","message":{"content":[{"type":"text","text":"one"}]},"session_id":"s-1"}`
		result1  = `{"type":"result","subtype":"success","is_error":false,"session_id":"s-1"}`
		text2    = `{"type":"assistant","message":{"content":[{"type":"text","text":"two"}]},"session_id":"s-1"}`
		result2  = `{"type":"result","subtype":"success","is_error":false,"session_id":"s-1"}`
		trailer  = `{"type":"unknown_trailer"}`
		initReq  = `{"type":"control_request","request_id":"req_1","request":{"subtype":"initialize","hooks":null}}`
		initResp = `{"type":"control_response","response":{"subtype":"success","request_id":"req_1","response":{}}}`
		user     = `{"type":"user","message":{"role":"user","content":"hi"},"parent_tool_use_id":null,"session_id":"default"}`
	)
	transcript := strings.Join([]string{initLine, text1, result1, "", text2, result2, trailer}, "\n") + "\n"
	open := fstest.MapFS{"p.jsonl": {Data: []byte(transcript)}}.Open
	tests := []struct {
		name   string
		input  []string
		want   []string // the fake's lines
		code   int
		stderr string
	}{
		{"two turns", []string{initReq, user, user}, []string{initResp, initLine, text1, result1, text2, result2, trailer}, 0, ""},
		{"the session id given", []string{user}, []string{strings.ReplaceAll(initLine, "s-1", "given"), strings.ReplaceAll(text1, "s-1", "given"), strings.ReplaceAll(result1, "s-1", "given")}, 0, ""},
		{"a turn too many", []string{user, user, user}, []string{initLine, text1, result1, text2, result2, trailer}, claudetest.ExitError, "a turn after the transcript's last"},
		{"not JSON", []string{"hello"}, nil, claudetest.ExitError, "stdin line 1 is not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := sessionArgs
			if tt.name == "the session id given" {
				args = append(clone(sessionArgs), "--session-id", "given")
			}
			f := startFake(t, t.Context(), open, "p.jsonl", args...)
			out := make(chan string, 1)
			go func() { b, _ := io.ReadAll(f.stdout); out <- string(b) }()
			testwait.Do(t, "the fake to read the input", func() {
				for _, l := range tt.input {
					if _, err := io.WriteString(f.stdin, l+"\n"); err != nil {
						break // the fake stopped reading
					}
				}
			})
			f.stdin.Close()
			code := f.exit(t)
			got := strings.Split(strings.TrimSuffix(testwait.For(t, out, "the fake's output to end"), "\n"), "\n")
			if len(tt.want) == 0 {
				got = slices.DeleteFunc(got, func(s string) bool { return s == "" })
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("the fake wrote (-want +got):\n%s", diff)
			}
			if code != tt.code || !strings.Contains(f.stderr.String(), tt.stderr) || tt.stderr == "" && f.stderr.Len() > 0 {
				t.Errorf("exit status %d, stderr %q; want %d and %q", code, f.stderr.String(), tt.code, tt.stderr)
			}
		})
	}
}
