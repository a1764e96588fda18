// Command record records the two-direction transcripts beside it, in
// claude/testdata/capture, that issue 32's features are tested with: it
// installs the real Claude Code CLI with npm (into the user's cache, through
// internal/npmcache), starts mock-anthropic.mjs beside it on loopback, runs
// the CLI in streaming-input mode in a fresh HOME and cwd for each scenario,
// plays the client's side of the scenario and writes every line in both
// directions as claudetest.Record lines.
//
//	go run ./claude/testdata/capture [-out DIR] [scenario...]
//
// It needs node (for the mock) and, the first time, the npm registry; the
// CLI itself talks to nothing but the mock. Without arguments it records
// every scenario.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/acpkit/acpkit/internal/npmcache"
	"github.com/tidwall/gjson"
)

// version is the Claude Code release recorded; the captures of
// ../shared/captures used the same.
const version = "2.1.328"

var cli = npmcache.Set{
	Folder:    "claude-code-" + version,
	Env:       "ACPKIT_CLAUDE_CODE_DIR",
	Packages:  []string{"@anthropic-ai/claude-code@" + version},
	Installed: []string{"node_modules/@anthropic-ai/claude-code/package.json", "node_modules/.bin/claude"},
}

// The session ids the scenarios name, as claude-acp names its sessions.
const (
	sessionA = "5f0c3a4e-7d21-4c8b-9a61-2e4f8b0d1c11"
	sessionB = "9b2d6e18-3c47-4f5a-8e90-1a7c5d3f2b22"
)

// A step is one move of the client: write a line (made from the last line
// read), read until a line of a kind, or close the CLI's input.
type step struct {
	send  func(last gjson.Result) string
	until string // "result", "control_response", "control_request"
	close bool
}

type scenario struct {
	name  string
	args  []string // after the streaming-input flags
	env   []string // added to the environment; "NAME=" removes NAME
	steps []step
	then  *scenario // a second process, in the same HOME and cwd
}

func send(line string) step  { return step{send: func(gjson.Result) string { return line }} }
func until(kind string) step { return step{until: kind} }

var closeInput = step{close: true}

func initialize(id string, extra string) step {
	return send(`{"type":"control_request","request_id":"` + id + `","request":{"subtype":"initialize","hooks":null` + extra + `}}`)
}

func user(text string) step {
	b, _ := json.Marshal(text)
	return send(`{"type":"user","message":{"role":"user","content":[{"type":"text","text":` + string(b) + `}]},"parent_tool_use_id":null,"session_id":"default"}`)
}

// answer answers the permission request last read with body, a
// control_response's inner response.
func answer(body func(req gjson.Result) string) step {
	return step{send: func(last gjson.Result) string {
		id := last.Get("request_id").String()
		return `{"type":"control_response","response":{"subtype":"success","request_id":"` + id + `","response":` + body(last.Get("request")) + `}}`
	}}
}

// answers allows AskUserQuestion with answers, question text to answer,
// added to its input.
func answers(a map[string]string) step {
	return answer(func(req gjson.Result) string {
		var input map[string]any
		json.Unmarshal([]byte(req.Get("input").Raw), &input)
		input["answers"] = a
		b, _ := json.Marshal(map[string]any{"behavior": "allow", "updatedInput": input})
		return string(b)
	})
}

func deny(message string) step {
	return answer(func(gjson.Result) string {
		b, _ := json.Marshal(map[string]any{"behavior": "deny", "message": message})
		return string(b)
	})
}

const language = "Which language should the script use?"

var scenarios = []scenario{
	{name: "ask-user-accept", args: []string{"--model", "sonnet"}, steps: []step{
		initialize("req_1", ""), until("control_response"),
		user("Write me a script. MOCK_SCENARIO=ask-user"), until("control_request"),
		answers(map[string]string{language: "Go"}), until("result"), closeInput,
	}},
	{name: "ask-user-decline", args: []string{"--model", "sonnet"}, steps: []step{
		initialize("req_1", ""), until("control_response"),
		user("Write me a script. MOCK_SCENARIO=ask-user"), until("control_request"),
		answers(map[string]string{}), until("result"), closeInput,
	}},
	{name: "ask-user-refused", args: []string{"--model", "sonnet"}, steps: []step{
		initialize("req_1", ""), until("control_response"),
		user("Write me a script. MOCK_SCENARIO=ask-user-multi"), until("control_request"),
		deny("The editor cannot show these questions (only one question with a single choice can be asked there). Ask the user in your reply instead."),
		until("result"), closeInput,
	}},
	{name: "effort", args: []string{"--model", "sonnet"}, steps: []step{
		initialize("req_1", ""), until("control_response"),
		user("How much effort? MOCK_SCENARIO=count"), until("result"),
		send(`{"type":"control_request","request_id":"req_2","request":{"subtype":"apply_flag_settings","settings":{"effortLevel":"low"}}}`), until("control_response"),
		user("And now?"), until("result"), closeInput,
	}},
	{name: "fast", args: []string{"--model", "opus"}, steps: []step{
		initialize("req_1", ""), until("control_response"),
		user("Hello. MOCK_SCENARIO=count"), until("result"),
		send(`{"type":"control_request","request_id":"req_2","request":{"subtype":"apply_flag_settings","settings":{"fastMode":true}}}`), until("control_response"),
		user("And now?"), until("result"), closeInput,
	}},
	{name: "auth-invalid-key", args: []string{"--model", "sonnet"}, env: []string{"CLAUDE_CODE_MAX_RETRIES=0"}, steps: []step{
		initialize("req_1", ""), until("control_response"),
		user("Say hello. MOCK_SCENARIO=api-error-401"), until("result"), closeInput,
	}},
	{name: "auth-logged-out", args: []string{"--model", "sonnet"}, env: []string{"ANTHROPIC_API_KEY="}, steps: []step{
		initialize("req_1", ""), until("control_response"),
		user("Say hello."), until("result"), closeInput,
	}},
	{name: "commands", args: []string{"--model", "sonnet"}, steps: []step{
		initialize("req_1", ""), until("control_response"),
		user("/context"), until("result"),
		user("/cost"), until("result"),
		user("/doctor"), until("result"), closeInput,
	}},
	{name: "subagent", args: []string{"--model", "sonnet", "--include-partial-messages", "--allowedTools", "Bash"}, steps: []step{
		initialize("req_1", `,"forwardSubagentText":true`), until("control_response"),
		user("Ask a subagent. MOCK_SCENARIO=subagent"), until("result"), closeInput,
	}},
	{name: "fork", args: []string{"--model", "sonnet", "--session-id", sessionA}, steps: []step{
		initialize("req_1", ""), until("control_response"),
		user("Remember this. MOCK_SCENARIO=count"), until("result"), closeInput,
	}, then: &scenario{name: "fork-forked", args: []string{"--model", "sonnet", "--resume", sessionA, "--fork-session", "--session-id", sessionB}, steps: []step{
		initialize("req_1", ""), until("control_response"),
		user("What do you hold?"), until("result"), closeInput,
	}}},
}

func main() {
	out := flag.String("out", filepath.Join("claude", "testdata", "capture"), "the folder to write NAME.ndjson and NAME.args to")
	flag.Parse()
	log.SetFlags(0)
	dir, err := cli.Dir()
	if err != nil {
		log.Fatal(err)
	}
	bin := filepath.Join(dir, "node_modules", ".bin", "claude")
	mockScript, err := filepath.Abs(filepath.Join("claude", "testdata", "capture", "mock-anthropic.mjs"))
	if err != nil {
		log.Fatal(err)
	}
	want := map[string]bool{}
	for _, a := range flag.Args() {
		want[a] = true
	}
	for _, sc := range scenarios {
		if len(want) > 0 && !want[sc.name] {
			continue
		}
		if err := record(bin, mockScript, *out, sc); err != nil {
			log.Fatalf("%s: %v", sc.name, err)
		}
		log.Printf("recorded %s", sc.name)
	}
}

// record runs one scenario, and the process that follows it, against a
// mock of its own.
func record(bin, mockScript, out string, sc scenario) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tmp, err := os.MkdirTemp("", "acpkit-capture-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	port, stop, err := startMock(ctx, mockScript, tmp)
	if err != nil {
		return err
	}
	defer stop()
	home, cwd := filepath.Join(tmp, "home"), filepath.Join(tmp, "work")
	for _, d := range []string{home, cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	for s := &sc; s != nil; s = s.then {
		if err := run(ctx, bin, home, cwd, port, out, *s); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return nil
}

// startMock starts the mock on a free loopback port and returns it.
func startMock(ctx context.Context, script, tmp string) (port string, stop func(), err error) {
	portFile := filepath.Join(tmp, "port")
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Env = append(os.Environ(), "MOCK_PORT=0", "MOCK_PORT_FILE="+portFile)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop = func() { cmd.Process.Kill(); cmd.Wait() }
	for range 100 {
		if b, err := os.ReadFile(portFile); err == nil && len(b) > 0 {
			return string(b), stop, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	return "", nil, fmt.Errorf("the mock did not say its port")
}

// run runs one process of a scenario and writes its transcript.
func run(ctx context.Context, bin, home, cwd, port, out string, sc scenario) error {
	args := append([]string{"--output-format", "stream-json", "--verbose", "--input-format", "stream-json", "--permission-prompt-tool", "stdio"}, sc.args...)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = cwd
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TZ=UTC", "LANG=C.UTF-8",
		"ANTHROPIC_BASE_URL=http://127.0.0.1:" + port, "ANTHROPIC_API_KEY=sk-ant-test",
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
	for _, e := range sc.env {
		name, value, _ := strings.Cut(e, "=")
		env = deleteVar(env, name)
		if value != "" {
			env = append(env, e)
		}
	}
	cmd.Env = env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	var recs []string
	rec := func(r map[string]any) {
		r["t"] = time.Since(start).Milliseconds()
		b, _ := json.Marshal(r)
		recs = append(recs, string(b))
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var last gjson.Result
	for _, st := range sc.steps {
		switch {
		case st.send != nil:
			line := st.send(last)
			rec(map[string]any{"dir": "in", "line": line})
			if _, err := io.WriteString(stdin, line+"\n"); err != nil {
				return err
			}
		case st.close:
			rec(map[string]any{"dir": "stdin_closed"})
			stdin.Close()
		default:
			for {
				line, ok := <-lines
				if !ok {
					return fmt.Errorf("output ended waiting for %s; stderr: %s", st.until, stderr.String())
				}
				rec(map[string]any{"dir": "out", "line": line})
				last = gjson.Parse(line)
				if last.Get("type").String() == st.until {
					break
				}
			}
		}
	}
	for line := range lines {
		rec(map[string]any{"dir": "out", "line": line})
	}
	err = cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		return err
	}
	rec(map[string]any{"dir": "exit", "code": code, "signal": nil})
	argsJSON, _ := json.Marshal(args)
	if err := os.WriteFile(filepath.Join(out, sc.name+".args"), append(argsJSON, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, sc.name+".ndjson"), []byte(strings.Join(recs, "\n")+"\n"), 0o644)
}

func deleteVar(env []string, name string) []string {
	out := env[:0]
	for _, e := range env {
		if !strings.HasPrefix(e, name+"=") {
			out = append(out, e)
		}
	}
	return out
}
