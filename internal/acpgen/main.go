// Command acpgen writes the schema layer of an ACP package from the
// schema files the official SDK ships: Go types for the schema's types,
// with doc comments from its descriptions, their codecs, written against
// internal/wire, and the package's method values.
//
// Usage:
//
//	acpgen -schema dir -names file -pkg name -out dir [-register] [-experimental]
//
// dir holds schema.json and meta.json (the stable edition) and
// schema.unstable.json and meta.unstable.json (stable and unstable);
// what only the unstable edition has is marked Unstable. The naming table
// (see [table]) gives Go names where the schema's do not fit and the
// shapes the generator cannot choose by itself; a directive about nothing
// in the schema is an error, so that the table shrinks with the schema.
// It writes schema_gen.go (types), codec_gen.go (codecs) and
// methods_gen.go (method values) in the output directory. With -register,
// for a package other than acp, the codecs register the params and
// results with internal/wire, where package acp's decoders and encoders
// find them. A package other than acp names acp's declarations (its
// Method and Notification, the types of acp its naming table names)
// qualified. With -experimental, every declaration's doc comment says
// that it is Experimental, for a draft of the protocol (ACP v2's).
//
// Package acp runs it with go generate; adopting a schema release is:
// replace the files in acp/schema, run go generate ./acp, review the
// diff.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	schema := flag.String("schema", "schema", "the directory of the schema files")
	names := flag.String("names", "schema/names.txt", "the naming table")
	pkg := flag.String("pkg", "acp", "the Go package to write")
	out := flag.String("out", ".", "the directory to write to")
	register := flag.Bool("register", false, "register the params and results with internal/wire (for a package other than acp)")
	experimental := flag.Bool("experimental", false, "mark every declaration Experimental (for a draft of the protocol)")
	flag.Parse()
	if err := run(*schema, *names, *pkg, *out, options{register: *register, experimental: *experimental}); err != nil {
		fmt.Fprintln(os.Stderr, "acpgen:", err)
		os.Exit(1)
	}
}

// options are the generator's flags beside its files.
type options struct {
	register, experimental bool
}

func run(schemaDir, namesPath, pkg, out string, o options) error {
	e, err := loadEditions(schemaDir)
	if err != nil {
		return err
	}
	t, err := loadTable(namesPath)
	if err != nil {
		return err
	}
	m, err := buildModel(e, t, pkg, o)
	if err != nil {
		return err
	}
	files := map[string]func(string) ([]byte, error){
		"schema_gen.go":  m.emitTypes,
		"codec_gen.go":   m.emitCodecs,
		"methods_gen.go": m.emitMethods,
	}
	outputs := map[string][]byte{}
	for name, emit := range files {
		src, err := emit(pkg)
		if len(m.errs) > 0 {
			return fmt.Errorf("%s", bytes.Join(toBytes(m.errs), []byte("\n")))
		}
		if err != nil {
			os.WriteFile(filepath.Join(out, name+".broken"), src, 0o644)
			return fmt.Errorf("%s: %w (the unformatted source is in %s.broken)", name, err, name)
		}
		outputs[name] = src
	}
	if unused := t.unused(); len(unused) > 0 {
		slices.Sort(unused)
		return fmt.Errorf("naming table: about nothing in the schema: %s", strings.Join(unused, "; "))
	}
	for name, src := range outputs {
		if err := os.WriteFile(filepath.Join(out, name), src, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func toBytes(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}
