// Package lines is the module's one bounded line reader: [Reader] splits a
// byte stream into lines of at most a given length, skipping blank lines,
// and survives a line over that length by skipping it whole and reporting
// a [*TooLongError], so that one runaway line costs neither the lines after
// it nor more memory than the maximum.
//
// acp.FrameReader wraps it for ACP's one message per line, and [Events]
// for the CLIs' output, read by claude, codex and gemini's Turn.Events;
// each converts [*TooLongError] into its own exported error type.
package lines
