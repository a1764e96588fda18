// Package acpcheck is a conformance suite for ACP agents: it plays an
// editor against an agent, checks what the agent does against the MUST
// and SHOULD sentences of the ACP docs and the schema, and reports each
// check with the sentence it comes from.
package acpcheck
