// Package goose implements goose's extensions to ACP: the steer request,
// which adds user input to the prompt turn that is running; the run
// metadata goose puts in a session update's _meta; and its custom
// session update notification, which carries a session-cumulative
// usage_update payload.
//
// The extension methods are typed values of package acp, served and called
// like the ACP methods:
//
//	goose.SessionSteer.Handle(&methods, func(ctx context.Context, conn *acp.Conn, p goose.SteerParams) (goose.SteerResult, error) { … })
//	err := goose.SessionUpdate.Notify(ctx, conn, goose.SessionNotification{SessionID: id, Update: goose.NewUsageUpdate(snapshot)})
//
// Send [SessionUpdate] only to a client for which [AcceptsCustomNotifications]
// reports true.
//
// Unstable: goose may change or remove any of its extensions, and this
// package with them. Like package acp, it opens nothing and reads no clock.
package goose
