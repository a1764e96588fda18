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
