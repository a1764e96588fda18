package geminitest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/internal/fakecli"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/gjson"
)

// lenientTranscript is a session in the captures' format: a session/new
// answered with the recorded id "rec", available_commands_update
// after the first prompt (as the real CLI sends it), a turn asking
// permission, a cancelled turn, which is not played, and a turn of two
// chunks.
const lenientTranscript = `{"dir":"client","t_ms":1,"msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}}
{"dir":"agent","t_ms":2,"msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}}}
{"dir":"client","t_ms":3,"msg":{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}}
{"dir":"agent","t_ms":4,"msg":{"jsonrpc":"2.0","id":1,"result":{"sessionId":"rec","modes":{"availableModes":[{"id":"default"},{"id":"yolo"}],"currentModeId":"default"}}}}
{"dir":"client","t_ms":5,"msg":{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"rec","prompt":[]}}}
{"dir":"agent","t_ms":6,"msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"rec","update":{"sessionUpdate":"available_commands_update","availableCommands":[]}}}}
{"dir":"agent","t_ms":7,"msg":{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"rec","options":[{"optionId":"ok","kind":"allow_once"},{"optionId":"no","kind":"reject_once"}],"toolCall":{"toolCallId":"t1"}}}}
{"dir":"client","t_ms":8,"msg":{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"ok"}}}}
{"dir":"agent","t_ms":9,"msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"rec","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed"}}}}
{"dir":"agent","t_ms":10,"msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"rec","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"done"}}}}}
{"dir":"agent","t_ms":11,"msg":{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn","_meta":{"quota":{}}}}}
{"dir":"client","t_ms":12,"msg":{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"rec","prompt":[]}}}
{"dir":"agent","t_ms":13,"msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"rec","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"cut"}}}}}
{"dir":"client","t_ms":14,"msg":{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"rec"}}}
{"dir":"agent","t_ms":15,"msg":{"jsonrpc":"2.0","id":3,"result":{"stopReason":"cancelled"}}}
{"dir":"client","t_ms":16,"msg":{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"rec","prompt":[]}}}
{"dir":"agent","t_ms":17,"msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"rec","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"one"}}}}}
{"dir":"agent","t_ms":18,"msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"rec","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"two"}}}}}
{"dir":"agent","t_ms":19,"msg":{"jsonrpc":"2.0","id":4,"result":{"stopReason":"end_turn"}}}
`

// Lines the lenient agent writes for lenientTranscript; $1 and $2 stand
// for the session ids it makes up, in order.
const (
	commands1 = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"$1","update":{"sessionUpdate":"available_commands_update","availableCommands":[]}}}`
	asked1    = `{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"$1","options":[{"optionId":"ok","kind":"allow_once"},{"optionId":"no","kind":"reject_once"}],"toolCall":{"toolCallId":"t1"}}}`
	toolDone1 = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"$1","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed"}}}`
	done1     = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"$1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"done"}}}}`
	one1      = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"$1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"one"}}}}`
	two1      = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"$1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"two"}}}}`
)

// lenientStep is what a test's client does, then what it reads back.
type lenientStep struct {
	wait time.Duration // before sending, on the bubble's clock
	send string        // a line, "" for none
	want []string      // the agent's lines that follow, and no more
}

// TestRunACPLenient plays lenientTranscript to clients that do what the
// transcript's did not: two sessions, prompts beyond the recorded ones,
// a refused permission, a cancel in the middle of a turn, loads,
// modes, models and methods the CLI lacks.
func TestRunACPLenient(t *testing.T) {
	const (
		initialize = `{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":1}}`
		newSession = `{"jsonrpc":"2.0","id":10,"method":"session/new","params":{"cwd":"/x","mcpServers":[]}}`
		opened1    = `{"jsonrpc":"2.0","id":10,"result":{"sessionId":"$1","modes":{"availableModes":[{"id":"default"},{"id":"yolo"}],"currentModeId":"default"}}}`
	)
	prompt := func(id, session string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"session/prompt","params":{"sessionId":"` + session + `","prompt":[{"type":"text","text":"hi"}]}}`
	}
	ended := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":{"stopReason":"end_turn"}}` }
	opening := []lenientStep{
		{send: initialize, want: []string{`{"jsonrpc":"2.0","id":"i","result":{"protocolVersion":1,"agentCapabilities":{"loadSession":true}}}`}},
		{send: newSession, want: []string{opened1, commands1}},
	}
	tests := []struct {
		name  string
		args  []string
		delay time.Duration
		steps []lenientStep
	}{{
		name: "turns in turn",
		steps: append(opening,
			lenientStep{send: prompt("11", "$1"), want: []string{asked1}},
			lenientStep{send: `{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"ok"}}}`,
				want: []string{toolDone1, done1, `{"jsonrpc":"2.0","id":11,"result":{"stopReason":"end_turn","_meta":{"quota":{}}}}`}},
			lenientStep{send: prompt("12", "$1"), want: []string{one1, two1, ended("12")}},
			lenientStep{send: prompt("13", "$1"), want: []string{strings.Replace(asked1, `"id":0`, `"id":1`, 1)}},
		),
	}, {
		name: "a refused permission runs no tool",
		steps: append(opening,
			lenientStep{send: prompt("11", "$1"), want: []string{asked1}},
			lenientStep{send: `{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"no"}}}`,
				want: []string{done1, `{"jsonrpc":"2.0","id":11,"result":{"stopReason":"end_turn","_meta":{"quota":{}}}}`}},
		),
	}, {
		name:  "cancelled in the middle",
		delay: 10 * time.Millisecond,
		steps: []lenientStep{
			{send: newSession},
			{wait: 25 * time.Millisecond, want: []string{opened1, commands1}},
			{send: prompt("11", "$1"), want: []string{asked1}},
			{send: `{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"cancelled"}}}`},
			{wait: 15 * time.Millisecond, want: []string{done1}},
			{send: `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"$1"}}`, want: []string{`{"jsonrpc":"2.0","id":11,"result":{"stopReason":"cancelled"}}`}},
			{wait: time.Second},
			{send: prompt("12", "$1")},
			{wait: 15 * time.Millisecond, want: []string{one1}},
			{send: prompt("13", "$1"), want: []string{`{"jsonrpc":"2.0","id":12,"result":{"stopReason":"cancelled"}}`}},
			{wait: 15 * time.Millisecond, want: []string{strings.Replace(asked1, `"id":0`, `"id":1`, 1)}},
			{send: `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"$1"}}`, want: []string{`{"jsonrpc":"2.0","id":13,"result":{"stopReason":"cancelled"}}`}},
			{send: `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"$1"}}`},
		},
	}, {
		name: "sessions of their own",
		steps: append(opening,
			lenientStep{send: newSession, want: []string{strings.ReplaceAll(opened1, "$1", "$2"), strings.ReplaceAll(commands1, "$1", "$2")}},
			lenientStep{send: prompt("11", "$2"), want: []string{strings.ReplaceAll(asked1, "$1", "$2")}},
			lenientStep{send: prompt("12", "$1"), want: []string{strings.Replace(asked1, `"id":0`, `"id":1`, 1)}},
			lenientStep{send: `{"jsonrpc":"2.0","id":1,"result":{"outcome":{"outcome":"selected","optionId":"ok"}}}`,
				want: []string{toolDone1, done1, `{"jsonrpc":"2.0","id":12,"result":{"stopReason":"end_turn","_meta":{"quota":{}}}}`}},
		),
	}, {
		name: "load",
		steps: append(opening[:1],
			lenientStep{send: `{"jsonrpc":"2.0","id":5,"method":"session/load","params":{"sessionId":"kept","cwd":"/x","mcpServers":[]}}`,
				want: []string{`{"jsonrpc":"2.0","id":5,"result":{"modes":{"availableModes":[{"id":"default"},{"id":"yolo"}],"currentModeId":"default"}}}`,
					strings.ReplaceAll(commands1, "$1", "kept")}},
			lenientStep{send: prompt("6", `kept`), want: []string{strings.ReplaceAll(asked1, "$1", "kept")}},
			lenientStep{send: `{"jsonrpc":"2.0","id":7,"method":"session/load","params":{"cwd":"/x","mcpServers":[]}}`,
				want: []string{`{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"Internal error","data":{"details":"Invalid session identifier \"\"."}}}`}},
		),
	}, {
		name: "modes and models, untrusted",
		steps: append(opening,
			lenientStep{send: `{"jsonrpc":"2.0","id":5,"method":"session/set_mode","params":{"sessionId":"$1","modeId":"yolo"}}`,
				want: []string{`{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"Internal error","data":{"details":"Cannot enable privileged approval modes in an untrusted folder."}}}`}},
			lenientStep{send: `{"jsonrpc":"2.0","id":6,"method":"session/set_mode","params":{"sessionId":"$1","modeId":"plan"}}`,
				want: []string{`{"jsonrpc":"2.0","id":6,"error":{"code":-32603,"message":"Internal error","data":{"details":"Invalid or unavailable mode: plan"}}}`}},
			lenientStep{send: `{"jsonrpc":"2.0","id":7,"method":"session/set_mode","params":{"sessionId":"$1","modeId":"default"}}`,
				want: []string{`{"jsonrpc":"2.0","id":7,"result":{}}`}},
			lenientStep{send: `{"jsonrpc":"2.0","id":8,"method":"session/set_model","params":{"sessionId":"$1","modelId":"gemini-2.5-flash"}}`,
				want: []string{`{"jsonrpc":"2.0","id":8,"result":{}}`}},
		),
	}, {
		name: "modes, trusted",
		args: []string{"--skip-trust"},
		steps: append(opening,
			lenientStep{send: `{"jsonrpc":"2.0","id":5,"method":"session/set_mode","params":{"sessionId":"$1","modeId":"yolo"}}`,
				want: []string{`{"jsonrpc":"2.0","id":5,"result":{}}`}},
		),
	}, {
		name: "what the CLI refuses",
		steps: []lenientStep{
			{send: `{"jsonrpc":"2.0","id":1,"method":"session/list","params":{}}`,
				want: []string{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"\"Method not found\": session/list","data":{"method":"session/list"}}}`}},
			{send: prompt("2", "nosuch"), want: []string{`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Session not found: nosuch"}}`}},
			{send: `{"jsonrpc":"2.0","id":3,"method":"session/set_model","params":{"sessionId":"nosuch","modelId":"m"}}`,
				want: []string{`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Session not found: nosuch"}}`}},
			{send: `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"nosuch"}}`},
			{send: `{"jsonrpc":"2.0","id":4,"result":{}}`},
			{send: `{"jsonrpc":"2.0","id":5,"method":"authenticate","params":{"methodId":"gemini-api-key"}}`, want: []string{`{"jsonrpc":"2.0","id":5,"result":{}}`}},
			{send: `{not json`, want: []string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: not valid JSON"}}`}},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := startLenient(t, fstest.MapFS{"t.ndjson": {Data: []byte(lenientTranscript)}}, tt.args, tt.delay)
				for _, s := range tt.steps {
					time.Sleep(s.wait)
					if s.send != "" {
						c.send(s.send)
					}
					for _, want := range s.want {
						if got := c.next(want); got != want {
							t.Fatalf("after %s, the agent wrote (-want +got):\n%s", s.send, cmp.Diff(want, got))
						}
					}
					synctest.Wait()
					if got, ok := c.pending(); ok {
						t.Fatalf("after %s, the agent also wrote %s", s.send, got)
					}
				}
				if code := c.close(); code != ExitOK {
					t.Errorf("exit status %d, want %d", code, ExitOK)
				}
			})
		})
	}
}

// lenientClient is a test's client of a lenient fake run in-process.
type lenientClient struct {
	t      *testing.T
	in     *io.PipeWriter
	out    <-chan fakecli.Input
	exit   chan int
	ids    []string // the session ids the agent made up, $1 first
	done   chan struct{}
	closed bool // by close
}

func startLenient(t *testing.T, files fstest.MapFS, args []string, delay time.Duration) *lenientClient {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &lenientClient{t: t, in: inW, exit: make(chan int, 1), done: make(chan struct{})}
	env := map[string]string{EnvTranscript: "t.ndjson", EnvLenient: "1", EnvDelay: delay.String()}
	go func() {
		c.exit <- Run(context.Background(), Env{Args: append([]string{"--acp"}, args...), Stdin: inR, Stdout: outW, Stderr: io.Discard,
			Open: files.Open, Getenv: func(k string) string { return env[k] },
			Sleep: func(ctx context.Context, d time.Duration) error {
				select {
				case <-time.After(d):
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			}})
		outW.Close()
	}()
	c.out = fakecli.ReadLines(outR, 1<<20, c.done)
	t.Cleanup(func() { // after a failure, end the agent all the same
		if c.in.Close() == nil && !c.closed {
			close(c.done)
			<-c.exit
		}
	})
	return c
}

// send writes a line, with $1, $2… standing for the sessions' ids.
func (c *lenientClient) send(line string) {
	for i, id := range c.ids {
		line = strings.ReplaceAll(line, "$"+string(rune('1'+i)), id)
	}
	io.WriteString(c.in, line+"\n")
}

// sessionID finds a made-up session id.
var sessionID = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}`)

// next reads the agent's next line, its session ids written $1, $2…;
// what is the line the test waits for.
func (c *lenientClient) next(what string) string {
	select {
	case in := <-c.out:
		if in.Err != nil {
			c.t.Fatalf("the agent's output ended (%v) before %s", in.Err, what)
		}
		return c.name(in.Line)
	case <-time.After(time.Minute):
		c.t.Fatalf("the agent did not write %s", what)
	}
	return ""
}

// pending returns a line the agent has written, if there is one.
func (c *lenientClient) pending() (string, bool) {
	select {
	case in := <-c.out:
		return c.name(in.Line) + " " + errString(in.Err), true
	default:
		return "", false
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func (c *lenientClient) name(line []byte) string {
	return sessionID.ReplaceAllStringFunc(string(line), func(id string) string {
		for i, known := range c.ids {
			if known == id {
				return "$" + string(rune('1'+i))
			}
		}
		c.ids = append(c.ids, id)
		return "$" + string(rune('0'+len(c.ids)))
	})
}

// close ends the agent's input and returns its exit status.
func (c *lenientClient) close() int {
	c.in.Close()
	c.closed = true
	defer close(c.done)
	for in := range c.out {
		if in.Err != nil {
			break
		}
		c.t.Errorf("the agent wrote %s at the end", in.Line)
	}
	return <-c.exit
}

// TestRunACPLenientCaptures plays captures of the real CLI's to a
// client with ids of its own, which asks for a session and prompts in it
// once more than the capture did, answering the agent's requests as the
// capture's client did: it gets the capture's initialize answer, a
// session of a fresh id, and the capture's turns in that session, the
// first again after the last.
func TestRunACPLenientCaptures(t *testing.T) {
	for _, name := range []string{"plain", "thinking", "permission-allow", "fs-write", "api-error-500"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "testdata", "acp", name+".ndjson"))
			if err != nil {
				t.Fatal(err)
			}
			rec := recorded(t, data)
			synctest.Test(t, func(t *testing.T) {
				c := startLenient(t, fstest.MapFS{"t.ndjson": {Data: data}}, nil, 0)
				c.send(`{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":1}}`)
				if got := c.next("the initialize answer"); gjson.Get(got, "result").Raw != rec.initialize {
					t.Errorf("initialize answered %s, want the result %s", got, rec.initialize)
				}
				c.send(`{"jsonrpc":"2.0","id":"b","method":"session/new","params":{"cwd":"/x","mcpServers":[]}}`)
				opened := c.next("the session/new answer")
				if want := strings.Replace(rec.opened, rec.session, "$1", 1); gjson.Get(opened, "result").Raw != want {
					t.Errorf("session/new answered %s, want the result %s", opened, want)
				}
				for i := range len(rec.turns) + 1 {
					c.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(100+i) + `,"method":"session/prompt","params":{"sessionId":"$1","prompt":[{"type":"text","text":"hi"}]}}`)
					var got []string
					for {
						line := c.next("the turn's lines")
						m := gjson.Parse(line)
						if m.Get("params.update.sessionUpdate").Str == "available_commands_update" {
							continue
						}
						if s := m.Get("params.sessionId"); s.Exists() && s.Str != "$1" {
							t.Errorf("the agent wrote to session %s, not $1: %s", s.Str, line)
						}
						if m.Get("id").Exists() && !m.Get("method").Exists() {
							if id := m.Get("id").Int(); id != int64(100+i) {
								t.Errorf("the turn ended with an answer to %d, not %d: %s", id, 100+i, line)
							}
							got = append(got, m.Get("result").Raw+m.Get("error").Raw)
							break
						}
						got = append(got, label(m))
						if m.Get("id").Exists() {
							c.send(`{"jsonrpc":"2.0","id":` + m.Get("id").Raw + `,"result":` + rec.answers[m.Get("method").Str] + `}`)
						}
					}
					if diff := cmp.Diff(rec.turns[i%len(rec.turns)], got); diff != "" {
						t.Errorf("turn %d (-want +got):\n%s", i+1, diff)
					}
				}
				c.close()
			})
		})
	}
}

// capture is what a test expects of a capture's replay.
type capture struct {
	initialize, opened, session string
	turns                       [][]string        // each prompt's lines, as label gives them, then its answer
	answers                     map[string]string // the client's answers to the agent's requests, by method
}

// recorded reads what a transcript's client saw, as the lenient agent
// ought to say it.
func recorded(t *testing.T, data []byte) capture {
	c := capture{answers: map[string]string{}}
	methods := map[string]string{}
	asked := map[string]string{}
	var prompt string // the id of the prompt being answered
	var turn []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		e := gjson.Parse(line)
		m := e.Get("msg")
		id := m.Get("id").Raw
		switch method := m.Get("method").Str; {
		case e.Get("dir").Str == "client" && method == "session/prompt":
			prompt, turn = id, nil
			methods[id] = method
		case e.Get("dir").Str == "client" && method != "":
			methods[id] = method
		case e.Get("dir").Str == "client":
			if c.answers[asked[id]] == "" {
				c.answers[asked[id]] = m.Get("result").Raw
			}
		case method == "" && methods[id] == "initialize":
			c.initialize = m.Get("result").Raw
		case method == "" && methods[id] == "session/new":
			c.opened, c.session = m.Get("result").Raw, m.Get("result.sessionId").Str
		case method == "" && id == prompt && prompt != "":
			c.turns = append(c.turns, append(turn, m.Get("result").Raw+m.Get("error").Raw))
			prompt = ""
		case prompt != "" && m.Get("params.update.sessionUpdate").Str != "available_commands_update":
			turn = append(turn, label(m))
			if id != "" {
				asked[id] = method
			}
		}
	}
	if len(c.turns) == 0 {
		t.Fatalf("the capture has no answered prompt")
	}
	return c
}

// label names an agent's message of a turn: its method, and the kind of
// an update.
func label(m gjson.Result) string {
	return strings.TrimSpace(m.Get("method").Str + " " + m.Get("params.update.sessionUpdate").Str)
}

// TestRunACPLenientRefuses checks that a transcript the lenient mode
// cannot play is refused, saying why.
func TestRunACPLenientRefuses(t *testing.T) {
	for _, transcript := range []string{"", acpTranscript[:strings.Index(acpTranscript, `{"dir":"client","t_ms":5`)]} {
		var stderr strings.Builder
		code := Run(context.Background(), Env{Args: []string{"--acp"}, Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &stderr,
			Open:   fstest.MapFS{"t.ndjson": {Data: []byte(transcript)}}.Open,
			Getenv: func(k string) string { return map[string]string{EnvTranscript: "t.ndjson", EnvLenient: "1"}[k] }})
		if code != ExitError || !strings.Contains(stderr.String(), "cannot be played leniently") {
			t.Errorf("transcript %q: exit status %d, stderr %q; want %d and why", transcript, code, stderr.String(), ExitError)
		}
	}
	if _, err := readScript(nil); !errors.Is(err, ErrUnplayable) {
		t.Errorf("readScript(nil): %v, want ErrUnplayable", err)
	}
}

// FuzzReadScript checks that any transcript ReadACP reads is played or
// refused, never panicking, and that every turn played ends with its
// answer.
func FuzzReadScript(f *testing.F) {
	f.Add([]byte(lenientTranscript))
	f.Add([]byte(acpTranscript))
	// A set_mode answered in the middle of a turn.
	f.Add([]byte(lenientTranscript[:strings.Index(lenientTranscript, `{"dir":"agent","t_ms":10`)] +
		`{"dir":"client","t_ms":9,"msg":{"jsonrpc":"2.0","id":9,"method":"session/set_mode","params":{"sessionId":"rec","modeId":"yolo"}}}
{"dir":"agent","t_ms":9,"msg":{"jsonrpc":"2.0","id":9,"result":{}}}
` + lenientTranscript[strings.Index(lenientTranscript, `{"dir":"agent","t_ms":10`):]))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := ReadACP(bytes.NewReader(data))
		if err != nil {
			return
		}
		s, err := readScript(entries)
		if err != nil {
			return
		}
		for _, turn := range s.turns {
			for i, e := range turn {
				answer := e.Msg != nil && acp.Classify(e.Msg).Kind == acp.KindResponse
				if answer != (i == len(turn)-1) {
					t.Fatalf("a turn holds an answer other than its last line, or ends without one: line %d of %d", i+1, len(turn))
				}
			}
		}
	})
}
