package codex_test

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/acpkit/acpkit/codex"
	"github.com/acpkit/acpkit/internal/fakecli"
	"github.com/acpkit/acpkit/internal/parsetest"
)

// script drives a Session through one captured scenario, as the
// captures' client did, and notes what the calls returned.
type script func(a *appServer, note func(call string, result any))

// scenarios are the captures of testdata/appserver, each with the client
// that made it.
var scenarios = map[string]script{
	"plain": func(a *appServer, note func(string, any)) {
		note("initialize", a.initialize())
		th := must[codex.ThreadResult](a.t, "StartThread")(a.s.StartThread(a.ctx, codex.ThreadOptions{CWD: "/tmp/cx-app/plain/cwd"}))
		note("thread/start", th)
		for _, prompt := range []string{"Say hello and tell me what 2 + 2 is.", "Thanks. Now say hello again."} {
			turn := must[codex.ThreadTurn](a.t, "StartTurn")(a.s.StartTurn(a.ctx, th.Thread.ID, []codex.Input{codex.TextInput(prompt)}, codex.TurnOptions{}))
			note("turn/start", turn)
			end := a.turnEnd()
			note("turn end: Err", describeErr(end.Err()))
		}
	},
	"command-approval-accept":  approve("command-approval-accept", "Create cmd-ran.txt with a shell command.", codex.DecisionAccept),
	"command-approval-decline": approve("command-approval-decline", "Create cmd-ran.txt with a shell command.", codex.DecisionDecline),
	"file-change-approval":     approve("file-change-approval", "Create approved.txt.", codex.DecisionAccept),
	"interrupt": func(a *appServer, note func(string, any)) {
		a.initialize()
		th := must[codex.ThreadResult](a.t, "StartThread")(a.s.StartThread(a.ctx, codex.ThreadOptions{CWD: "/tmp/cx-app/interrupt/cwd"}))
		turn := must[codex.ThreadTurn](a.t, "StartTurn")(a.s.StartTurn(a.ctx, th.Thread.ID, []codex.Input{codex.TextInput("Tell me a long story.")}, codex.TurnOptions{}))
		for range 3 {
			waitFor[codex.TextDelta](a, "a piece of the story", nil)
		}
		active, _ := a.s.ActiveTurn(th.Thread.ID)
		note("active turn is the one started", active == turn.ID)
		note("turn/interrupt", describeErr(a.s.Interrupt(a.ctx, th.Thread.ID)))
		end := a.turnEnd()
		note("turn end: interrupted", end.Interrupted())
		note("turn end: Err", describeErr(end.Err()))
		_, stillActive := a.s.ActiveTurn(th.Thread.ID)
		note("a turn is active after the end", stillActive)
		note("interrupt with no turn", describeErr(a.s.Interrupt(a.ctx, th.Thread.ID)))
		must[codex.ThreadTurn](a.t, "StartTurn")(a.s.StartTurn(a.ctx, th.Thread.ID, []codex.Input{codex.TextInput("Never mind. MOCK_SCENARIO=plain-text")}, codex.TurnOptions{}))
		note("next turn end: Err", describeErr(a.turnEnd().Err()))
	},
	"resume": func(a *appServer, note func(string, any)) {
		a.initialize()
		const id = "01a23b10-5ce2-7481-a826-a541a011e7ba"
		th := must[codex.ThreadResult](a.t, "ResumeThread")(a.s.ResumeThread(a.ctx, id, codex.ThreadOptions{}))
		note("thread/resume", th)
		must[codex.ThreadTurn](a.t, "StartTurn")(a.s.StartTurn(a.ctx, id, []codex.Input{codex.TextInput("Hello again after the restart.")}, codex.TurnOptions{}))
		note("turn end: Err", describeErr(a.turnEnd().Err()))
		note("thread/turns/list", must[codex.TurnList](a.t, "ListTurns")(a.s.ListTurns(a.ctx, id, "")))
		_, err := a.s.ResumeThread(a.ctx, "00000000-0000-4000-8000-000000000000", codex.ThreadOptions{})
		note("thread/resume of an unknown thread", describeErr(err))
	},
	"api-error-500": oneTurn("api-error-500", "Say hello and tell me what 2 + 2 is.", nil),
	"rate-limit-429": oneTurn("rate-limit-429", "Say hello and tell me what 2 + 2 is.", func(a *appServer, note func(string, any)) {
		_, err := a.s.Request(a.ctx, "account/rateLimits/read", nil)
		note("account/rateLimits/read", describeErr(err))
	}),
	"reasoning": oneTurn("reasoning", "What is 2 + 2? Think first.", nil),
	"images": func(a *appServer, note func(string, any)) {
		a.initialize()
		th := must[codex.ThreadResult](a.t, "StartThread")(a.s.StartThread(a.ctx, codex.ThreadOptions{CWD: "/tmp/cx-app/images/cwd"}))
		png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\xdac\xfc\xcf\xc0P\x0f\x00\x04\x85\x01\x80\x84\xa9\x8c!\x00\x00\x00\x00IEND\xaeB`\x82")
		input := []codex.Input{
			codex.TextInput("What is in these images?"),
			codex.LocalImageInput("/tmp/cx-app/images/cwd/pixel.png"),
			codex.ImageDataInput("image/png", png),
		}
		must[codex.ThreadTurn](a.t, "StartTurn")(a.s.StartTurn(a.ctx, th.Thread.ID, input, codex.TurnOptions{}))
		note("turn end: Err", describeErr(a.turnEnd().Err()))
	},
	"mcp": func(a *appServer, note func(string, any)) {
		a.initialize()
		status := must[json.RawMessage](a.t, "mcpServerStatus/list")(a.s.Request(a.ctx, "mcpServerStatus/list", struct{}{}))
		note("mcpServerStatus/list names echo", strings.Contains(string(status), `"name":"echo"`))
		th := must[codex.ThreadResult](a.t, "StartThread")(a.s.StartThread(a.ctx, codex.ThreadOptions{CWD: "/tmp/cx-app/mcp/cwd"}))
		must[codex.ThreadTurn](a.t, "StartTurn")(a.s.StartTurn(a.ctx, th.Thread.ID, []codex.Input{codex.TextInput(`Use the echo tool to echo "hello mcp".`)}, codex.TurnOptions{}))
		note("turn end: Err", describeErr(a.turnEnd().Err()))
		must[json.RawMessage](a.t, "mcpServerStatus/list")(a.s.Request(a.ctx, "mcpServerStatus/list", struct{}{}))
	},
	"misc": misc,
}

// approve is the script of an approval scenario: one turn, whose request
// is answered with d.
func approve(name, prompt string, d codex.Decision) script {
	return func(a *appServer, note func(string, any)) {
		a.initialize()
		th := must[codex.ThreadResult](a.t, "StartThread")(a.s.StartThread(a.ctx, codex.ThreadOptions{
			CWD: "/tmp/cx-app/" + name + "/cwd", ApprovalPolicy: codex.ApprovalUntrusted, Sandbox: codex.SandboxWorkspaceWrite}))
		note("thread/start", th)
		must[codex.ThreadTurn](a.t, "StartTurn")(a.s.StartTurn(a.ctx, th.Thread.ID, []codex.Input{codex.TextInput(prompt)}, codex.TurnOptions{}))
		req := waitFor[codex.Request](a, "an approval request", nil)
		note("pending while asked", a.s.Pending())
		note("decide", describeErr(a.s.Decide(req, d)))
		note("pending once answered", a.s.Pending())
		note("decide again", describeErr(a.s.Decide(req, d)))
		note("turn end: Err", describeErr(a.turnEnd().Err()))
	}
}

// oneTurn is the script of a scenario of one turn in a new thread, then
// more.
func oneTurn(name, prompt string, then script) script {
	return func(a *appServer, note func(string, any)) {
		a.initialize()
		th := must[codex.ThreadResult](a.t, "StartThread")(a.s.StartThread(a.ctx, codex.ThreadOptions{CWD: "/tmp/cx-app/" + name + "/cwd"}))
		must[codex.ThreadTurn](a.t, "StartTurn")(a.s.StartTurn(a.ctx, th.Thread.ID, []codex.Input{codex.TextInput(prompt)}, codex.TurnOptions{}))
		end := a.turnEnd()
		note("turn end: Err", describeErr(end.Err()))
		var re *codex.RunError
		if errors.As(end.Err(), &re) {
			note("turn end: RunError", map[string]any{"Type": re.Type, "Status": re.Status, "Message": re.Message})
		}
		if then != nil {
			then(a, note)
		}
	}
}

// misc drives every thread method, and the errors the server gives.
func misc(a *appServer, note func(string, any)) {
	const cwd = "/tmp/cx-app/misc/cwd"
	_, err := a.s.Request(a.ctx, "thread/list", struct{}{})
	note("thread/list before initialize", describeErr(err))
	note("initialize", a.initialize())
	_, err = a.s.Initialize(a.ctx, codex.ClientInfo{Name: "cxapp_capture", Title: "cxapp capture script", Version: "0.1.0"}, codex.InitializeOptions{})
	note("initialize again", describeErr(err))
	models := must[codex.ModelList](a.t, "ListModels")(a.s.ListModels(a.ctx, codex.ModelListOptions{}))
	note("model/list: first and last", []codex.Model{models.Models[0], models.Models[len(models.Models)-1]})
	note("model/list: count", len(models.Models))
	must[json.RawMessage](a.t, "config/read")(a.s.Request(a.ctx, "config/read", map[string]string{"cwd": cwd}))
	note("account/read", string(must[json.RawMessage](a.t, "account/read")(a.s.Request(a.ctx, "account/read", struct{}{}))))
	_, err = a.s.Request(a.ctx, "account/rateLimits/read", nil)
	note("account/rateLimits/read", describeErr(err))
	th := must[codex.ThreadResult](a.t, "StartThread")(a.s.StartThread(a.ctx, codex.ThreadOptions{CWD: cwd}))
	id := th.Thread.ID
	must[codex.ThreadTurn](a.t, "StartTurn")(a.s.StartTurn(a.ctx, id, []codex.Input{codex.TextInput("Say hello and tell me what 2 + 2 is.")}, codex.TurnOptions{}))
	a.turnEnd()
	note("thread/list", must[codex.ThreadList](a.t, "ListThreads")(a.s.ListThreads(a.ctx, codex.ThreadListOptions{})))
	note("thread/loaded/list", string(must[json.RawMessage](a.t, "thread/loaded/list")(a.s.Request(a.ctx, "thread/loaded/list", struct{}{}))))
	note("thread/read", must[codex.Thread](a.t, "ReadThread")(a.s.ReadThread(a.ctx, id, false)))
	note("thread/read with turns", must[codex.Thread](a.t, "ReadThread")(a.s.ReadThread(a.ctx, id, true)))
	note("thread/turns/list", must[codex.TurnList](a.t, "ListTurns")(a.s.ListTurns(a.ctx, id, "")))
	fork := must[codex.ThreadResult](a.t, "ForkThread")(a.s.ForkThread(a.ctx, id, codex.ThreadOptions{}))
	note("thread/fork", fork)
	must[codex.ThreadTurn](a.t, "StartTurn")(a.s.StartTurn(a.ctx, fork.Thread.ID, []codex.Input{codex.TextInput("A question in the fork.")}, codex.TurnOptions{}))
	a.turnEnd()
	note("thread/name/set", describeErr(a.s.SetThreadName(a.ctx, id, "capture thread")))
	note("thread/archive", describeErr(a.s.ArchiveThread(a.ctx, id)))
	note("thread/list archived", must[codex.ThreadList](a.t, "ListThreads")(a.s.ListThreads(a.ctx, codex.ThreadListOptions{Archived: true})))
	note("thread/unarchive", must[codex.Thread](a.t, "UnarchiveThread")(a.s.UnarchiveThread(a.ctx, id)))
	must[codex.ThreadList](a.t, "ListThreads")(a.s.ListThreads(a.ctx, codex.ThreadListOptions{}))
	_, err = a.s.Request(a.ctx, "no/such/method", struct{}{})
	var rpc *codex.RPCError
	note("unknown method: RPCError", errors.As(err, &rpc) && rpc.Code == -32600 && rpc.Method == "no/such/method")
	_, err = a.s.StartTurn(a.ctx, "00000000-0000-4000-8000-000000000000", []codex.Input{codex.TextInput("hi")}, codex.TurnOptions{})
	note("turn/start on an unknown thread", describeErr(err))
}

// appServerRun is what a scenario's golden file holds.
type appServerRun struct {
	Calls  []call                       `json:"calls"`
	Events []fakecli.Typed[codex.Event] `json:"events"`
	Errors []string                     `json:"errors,omitempty"`
	Served string                       `json:"served"` // the fake's result: "ok", or its error
}

type call struct {
	Call   string `json:"call"`
	Result any    `json:"result"`
}

// TestAppServerTranscripts replays every capture of the real `codex
// app-server` against a Session driven as the captures' client drove it:
// the fake checks every line the Session writes against the recorded one,
// and the events the Session reads, with what its calls return, must
// match the scenario's golden file (-update rewrites it).
func TestAppServerTranscripts(t *testing.T) {
	for name, run := range scenarios {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", "appserver", name+".ndjson")
			var got []byte
			synctest.Test(t, func(t *testing.T) {
				a := startAppServer(t, records(t, name))
				var out appServerRun
				run(a, func(c string, r any) { out.Calls = append(out.Calls, call{c, r}) })
				out.Served = "ok"
				if err := a.finish(); err != nil {
					out.Served = err.Error()
				}
				events, errs := a.all()
				out.Events = fakecli.Describe(events, "codex")
				for _, err := range errs {
					out.Errors = append(out.Errors, describeErr(err))
				}
				if p := a.s.Pending(); len(p) != 0 {
					t.Errorf("still pending at the end: %v", p)
				}
				var err error
				if got, err = fakecli.Encode(out); err != nil {
					t.Fatal(err)
				}
			})
			parsetest.Check(t, path, got, *update)
		})
	}
}

// TestAppServerScenariosCoverCaptures checks that every capture has its
// scenario.
func TestAppServerScenariosCoverCaptures(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "appserver", "*.ndjson"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no captures: %v", err)
	}
	for _, p := range paths {
		if name := strings.TrimSuffix(filepath.Base(p), ".ndjson"); scenarios[name] == nil {
			t.Errorf("capture %s has no scenario", name)
		}
	}
}
