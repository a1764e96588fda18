package parsetest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// CheckEventDoc checks that the doc comment of the Event interface of the
// package in dir names, as a [Name] link, every type of the package that
// implements it (has an isEvent method): the doc says the list is the
// whole closed set, so a type switch over it is complete.
func CheckEventDoc(t testing.TB, dir string) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var doc string
	var events []string
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.Name == "Event" {
						doc = d.Doc.Text() + ts.Doc.Text()
					}
				}
			case *ast.FuncDecl:
				if d.Name.Name != "isEvent" || d.Recv == nil || len(d.Recv.List) != 1 {
					continue
				}
				if id, ok := d.Recv.List[0].Type.(*ast.Ident); ok {
					events = append(events, id.Name)
				}
			}
		}
	}
	if doc == "" || len(events) == 0 {
		t.Fatalf("no Event interface with a doc comment, or no event type, in %s", dir)
	}
	slices.Sort(events)
	for _, e := range events {
		if !strings.Contains(doc, "["+e+"]") {
			t.Errorf("the Event doc does not list %s, which is an Event", e)
		}
	}
}
