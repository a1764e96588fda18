package codex_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/acpkit/acpkit/codex"
	"github.com/acpkit/acpkit/codex/codextest"
)

// firstTurn returns the records of a capture of the real app-server up to
// the start of its second turn.
func firstTurn(path string) []codextest.AppServerRecord {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	recs, err := codextest.ReadAppServerTranscript(f)
	if err != nil {
		log.Fatal(err)
	}
	turns := 0
	for i, r := range recs {
		if r.Dir == codextest.DirClient && strings.Contains(string(r.Msg), `"turn/start"`) {
			if turns++; turns == 2 {
				return recs[:i]
			}
		}
	}
	return recs
}

// A Session drives one `codex app-server` process: here the fake of
// package codextest, replaying a capture of the real one in-process, but a
// program hands it the pipes of the process it started instead. One
// goroutine reads the server's output through Events; the calls wait for
// their answers meanwhile.
func ExampleSession() {
	serverIn, toServer := io.Pipe()
	fromServer, serverOut := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- codextest.ServeAppServer(context.Background(), firstTurn("testdata/appserver/plain.ndjson"), serverIn, serverOut)
		serverOut.Close() // as the process's exit would
	}()

	s := codex.NewSession(toServer)
	events := make(chan codex.Event, 64)
	go func() {
		defer close(events)
		for e, err := range s.Events(fromServer) {
			if err != nil {
				log.Print(err) // a line skipped, or the output ended mid-turn
				continue
			}
			events <- e
		}
	}()

	ctx := context.Background()
	server, err := s.Initialize(ctx, codex.ClientInfo{Name: "example", Version: "1.0.0"}, codex.InitializeOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("codex", server.Version)
	thread, err := s.StartThread(ctx, codex.ThreadOptions{CWD: "/tmp/cx-app/plain/cwd"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("model", thread.Model, "sandbox", thread.Sandbox.Type)
	input := []codex.Input{codex.TextInput("Say hello and tell me what 2 + 2 is.")}
	if _, err := s.StartTurn(ctx, thread.Thread.ID, input, codex.TurnOptions{}); err != nil {
		log.Fatal(err)
	}
	for e := range events {
		switch e := e.(type) {
		case codex.TextDelta:
			fmt.Printf("delta %q\n", e.Delta)
		case codex.Text:
			fmt.Printf("message %q\n", e.Text)
		case codex.TokenUsage:
			fmt.Println("thread tokens", e.Total.Total, "of", e.ContextWindow)
		case codex.CommandApproval:
			s.Decide(e, codex.DecisionDecline) // this example runs nothing
		case codex.TurnEnd:
			fmt.Println("turn", e.Turn.Status, e.Err())
			toServer.Close() // done: the server exits at the end of its input
		}
	}
	fmt.Println("server:", <-served)
	// Output:
	// codex 0.171.0
	// model gpt-5.5 sandbox readOnly
	// delta "Hello from t"
	// delta "he mock serv"
	// delta "er. 2 + 2 = "
	// delta "4."
	// message "Hello from the mock server. 2 + 2 = 4."
	// thread tokens 10085 of 258400
	// turn completed <nil>
	// server: <nil>
}
