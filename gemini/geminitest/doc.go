// Package geminitest helps test programs that drive the Gemini CLI,
// without the real CLI and without an API key.
//
// # A fake CLI
//
// [Run] is a stand-in for `gemini --output-format stream-json`: it accepts
// the real CLI's command line and replays a recorded transcript on its
// standard output, with the real CLI's exit status. It touches nothing but
// what its [Env] gives it, so it runs in-process in a unit test as well as
// in a real child process. The program examples/fakegemini is a thin main
// over it.
//
// A test can also run the fake as a child process without building
// anything, by starting its own test binary with a marker in the
// environment and calling Run from TestMain:
//
//	func TestMain(m *testing.M) {
//		if os.Getenv("BE_FAKE_GEMINI") == "1" {
//			os.Exit(geminitest.Run(context.Background(), geminitest.Env{
//				Args: os.Args[1:], Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
//				Open:   func(name string) (fs.File, error) { return os.Open(name) },
//				Getenv: os.Getenv,
//			}))
//		}
//		os.Exit(m.Run())
//	}
//
// and then running os.Args[0] with BE_FAKE_GEMINI=1 and
// FAKEGEMINI_TRANSCRIPT set wherever the program under test runs `gemini`.
//
// The fake also stands in for `gemini --acp`, the CLI's ACP agent,
// replaying a transcript of both directions of an ACP session (see
// [Run] and [ACPEntry]; gemini/testdata/acp holds captures of the real
// CLI). A strict replay serves one client that says what the recorded
// one said. With [EnvLenient] set, it serves any client instead, as a
// conformance suite is: sessions of fresh ids, as many as asked for,
// each prompt answered with a turn of the transcript's, a cancel ending
// the turn at once.
//
// # Transcripts
//
// A transcript is a file of stream-json lines as the CLI prints them, with
// optional companions: NAME.stderr, copied to standard error, and
// NAME.exit, the exit status (gemini/testdata holds examples of every kind
// of run, most of them real captures). A directory holding new.jsonl and
// resume.jsonl stands for a session of two runs: the first without
// --resume, the second with it. [Render] describes what the gemini package
// reads from a transcript, the format of the golden files beside those
// examples.
package geminitest
