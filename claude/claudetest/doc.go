// Package claudetest helps test programs that drive the Claude Code CLI,
// without the real CLI and without spending API credit.
//
// # A fake CLI
//
// [Run] is a stand-in for `claude -p --output-format stream-json
// --verbose`: it accepts the real CLI's command line and replays a
// recorded transcript on its standard output. It touches nothing but what
// its [Env] gives it, so it runs in-process in a unit test as well as in a
// real child process. The program examples/fakeclaude is a thin main over
// it.
//
// A test can also run the fake as a child process without building
// anything, by starting its own test binary with a marker in the
// environment and calling Run from TestMain:
//
//	func TestMain(m *testing.M) {
//		if os.Getenv("BE_FAKE_CLAUDE") == "1" {
//			os.Exit(claudetest.Run(context.Background(), claudetest.Env{
//				Args: os.Args[1:], Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
//				Open:   func(name string) (fs.File, error) { return os.Open(name) },
//				Getenv: os.Getenv,
//			}))
//		}
//		os.Exit(m.Run())
//	}
//
// and then running os.Args[0] with BE_FAKE_CLAUDE=1 and
// FAKECLAUDE_TRANSCRIPT set wherever the program under test runs `claude`.
// (Without a Sleep function in the Env, FAKECLAUDE_DELAY is ignored;
// examples/fakeclaude shows one.)
//
// # Transcripts
//
// A transcript is a file of stream-json lines as the CLI prints them
// (claude/testdata holds examples of every kind of run). A directory holding
// new.jsonl and resume.jsonl stands for a conversation of two runs: the
// first without --resume, the second with it. [Render] describes the events
// a transcript yields, the format of the golden files beside those
// examples.
//
// # Streaming input
//
// Run with --input-format stream-json (the command line of
// claude.SessionCommandLine), the fake plays both sides' lines of a
// two-direction transcript (a .ndjson file of [Record] values, such as
// those in claude/testdata/control): it writes the CLI's recorded lines,
// and where the recorded client wrote a line, it waits for the client's
// and checks it loosely — the same [Kind], a fresh request id for a
// request, the right id in an answer — and fails with a message on stderr
// and status [ExitError] when the client writes anything else, closes its
// input mid-turn, or writes more after the transcript's end. Input that
// ends where the client could start a turn ends the run with status 0,
// as it does the real CLI's. Answers to
// the client's requests are rewritten to carry the ids the client chose.
// Because the fake waits at every recorded client line, a transcript
// scripts the pauses: the interrupt transcript stops mid-stream until the
// client sends its interrupt.
//
// Given instead a transcript of -p runs (the CLI's lines alone, such as
// claude/testdata/multiblock.jsonl), the streaming-input fake plays one
// turn of it for each user message the client writes, each turn the lines
// up to and including the next result line, and answers every control
// request with success and an empty response; it exits 0 when the
// client's input ends, and with [ExitError] at a user message after the
// last turn. So any recorded -p run can stand behind a program that
// drives the CLI in streaming-input mode, such as claude-acp, without
// recording the client's side.
//
// The fake names its session by the id it was given (--session-id or
// --resume), as the real CLI does, in place of the recorded run's. With a
// Store in its [Env], it also keeps the session on disk as Claude Code
// 2.1.328 does (the format of package claude's "Stored sessions"), so
// that a program that reads the CLI's store, to list or replay its
// sessions, can be tested against the fake too.
package claudetest
