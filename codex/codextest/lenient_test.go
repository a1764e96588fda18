package codextest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"

	"github.com/acpkit/acpkit/codex/codextest"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// step is what a test client does next: write a line, or let time pass.
type step struct {
	line string
	wait time.Duration
}

func send(line string) step      { return step{line: line} }
func pause(d time.Duration) step { return step{wait: d} }
func steps(s ...step) []step     { return s }

// id is the nth thread or turn id the fake makes without NewID.
func id(n int) string { return fmt.Sprintf("00000000-0000-7000-8000-%012d", n) }

// initialized is steps after the handshake.
func initialized(steps ...step) []step {
	return append([]step{send(`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"t","version":"1"}}}`), send(`{"method":"initialized"}`)}, steps...)
}

// serveLenient serves recs to a client taking steps, each once the server
// has done all it can, inside a synctest bubble whose clock the delays
// run on; it returns what the server wrote and its result.
func serveLenient(t *testing.T, recs []codextest.AppServerRecord, delay time.Duration, steps []step) (string, error) {
	var out bytes.Buffer
	var err error
	synctest.Test(t, func(t *testing.T) {
		serverR, clientW := io.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			err = codextest.ServeLenientAppServer(t.Context(), recs, serverR, &out, codextest.LenientOptions{Delay: delay, Sleep: sleep})
			serverR.Close()
		}()
		for _, s := range steps {
			synctest.Wait()
			if s.wait > 0 {
				time.Sleep(s.wait)
				continue
			}
			if _, err := io.WriteString(clientW, s.line+"\n"); err != nil {
				t.Fatalf("writing %s: %v", s.line, err)
			}
		}
		synctest.Wait()
		clientW.Close()
		<-done
	})
	return out.String(), err
}

// sleep waits for d on the bubble's clock.
func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// summarize describes each line the server wrote: an answer by its id and
// what it holds, a notification or request by its method, thread, turn
// and status. Item notifications and usage, which a turn has many of,
// are left out.
func summarize(out string) []string {
	var got []string
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		m := gjson.Parse(line)
		p := m.Get("params")
		method := m.Get("method").Str
		if strings.HasPrefix(method, "item/") && !strings.HasSuffix(method, "requestApproval") || strings.HasPrefix(method, "thread/tokenUsage") || strings.HasPrefix(method, "account/") {
			continue
		}
		var s string
		switch {
		case method == "":
			s = "#" + m.Get("id").Raw
			if e := m.Get("error"); e.Exists() {
				s += " error " + e.Get("code").Raw + " " + e.Get("message").Str
			}
			for _, k := range []string{"result.thread.id", "result.thread.forkedFromId", "result.turn.id", "result.turn.status"} {
				if v := m.Get(k); v.Type == gjson.String {
					s += " " + v.Str
				}
			}
		default:
			s = method
			if id := m.Get("id"); id.Exists() {
				s += "#" + id.Raw
			}
			for _, k := range []string{"threadId", "thread.id", "turnId", "turn.id", "turn.status", "status.type", "requestId"} {
				if v := p.Get(k); v.Exists() {
					s += " " + v.String()
				}
			}
		}
		got = append(got, s)
	}
	return got
}

// appServerTranscript reads a capture in codex/testdata/appserver.
func appServerTranscript(t *testing.T, name string) []codextest.AppServerRecord {
	return readRecords(t, filepath.Join("..", "testdata", "appserver", name+".ndjson"))
}

// TestServeLenientAppServer drives the lenient fake as the acpcheck suite
// drives claude-acp's app-servers: several threads, turns on any of them,
// approvals answered and cancelled, turns interrupted, methods the
// transcript answered and some it never had.
func TestServeLenientAppServer(t *testing.T) {
	t1, t2, turn := id(1), id(2), id
	tests := []struct {
		name       string
		transcript string
		delay      time.Duration
		steps      []step
		want       []string
		// history says that the server writes ids of the transcript's
		// (a fork's copy of its source's turns), which the test allows.
		history bool
	}{
		{
			name: "before and after initialize", transcript: "misc",
			steps: steps(
				send(`{"id":1,"method":"thread/start","params":{}}`),
				send(`{"id":"i","method":"initialize","params":{}}`),
				send(`{"id":2,"method":"initialize","params":{}}`),
				send(`{"id":3,"method":"account/read","params":{}}`),
				send(`{"id":4,"method":"account/rateLimits/read","params":{}}`),
				send(`{"id":5,"method":"other/method","params":{}}`),
				send(`{"id":6,"method":"turn/start","params":{"threadId":"nope","input":[]}}`),
				send(`not json`),
				send(`{"id":7,"method":"thread/name/set","params":{"threadId":"x","name":"n"}}`),
			),
			want: []string{
				`#1 error -32600 Not initialized`,
				`#"i"`,
				`#2 error -32600 Already initialized`,
				`#3`,
				`#4 error -32600 codex account authentication required to read rate limits`,
				"#5 error -32600 Invalid request: unknown variant `other/method`",
				`#6 error -32600 thread not found: nope`,
				`#7`,
			},
		},
		{
			name: "two threads, a turn on each", transcript: "plain", delay: 10 * time.Millisecond,
			steps: initialized(
				send(`{"id":2,"method":"thread/start","params":{"cwd":"/w"}}`),
				send(`{"id":3,"method":"thread/start","params":{"cwd":"/w"}}`),
				send(`{"id":4,"method":"turn/start","params":{"threadId":"`+t2+`","input":[]}}`),
				send(`{"id":5,"method":"turn/start","params":{"threadId":"`+t2+`","input":[]}}`),
				pause(time.Second),
				send(`{"id":6,"method":"turn/start","params":{"threadId":"`+t1+`","input":[]}}`),
				pause(time.Second),
			),
			want: []string{
				`#1`, `configWarning`,
				`#2 ` + t1, `thread/started ` + t1,
				`#3 ` + t2, `thread/started ` + t2,
				`#4 ` + turn(3) + ` inProgress`,
				`#5 error -32600 turn already running: ` + turn(3),
				`thread/status/changed ` + t2 + ` active`,
				`turn/started ` + t2 + ` ` + turn(3) + ` inProgress`,
				`thread/status/changed ` + t2 + ` idle`,
				`turn/completed ` + t2 + ` ` + turn(3) + ` completed`,
				`#6 ` + turn(4) + ` inProgress`, // the transcript's second turn
				`thread/status/changed ` + t1 + ` active`,
				`turn/started ` + t1 + ` ` + turn(4) + ` inProgress`,
				`thread/status/changed ` + t1 + ` idle`,
				`turn/completed ` + t1 + ` ` + turn(4) + ` completed`,
			},
		},
		{
			name: "an approval answered", transcript: "command-approval-accept",
			steps: initialized(
				send(`{"id":2,"method":"thread/start","params":{}}`),
				send(`{"id":3,"method":"turn/start","params":{"threadId":"`+t1+`","input":[]}}`),
				send(`{"id":0,"result":{"decision":"decline"}}`),
			),
			want: []string{
				`#1`, `#2 ` + t1, `thread/started ` + t1, `#3 ` + turn(2) + ` inProgress`,
				`thread/status/changed ` + t1 + ` active`,
				`turn/started ` + t1 + ` ` + turn(2) + ` inProgress`,
				`thread/status/changed ` + t1 + ` active`,
				`item/commandExecution/requestApproval#0 ` + t1 + ` ` + turn(2),
				`serverRequest/resolved ` + t1 + ` 0`,
				`thread/status/changed ` + t1 + ` active`,
				`thread/status/changed ` + t1 + ` idle`,
				`turn/completed ` + t1 + ` ` + turn(2) + ` completed`,
			},
		},
		{
			name: "an approval cancelled", transcript: "command-approval-accept",
			steps: initialized(
				send(`{"id":2,"method":"thread/start","params":{}}`),
				send(`{"id":3,"method":"turn/start","params":{"threadId":"`+t1+`","input":[]}}`),
				send(`{"id":0,"result":{"decision":"cancel"}}`),
				send(`{"id":4,"method":"turn/start","params":{"threadId":"`+t1+`","input":[]}}`),
				send(`{"id":5,"method":"turn/interrupt","params":{"threadId":"`+t1+`","turnId":"`+turn(3)+`"}}`),
				send(`{"id":1,"result":{"decision":"accept"}}`),
				send(`{"id":6,"method":"turn/start","params":{"threadId":"`+t1+`","input":[]}}`),
				send(`{"id":2,"result":{"decision":"acceptForSession"}}`),
			),
			want: []string{
				`#1`, `#2 ` + t1, `thread/started ` + t1, `#3 ` + turn(2) + ` inProgress`,
				`thread/status/changed ` + t1 + ` active`,
				`turn/started ` + t1 + ` ` + turn(2) + ` inProgress`,
				`thread/status/changed ` + t1 + ` active`,
				`item/commandExecution/requestApproval#0 ` + t1 + ` ` + turn(2),
				`thread/status/changed ` + t1 + ` idle`,
				`turn/completed ` + t1 + ` ` + turn(2) + ` interrupted`,
				// An interrupt while an approval waits, whose late answer
				// goes nowhere.
				`#4 ` + turn(3) + ` inProgress`,
				`thread/status/changed ` + t1 + ` active`,
				`turn/started ` + t1 + ` ` + turn(3) + ` inProgress`,
				`thread/status/changed ` + t1 + ` active`,
				`item/commandExecution/requestApproval#1 ` + t1 + ` ` + turn(3),
				`#5`,
				`thread/status/changed ` + t1 + ` idle`,
				`turn/completed ` + t1 + ` ` + turn(3) + ` interrupted`,
				// The next turn's request, and its resolution, carry the
				// id it was sent with.
				`#6 ` + turn(4) + ` inProgress`,
				`thread/status/changed ` + t1 + ` active`,
				`turn/started ` + t1 + ` ` + turn(4) + ` inProgress`,
				`thread/status/changed ` + t1 + ` active`,
				`item/commandExecution/requestApproval#2 ` + t1 + ` ` + turn(4),
				`serverRequest/resolved ` + t1 + ` 2`,
				`thread/status/changed ` + t1 + ` active`,
				`thread/status/changed ` + t1 + ` idle`,
				`turn/completed ` + t1 + ` ` + turn(4) + ` completed`,
			},
		},
		{
			name: "interrupted mid-turn", transcript: "plain", delay: 10 * time.Millisecond,
			steps: initialized(
				send(`{"id":2,"method":"thread/start","params":{}}`),
				send(`{"id":3,"method":"turn/start","params":{"threadId":"`+t1+`","input":[]}}`),
				pause(25*time.Millisecond),
				send(`{"id":4,"method":"turn/interrupt","params":{"threadId":"`+t1+`","turnId":"`+turn(2)+`"}}`),
				pause(time.Second),
				send(`{"id":5,"method":"turn/interrupt","params":{"threadId":"`+t1+`","turnId":"`+turn(2)+`"}}`),
			),
			want: []string{
				`#1`, `configWarning`, `#2 ` + t1, `thread/started ` + t1, `#3 ` + turn(2) + ` inProgress`,
				`thread/status/changed ` + t1 + ` active`,
				`turn/started ` + t1 + ` ` + turn(2) + ` inProgress`,
				`#4`,
				`thread/status/changed ` + t1 + ` idle`,
				`turn/completed ` + t1 + ` ` + turn(2) + ` interrupted`,
				`#5`,
			},
		},
		{
			name: "a thread resumed", transcript: "misc",
			steps: initialized(
				send(`{"id":2,"method":"thread/resume","params":{"threadId":"elsewhere"}}`),
				send(`{"id":4,"method":"turn/start","params":{"threadId":"elsewhere","input":[]}}`),
				pause(time.Second),
				send(`{"id":5,"method":"thread/resume","params":{}}`),
			),
			want: []string{
				`#1`, `#2 elsewhere`,
				`#4 ` + turn(1) + ` inProgress`,
				`thread/status/changed elsewhere active`,
				`turn/started elsewhere ` + turn(1) + ` inProgress`,
				`thread/status/changed elsewhere idle`,
				`turn/completed elsewhere ` + turn(1) + ` completed`,
				"#5 error -32600 Invalid request: missing field `threadId`",
			},
		},
		{
			name: "a thread forked", transcript: "misc", history: true,
			steps: initialized(
				send(`{"id":2,"method":"thread/fork","params":{"threadId":"elsewhere"}}`),
			),
			want: []string{`#1`, `#2 ` + t1 + ` elsewhere`, `thread/started ` + t1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := appServerTranscript(t, tt.transcript)
			out, err := serveLenient(t, recs, tt.delay, tt.steps)
			if err != nil {
				t.Fatalf("ServeLenientAppServer: %v", err)
			}
			if diff := cmp.Diff(tt.want, summarize(out)); diff != "" {
				t.Errorf("what the server wrote (-want +got):\n%s", diff)
			}
			if tt.history {
				return
			}
			for _, id := range recordedIDs(recs) {
				if strings.Contains(out, id) {
					t.Errorf("the recorded id %s was written, not rewritten", id)
				}
			}
		})
	}
}

// recordedIDs are the ids of the threads and turns a transcript's server
// started.
func recordedIDs(recs []codextest.AppServerRecord) []string {
	var ids []string
	for _, r := range recs {
		m := gjson.ParseBytes(r.Msg)
		for _, k := range []string{"result.thread.id", "result.turn.id"} {
			if v := m.Get(k); v.Str != "" {
				ids = append(ids, `"`+v.Str+`"`)
			}
		}
	}
	return ids
}

// TestServeLenientAppServerRefuses checks that a transcript that cannot
// serve a client is refused at once, saying what it lacks.
func TestServeLenientAppServerRefuses(t *testing.T) {
	plain := appServerTranscript(t, "plain")
	tests := []struct {
		name string
		recs []codextest.AppServerRecord
		want string
	}{
		{"empty", nil, "no answered initialize"},
		{"no thread", plain[:3], "no thread opened"},
		{"no turn", plain[:7], "no completed turn"},
		{"a turn cut short", plain[:12], "no completed turn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := codextest.ServeLenientAppServer(t.Context(), tt.recs, strings.NewReader(""), io.Discard, codextest.LenientOptions{})
			if !errors.Is(err, codextest.ErrAppServerTranscript) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want ErrAppServerTranscript saying %q", err, tt.want)
			}
		})
	}
}

// TestRunAppServerLenient runs the fake as `codex app-server` with
// EnvLenient: "1" serves a client the transcript never saw, and a value
// neither 0 nor 1 is refused.
func TestRunAppServerLenient(t *testing.T) {
	path := filepath.Join("..", "testdata", "appserver", "plain.ndjson")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{"plain.ndjson": {Data: data}}
	run := func(lenient, stdin string) (int, string, string) {
		var out, errOut strings.Builder
		env := map[string]string{codextest.EnvTranscript: "plain.ndjson", codextest.EnvLenient: lenient}
		code := codextest.Run(context.Background(), codextest.Env{
			Args: []string{"app-server"}, Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut, Open: fsys.Open,
			Getenv: func(key string) string { return env[key] },
		})
		return code, out.String(), errOut.String()
	}
	client := `{"id":"a","method":"initialize","params":{}}` + "\n" + `{"id":"b","method":"thread/start","params":{}}` + "\n"
	code, out, stderr := run("1", client)
	if diff := cmp.Diff([]string{`#"a"`, `configWarning`, `#"b" ` + id(1), `thread/started ` + id(1)}, summarize(out)); code != codextest.ExitOK || diff != "" {
		t.Errorf("lenient: exit %d, stderr %q, output (-want +got):\n%s", code, stderr, diff)
	}
	code, _, stderr = run("yes", client)
	if code != codextest.ExitError || !strings.Contains(stderr, `FAKECODEX_LENIENT="yes" is neither 0 nor 1`) {
		t.Errorf("FAKECODEX_LENIENT=yes: exit %d, stderr %q", code, stderr)
	}
}
