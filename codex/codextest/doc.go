// Package codextest helps test programs that drive the OpenAI Codex CLI,
// without the real CLI and without spending API credit.
//
// # A fake CLI
//
// [Run] is a stand-in for `codex exec --json`: it accepts the real CLI's
// command line, refuses what the real one refuses, and replays a recorded
// transcript on its standard output, exiting as the real CLI would after
// it. It touches nothing but what its [Env] gives it, so it runs in-process
// in a unit test as well as in a real child process. The program
// examples/fakecodex is a thin main over it.
//
// A test can also run the fake as a child process without building
// anything, by starting its own test binary with a marker in the
// environment and calling Run from TestMain:
//
//	func TestMain(m *testing.M) {
//		if os.Getenv("BE_FAKE_CODEX") == "1" {
//			os.Exit(codextest.Run(context.Background(), codextest.Env{
//				Args: os.Args[1:], Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
//				Open:   func(name string) (fs.File, error) { return os.Open(name) },
//				Getenv: os.Getenv,
//			}))
//		}
//		os.Exit(m.Run())
//	}
//
// and then running os.Args[0] with BE_FAKE_CODEX=1 and
// FAKECODEX_TRANSCRIPT set wherever the program under test runs `codex`.
//
// # A fake app-server
//
// [ServeAppServer] plays the server's side of a two-direction transcript
// of `codex app-server` (the format the captures in
// codex/testdata/appserver are in, read by [ReadAppServerTranscript])
// against a live client: it writes the server's lines, reads the client's,
// checks each against the recorded one, loosely where a client may differ
// (its request ids, which the answers are rewritten to; members other
// than the method, the thread and turn ids and an approval's decision),
// and reports a departure as an error wrapping [ErrDeparted]. A test runs
// it in-process over a pair of io.Pipes, inside a synctest bubble if it
// likes: it never reads the clock. Run does the same for the command line
// `codex app-server [-c key=value]…`, so the fakecodex binary stands in for
// the real server too. A record of direction [DirExit], which a test adds
// to a transcript, makes the server exit there, as one that crashes.
//
// [ServeLenientAppServer] serves any client from a transcript instead,
// as the real server would: new threads and turns with ids of their own,
// each turn/start playing one of the transcript's turns, approvals waiting
// for the client's answer, turn/interrupt ending the turn, other methods
// answered as recorded or refused as unknown. A client that runs many
// sessions, prompts and cancels in any order, as a conformance suite
// does, needs it; Run serves so when [EnvLenient] is 1.
//
// # Transcripts
//
// A transcript is a file of `codex exec --json` lines as the CLI prints
// them (codex/testdata holds real and hand-written examples of every kind
// of run). A directory holding new.jsonl and resume.jsonl stands for a
// thread of two runs: the first a new thread, the second `exec resume`; an
// empty resume.jsonl with a resume.stderr is a resume the CLI refuses.
// [Render] describes the events a transcript yields, the format of the
// golden files beside those examples.
package codextest
