package bridge

import "github.com/acpkit/acpkit/acp"

// ACPToolKind is toolKind, for the tests of package bridge_test.
func ACPToolKind[K ~string](k K) acp.ToolKind { return toolKind(k) }
