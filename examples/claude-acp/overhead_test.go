//go:build unix

package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/claude/claudetest"
	"github.com/acpkit/acpkit/internal/lines"
	"github.com/acpkit/acpkit/internal/testwait"
)

// These measure what claude-acp adds to a turn, against fakeclaude alone
// (no delay) driven by a claude.Session in the test: the same transcript,
// the same pipes, without the bridge and ACP in between. They never
// assert a time; -v shows the figures.

// turnsTranscript writes a transcript of turns turns, each streaming
// deltas text deltas (with --include-partial-messages) before the
// complete message and the result, from the lines of partial.ndjson,
// and returns its path and the number of CLI lines in one turn.
func turnsTranscript(tb testing.TB, turns, deltas int) (path string, perTurn int) {
	tb.Helper()
	records := readRecords(tb, filepath.Join("testdata", "partial.ndjson"))
	// partial.ndjson: initialize and its answer, the user turn, the CLI's
	// lines of the turn, then stdin closed and the exit.
	head, user, turn := records[:2], records[2], records[3:len(records)-2]
	var delta claudetest.Record
	for _, r := range turn {
		if strings.Contains(r.Line, `"text_delta"`) {
			delta = r
			break
		}
	}
	var one []claudetest.Record
	for _, r := range turn {
		if strings.Contains(r.Line, `"text_delta"`) {
			continue // replaced by deltas copies of one delta
		}
		one = append(one, r)
		if strings.Contains(r.Line, `"content_block_start"`) {
			for range deltas {
				one = append(one, delta)
			}
		}
	}
	all := slices.Clone(head)
	for range turns {
		all = append(all, user)
		all = append(all, one...)
	}
	all = append(all, claudetest.Record{Dir: claudetest.DirStdinClosed}, claudetest.Record{Dir: claudetest.DirExit})
	path = filepath.Join(tb.TempDir(), "turns.ndjson")
	writeRecords(tb, path, all)
	return path, len(one)
}

// direct drives fakeclaude with a claude.Session, without claude-acp.
type direct struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *lines.Reader
	sess  *claude.Session
}

func startDirect(tb testing.TB, transcript string) *direct {
	tb.Helper()
	cmd := exec.Command(fakeclaudeBin, claude.SessionCommandLine(claude.Options{IncludePartialMessages: true})...)
	// The fake keeps its session on disk, as it does under claude-acp.
	cmd.Env = append(os.Environ(), claudetest.EnvTranscript+"="+transcript, "CLAUDE_CONFIG_DIR="+tb.TempDir(), "GORACE=atexit_sleep_ms=0")
	cmd.Dir = tb.TempDir()
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
	d := &direct{cmd: cmd, stdin: stdin, out: lines.NewReader(stdout, claude.MaxLineLength), sess: claude.NewSession(stdin, "")}
	tb.Cleanup(func() {
		d.stdin.Close()
		defer d.cmd.Process.Kill() // if it does not exit
		testwait.Do(tb, "fakeclaude to exit", func() { d.cmd.Wait() })
	})
	if _, err := d.sess.Initialize(claude.InitializeOptions{}); err != nil {
		tb.Fatal(err)
	}
	d.until(tb, func(e claude.Event) bool { _, ok := e.(claude.ControlResponse); return ok })
	return d
}

// turn sends one user turn and reads the CLI's output to the turn's end.
func (d *direct) turn(tb testing.TB) {
	tb.Helper()
	if err := d.sess.SendText("hi"); err != nil {
		tb.Fatal(err)
	}
	d.until(tb, func(e claude.Event) bool { _, ok := e.(claude.TurnEnd); return ok })
}

// until reads fakeclaude's output up to an event done accepts, failing
// the test after testwait.Limit.
func (d *direct) until(tb testing.TB, done func(claude.Event) bool) {
	tb.Helper()
	var err error
	testwait.Do(tb, "fakeclaude's event", func() {
		var events []claude.Event
		for {
			var line []byte
			if line, err = d.out.Next(); err != nil {
				err = fmt.Errorf("reading fakeclaude: %w", err)
				return
			}
			if events, err = d.sess.Feed(line, events[:0]); err != nil || slices.ContainsFunc(events, done) {
				return
			}
		}
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// TestTurnOverhead measures the time from a prompt sent to its response,
// over 20 turns in one session, through claude-acp and with fakeclaude
// alone; the difference of the medians is claude-acp's own share.
//
//	go test ./examples/claude-acp -run TestTurnOverhead -v
func TestTurnOverhead(t *testing.T) {
	const turns = 20
	path, _ := turnsTranscript(t, turns, 4)

	d := startDirect(t, path)
	fake := make([]time.Duration, turns)
	for i := range fake {
		start := time.Now()
		d.turn(t)
		fake[i] = time.Since(start)
	}

	e := startEditor(t, fakeclaudeBin, path)
	e.initialize(capabilities{notices: true})
	sid := e.newSession()
	bridged := make([]time.Duration, turns)
	for i := range bridged {
		start := time.Now()
		res, err := e.prompt(sid, "hi")
		bridged[i] = time.Since(start)
		if err != nil || res.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("turn %d: %+v, %v; want end_turn", i+1, res, err)
		}
	}
	mf, mb := median(fake), median(bridged)
	t.Logf("per turn, median of %d: fakeclaude alone %v, through claude-acp %v: claude-acp adds %v", turns, mf, mb, mb-mf)
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkTurn streams turns of 2,000 text deltas each, from the first
// CLI line to the turn's end: through claude-acp to an ACP editor that
// does no work with the updates (events/s is the bridge's throughput),
// and, as the baseline of the same run, to a claude.Session reading
// fakeclaude directly.
//
//	go test ./examples/claude-acp -run '^$' -bench BenchmarkTurn -benchtime 20x
func BenchmarkTurn(b *testing.B) {
	const deltas = 2000
	b.Run("fakeclaude", func(b *testing.B) {
		path, perTurn := turnsTranscript(b, b.N+1, deltas)
		d := startDirect(b, path)
		d.turn(b) // as for claude-acp below
		b.ResetTimer()
		for range b.N {
			d.turn(b)
		}
		b.ReportMetric(float64(b.N*perTurn)/b.Elapsed().Seconds(), "events/s")
	})
	b.Run("claude-acp", func(b *testing.B) {
		path, perTurn := turnsTranscript(b, b.N+1, deltas)
		e := startBareEditor(b, fakeclaudeBin, path)
		e.initialize(capabilities{notices: true})
		sid := e.newSession()
		// The first prompt starts the CLI: keep that out of the figure.
		if _, err := e.prompt(sid, "hi"); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := range b.N {
			res, err := e.prompt(sid, "hi")
			if err != nil || res.StopReason != acp.StopReasonEndTurn {
				b.Fatalf("turn %d: %+v, %v; want end_turn", i+1, res, err)
			}
		}
		b.ReportMetric(float64(b.N*perTurn)/b.Elapsed().Seconds(), "events/s")
	})
}

// BenchmarkFirstPrompt measures a session's first prompt against a later
// one, through claude-acp with fakeclaude (no delay). Each iteration opens
// a session and waits until its commands have come (the CLI, started with
// the session, is ready, as an editor shows when a person starts typing);
// a pause as long as a person's between two prompts comes before each
// prompt. "first-ms" and "later-ms" are the medians of the times from
// prompt to answer, "first/later" their ratio. With "cli-keeps-store" the
// fake keeps its session on disk, creating its file at the first prompt
// as Claude Code does; with "no-store" it keeps nothing, which leaves
// claude-acp's own share of the difference. "immediate-ms" is the
// median of a first prompt sent at once after session/new.
//
//	go test ./examples/claude-acp -run '^$' -bench BenchmarkFirstPrompt -benchtime 20x
func BenchmarkFirstPrompt(b *testing.B) {
	const pause = 20 * time.Millisecond
	path, _ := turnsTranscript(b, 2, 4)
	noStore := filepath.Join(b.TempDir(), "claude")
	if err := os.WriteFile(noStore, []byte("#!/bin/sh\nunset CLAUDE_CONFIG_DIR\nexec '"+fakeclaudeBin+"' \"$@\"\n"), 0o755); err != nil {
		b.Fatal(err)
	}
	for _, cli := range []struct{ name, path string }{{"cli-keeps-store", fakeclaudeBin}, {"no-store", noStore}} {
		b.Run(cli.name, func(b *testing.B) {
			e := startEditor(b, cli.path, path)
			e.initialize(capabilities{notices: true})
			firstPrompts(b, e, "hi", pause)
		})
	}
}

// firstPrompts is the loop of BenchmarkFirstPrompt and
// BenchmarkCodexFirstPrompt: each iteration opens a session in e, waits
// until its CLI has announced its commands, and times a first prompt of
// text and a later one, each after pause; then a first prompt sent at once
// after session/new. It reports the medians.
func firstPrompts(b *testing.B, e *editor, text string, pause time.Duration) {
	prompt := func(sid string) time.Duration {
		start := time.Now()
		if res, err := e.prompt(sid, text); err != nil || res.StopReason != acp.StopReasonEndTurn {
			b.Fatalf("prompt: %+v, %v; want end_turn", res, err)
		}
		return time.Since(start)
	}
	var first, later, immediate []time.Duration
	for b.Loop() {
		sid := e.newSession()
		e.waitForSession(sid, "available_commands_update")
		time.Sleep(pause)
		first = append(first, prompt(sid))
		time.Sleep(pause)
		later = append(later, prompt(sid))
		// A prompt sent as soon as session/new is answered pays what is
		// left of the CLI's start, as every first prompt did when the CLI
		// started with it.
		immediate = append(immediate, prompt(e.newSession()))
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	f, l := median(first), median(later)
	b.ReportMetric(ms(f), "first-ms")
	b.ReportMetric(ms(l), "later-ms")
	b.ReportMetric(float64(f)/float64(l), "first/later")
	b.ReportMetric(ms(median(immediate)), "immediate-ms")
}
