// Command acpcheck runs package acpcheck's conformance suite against an
// ACP agent and prints what it found: a table of the checks (id, level,
// result, reason, the doc section each comes from), or the report as
// JSON with -json. It exits 1 when a MUST check failed, 2 on bad usage,
// and 0 otherwise. While it runs, it shows its progress on stderr when
// stderr is a terminal.
//
// Usage:
//
//	acpcheck [flags] -- COMMAND [ARG...]   an agent over stdio
//	acpcheck [flags] -url URL              a remote agent
//
// The agent is started once for each connection the suite opens, with
// this process's environment, in -dir (a temporary directory when not
// given), which the sessions also use as their cwd. A remote agent is
// dialled at URL (http://HOST/acp) over -transport websocket or
// streamable-http, with "Authorization: Bearer" and the contents of
// -token-file when given. -trace FILE writes every message of every
// connection to FILE, one JSON object per line.
//
//	go run ./examples/acpcheck -- go run ./examples/echo-agent
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/acpkit/acpkit/acp/acpcheck"
	"github.com/acpkit/acpkit/acp/acpcheck/acpcheckos"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("acpcheck", flag.ContinueOnError)
	flags.SetOutput(stderr)
	asJSON := flags.Bool("json", false, "print the report as JSON")
	url := flags.String("url", "", "check the remote agent at `URL` (http://HOST/acp) instead of a command")
	transport := flags.String("transport", string(acpcheck.WebSocket), "with -url, the transport: websocket or streamable-http")
	tokenFile := flags.String("token-file", "", "with -url, send \"Authorization: Bearer\" and this `file`'s contents")
	dir := flags.String("dir", "", "the sessions' cwd, an existing `directory` the agent may write in; a temporary one by default")
	trace := flags.String("trace", "", "write every message to `FILE`, one JSON object per line")
	timeout := flags.Duration("timeout", acpcheck.DefaultTimeout, "bound each check to this `duration`")
	skip := flags.String("skip", "", "comma-separated `checks` or groups not to run")
	list := flags.Bool("list", false, "list the checks and exit")
	promptText := flags.String("prompt", acpcheck.DefaultPrompt, "the `text` of the prompts whose turns run to their end")
	longPrompt := flags.String("long-prompt", acpcheck.DefaultLongPrompt, "the `text` of the prompts whose turns are cancelled: it should keep the agent busy")
	flags.Usage = func() {
		fmt.Fprintln(stderr, "usage: acpcheck [flags] -- COMMAND [ARG...]\n       acpcheck [flags] -url URL")
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if *list {
		return listChecks(stdout, *asJSON)
	}
	command := flags.Args()
	if (*url == "") == (len(command) == 0) {
		flags.Usage()
		return 2
	}

	opts := acpcheck.Options{Timeout: *timeout, Cwd: *dir, Prompt: *promptText, LongPrompt: *longPrompt}
	if *skip != "" {
		opts.Skip = strings.Split(*skip, ",")
	}
	if opts.Cwd == "" {
		tmp, err := os.MkdirTemp("", "acpcheck")
		if err != nil {
			fmt.Fprintln(stderr, "acpcheck:", err)
			return 1
		}
		defer os.RemoveAll(tmp)
		opts.Cwd = tmp
	}
	if *trace != "" {
		f, err := os.Create(*trace)
		if err != nil {
			fmt.Fprintln(stderr, "acpcheck:", err)
			return 1
		}
		defer f.Close()
		opts.Trace = f
	}
	if isTerminal(stderr) {
		opts.Progress = func(r acpcheck.Result, done, total int) {
			fmt.Fprintf(stderr, "\r\033[K[%d/%d] %s %s", done, total, r.ID, r.Outcome)
			if done == total {
				fmt.Fprint(stderr, "\r\033[K")
			}
		}
	}

	var target acpcheck.Target
	if *url != "" {
		token := ""
		if *tokenFile != "" {
			b, err := os.ReadFile(*tokenFile)
			if err != nil {
				fmt.Fprintln(stderr, "acpcheck:", err)
				return 1
			}
			token = strings.TrimSpace(string(b))
		}
		t := acpcheck.Transport(*transport)
		if t != acpcheck.WebSocket && t != acpcheck.StreamableHTTP {
			fmt.Fprintf(stderr, "acpcheck: -transport %q: want websocket or streamable-http\n", *transport)
			return 2
		}
		target = acpcheckos.URL(*url, token, t)
	} else {
		target = (&acpcheckos.Cmd{Path: command[0], Args: command[1:], Dir: opts.Cwd}).Target()
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	report, err := acpcheck.Verify(ctx, target, &opts)
	if err != nil {
		fmt.Fprintln(stderr, "acpcheck:", err)
		return 2
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(report)
	} else {
		err = report.WriteTable(stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "acpcheck:", err)
		return 1
	}
	if len(report.Failed(acpcheck.Must)) > 0 {
		return 1
	}
	return 0
}

// listChecks prints the suite's checks.
func listChecks(w io.Writer, asJSON bool) int {
	checks := acpcheck.Checks()
	var err error
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		err = enc.Encode(checks)
	} else {
		for _, c := range checks {
			if _, err = fmt.Fprintf(w, "%-48s %-6s %s\n", c.ID, c.Level, c.Doc); err != nil {
				break
			}
		}
	}
	if err != nil && !errors.Is(err, os.ErrClosed) {
		return 1
	}
	return 0
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
