// Package acpcheck is a conformance suite for ACP agents: it plays a
// scripted editor against an agent, checks what the agent does against the
// MUST and SHOULD sentences of the ACP docs, the schema and JSON-RPC, and
// reports each check with the sentence it comes from.
//
// # Three ways to run it
//
// From a Go test, one subtest per check:
//
//	func TestConformance(t *testing.T) {
//		acpcheck.Run(t, acpcheckos.Command("my-agent", "--flag"), nil)
//	}
//
// Programmatically, for a typed [Report]:
//
//	report, err := acpcheck.Verify(ctx, target, &acpcheck.Options{Cwd: dir})
//	for _, r := range report.Failed(acpcheck.Must) { … }
//
// From the command line, with examples/acpcheck, which prints the report
// as a table or as JSON and exits 1 on a failed MUST:
//
//	go run ./examples/acpcheck -- my-agent --flag
//	go run ./examples/acpcheck -url http://127.0.0.1:8080/acp -token-file token
//
// # Targets
//
// A [Target] is where the agent is: [Stdio] runs it once for each
// connection the suite opens (each with its own initialize, so that a check
// that breaks one leaves the others alone), and [Remote] dials it at a URL
// over WebSocket or Streamable HTTP with package acphttp's clients. Like
// the module's other library packages, acpcheck opens nothing itself:
// [Stdio] takes the function that starts the agent, [Remote] the caller's
// *http.Client, and the checks' time limits run on a [Clock].
// Package [github.com/acpkit/acpkit/acp/acpcheck/acpcheckos] has the
// operating system's: a command, a URL with a real client, the clock.
//
// # The checks
//
// [Checks] lists them; each has an ID (GROUP.NAME), a [Level] and a
// [Source]. They cover the wire (only JSON-RPC on stdout, one message a
// line, UTF-8, ids kept exactly), initialize (version negotiation, a result
// valid against the schema, what happens before it), errors (-32601,
// -32602 naming the member, -32700, -32600, no reply to a notification, the
// connection surviving each), sessions (unique ids, an absolute cwd,
// mcpServers required, unknown sessions refused, updates only for the
// sessions a connection holds), capability honesty (every advertised
// prompt content type and MCP transport accepted, unadvertised ones and
// unadvertised session methods refused), prompts and cancellation (a stop
// reason; cancelled turns answered cancelled, a pending permission answered
// cancelled included; no update of a turn after its response),
// session/load, list, resume, close and delete as advertised, ACP v2 where
// the agent offers it, and for a URL the remote transport (401 without
// credentials, 403 for a foreign Origin, the RFD's statuses, isolation
// between connections). Checks that need a turn accept any valid one: none
// depends on what a model says. A check that does not apply is skipped,
// saying why: a capability not advertised, a transport that cannot carry
// it, or a turn too short to cancel.
//
// # The editor
//
// The suite initializes as an editor that reads and writes files (held in
// memory) and runs no terminals, grants every permission the agent asks
// (but those of a turn it cancels, which it answers cancelled), and
// records the wire: over stdio every line either side wrote, byte for
// byte; over a remote transport every message, in the order the
// connection read and wrote them ([Options].Trace writes them). The agent gets prompts to work in [Options].Cwd, a scratch
// directory.
package acpcheck
