// Command remote-client sends one prompt to a remote ACP agent and prints
// the agent's reply as it streams. It connects over ACP's remote transport,
// WebSocket by default or Streamable HTTP with -transport http, opens a
// session, prompts it and exits when the turn ends.
//
//	remote-client [-url http://127.0.0.1:8080/acp] [-token-file F] [-transport ws|http] [-cwd DIR] PROMPT...
//
// With -token-file F it sends "Authorization: Bearer " and the file's
// contents. The agent's message text goes to stdout; the stop reason, and
// any error, to stderr. Try it with the echo agent:
//
//	$ echo s3cret > token
//	$ go run ./examples/echo-agent -listen 127.0.0.1:8080 -token-file token &
//	$ go run ./examples/remote-client -token-file token hello over the network
//	hello over the network
//	end_turn
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acphttp"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:8080/acp", "the agent's endpoint")
	tokenFile := flag.String("token-file", "", "send \"Authorization: Bearer\" and this `file`'s contents")
	transport := flag.String("transport", "ws", "the profile: `ws` (WebSocket) or http (Streamable HTTP)")
	cwd := flag.String("cwd", "", "the session's working directory; empty means this one")
	flag.Parse()
	if err := run(*url, *tokenFile, *transport, *cwd, strings.Join(flag.Args(), " ")); err != nil {
		fmt.Fprintln(os.Stderr, "remote-client:", err)
		os.Exit(1)
	}
}

func run(url, tokenFile, transport, cwd, text string) error {
	if text == "" {
		return errors.New("give a prompt")
	}
	if cwd == "" {
		var err error
		if cwd, err = os.Getwd(); err != nil {
			return err
		}
	}
	header := http.Header{}
	if tokenFile != "" {
		b, err := os.ReadFile(tokenFile)
		if err != nil {
			return err
		}
		header.Set("Authorization", "Bearer "+strings.TrimSpace(string(b)))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var out sync.Mutex // updates print in order, one at a time
	var client acp.Methods
	acp.SessionUpdate.Handle(&client, func(_ context.Context, _ *acp.Conn, n acp.SessionNotification) {
		if c, ok := n.Update.(acp.AgentMessageChunk); ok {
			if t, ok := c.Content.(acp.TextContent); ok {
				out.Lock()
				fmt.Print(t.Text)
				out.Unlock()
			}
		}
	})
	opts := &acphttp.DialOptions{HTTPClient: &http.Client{}, Header: header}
	var conn *acp.Conn
	var err error
	switch transport {
	case "ws":
		dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		conn, err = acphttp.DialWebSocket(dctx, url, client, opts)
		cancel()
	case "http":
		conn, err = acphttp.DialStreamableHTTP(url, client, opts)
	default:
		err = fmt.Errorf("-transport must be ws or http, not %q", transport)
	}
	if err != nil {
		return err
	}
	defer func() {
		conn.Close()
		conn.Wait()
	}()
	if _, err := acp.Initialize.Call(ctx, conn, acp.InitializeParams{ProtocolVersion: acp.ProtocolVersion}); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	s, err := acp.SessionNew.Call(ctx, conn, acp.NewSessionParams{Cwd: cwd})
	if err != nil {
		return fmt.Errorf("session/new: %w", err)
	}
	// An interrupt cancels the turn: the agent answers "cancelled".
	stopCancel := context.AfterFunc(ctx, func() {
		acp.SessionCancel.Notify(context.Background(), conn, acp.CancelParams{SessionID: s.SessionID})
	})
	defer stopCancel()
	r, err := acp.SessionPrompt.Call(context.WithoutCancel(ctx), conn, acp.PromptParams{SessionID: s.SessionID, Prompt: acp.ContentBlocks{acp.TextContent{Text: text}}})
	if err != nil {
		return fmt.Errorf("session/prompt: %w", err)
	}
	fmt.Println()
	fmt.Fprintln(os.Stderr, r.StopReason)
	return nil
}
