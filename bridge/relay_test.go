package bridge_test

import (
	"context"
	"encoding/json"
	"io"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/acpkit/acpkit/bridge"
	"github.com/acpkit/acpkit/usage"
	"github.com/google/go-cmp/cmp"
)

// relayCLI is a CLI, written with the package's exported API only, that
// asks its editor things through Host.Relay: one long-lived process
// whose lines are
//
//	{"relay":"<method>","params":{…},"id":"…"}  a request for the editor
//	{"cancel":"…"}                               the request withdrawn
//	{"offer":{"modes":[…],"models":[…]}}          the modes and models it offers
//	{"commands":[…]}                             its slash commands
//	{"end":"…"}                                  the turn's stop reason
//
// and which gets each answer back as {"id":"…","result":…} or
// {"id":"…","error":…}. It keeps the config of each conversation it made.
type relayCLI struct {
	mu      *sync.Mutex
	configs *[]bridge.ConversationConfig
}

func newRelayCLI() relayCLI {
	return relayCLI{mu: new(sync.Mutex), configs: new([]bridge.ConversationConfig)}
}

func (c relayCLI) Info() bridge.CLIInfo {
	return bridge.CLIInfo{Name: "Relay CLI", Program: "relaycli", Modes: []acp.SessionMode{{ID: "default", Name: "Default"}}}
}

func (c relayCLI) NewConversation(cfg bridge.ConversationConfig) (bridge.Conversation, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	*c.configs = append(*c.configs, cfg)
	return &relayConversation{cancels: map[string]func(){}}, nil
}

func (c relayCLI) seen() []bridge.ConversationConfig {
	c.mu.Lock()
	defer c.mu.Unlock()
	return *c.configs
}

type relayConversation struct {
	stdin   io.Writer
	cancels map[string]func()
}

func (c *relayConversation) CommandLine(mode, model string) []string { return nil }
func (c *relayConversation) Start(stdin io.WriteCloser)              { c.stdin = stdin }
func (c *relayConversation) Prompt([]acp.ContentBlock) error         { return nil }
func (c *relayConversation) Interrupt() bool                         { return false }
func (c *relayConversation) Exited(bridge.Host, error)               { c.stdin = nil }
func (c *relayConversation) Answer(bridge.Host, bridge.Question, acp.PermissionOutcome, error) {
}
func (c *relayConversation) SetMode(string) func(context.Context) error  { return nil }
func (c *relayConversation) SetModel(string) func(context.Context) error { return nil }
func (c *relayConversation) Usage() usage.Snapshot                       { return usage.Snapshot{} }

func (c *relayConversation) Line(h bridge.Host, line []byte) {
	var m struct {
		Relay, ID, Cancel, End string
		Params                 json.RawMessage
		Offer                  *struct {
			Modes  []acp.SessionMode
			Models []bridge.Model
		}
		Commands []acp.AvailableCommand
	}
	if json.Unmarshal(line, &m) != nil {
		return
	}
	switch {
	case m.Relay != "":
		stdin, id := c.stdin, m.ID
		c.cancels[id] = h.Relay(m.Relay, m.Params, func(result json.RawMessage, err error) {
			delete(c.cancels, id)
			answer := map[string]any{"id": id, "result": result}
			if err != nil {
				answer = map[string]any{"id": id, "error": err}
			}
			b, _ := json.Marshal(answer)
			stdin.Write(append(b, '\n'))
		})
	case m.Cancel != "":
		c.cancels[m.Cancel]()
	case m.Offer != nil:
		h.Offer(m.Offer.Modes, m.Offer.Models)
	case m.Commands != nil:
		h.Commands(m.Commands, nil)
	case m.End != "":
		h.EndTurn(acp.PromptResult{StopReason: acp.StopReason(m.End)}, nil)
	}
}

// TestRelay checks that a CLI's requests for the editor reach it, with
// the session's id in place of the CLI's own, that their answers come
// back, that what the editor did not declare it takes is refused
// without asking it, and that a request withdrawn is cancelled. It also
// checks that the Conversation learns the session's cwd and what its
// editor declared.
func TestRelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cli := newRelayCLI()
		e := newAgentEnv(t, bridge.Config{CLI: cli})
		defer e.a.Close()
		var (
			mu   sync.Mutex
			seen []string // the requests the editor got: method and params
		)
		record := func(method string, params any) {
			b, _ := json.Marshal(params)
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, method+" "+string(b))
		}
		var editor acp.Methods
		acp.FSReadTextFile.Handle(&editor, func(ctx context.Context, c *acp.Conn, p acp.ReadTextFileParams) (acp.ReadTextFileResult, error) {
			record("fs/read_text_file", p)
			return acp.ReadTextFileResult{Content: "hello\n"}, nil
		})
		acp.TerminalCreate.Handle(&editor, func(ctx context.Context, c *acp.Conn, p acp.CreateTerminalParams) (acp.CreateTerminalResult, error) {
			record("terminal/create", p)
			<-ctx.Done() // until the request is withdrawn
			return acp.CreateTerminalResult{}, ctx.Err()
		})
		client, _, closePair := acptest.NewPair(bg, editor, e.a.Handler(bridge.Editor{Versions: bridge.V1}), nil)
		defer closePair()
		caps := acp.ClientCapabilities{FS: acp.FileSystemCapabilities{ReadTextFile: true}, Terminal: true}
		_, err := acp.Initialize.Call(bg, client, acp.InitializeParams{ProtocolVersion: 1, ClientCapabilities: caps})
		must(t, err)
		res, err := acp.SessionNew.Call(bg, client, acp.NewSessionParams{Cwd: "/work", MCPServers: []acp.MCPServer{}})
		must(t, err)
		p := e.process()

		cfgs := cli.seen()
		if len(cfgs) != 1 || cfgs[0].Cwd != "/work" || !cmp.Equal(cfgs[0].Client, caps) {
			t.Errorf("the conversation was made with %+v, want cwd /work and the editor's capabilities %+v", cfgs, caps)
		}

		p.write(
			`{"relay":"fs/read_text_file","id":"r1","params":{"sessionId":"cli-1","path":"/work/a.txt"}}`,
			`{"relay":"fs/write_text_file","id":"r2","params":{"sessionId":"cli-1","path":"/work/b.txt","content":"x"}}`,
			`{"relay":"foo/bar","id":"r3","params":{}}`,
			`{"relay":"terminal/create","id":"r4","params":{"sessionId":"cli-1","command":"make"}}`,
		)
		synctest.Wait()
		p.write(`{"cancel":"r4"}`)
		synctest.Wait()

		want := []string{
			`fs/read_text_file {"sessionId":"` + res.SessionID + `","path":"/work/a.txt"}`,
			`terminal/create {"sessionId":"` + res.SessionID + `","command":"make"}`,
		}
		mu.Lock()
		got := slices.Sorted(slices.Values(seen)) // asked at once, answered in any order
		mu.Unlock()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("the editor got (-want +got):\n%s", diff)
		}
		answers := map[string]string{}
		for _, l := range p.lines() {
			var a struct {
				ID     string
				Result json.RawMessage
				Error  *acp.Error
			}
			json.Unmarshal([]byte(l), &a)
			if a.Error != nil {
				answers[a.ID] = "error " + itoa(a.Error.Code)
			} else {
				answers[a.ID] = string(a.Result)
			}
		}
		wantAnswers := map[string]string{
			"r1": `{"content":"hello\n"}`,
			"r2": "error -32601", // the editor did not declare writeTextFile
			"r3": "error -32601", // not a method of ACP's client side
			"r4": "error -32800", // withdrawn
		}
		if diff := cmp.Diff(wantAnswers, answers); diff != "" {
			t.Errorf("the CLI got (-want +got):\n%s", diff)
		}
	})
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestRelayHoldsTheWatchdog checks that a turn whose CLI waits for the
// editor's answer is not taken for silent: the watchdog counts from the
// answer.
func TestRelayHoldsTheWatchdog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newAgentEnv(t, bridge.Config{CLI: newRelayCLI(), TurnTimeout: time.Minute})
		defer e.a.Close()
		var editor acp.Methods
		acp.TerminalWaitForExit.Handle(&editor, func(ctx context.Context, c *acp.Conn, p acp.WaitForTerminalExitParams) (acp.WaitForTerminalExitResult, error) {
			time.Sleep(10 * time.Minute) // a long build
			return acp.WaitForTerminalExitResult{}, nil
		})
		client, _, closePair := acptest.NewPair(bg, editor, e.a.Handler(bridge.Editor{Versions: bridge.V1}), nil)
		defer closePair()
		_, err := acp.Initialize.Call(bg, client, acp.InitializeParams{ProtocolVersion: 1, ClientCapabilities: acp.ClientCapabilities{Terminal: true}})
		must(t, err)
		res, err := acp.SessionNew.Call(bg, client, acp.NewSessionParams{Cwd: "/work", MCPServers: []acp.MCPServer{}})
		must(t, err)
		p := e.process()
		e.client = client
		done := e.promptAsync(bg, res.SessionID, "build it")
		synctest.Wait()
		p.write(`{"relay":"terminal/wait_for_exit","id":"w","params":{"sessionId":"x","terminalId":"t1"}}`)
		time.Sleep(10*time.Minute + time.Second)
		pending(t, done)
		time.Sleep(2 * time.Minute)
		failure(t, got(t, done), bridge.KindTimeout)
	})
}
