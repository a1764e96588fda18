// Package acpcheckos gives package acpcheck what it leaves to its caller,
// from the operating system: an agent started as a command for each
// connection the suite opens ([Command], [Cmd]), a URL dialled with a
// real HTTP client ([URL]), and the clock that times the checks
// ([Clock]). Its Targets carry the Clock, so that an agent's test needs
// one line:
//
//	func TestConformance(t *testing.T) {
//		acpcheck.Run(t, acpcheckos.Command("my-agent", "--flag"), nil)
//	}
//
// Each agent runs in a process group of its own (on Unix), which is
// killed when its connection ends, with whatever the agent started. Package
// acpcheck never imports this one: a test that runs its agent in-process
// gives acpcheck.Stdio a start function of its own.
package acpcheckos
