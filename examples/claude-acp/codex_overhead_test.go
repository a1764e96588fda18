//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/codex"
	"github.com/acpkit/acpkit/codex/codextest"
	"github.com/acpkit/acpkit/internal/realcodex"
	"github.com/tidwall/gjson"
)

// These measure what claude-acp adds to a Codex turn, against the
// app-server driven directly by a codex.Session in the test: fakecodex
// app-server (no delay) replaying the same transcript, on the same pipes,
// without the bridge and ACP in between. They never assert a time.

// codexTurnsTranscript writes a transcript of plain.ndjson as the bridge
// plays it (bridge/testdata/codex), its first turn repeated turns times,
// and returns its path.
func codexTurnsTranscript(tb testing.TB, turns int) string {
	tb.Helper()
	f, err := os.Open(filepath.Join("..", "..", "bridge", "testdata", "codex", "plain.ndjson"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	recs, err := codextest.ReadAppServerTranscript(f)
	if err != nil {
		tb.Fatal(err)
	}
	method := func(r codextest.AppServerRecord) string { return gjson.GetBytes(r.Msg, "method").String() }
	start := slices.IndexFunc(recs, func(r codextest.AppServerRecord) bool { return method(r) == "turn/start" })
	end := slices.IndexFunc(recs, func(r codextest.AppServerRecord) bool { return method(r) == "turn/completed" })
	all := slices.Clone(recs[:start])
	for range turns {
		all = append(all, recs[start:end+1]...)
	}
	path := filepath.Join(tb.TempDir(), "turns.ndjson")
	out, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	err = codextest.WriteAppServerTranscript(out, all)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		tb.Fatal(err)
	}
	return path
}

// codexDirect drives fakecodex app-server with a codex.Session, as the
// bridge does, without claude-acp.
type codexDirect struct {
	sess   *codex.Session
	thread string
	ends   chan struct{} // a token per turn/completed
}

func startCodexDirect(tb testing.TB, transcript string) *codexDirect {
	tb.Helper()
	cmd := exec.Command(fakecodexBin, "app-server")
	cmd.Env = append(os.Environ(), codextest.EnvTranscript+"="+transcript, "GORACE=atexit_sleep_ms=0")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	d := &codexDirect{sess: codex.NewSession(stdin), ends: make(chan struct{}, 1)}
	read := make(chan struct{})
	go func() {
		defer close(read)
		for e := range d.sess.Events(stdout) {
			if _, ok := e.(codex.TurnEnd); ok {
				d.ends <- struct{}{}
			}
		}
	}()
	tb.Cleanup(func() {
		stdin.Close()
		<-read
		cmd.Wait()
	})
	ctx, cancel := bounded()
	defer cancel()
	if _, err := d.sess.Initialize(ctx, codex.ClientInfo{Name: "bench", Version: "1"}, codex.InitializeOptions{}); err != nil {
		tb.Fatal(err)
	}
	if _, err := d.sess.ListModels(ctx, codex.ModelListOptions{}); err != nil {
		tb.Fatal(err)
	}
	th, err := d.sess.StartThread(ctx, codex.ThreadOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	d.thread = th.Thread.ID
	return d
}

// turn starts a turn and waits for its end.
func (d *codexDirect) turn(tb testing.TB) {
	tb.Helper()
	ctx, cancel := bounded()
	defer cancel()
	if _, err := d.sess.StartTurn(ctx, d.thread, []codex.Input{codex.TextInput("hi")}, codex.TurnOptions{}); err != nil {
		tb.Fatal(err)
	}
	select {
	case <-d.ends:
	case <-ctx.Done():
		tb.Fatal("waited for the end of the turn")
	}
}

// BenchmarkCodexTurn measures one Codex turn (a text message of four
// deltas, usage, rate limits), from prompt to answer: through claude-acp
// to an ACP editor, and, as the baseline of the same run, driven directly
// by a codex.Session. "bridged/direct" is the ratio of their times per
// turn, and "added-us" what claude-acp adds to each.
//
//	go test ./examples/claude-acp -run '^$' -bench BenchmarkCodexTurn -benchtime 200x
func BenchmarkCodexTurn(b *testing.B) {
	var direct, bridged time.Duration
	b.Run("direct", func(b *testing.B) {
		d := startCodexDirect(b, codexTurnsTranscript(b, b.N+1))
		d.turn(b) // as for claude-acp below
		b.ResetTimer()
		for range b.N {
			d.turn(b)
		}
		direct = b.Elapsed() / time.Duration(b.N)
	})
	b.Run("claude-acp", func(b *testing.B) {
		e := startBareEditor(b, fakeclaudeBin, codexTurnsTranscript(b, b.N+1), "-cli", "codex", "-codex", fakecodexBin)
		e.initialize(capabilities{notices: true})
		sid := e.newSession()
		// A first turn, untimed: the app-server has started and the
		// thread is open.
		if _, err := e.prompt(sid, "hi"); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for range b.N {
			if res, err := e.prompt(sid, "hi"); err != nil || res.StopReason != acp.StopReasonEndTurn {
				b.Fatalf("prompt: %+v, %v; want end_turn", res, err)
			}
		}
		bridged = b.Elapsed() / time.Duration(b.N)
		if direct > 0 {
			b.ReportMetric(float64(bridged)/float64(direct), "bridged/direct")
			b.ReportMetric(float64(bridged-direct)/float64(time.Microsecond), "added-us")
		}
	})
}

// BenchmarkCodexFirstPrompt measures a Codex session's first prompt
// against a later one, through claude-acp: with fakecodex app-server (no
// delay), and with the real Codex CLI against the captures' mock of the
// OpenAI API (skipped when the CLI cannot be had). Each iteration opens a
// session and waits until the thread is open (its models have come, as an
// editor shows before a person starts typing); "first-ms" and "later-ms"
// are the medians of the times from prompt to answer, "first/later" their
// ratio. "immediate-ms" is the median of a first prompt sent at once after
// session/new, which waits for what is left of the app-server's start.
//
//	go test ./examples/claude-acp -run '^$' -bench BenchmarkCodexFirstPrompt -benchtime 10x
func BenchmarkCodexFirstPrompt(b *testing.B) {
	b.Run("fakecodex", func(b *testing.B) {
		e := startEditor(b, fakeclaudeBin, codexTurnsTranscript(b, 2), "-cli", "codex", "-codex", fakecodexBin)
		e.initialize(capabilities{notices: true})
		firstPrompts(b, e, "hi", 0)
	})
	b.Run("codex", func(b *testing.B) {
		bin, home, _ := realCodex(b)
		b.Setenv(realcodex.KeyEnv, "sk-test")
		e := newEditorIn(b, home, fakeclaudeBin, "none", "-cli", "codex", "-codex", bin)
		e.initialize(capabilities{notices: true})
		firstPrompts(b, e, "Say hello. MOCK_SCENARIO=plain-text", 0)
	})
}
