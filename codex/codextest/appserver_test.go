package codextest_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"testing/synctest"

	"github.com/acpkit/acpkit/codex/codextest"
	"github.com/google/go-cmp/cmp"
)

// captures lists the app-server transcripts in codex/testdata/appserver.
func captures(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "appserver", "*.ndjson"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no app-server transcripts: %v", err)
	}
	return paths
}

func readRecords(t *testing.T, path string) []codextest.AppServerRecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := codextest.ReadAppServerTranscript(f)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// replay serves recs to a client that writes the lines client gives,
// each once the server waits for it, then closes its input; it returns
// what the server wrote and the fake's result.
func replay(t *testing.T, recs []codextest.AppServerRecord, client []string) (string, error) {
	var out bytes.Buffer
	var err error
	synctest.Test(t, func(t *testing.T) {
		serverR, clientW := io.Pipe()
		go func() {
			for _, l := range client {
				if _, err := io.WriteString(clientW, l+"\n"); err != nil {
					return
				}
			}
			clientW.Close()
		}()
		err = codextest.ServeAppServer(t.Context(), recs, serverR, &out)
		serverR.Close()
	})
	return out.String(), err
}

// clientLines are the lines the transcript's client wrote.
func clientLines(recs []codextest.AppServerRecord) []string {
	var out []string
	for _, r := range recs {
		if r.Dir == codextest.DirClient {
			out = append(out, string(r.Msg))
		}
	}
	return out
}

// serverLines are the lines the transcript's server wrote.
func serverLines(recs []codextest.AppServerRecord) string {
	var b strings.Builder
	for _, r := range recs {
		switch {
		case r.Dir == codextest.DirServer && r.Msg != nil:
			b.Write(r.Msg)
			b.WriteByte('\n')
		case r.Dir == codextest.DirServer:
			b.WriteString(r.Raw + "\n")
		}
	}
	return b.String()
}

// TestServeAppServerReplaysCaptures plays each capture against its own
// client lines: the fake accepts them all and writes the server's lines
// byte for byte, the client's ids being the recorded ones.
func TestServeAppServerReplaysCaptures(t *testing.T) {
	for _, path := range captures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			recs := readRecords(t, path)
			out, err := replay(t, recs, clientLines(recs))
			if err != nil {
				t.Fatalf("ServeAppServer: %v", err)
			}
			if diff := cmp.Diff(serverLines(recs), out); diff != "" {
				t.Errorf("server lines (-want +got):\n%s", diff)
			}
		})
	}
}

// TestServeAppServerLeniency checks what the fake lets a client do
// differently from the recorded one: its own request ids, which the
// answers then carry, and a "jsonrpc" member.
func TestServeAppServerLeniency(t *testing.T) {
	recs := []codextest.AppServerRecord{
		{Dir: codextest.DirClient, Msg: []byte(`{"id":1,"method":"initialize","params":{"clientInfo":{"name":"x","version":"1"}}}`)},
		{Dir: codextest.DirServer, Msg: []byte(`{"id":1,"result":{"userAgent":"x/0.171.0"}}`)},
		{Dir: codextest.DirServer, Msg: []byte(`{"method":"configWarning","params":{"summary":"s"},"emittedAtMs":1}`)},
		{Dir: codextest.DirServer, Raw: "not json"},
		{Dir: codextest.DirClient, Msg: []byte(`{"method":"initialized"}`)},
		{Dir: codextest.DirClient, Msg: []byte(`{"id":2,"method":"model/list","params":{}}`)},
		{Dir: codextest.DirServer, Msg: []byte(`{"error":{"code":-32600,"message":"no"},"id":2}`)},
	}
	out, err := replay(t, recs, []string{
		`{"jsonrpc":"2.0","id":"a b","method":"initialize","params":{}}`,
		`{"method":"initialized"}`,
		`{"id":  77 ,"method":"model/list"}`,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"a b","result":{"userAgent":"x/0.171.0"}}
{"method":"configWarning","params":{"summary":"s"},"emittedAtMs":1}
not json
{"error":{"code":-32600,"message":"no"},"id":77}
`
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("server lines (-want +got):\n%s", diff)
	}
}

// TestServeAppServerDepartures checks that every way a client can depart
// from the transcript is reported, saying where, and never hangs.
func TestServeAppServerDepartures(t *testing.T) {
	approval := []codextest.AppServerRecord{
		{Dir: codextest.DirClient, Msg: []byte(`{"id":3,"method":"turn/start","params":{"threadId":"t1","input":[]}}`)},
		{Dir: codextest.DirServer, Msg: []byte(`{"method":"item/commandExecution/requestApproval","id":0,"params":{"threadId":"t1"}}`)},
		{Dir: codextest.DirClient, Msg: []byte(`{"id":0,"result":{"decision":"decline"}}`)},
	}
	tests := []struct {
		name   string
		client []string
		want   string
	}{
		{"another method", []string{`{"id":1,"method":"thread/start","params":{}}`},
			"record 1 expects request turn/start, got request thread/start"},
		{"another thread", []string{`{"id":1,"method":"turn/start","params":{"threadId":"t2"}}`},
			`record 1 expects request turn/start with threadId "t1"`},
		{"a notification for a request", []string{`{"method":"turn/start","params":{"threadId":"t1"}}`},
			"record 1 expects request turn/start, got notification turn/start"},
		{"not JSON", []string{`{"id":1,"method":"turn/start"`},
			"record 1 expects request turn/start, got a line that is not a JSON object"},
		{"input closed early", nil,
			"record 1 expects request turn/start, got the end of the client's input"},
		{"another decision", []string{`{"id":1,"method":"turn/start","params":{"threadId":"t1"}}`, `{"id":0,"result":{"decision":"accept"}}`},
			`record 3 expects the decision "decline"`},
		{"an answer to another request", []string{`{"id":1,"method":"turn/start","params":{"threadId":"t1"}}`, `{"id":5,"result":{"decision":"decline"}}`},
			"record 3 expects the answer to request 0, got one to 5"},
		{"a line after the end", []string{`{"id":1,"method":"turn/start","params":{"threadId":"t1"}}`, `{"id":0,"result":{"decision":"decline"}}`, `{"method":"x"}`},
			`the transcript has ended, but the client wrote {"method":"x"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := replay(t, approval, tt.client)
			if !errors.Is(err, codextest.ErrDeparted) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want ErrDeparted saying %q", err, tt.want)
			}
		})
	}
}

// TestServeAppServerExit checks that an exit record ends the replay at
// once, whatever the client still has to say.
func TestServeAppServerExit(t *testing.T) {
	recs := []codextest.AppServerRecord{
		{Dir: codextest.DirServer, Msg: []byte(`{"method":"a","params":{}}`)},
		{Dir: codextest.DirExit},
		{Dir: codextest.DirServer, Msg: []byte(`{"method":"b","params":{}}`)},
	}
	out, err := replay(t, recs, []string{`{"method":"never read"}`})
	if err != nil || out != "{\"method\":\"a\",\"params\":{}}\n" {
		t.Errorf("got %q, %v; want the first line alone and no error", out, err)
	}
}

func TestReadAppServerTranscriptRefuses(t *testing.T) {
	for _, bad := range []string{
		`{"dir":"client","t_ms":1}`,
		`{"dir":"server","t_ms":1,"msg":[1]}`,
		`{"dir":"sideways","msg":{}}`,
		`{"dir":"client","msg":{"id":1}`,
		`[]`,
	} {
		_, err := codextest.ReadAppServerTranscript(strings.NewReader("\n" + bad + "\n"))
		if !errors.Is(err, codextest.ErrAppServerTranscript) || !strings.Contains(err.Error(), "record 1") {
			t.Errorf("ReadAppServerTranscript(%s) = %v, want ErrAppServerTranscript at record 1", bad, err)
		}
	}
}

// A transcript written reads back as it was, each captured one, its
// server lines' characters as they were (the captures hold "&&" and "<").
func TestWriteAppServerTranscript(t *testing.T) {
	for _, path := range captures(t) {
		recs := readRecords(t, path)
		recs = append(recs, codextest.AppServerRecord{Dir: codextest.DirServer, Raw: "not <json> & more"}, codextest.AppServerRecord{Dir: codextest.DirExit})
		var b bytes.Buffer
		if err := codextest.WriteAppServerTranscript(&b, recs); err != nil {
			t.Fatal(err)
		}
		back, err := codextest.ReadAppServerTranscript(&b)
		if err != nil {
			t.Fatalf("%s: reading what was written: %v", path, err)
		}
		if diff := cmp.Diff(recs, back); diff != "" {
			t.Errorf("%s: written and read back (-want +got):\n%s", path, diff)
		}
		for _, r := range back {
			if bytes.Contains(r.Msg, []byte(`\u0026`)) {
				t.Errorf("%s: a line's & was escaped: %s", path, r.Msg)
				break
			}
		}
	}
}

// TestRunAppServer runs the fake as `codex app-server`: it replays the
// transcript the environment names, after writing its companion .stderr,
// and refuses a command line the real one refuses.
func TestRunAppServer(t *testing.T) {
	path := filepath.Join("..", "testdata", "appserver", "plain.ndjson")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs := readRecords(t, path)
	fsys := fstest.MapFS{"plain.ndjson": {Data: data}, "plain.stderr": {Data: []byte("WARN bubblewrap\n")}}
	run := func(args []string, stdin string) (int, string, string) {
		var out, errOut strings.Builder
		code := codextest.Run(context.Background(), codextest.Env{
			Args: args, Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut, Open: fsys.Open,
			Getenv: func(key string) string {
				if key == codextest.EnvTranscript {
					return "plain.ndjson"
				}
				return ""
			},
		})
		return code, out.String(), errOut.String()
	}
	code, out, stderr := run([]string{"app-server", "-c", `model="gpt-5.5"`, "--listen", "stdio://"}, strings.Join(clientLines(recs), "\n")+"\n")
	if code != codextest.ExitOK || stderr != "WARN bubblewrap\n" || out != serverLines(recs) {
		t.Errorf("app-server: exit %d, stderr %q, %d bytes out; want 0, the companion, the server's lines", code, stderr, len(out))
	}
	code, _, stderr = run([]string{"app-server"}, `{"id":1,"method":"thread/start"}`+"\n")
	if code != codextest.ExitError || !strings.Contains(stderr, "record 1 expects request initialize") {
		t.Errorf("a departing client: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = run([]string{"app-server", "--no-such-flag"}, "")
	if code != codextest.ExitUsage || !strings.Contains(stderr, "unexpected argument '--no-such-flag'") {
		t.Errorf("an unknown flag: exit %d, stderr %q", code, stderr)
	}
}
