package bridgeos_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/acpkit/acpkit/bridge"
	"github.com/acpkit/acpkit/bridge/bridgeos"
	"github.com/acpkit/acpkit/claude"
)

// These measure session/list and session/load as claude-acp serves them:
// an Agent with the operating system's Store over a folder on disk,
// called through an acp.Conn. The files are copies of sessions the real
// Claude Code stored (../../claude/testdata/store), under other ids and
// cwds, so that every byte is in the CLI's format; the folder was just
// written, so the system's page cache holds it.

// A captured session: its scenario, id and cwd.
type captured struct{ scenario, id, cwd string }

var (
	plain = captured{"plain", "5474356c-702e-48b0-8ecb-5f54d4bff9a2", "/tmp/cc-store/plain/work"}
	tools = captured{"tools", "eaca3c35-d13e-4c1d-a95b-a66cef48d210", "/tmp/cc-store/tools/work"}
)

// read returns the captured session's file.
func (c captured) read(tb testing.TB) []byte {
	tb.Helper()
	name, _ := claude.SessionFile(c.cwd, c.id)
	data, err := os.ReadFile(filepath.Join("..", "..", "claude", "testdata", "store", c.scenario, "projects", name))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// benchID is the id of the i-th session of a written store.
func benchID(i int) string { return fmt.Sprintf("%08x-702e-48b0-8ecb-5f54d4bff9a2", i) }

// conversationOnly returns the lines of a session file that hold the
// conversation (the person's, the model's and the CLI's messages),
// without the CLI's bookkeeping lines.
func conversationOnly(data []byte) []byte {
	var out []byte
	for line := range bytes.Lines(data) {
		var l struct{ Type string }
		if json.Unmarshal(line, &l) == nil && (l.Type == "user" || l.Type == "assistant" || l.Type == "system") {
			out = append(out, line...)
		}
	}
	return out
}

// writeStore writes n copies of the captured session, of about size
// bytes each (its turns repeated, or cut at a line), into a projects
// folder: in 20 project folders, one modification time apart each. keep,
// when not nil, chooses the lines of the session kept.
func writeStore(tb testing.TB, c captured, keep func([]byte) []byte, n, size int) string {
	tb.Helper()
	dir := tb.TempDir()
	data := c.read(tb)
	if keep != nil {
		data = keep(data)
	}
	for len(data) < size { // more turns of the same conversation
		data = append(data, data...)
	}
	data = data[:bytes.LastIndexByte(data[:size], '\n')+1]
	t0 := time.Now().Add(-time.Duration(n) * time.Second)
	for i := range n {
		id, cwd := benchID(i), fmt.Sprintf("/home/dev/project%02d", i%20)
		name, _ := claude.SessionFile(cwd, id)
		path := filepath.Join(dir, name)
		if i < 20 {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				tb.Fatal(err)
			}
		}
		file := bytes.ReplaceAll(bytes.ReplaceAll(data, []byte(c.id), []byte(id)), []byte(c.cwd), []byte(cwd))
		if err := os.WriteFile(path, file, 0o644); err != nil {
			tb.Fatal(err)
		}
		at := t0.Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(path, at, at); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// countingStore counts the files opened in a Store.
type countingStore struct {
	bridge.Store
	opens atomic.Int64
}

func (s *countingStore) Open(name string) (fs.File, error) {
	s.opens.Add(1)
	return s.Store.Open(name)
}

// ReadDir and Stat are the Store's, as the Agent uses them.
func (s *countingStore) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(s.Store, name) }
func (s *countingStore) Stat(name string) (fs.FileInfo, error)      { return fs.Stat(s.Store, name) }

// editor is an Agent over store, and a client of it that counts the
// updates it gets.
type editor struct {
	client  *acp.Conn
	updates atomic.Int64
	close   func()
}

func newEditor(tb testing.TB, store bridge.Store) *editor {
	tb.Helper()
	a, err := bridgeos.NewAgent(bridge.Config{
		Store: store,
		Start: func(string, []string) (bridge.Process, error) { return nil, errors.New("no CLI in a benchmark") },
	})
	if err != nil {
		tb.Fatal(err)
	}
	e := &editor{}
	var client acp.Methods
	client.Notifications = map[string]acp.NotificationFunc{acp.SessionUpdate.Name: func(context.Context, *acp.Conn, json.RawMessage) { e.updates.Add(1) }}
	c, _, closePair := acptest.NewPair(context.Background(), client, a.Handler(bridge.Editor{Versions: bridge.V1}), nil)
	e.client = c
	e.close = func() {
		a.Close()
		closePair()
	}
	if _, err := acp.Initialize.Call(context.Background(), c, acp.InitializeParams{ProtocolVersion: 1}); err != nil {
		tb.Fatal(err)
	}
	return e
}

// BenchmarkList lists the first page of sessions of a store of 1,000 and
// of 10,000 sessions (100 KB each: 100 MB and 1 GB), in every directory
// and in one: by a new agent ("first", what an editor waits for after a
// restart) and by one that has listed the store before ("again").
//
//	go test ./bridge/bridgeos -run '^$' -bench BenchmarkList -benchtime 10x
func BenchmarkList(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		dir := writeStore(b, plain, nil, n, 100<<10)
		store := &countingStore{Store: bridgeos.Store(dir)}
		for _, cwd := range []string{"", "/home/dev/project07"} {
			scope := map[bool]string{true: "all", false: "one-cwd"}[cwd == ""]
			list := func(b *testing.B, e *editor) {
				res, err := acp.SessionList.Call(context.Background(), e.client, acp.ListSessionsParams{Cwd: cwd})
				if err != nil || len(res.Sessions) == 0 {
					b.Fatalf("session/list: %d sessions, %v", len(res.Sessions), err)
				}
			}
			b.Run(fmt.Sprintf("sessions=%d/%s/first", n, scope), func(b *testing.B) {
				store.opens.Store(0)
				for b.Loop() {
					b.StopTimer()
					e := newEditor(b, store)
					b.StartTimer()
					list(b, e)
					b.StopTimer()
					e.close()
					b.StartTimer()
				}
				b.ReportMetric(float64(store.opens.Load())/float64(b.N), "files-read/op")
			})
			b.Run(fmt.Sprintf("sessions=%d/%s/again", n, scope), func(b *testing.B) {
				e := newEditor(b, store)
				defer e.close()
				list(b, e)
				store.opens.Store(0)
				for b.Loop() {
					list(b, e)
				}
				b.ReportMetric(float64(store.opens.Load())/float64(b.N), "files-read/op")
			})
		}
	}
}

// BenchmarkLoad replays a 20 MB session through session/load, and
// reports the bytes of file replayed per second, the peak of the heap the
// replay used above the heap before it, and the largest read of the file
// (a whole-file read would be 20 MB). The session is the captured tools
// session (a prompt, text, and Write, Read, Edit and Bash calls with
// their results) repeated: "as-stored" with every line the CLI wrote,
// most of them its bookkeeping (75 turns); "conversation-only" with the
// conversation's lines alone, the most a replay has to translate per
// byte (1,700 turns).
//
//	go test ./bridge/bridgeos -run '^$' -bench BenchmarkLoad -benchtime 5x
func BenchmarkLoad(b *testing.B) {
	const size = 20 << 20
	for _, v := range []struct {
		name string
		keep func([]byte) []byte
	}{{"as-stored", nil}, {"conversation-only", conversationOnly}} {
		b.Run(v.name, func(b *testing.B) {
			dir := writeStore(b, tools, v.keep, 1, size)
			store := &readSizeStore{Store: bridgeos.Store(dir)}
			id := benchID(0)
			fi, err := os.Stat(filepath.Join(dir, "-home-dev-project00", id+".jsonl"))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(fi.Size())
			var peak uint64
			var updates int64
			for b.Loop() {
				b.StopTimer()
				e := newEditor(b, store)
				runtime.GC()
				var before runtime.MemStats
				runtime.ReadMemStats(&before)
				stop := watchHeap(&peak, before.HeapAlloc)
				b.StartTimer()
				_, err := acp.SessionLoad.Call(context.Background(), e.client, acp.LoadSessionParams{SessionID: id, Cwd: "/home/dev/project00"})
				b.StopTimer()
				stop()
				if updates = e.updates.Load(); err != nil || updates == 0 {
					b.Fatalf("session/load: %d updates, %v", updates, err)
				}
				e.close()
				b.StartTimer()
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(store.largest.Load())/(1<<10), "largest-read-KB")
			b.ReportMetric(float64(updates), "updates")
		})
	}
}

// readSizeStore records the largest read of a file opened in a Store.
type readSizeStore struct {
	bridge.Store
	largest atomic.Int64
}

func (s *readSizeStore) Open(name string) (fs.File, error) {
	f, err := s.Store.Open(name)
	if err != nil {
		return nil, err
	}
	return &readSizeFile{File: f, largest: &s.largest}, nil
}

func (s *readSizeStore) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(s.Store, name) }
func (s *readSizeStore) Stat(name string) (fs.FileInfo, error)      { return fs.Stat(s.Store, name) }

type readSizeFile struct {
	fs.File
	largest *atomic.Int64
}

func (f *readSizeFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	for m := f.largest.Load(); int64(n) > m && !f.largest.CompareAndSwap(m, int64(n)); m = f.largest.Load() {
	}
	return n, err
}

// watchHeap records in *peak the most the heap held above base, sampled
// every millisecond, until stop is called.
func watchHeap(peak *uint64, base uint64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > base && m.HeapAlloc-base > *peak {
				*peak = m.HeapAlloc - base
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}
