package codex

// CodexBinary is codexBinary, for the tests of package codex_test.
var CodexBinary = codexBinary
