// Package acphttp carries ACP over HTTP, as the "Streamable HTTP &
// WebSocket Transport" RFD defines it: a [Server] that serves an agent at
// one endpoint over both of its profiles, and [DialWebSocket] and
// [DialStreamableHTTP], which connect a client to a remote agent. Each
// side of each connection is an ordinary [acp.Conn], so an agent written
// for stdio is served remotely with no change to its handlers.
package acphttp
