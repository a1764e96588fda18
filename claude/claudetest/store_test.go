package claudetest_test

import (
	"bytes"
	"io"
	"path/filepath"
	"sync"
	"testing"

	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/claude/claudetest"
	"github.com/acpkit/acpkit/internal/lines"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/google/go-cmp/cmp"
)

// memFiles is a store in memory: the files the fake appended to.
type memFiles struct {
	mu    sync.Mutex
	files map[string]*bytes.Buffer
}

func (m *memFiles) open(name string) (io.WriteCloser, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.files[name] == nil {
		m.files[name] = &bytes.Buffer{}
	}
	return nopCloser{m.files[name]}, nil
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// TestRunKeepsTheStore plays streaming-input transcripts with a store, as
// a resumed run too, and reads what the fake kept with claude.ReadEntries:
// the file Claude Code would write for the session id it was given and
// the directory it ran in, whose prompts are the client's and whose
// events are those the fake printed, under that id.
func TestRunKeepsTheStore(t *testing.T) {
	const id = "0b6f3d0e-8a4c-4f7e-b2d1-5c9a7e3f1a20"
	for _, name := range []string{"two-turns", "permission-allow", "permission-deny", "image-blocks", "interrupt"} {
		t.Run(name, func(t *testing.T) {
			store := &memFiles{files: map[string]*bytes.Buffer{}}
			var live []claude.Event
			prompts := 0
			for run, arg := range []string{"--session-id=" + id, "--resume=" + id} {
				path := filepath.Join("..", "testdata", "control", name+".ndjson")
				inR, inW := io.Pipe()
				outR, outW := io.Pipe()
				done := make(chan int, 1)
				go func() {
					done <- claudetest.Run(t.Context(), claudetest.Env{
						Args: append(append([]string(nil), sessionArgs...), arg), Stdin: inR, Stdout: outW, Stderr: io.Discard,
						Open: testdata, Getenv: environ(claudetest.EnvTranscript, "control/"+name+".ndjson"),
						Store: store.open, Dir: "/home/dev/work",
					})
					inR.Close()
					outW.Close()
				}()
				// The client writes its recorded lines, which the fake reads
				// as its transcript asks for them.
				recs := records(t, path)
				go func() {
					for _, r := range recs {
						if r.Dir == claudetest.DirIn {
							io.WriteString(inW, r.Line+"\n")
						}
					}
					inW.Close()
				}()
				var out bytes.Buffer
				testwait.Do(t, "the fake's output to end", func() { io.Copy(&out, outR) })
				if code := testwait.For(t, done, "the fake to exit"); code != 0 {
					t.Fatalf("run %d exited %d", run+1, code)
				}
				lr := lines.NewReader(&out, 1<<30)
				for {
					line, err := lr.Next()
					if err != nil {
						break
					}
					if bytes.Contains(line, []byte(`"session_id"`)) && !bytes.Contains(line, []byte(id)) {
						t.Errorf("a line names another session than %s: %.200s", id, line)
					}
					// The CLI keeps the model's messages and the tool
					// results, its own subagents' in files of their own.
					if kind := claudetest.Kind(line); (kind == "assistant" || kind == "user") && !bytes.Contains(line, []byte(`"parent_tool_use_id":"`)) {
						events, _, _ := claude.ParseLine(line, nil)
						live = append(live, events...)
					}
				}
				for _, r := range records(t, path) {
					if r.Dir == claudetest.DirIn && claudetest.Kind([]byte(r.Line)) == "user" {
						prompts++
					}
				}
			}
			file, _ := claude.SessionFile("/home/dev/work", id)
			if len(store.files) != 1 || store.files[file] == nil {
				t.Fatalf("the fake wrote %v, want %s", keys(store.files), file)
			}
			var stored []claude.Event
			gotPrompts, interrupts := 0, 0
			for e, err := range claude.ReadEntries(bytes.NewReader(store.files[file].Bytes())) {
				if err != nil {
					t.Fatal(err)
				}
				if e.Type != "" && !e.Internal && (e.SessionID != id || e.CWD != "/home/dev/work" && e.Type != "last-prompt") {
					t.Errorf("an entry of session %q in %q: %+v", e.SessionID, e.CWD, e)
				}
				if e.Prompt != nil && !e.Meta {
					gotPrompts++
				}
				if e.Interrupt {
					interrupts++
				}
				if e.Prompt == nil {
					stored = append(stored, e.Events...)
				}
			}
			if gotPrompts != prompts {
				t.Errorf("the store holds %d prompts, want %d", gotPrompts, prompts)
			}
			if want := map[bool]int{true: 2}[name == "interrupt"]; interrupts != want {
				t.Errorf("the store holds %d interrupt markers, want %d", interrupts, want)
			}
			ignoreTimes := cmp.FilterPath(func(p cmp.Path) bool {
				sf, ok := p.Last().(cmp.StructField)
				return ok && sf.Name() == "Timestamp"
			}, cmp.Ignore())
			if diff := cmp.Diff(live, stored, ignoreTimes); diff != "" {
				t.Errorf("the stored events differ from the live ones (-live +stored):\n%s", diff)
			}
		})
	}
}

func keys(m map[string]*bytes.Buffer) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
