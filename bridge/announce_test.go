package bridge_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"testing/synctest"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/bridge"
	"github.com/acpkit/acpkit/usage"
	"github.com/google/go-cmp/cmp"
)

// eagerCLI is a CLI whose conversations tell the editor something the
// moment they are made, as Codex's app-server does when it opens its
// thread: an update that must still come after the response that gives
// the editor the session. It keeps one stored session, "stored", whose
// replay is one chunk.
type eagerCLI struct{}

func (eagerCLI) Info() bridge.CLIInfo {
	return bridge.CLIInfo{Name: "eager", Program: "eager", PerTurn: true, Forks: true,
		Modes: []acp.SessionMode{{ID: "default", Name: "Default"}}}
}

// NewConversation has the session tell the editor "live" before it
// takes anything else: once the callback is waiting for the session's
// goroutine, which starts after NewConversation returns, ahead of the
// handler's first question to the session.
func (eagerCLI) NewConversation(cfg bridge.ConversationConfig) (bridge.Conversation, error) {
	cfg.Go(func() func(bridge.Host) {
		return func(h bridge.Host) { h.Notify(chunk("live")) }
	})
	synctest.Wait()
	return eagerConversation{id: cfg.SessionID}, nil
}

func (eagerCLI) StoreDir(string, func(string) string) string { return "" }
func (eagerCLI) ValidID(id string) bool                      { return id != "" }
func (eagerCLI) Files(fs.FS, string) iter.Seq2[bridge.StoredFile, error] {
	return func(yield func(bridge.StoredFile, error) bool) {}
}
func (eagerCLI) ReadInfo(bridge.StoredFile, io.ReaderAt) (bridge.StoredInfo, error) {
	return bridge.StoredInfo{}, errors.New("no info")
}
func (eagerCLI) Remove(bridge.Store, bridge.StoredFile) error { return nil }
func (eagerCLI) Find(_ fs.FS, id, _ string) (bridge.StoredFile, error) {
	if id != "stored" {
		return bridge.StoredFile{}, fs.ErrNotExist
	}
	return bridge.StoredFile{Path: "stored"}, nil
}

type eagerConversation struct{ id string }

func (eagerConversation) CommandLine(mode, model string) []string { return []string{"eager"} }
func (eagerConversation) Start(io.WriteCloser)                    {}
func (eagerConversation) Prompt([]acp.ContentBlock) error         { return nil }
func (eagerConversation) Interrupt() bool                         { return false }
func (eagerConversation) Line(bridge.Host, []byte)                {}
func (eagerConversation) Exited(bridge.Host, error)               {}
func (eagerConversation) Answer(bridge.Host, bridge.Question, acp.PermissionOutcome, error) {
}
func (eagerConversation) SetMode(string) func(context.Context) error  { return nil }
func (eagerConversation) SetModel(string) func(context.Context) error { return nil }
func (eagerConversation) Usage() usage.Snapshot                       { return usage.Snapshot{} }
func (c eagerConversation) StoredID() string                          { return c.id }
func (eagerConversation) Replay(h bridge.Host, _ fs.FS, _ bridge.StoredFile) error {
	h.Notify(chunk("replayed"))
	return nil
}

func chunk(text string) acp.Update {
	return acp.AgentMessageChunk{Content: acp.TextContent{Text: text}}
}

// TestUpdatesAfterAnnouncement opens a session of a CLI that speaks at
// once, in each way an editor can, and checks on the wire that nothing
// of the session reaches the editor before the response that tells it of
// the session, but the replay session/load owes it before, and that
// what was held comes after.
func TestUpdatesAfterAnnouncement(t *testing.T) {
	tests := []struct {
		method string
		params string
		before []string // the chunks before the response
	}{
		{"session/new", `{"cwd":"/work","mcpServers":[]}`, nil},
		{"session/resume", `{"sessionId":"elsewhere","cwd":"/work","mcpServers":[]}`, nil},
		{"session/fork", `{"sessionId":"stored","cwd":"/work","mcpServers":[]}`, nil},
		{"session/load", `{"sessionId":"stored","cwd":"/work","mcpServers":[]}`, []string{"replayed"}},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				inW, out := serveEager(t, bridge.V1)
				fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`)
				if line := readLine(t, out); !strings.Contains(line, `"id":0`) {
					t.Fatalf("initialize answered %s", line)
				}
				fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":1,"method":%q,"params":%s}`+"\n", tt.method, tt.params)
				var before []string
				for {
					line := readLine(t, out)
					if strings.Contains(line, `"id":1`) {
						if strings.Contains(line, `"error"`) {
							t.Fatalf("%s failed: %s", tt.method, line)
						}
						break
					}
					before = append(before, chunkText(t, line))
				}
				if diff := cmp.Diff(tt.before, before); diff != "" {
					t.Errorf("the updates before the response (-want +got):\n%s", diff)
				}
				if slices.Contains(before, "live") {
					return // nothing more to wait for
				}
				if got := chunkText(t, readLine(t, out)); got != "live" {
					t.Errorf("after the response came %q, want the live update", got)
				}
			})
		})
	}
}

// TestUpdatesAfterAnnouncementV2 opens a session of a CLI that speaks at
// once for a v2 editor, and checks on the wire that what the session
// says before session/new's response is held until after it.
func TestUpdatesAfterAnnouncementV2(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inW, out := serveEager(t, bridge.V2)
		fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":2,"info":{"name":"editor","version":"1"}}}`)
		if line := readLine(t, out); !strings.Contains(line, `"id":0`) || strings.Contains(line, `"error"`) {
			t.Fatalf("initialize answered %s", line)
		}
		fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/work"}}`)
		if line := readLine(t, out); !strings.HasPrefix(line, `{"jsonrpc":"2.0","id":1,"result":{"sessionId":`) {
			t.Fatalf("session/new: the editor got %s first, want its response", line)
		}
		if got := chunkText(t, readLine(t, out)); got != "live" {
			t.Errorf("after the response came %q, want the live update", got)
		}
	})
}

// serveEager serves an editor that speaks versions with an Agent of
// eagerCLI's, over pipes, until the test ends: it returns what the
// editor writes to and reads from.
func serveEager(t *testing.T, versions bridge.Versions) (io.Writer, *bufio.Reader) {
	a, err := bridge.NewAgent(bridge.Config{
		CLI:          eagerCLI{},
		Start:        func(string, []string) (bridge.Process, error) { return nil, errors.New("no process") },
		NewSessionID: func() string { return "11111111-2222-4333-8444-555555555555" },
		Clock:        bubbleClock{},
		Store:        storeFS{fstest.MapFS{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	conn := acp.NewConn(t.Context(), inR, outW, a.Handler(bridge.Editor{Versions: versions}), nil)
	t.Cleanup(func() {
		inW.Close()
		outR.Close() // what the editor did not read is not waited for
		conn.Wait()
		a.Close()
	})
	return inW, bufio.NewReader(outR)
}

// storeFS is a Store over an fstest.MapFS.
type storeFS struct{ fstest.MapFS }

func (storeFS) RemoveAll(string) error { return nil }

func readLine(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("reading the agent's output: %v", err)
	}
	return line
}

// chunkText is the text of the agent message chunk a session/update line
// carries.
func chunkText(t *testing.T, line string) string {
	t.Helper()
	var n struct {
		Method string
		Params struct {
			Update struct {
				Content struct{ Text string }
			}
		}
	}
	if err := json.Unmarshal([]byte(line), &n); err != nil || n.Method != acp.SessionUpdate.Name {
		t.Fatalf("the agent wrote %s, not a session/update", line)
	}
	return n.Params.Update.Content.Text
}
