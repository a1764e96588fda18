// Command claude-acp is an ACP agent that lets an editor drive the Claude
// Code CLI: each ACP session is served by one long-lived `claude` process
// in streaming-input mode, whose output becomes session updates and whose
// permission questions go to the editor. With -cli codex it drives the
// OpenAI Codex CLI instead, one long-lived `codex app-server` per session,
// whose approvals go to the editor too; with -cli gemini the Gemini CLI
// through its own ACP mode (`gemini --acp`), one process per session,
// whose permission questions and file writes go to the editor, and with
// -cli gemini-headless the Gemini CLI run headless (`gemini -p`), one
// process per turn, which asks nothing. With -cli acp it puts any agent
// that speaks ACP on stdio behind the editor, started with -agent's
// command line, one process per session, and gives it what it gives the
// CLIs: session supervision, remote transports, ACP v2 and goose's
// usage. The translation is package bridge, and starting processes
// package bridgeos; this program only reads its flags, wires stdio,
// handles signals and logs.
//
//	claude-acp [-cli claude|codex|gemini|gemini-headless] [-claude PATH] [-codex PATH] [-gemini PATH]
//		[-model NAME] [-turn-timeout D] [-idle D] [-grace D] [-wrap 'CMD ARGS']
//		[-protocol auto|v1|v2] [-listen ADDR [-token-file F]] [-- CLI ARGS]
//	claude-acp -cli acp -agent 'CMD ARGS' [-agent-name NAME] [-agent-takes LIST] [same flags]
//	claude-acp -version
//	claude-acp [-cli claude|codex|gemini] [-claude PATH] … login
//
// With "login" as its last argument it runs the CLI's own sign-in (`claude
// auth login`) in the terminal it was started in, and exits with its
// status: the terminal authentication method it advertises to an editor
// that runs such methods (ACP's clientCapabilities.auth.terminal), which
// appends "login" to the command line the editor starts it with. The
// editor's logout runs the CLI's sign-out (`claude auth logout`).
//
// With -listen it serves editors remotely at http://ADDR/acp instead of
// on stdio (see remote.go). -version prints its version and the release
// of each CLI it was tested with.
//
// The editor's session list shows the sessions the CLI keeps on disk for
// the user running claude-acp ($CLAUDE_CONFIG_DIR or ~/.claude for Claude
// Code, $CODEX_HOME or ~/.codex for Codex, ~/.gemini for Gemini CLI), and
// session/load shows their conversation again. An agent of -cli acp keeps
// none that claude-acp can read: the list shows the sessions opened
// since it started, session/resume takes only those (on stdio, none of
// an earlier run's), and a session goes on after an idle stop or a
// crash only if the agent can load or resume it.
//
// -agent-takes says what the agent of -cli acp takes besides text,
// resource links and stdio MCP servers, which every ACP agent takes, as
// a comma-separated list of image, audio, resource, mcp-http and
// mcp-sse; initialize advertises it, and the rest is refused.
//
// Arguments after "--" are added to every CLI command line. -wrap runs each
// CLI through a launcher such as an OS sandbox: its words come first, with
// {cwd} replaced by the session's directory, then the CLI and its
// arguments; for example -wrap 'bwrap --dev-bind / / --chdir {cwd} --'.
//
// -protocol says which versions of ACP it speaks: v1, v2 (the draft; see
// package acpv2), or auto (the default), which gives an editor that asks
// for version 2 or later v2 and every other editor v1. In v2 a prompt is
// acknowledged at once and its turn reported in updates patched by
// message id, ending with an idle state; edits are structured file
// changes, and permission questions carry their own title. With auto or
// v2 an editor must initialize before anything else, as ACP asks.
//
// Logs go to stderr; stdout carries only ACP messages. The agent exits
// when the editor closes its stdin, or on SIGINT or SIGTERM, after
// stopping every CLI it started.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/bridge"
	"github.com/acpkit/acpkit/bridge/bridgeos"
	"golang.org/x/sync/errgroup"
)

func main() {
	cliName := flag.String("cli", "claude", "what serves the sessions: `claude`, codex, gemini, gemini-headless, or acp (an ACP agent, -agent)")
	paths := map[string]*string{
		"claude": flag.String("claude", "claude", "the Claude Code CLI to run, a `path` or a name looked up in PATH"),
		"codex":  flag.String("codex", "codex", "the Codex CLI to run, a `path` or a name looked up in PATH"),
		"gemini": flag.String("gemini", "gemini", "the Gemini CLI to run, a `path` or a name looked up in PATH"),
	}
	agentCmd := flag.String("agent", "", "with -cli acp, the ACP agent's command line, as `'CMD ARGS'`")
	agentName := flag.String("agent-name", "ACP agent", "with -cli acp, the agent's `name` in messages")
	agentTakes := flag.String("agent-takes", "", "with -cli acp, what the agent takes besides text: a comma-separated `list` of image, audio, resource, mcp-http, mcp-sse")
	model := flag.String("model", "", "the `model` new sessions start with; empty means the CLI's default")
	turnTimeout := flag.Duration("turn-timeout", 10*time.Minute, "end a turn with an error when the CLI writes nothing for this long; 0 means never")
	idle := flag.Duration("idle", 5*time.Minute, "stop a session's CLI after this long without a prompt; 0 means never")
	grace := flag.Duration("grace", 5*time.Second, "how long the CLI has to end a cancelled turn, or to exit once its input is closed, before it is signalled")
	wrap := flag.String("wrap", "", "a launcher every CLI start goes through, as `'CMD ARGS'`; {cwd} is replaced by the session's directory")
	verbose := flag.Bool("v", false, "log debug messages")
	listen := flag.String("listen", "", "serve remotely at http://`ADDR`/acp instead of on stdin and stdout")
	tokenFile := flag.String("token-file", "", "with -listen, require \"Authorization: Bearer\" and this `file`'s contents")
	protocol := flag.String("protocol", "auto", "the ACP versions to speak: `auto` (v2 to an editor that asks for 2 or later, v1 otherwise), v1 or v2")
	showVersion := flag.Bool("version", false, "print claude-acp's version and the CLI releases it was tested with, and exit")
	flag.Parse()
	if *showVersion {
		fmt.Print(versions())
		return
	}

	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	speaks, ok := map[string]bridge.Versions{"v1": bridge.V1, "v2": bridge.V2, "auto": bridge.V1 | bridge.V2}[*protocol]
	if !ok {
		log.Error("claude-acp: -protocol must be auto, v1 or v2", "protocol", *protocol)
		os.Exit(2)
	}
	cli, program := clis[*cliName], ""
	switch {
	case *cliName == "acp":
		words := strings.Fields(*agentCmd)
		accepts, err := agentAccepts(*agentTakes)
		if len(words) == 0 || err != nil {
			log.Error("claude-acp: -cli acp needs -agent 'CMD ARGS', and -agent-takes a list of image, audio, resource, mcp-http, mcp-sse", "agent", *agentCmd, "error", err)
			os.Exit(2)
		}
		program = words[0]
		cli = bridge.ACPAgent(bridge.ACPAgentInfo{Name: *agentName, Program: program, Args: words[1:], Accepts: accepts})
	case cli == nil:
		log.Error("claude-acp: -cli must be claude, codex, gemini, gemini-headless or acp", "cli", *cliName)
		os.Exit(2)
	default:
		program = *paths[cli.Info().Program]
	}
	if args := flag.Args(); len(args) > 0 && args[len(args)-1] == loginArg {
		os.Exit(signIn(program, cli.Info(), log))
	}
	start, err := bridgeos.Starter(program, strings.Fields(*wrap))
	if err != nil {
		log.Error("claude-acp: the CLI was not found", "cli", *cliName, "error", err)
		os.Exit(1)
	}
	agent, err := bridgeos.NewAgent(bridge.Config{
		CLI:         cli,
		Start:       start,
		Model:       *model,
		ExtraArgs:   flag.Args(),
		TurnTimeout: *turnTimeout,
		Idle:        *idle,
		Grace:       *grace,
		AllowBypass: cli != bridge.Claude || os.Geteuid() != 0, // Claude Code refuses bypassPermissions as root
		LoginArgs:   []string{loginArg},
		Logger:      log,
	})
	if err != nil {
		log.Error("claude-acp", "error", err)
		os.Exit(1)
	}
	if *listen != "" {
		os.Exit(serveRemote(agent, speaks, *listen, *tokenFile, log))
	}
	os.Exit(serve(agent, agent.Handler(bridge.Editor{Versions: speaks}), log))
}

// loginArg, the last argument, makes claude-acp run the CLI's sign-in.
const loginArg = "login"

// signIn runs the CLI's own sign-in in this terminal and returns its exit
// status; 2 for a CLI that has none.
func signIn(program string, info bridge.CLIInfo, log *slog.Logger) int {
	if info.SignIn == nil {
		log.Error("claude-acp: this CLI has no sign-in of its own", "cli", info.Name)
		return 2
	}
	cmd := exec.Command(program, info.SignIn...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode()
	case err != nil:
		log.Error("claude-acp: the sign-in did not run", "cli", info.Name, "error", err)
		return 1
	}
	return 0
}

// serve answers the editor on stdin and stdout until it closes stdin or a
// signal comes, and returns the exit status.
func serve(agent *bridge.Agent, h acp.Handler, log *slog.Logger) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	conn := acp.NewConn(context.Background(), os.Stdin, os.Stdout, h, &acp.ConnOptions{Logger: log})
	var g errgroup.Group
	g.Go(func() error {
		defer stop() // the editor is gone: stop waiting for a signal
		return conn.Wait()
	})
	<-ctx.Done()
	signalled := true
	select {
	case <-conn.Done():
		signalled = false
	default:
	}

	// Every prompt still running is cancelled and answered, and every CLI
	// stopped, before the agent exits.
	agent.Close()
	if signalled {
		// A read of stdin cannot be interrupted: exit without waiting for it.
		conn.Close()
		log.Info("claude-acp stopped by a signal")
		return 1
	}
	if err := g.Wait(); err != nil {
		log.Error("claude-acp stopped", "error", err)
		return 1
	}
	return 0
}

// versions says which claude-acp this is, as the go command built it (a
// release's tag for go install …@vX, else a pseudo-version or "(devel)"),
// and which release of each CLI it was tested with.
func versions() string {
	v := "(unknown)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		v = bi.Main.Version
	}
	var b strings.Builder
	fmt.Fprintf(&b, "claude-acp %s\ntested with:\n", v)
	for _, name := range cliNames {
		info := clis[name].Info()
		fmt.Fprintf(&b, "  %s %s (-cli %s)\n", info.Name, info.Tested, name)
	}
	return b.String()
}

// clis are the CLIs -cli names, and cliNames their names in order.
var (
	clis = map[string]bridge.CLI{
		"claude": bridge.Claude, "codex": bridge.Codex,
		"gemini": bridge.GeminiACP, "gemini-headless": bridge.Gemini,
	}
	cliNames = []string{"claude", "codex", "gemini", "gemini-headless"}
)

// agentAccepts reads -agent-takes.
func agentAccepts(list string) (bridge.Accepts, error) {
	var a bridge.Accepts
	for _, w := range strings.Split(list, ",") {
		switch strings.TrimSpace(w) {
		case "":
		case "image":
			a.Image = true
		case "audio":
			a.Audio = true
		case "resource":
			a.EmbeddedContext = true
		case "mcp-http":
			a.MCPHTTP = true
		case "mcp-sse":
			a.MCPSSE = true
		default:
			return bridge.Accepts{}, fmt.Errorf("-agent-takes: %q is none of image, audio, resource, mcp-http, mcp-sse", w)
		}
	}
	return a, nil
}
