// Package acptest runs an ACP client and agent in one process, joined by
// in-memory pipes, so an agent (or a client) can be tested without starting
// a subprocess.
//
//	client, agent, closePair := acptest.NewPair(ctx, clientHandler, myAgent, nil)
//	defer closePair()
//	result, err := acp.Initialize.Call(ctx, client, params)
package acptest
