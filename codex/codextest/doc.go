// Package codextest helps test programs that drive the OpenAI Codex CLI,
// without the real CLI and without spending API credit.
//
// # Transcripts
//
// A transcript is a file of `codex exec --json` lines as the CLI prints
// them (codex/testdata holds real and hand-written examples of every kind
// of run). [Render] describes the events a transcript yields, the format of
// the golden files beside those examples.
package codextest
