package main

import "strings"

// sides describes who serves each side's methods; "acp." stands for the
// package that declares Method and Notification, qualified only outside
// package acp.
var sides = []struct{ side, doc string }{
	{"agent", "The methods a client calls on an agent (client → agent). An agent serves them with [acp.Method.Handle] and [acp.Notification.Handle]; a client calls them with [acp.Method.Call] and [acp.Notification.Notify]."},
	{"client", "The methods an agent calls on a client (agent → client). A client serves them with [acp.Method.Handle] and [acp.Notification.Handle]; an agent calls them with [acp.Method.Call] and [acp.Notification.Notify], those a client capability gates only when the client declared it."},
	{"protocol", "The methods either side sends."},
	{"proxy", "The methods a conductor exchanges with the proxies of a proxy chain."},
}

// emitMethods writes the method values and their table.
func (m *model) emitMethods(pkg string) ([]byte, error) {
	var f file
	var imports []string
	for _, mt := range m.methods {
		if mt.result != nil && mt.result.kind == kRaw {
			imports = []string{"encoding/json"}
		}
	}
	if m.pkg != "acp" {
		imports = append(imports, "", "github.com/acpkit/acpkit/acp")
	}
	f.header(pkg, imports...)
	qual := strings.TrimSuffix(m.acp("Method"), "Method")
	for _, s := range sides {
		for _, unstable := range []bool{false, true} {
			var ms []*method
			for _, mt := range m.methods {
				if mt.side == s.side && mt.unstable == unstable {
					ms = append(ms, mt)
				}
			}
			if len(ms) == 0 {
				continue
			}
			doc := strings.ReplaceAll(s.doc, "acp.", qual)
			if unstable {
				first, _, _ := strings.Cut(doc, ".")
				doc = "Unstable " + lowerFirst(strings.TrimPrefix(first, "The ")) + ": ACP's unstable schema defines them, the stable one does not; they may change or be removed."
			}
			f.p("%s", comment(m.withExperimental(doc), ""))
			f.p("var (\n")
			for _, mt := range ms {
				if d, ok := m.t.docs[mt.wire]; m.t.use("doc "+mt.wire, ok) {
					f.p("%s", comment(d, "\t"))
				}
				if mt.notification {
					f.p("\t%s = %sNotification[%s]{Name: %q}\n", mt.name, qual, mt.params.name, mt.wire)
				} else {
					result := mt.result.name
					if mt.result.kind == kRaw {
						result = "json.RawMessage"
					}
					f.p("\t%s = %sMethod[%s, %s]{Name: %q}\n", mt.name, qual, mt.params.name, result, mt.wire)
				}
			}
			f.p(")\n\n")
		}
	}
	// Package acp's own table is of its unexported method interface,
	// which another package's values do not implement.
	elem := "method"
	if m.pkg != "acp" {
		elem = "any"
	}
	f.p("// schemaMethods lists every method value above.\nvar schemaMethods = []%s{\n", elem)
	for _, s := range sides {
		for _, mt := range m.methods {
			if mt.side == s.side {
				f.p("\t%s,\n", mt.name)
			}
		}
	}
	f.p("}\n")
	return f.source()
}
