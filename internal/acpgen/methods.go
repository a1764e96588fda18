package main

import "strings"

// sides describes who serves each side's methods.
var sides = []struct{ side, doc string }{
	{"agent", "The methods a client calls on an agent (client → agent). An agent serves them with [Method.Handle] and [Notification.Handle]; a client calls them with [Method.Call] and [Notification.Notify]."},
	{"client", "The methods an agent calls on a client (agent → client). A client serves them with [Method.Handle] and [Notification.Handle]; an agent calls them with [Method.Call] and [Notification.Notify], the fs/*, terminal/* and elicitation/* ones only when the client declared the capability."},
	{"protocol", "The methods either side sends."},
	{"proxy", "The methods a conductor exchanges with the proxies of a proxy chain."},
}

// emitMethods writes the method values and their table.
func (m *model) emitMethods(pkg string) ([]byte, error) {
	var f file
	raw := false
	for _, mt := range m.methods {
		raw = raw || mt.result != nil && mt.result.kind == kRaw
	}
	if raw {
		f.header(pkg, "encoding/json")
	} else {
		f.header(pkg)
	}
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
			doc := s.doc
			if unstable {
				first, _, _ := strings.Cut(s.doc, ".")
				doc = "Unstable " + lowerFirst(strings.TrimPrefix(first, "The ")) + ": ACP's unstable schema defines them, the stable one does not; they may change or be removed."
			}
			f.p("%s", comment(doc, ""))
			f.p("var (\n")
			for _, mt := range ms {
				if d, ok := m.t.docs[mt.wire]; m.t.use("doc "+mt.wire, ok) {
					f.p("%s", comment(d, "\t"))
				}
				if mt.notification {
					f.p("\t%s = Notification[%s]{Name: %q}\n", mt.name, mt.params.name, mt.wire)
				} else {
					result := mt.result.name
					if mt.result.kind == kRaw {
						result = "json.RawMessage"
					}
					f.p("\t%s = Method[%s, %s]{Name: %q}\n", mt.name, mt.params.name, result, mt.wire)
				}
			}
			f.p(")\n\n")
		}
	}
	f.p("// schemaMethods lists every method value above.\nvar schemaMethods = []method{\n")
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
