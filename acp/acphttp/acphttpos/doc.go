// Package acphttpos serves an ACP agent remotely with what package
// acphttp leaves to its caller, from the operating system: a listener on
// an address, an http.Server speaking HTTP/1.1 and cleartext HTTP/2, a
// token file, the real clock, and a graceful shutdown. A program that
// serves an agent at http://ADDR/acp needs one call:
//
//	err := acphttpos.Serve(ctx, acphttpos.Config{
//		Addr:       addr,
//		TokenFile:  tokenFile,
//		NewHandler: func(*acphttp.Connection) acp.Handler { return agent },
//	})
//
// where ctx is signal.NotifyContext's, ended by SIGINT or SIGTERM.
//
// Package acphttp never imports this one: a program that runs its own
// http.Server, or authenticates otherwise, mounts an [acphttp.Server]
// itself, with [Clock] for its timers.
package acphttpos
