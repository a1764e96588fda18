// Package bridgeos gives a program that serves a [bridge.Agent] what
// package bridge leaves to its caller, from the operating system: a
// Starter that runs the CLI as a process of its own, a real clock, and
// random session ids. [NewAgent] fills them in, so that a program sets
// only what it chooses:
//
//	agent, err := bridgeos.NewAgent(bridge.Config{CLI: bridge.Codex, Logger: log})
//
// Package bridge never imports this one: a test, or a program that runs
// its CLIs elsewhere, gives the Agent its own.
package bridgeos
