package bridge

import "github.com/acpkit/acpkit/acp"

// ACPToolKind is toolKind, for the tests of package bridge_test.
func ACPToolKind[K ~string](k K) acp.ToolKind { return toolKind(k) }

// PromptText, PromptBlocks and TextBlock are the bridge's encoding of a
// prompt as the CLI's text, and its reading back, for the tests of
// package bridge_test.
var (
	PromptText   = promptText
	PromptBlocks = promptBlocks
	TextBlock    = textBlock
	CodexStart   = codexStart
)
