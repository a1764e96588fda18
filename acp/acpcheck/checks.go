package acpcheck

// allChecks is the suite, in the order of its report: the wire, then
// initialize and sessions, prompts and capabilities, the session methods,
// v2, the remote transport, and last those that judge every connection.
var allChecks = concat(wireChecks, sessionChecks, promptChecks(), methodChecks, v2Checks, remoteChecks, passiveChecks, framingChecks)

func concat(lists ...[]checkDef) []checkDef {
	var out []checkDef
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}
