package codex

import (
	"encoding/json"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/internal/realcodex"
)

var refreshSchema = flag.Bool("refresh-schema", false,
	"regenerate testdata/appserver/schema.json with the real codex app-server "+AppServerVersion+" (installed with npm)")

// schemaFile is the protocol's JSON schema, as `codex app-server
// generate-json-schema` writes it (its bundle of every definition), pruned
// to the definitions the wire types model and those they refer to.
var schemaFile = filepath.Join("testdata", "appserver", "schema.json")

// wireSpec says which definitions of the schema a wire type models.
type wireSpec struct {
	// defs are the definitions, by their path under "definitions":
	// "InitializeParams", "v2/Thread", or "v2/ThreadItem#commandExecution"
	// for the alternative of a union whose "type" is commandExecution.
	// Each member of the type must be a member of one of them, of a
	// compatible type, and each member one of them requires must be a
	// member of the type.
	defs []string
	// part marks a type embedded in others, which hold the required
	// members: they are not asked of it.
	part bool
	// extra are members the real server sends that the schema lacks, with
	// why they are read.
	extra map[string]string
}

// wireSpecs lists every wire type. TestAppServerSchema fails on a wire
// type missing from it.
var wireSpecs = map[reflect.Type]wireSpec{
	reflect.TypeFor[wireMessage](): {defs: []string{"JSONRPCRequest", "JSONRPCNotification", "JSONRPCResponse", "JSONRPCError"},
		extra: map[string]string{"emittedAtMs": "the server puts it on every notification (see the captures' README)"}},
	reflect.TypeFor[wireError]():                   {defs: []string{"JSONRPCErrorError"}},
	reflect.TypeFor[wireClientInfo]():              {defs: []string{"ClientInfo"}},
	reflect.TypeFor[wireInitializeCapabilities]():  {defs: []string{"InitializeCapabilities"}},
	reflect.TypeFor[wireInitializeParams]():        {defs: []string{"InitializeParams"}},
	reflect.TypeFor[wireInitializeResponse]():      {defs: []string{"InitializeResponse"}},
	reflect.TypeFor[wireThreadOptions]():           {defs: []string{"v2/ThreadStartParams", "v2/ThreadResumeParams", "v2/ThreadForkParams"}, part: true},
	reflect.TypeFor[wireThreadStartParams]():       {defs: []string{"v2/ThreadStartParams"}},
	reflect.TypeFor[wireThreadResumeParams]():      {defs: []string{"v2/ThreadResumeParams"}},
	reflect.TypeFor[wireThreadForkParams]():        {defs: []string{"v2/ThreadForkParams"}},
	reflect.TypeFor[wireThreadResponse]():          {defs: []string{"v2/ThreadStartResponse", "v2/ThreadResumeResponse", "v2/ThreadForkResponse"}},
	reflect.TypeFor[wireSandboxPolicy]():           {defs: []string{"v2/SandboxPolicy"}},
	reflect.TypeFor[wireThread]():                  {defs: []string{"v2/Thread"}},
	reflect.TypeFor[wireThreadStatus]():            {defs: []string{"v2/ThreadStatus"}},
	reflect.TypeFor[wireTurn]():                    {defs: []string{"v2/Turn"}},
	reflect.TypeFor[wireTurnError]():               {defs: []string{"v2/TurnError"}},
	reflect.TypeFor[wireThreadListParams]():        {defs: []string{"v2/ThreadListParams"}},
	reflect.TypeFor[wireThreadListResponse]():      {defs: []string{"v2/ThreadListResponse"}},
	reflect.TypeFor[wireThreadReadParams]():        {defs: []string{"v2/ThreadReadParams"}},
	reflect.TypeFor[wireThreadIDParams]():          {defs: []string{"v2/ThreadArchiveParams", "v2/ThreadUnarchiveParams"}},
	reflect.TypeFor[wireThreadAnswer]():            {defs: []string{"v2/ThreadReadResponse", "v2/ThreadUnarchiveResponse"}},
	reflect.TypeFor[wireThreadSetNameParams]():     {defs: []string{"v2/ThreadSetNameParams"}},
	reflect.TypeFor[wireThreadTurnsListParams]():   {defs: []string{"v2/ThreadTurnsListParams"}},
	reflect.TypeFor[wireThreadTurnsListResponse](): {defs: []string{"v2/ThreadTurnsListResponse"}},
	reflect.TypeFor[wireTurnStartParams]():         {defs: []string{"v2/TurnStartParams"}},
	reflect.TypeFor[wireUserInput]():               {defs: []string{"v2/UserInput"}},
	reflect.TypeFor[wireTurnAnswer]():              {defs: []string{"v2/TurnStartResponse", "v2/TurnStartedNotification", "v2/TurnCompletedNotification"}},
	reflect.TypeFor[wireTurnInterruptParams]():     {defs: []string{"v2/TurnInterruptParams"}},
	reflect.TypeFor[wireModelListParams]():         {defs: []string{"v2/ModelListParams"}},
	reflect.TypeFor[wireModelListResponse]():       {defs: []string{"v2/ModelListResponse"}},
	reflect.TypeFor[wireModel]():                   {defs: []string{"v2/Model"}},
	reflect.TypeFor[wireReasoningEffort]():         {defs: []string{"v2/ReasoningEffortOption"}},
	reflect.TypeFor[wireThreadStarted]():           {defs: []string{"v2/ThreadStartedNotification"}},
	reflect.TypeFor[wireThreadStatusChanged]():     {defs: []string{"v2/ThreadStatusChangedNotification"}},
	reflect.TypeFor[wireThreadNameUpdated]():       {defs: []string{"v2/ThreadNameUpdatedNotification"}},
	reflect.TypeFor[wireItemStarted]():             {defs: []string{"v2/ItemStartedNotification"}},
	reflect.TypeFor[wireItemCompleted]():           {defs: []string{"v2/ItemCompletedNotification"}},
	reflect.TypeFor[wireItemDelta]():               {defs: []string{"v2/AgentMessageDeltaNotification", "v2/CommandExecutionOutputDeltaNotification"}},
	reflect.TypeFor[wireSummaryDelta]():            {defs: []string{"v2/ReasoningSummaryTextDeltaNotification"}},
	reflect.TypeFor[wireReasoningTextDelta]():      {defs: []string{"v2/ReasoningTextDeltaNotification"}},
	reflect.TypeFor[wireMcpToolCallProgress]():     {defs: []string{"v2/McpToolCallProgressNotification"}},
	reflect.TypeFor[wireTurnDiffUpdated]():         {defs: []string{"v2/TurnDiffUpdatedNotification"}},
	reflect.TypeFor[wireTurnPlanUpdated]():         {defs: []string{"v2/TurnPlanUpdatedNotification"}},
	reflect.TypeFor[wirePlanStep]():                {defs: []string{"v2/TurnPlanStep"}},
	reflect.TypeFor[wireTokenUsageUpdated]():       {defs: []string{"v2/ThreadTokenUsageUpdatedNotification"}},
	reflect.TypeFor[wireThreadTokenUsage]():        {defs: []string{"v2/ThreadTokenUsage"}},
	reflect.TypeFor[wireTokenCounts]():             {defs: []string{"v2/TokenUsageBreakdown"}},
	reflect.TypeFor[wireRateLimitsUpdated]():       {defs: []string{"v2/AccountRateLimitsUpdatedNotification"}},
	reflect.TypeFor[wireRateLimits]():              {defs: []string{"v2/RateLimitSnapshot"}},
	reflect.TypeFor[wireRateLimitWindow]():         {defs: []string{"v2/RateLimitWindow"}},
	reflect.TypeFor[wireErrorNotification]():       {defs: []string{"v2/ErrorNotification"}},
	reflect.TypeFor[wireServerRequestResolved]():   {defs: []string{"v2/ServerRequestResolvedNotification"}},
	reflect.TypeFor[wireMcpServerStatusUpdated]():  {defs: []string{"v2/McpServerStatusUpdatedNotification"}},
	reflect.TypeFor[wireWarning]():                 {defs: []string{"v2/WarningNotification"}},
	reflect.TypeFor[wireNotice]():                  {defs: []string{"v2/ConfigWarningNotification", "v2/DeprecationNoticeNotification"}},
	reflect.TypeFor[wireItemHeader]():              {defs: []string{"v2/ThreadItem"}},
	reflect.TypeFor[wireUserMessageItem]():         {defs: []string{"v2/ThreadItem#userMessage"}},
	reflect.TypeFor[wireAgentMessageItem]():        {defs: []string{"v2/ThreadItem#agentMessage"}},
	reflect.TypeFor[wireReasoningItem]():           {defs: []string{"v2/ThreadItem#reasoning"}},
	reflect.TypeFor[wireCommandItem]():             {defs: []string{"v2/ThreadItem#commandExecution"}},
	reflect.TypeFor[wireCommandAction]():           {defs: []string{"v2/CommandAction"}},
	reflect.TypeFor[wireFileChangeItem]():          {defs: []string{"v2/ThreadItem#fileChange"}},
	reflect.TypeFor[wireFileChange]():              {defs: []string{"v2/FileUpdateChange"}},
	reflect.TypeFor[wirePatchKind]():               {defs: []string{"v2/PatchChangeKind"}},
	reflect.TypeFor[wireFileChangePatchUpdated]():  {defs: []string{"v2/FileChangePatchUpdatedNotification"}},
	reflect.TypeFor[wireMcpToolCallItem]():         {defs: []string{"v2/ThreadItem#mcpToolCall"}},
	reflect.TypeFor[wireMcpToolError]():            {defs: []string{"v2/McpToolCallError"}},
	reflect.TypeFor[wireWebSearchItem]():           {defs: []string{"v2/ThreadItem#webSearch"}},
	reflect.TypeFor[wireCommandApprovalParams](): {defs: []string{"CommandExecutionRequestApprovalParams"},
		extra: map[string]string{"availableDecisions": "the server sends the answers it offers (see the captures' README)"}},
	reflect.TypeFor[wireFileChangeApprovalParams](): {defs: []string{"FileChangeRequestApprovalParams"}},
	reflect.TypeFor[wireElicitationParams]():        {defs: []string{"McpServerElicitationRequestParams"}},
	// The members the CLI puts in an elicitation's _meta, which the
	// schema leaves open ("_meta": true).
	reflect.TypeFor[wireElicitationMeta](): {extra: map[string]string{
		"codex_approval_kind": "names a tool approval", "tool_name": "the tool", "tool_params": "its arguments", "persist": "the scopes it may be remembered for"}},
	reflect.TypeFor[wireApprovalResponse]():    {defs: []string{"CommandExecutionRequestApprovalResponse", "FileChangeRequestApprovalResponse"}},
	reflect.TypeFor[wireElicitationResponse](): {defs: []string{"McpServerElicitationRequestResponse"}},
}

// schema is the vendored schema's definitions.
type schema struct {
	root map[string]any // the file
	t    *testing.T
}

// def returns the definition at path ("v2/Thread"), or nil.
func (s *schema) def(path string) map[string]any {
	node := s.root["definitions"]
	for part := range strings.SplitSeq(path, "/") {
		m, _ := node.(map[string]any)
		node = m[part]
	}
	m, _ := node.(map[string]any)
	return m
}

// ref resolves a "$ref" of the file: "#/definitions/v2/Thread".
func (s *schema) ref(ref string) (string, map[string]any) {
	path := strings.TrimPrefix(ref, "#/definitions/")
	return path, s.def(path)
}

// spec returns the definition a wireSpec names, with its selector
// resolved.
func (s *schema) spec(name string) map[string]any {
	path, variant, hasVariant := strings.Cut(name, "#")
	d := s.def(path)
	if !hasVariant || d == nil {
		return d
	}
	for _, alt := range alternatives(d) {
		if props, _ := alt["properties"].(map[string]any); props != nil {
			if typ, _ := props["type"].(map[string]any); typ != nil && slices.Equal(toStrings(typ["enum"]), []string{variant}) {
				return alt
			}
		}
	}
	return nil
}

// alternatives are a schema's oneOf, anyOf and allOf branches.
func alternatives(d map[string]any) []map[string]any {
	var out []map[string]any
	for _, k := range []string{"oneOf", "anyOf", "allOf"} {
		list, _ := d[k].([]any)
		for _, a := range list {
			if m, ok := a.(map[string]any); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

func toStrings(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// property returns the schemas of a definition's member name, in it and
// in its branches, references followed.
func (s *schema) property(d map[string]any, name string, seen map[string]bool) []any {
	var out []any
	if props, _ := d["properties"].(map[string]any); props != nil {
		if p, ok := props[name]; ok {
			out = append(out, p)
		}
	}
	for _, alt := range alternatives(d) {
		out = append(out, s.property(alt, name, seen)...)
	}
	if ref, _ := d["$ref"].(string); ref != "" && !seen[ref] {
		seen[ref] = true
		_, target := s.ref(ref)
		if target != nil {
			out = append(out, s.property(target, name, seen)...)
		}
	}
	return out
}

// required returns the members a definition requires.
func required(d map[string]any) []string { return toStrings(d["required"]) }

// shape is what a member's schema allows: its JSON types ("any" for
// anything), and the definitions it refers to, for an object or for an
// array's items.
type shape struct {
	types map[string]bool
	refs  map[string]bool // of the value, or of its items
}

func (s *schema) shapeOf(p any) shape {
	sh := shape{types: map[string]bool{}, refs: map[string]bool{}}
	s.collect(p, sh, false, map[string]bool{})
	return sh
}

func (s *schema) collect(p any, sh shape, items bool, seen map[string]bool) {
	switch p := p.(type) {
	case bool:
		if p && !items {
			sh.types["any"] = true
		}
	case map[string]any:
		if len(p) == 0 && !items {
			sh.types["any"] = true
		}
		if ref, _ := p["$ref"].(string); ref != "" {
			path, target := s.ref(ref)
			sh.refs[path] = true
			if !seen[ref] && target != nil {
				seen[ref] = true
				s.collect(target, sh, items, seen)
			}
		}
		if !items {
			switch t := p["type"].(type) {
			case string:
				sh.types[t] = true
			case []any:
				for _, x := range toStrings(t) {
					sh.types[x] = true
				}
			}
			if _, ok := p["enum"]; ok && p["type"] == nil {
				sh.types["string"] = true
			}
			if _, ok := p["properties"]; ok && p["type"] == nil {
				sh.types["object"] = true
			}
		}
		for _, alt := range alternatives(p) {
			s.collect(alt, sh, items, seen)
		}
		if !items {
			if it, ok := p["items"]; ok {
				s.collect(it, sh, true, seen)
			}
		}
	}
}

// compatible reports whether a Go type can hold what sh allows, saying
// why not.
func compatible(t reflect.Type, sh shape) (bool, string) {
	if sh.types["any"] || t == reflect.TypeFor[json.RawMessage]() || t.Kind() == reflect.Interface {
		return true, ""
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	want := map[reflect.Kind][]string{
		reflect.String: {"string"}, reflect.Bool: {"boolean"},
		reflect.Int: {"integer"}, reflect.Int64: {"integer"}, reflect.Float64: {"number", "integer"},
		reflect.Struct: {"object"}, reflect.Slice: {"array"}, reflect.Map: {"object"},
	}[t.Kind()]
	for _, w := range want {
		if sh.types[w] {
			return true, ""
		}
	}
	return false, "Go " + t.String() + ", schema " + strings.Join(sortedKeys(sh.types), "|")
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// jsonMembers returns a struct's JSON members, embedded structs flattened,
// with their Go types.
func jsonMembers(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous || !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// readSchema reads the vendored schema.
func readSchema(t *testing.T) *schema {
	t.Helper()
	data, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatalf("%v (go test ./codex -run TestAppServerSchema -refresh-schema writes it)", err)
	}
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	return &schema{root: root, t: t}
}

// TestAppServerSchema checks the wire types against the protocol's JSON
// schema vendored from the real CLI: every member they read or write is
// in the definitions they model, with a compatible type (a nested type
// modelling the definition the member refers to), and every member those
// definitions require is in them. It fails when the schema and the Go
// types disagree; with -refresh-schema it first regenerates the schema
// with the real CLI.
func TestAppServerSchema(t *testing.T) {
	if *refreshSchema {
		refresh(t)
	}
	s := readSchema(t)
	if v, _ := s.root["x-codex-version"].(string); v != AppServerVersion {
		t.Errorf("the schema is of codex %q, AppServerVersion is %q: refresh it", v, AppServerVersion)
	}
	for typ, spec := range wireSpecs {
		var defs []map[string]any
		for _, name := range spec.defs {
			d := s.spec(name)
			if d == nil {
				t.Errorf("%s: no definition %s in the schema", typ.Name(), name)
				continue
			}
			defs = append(defs, d)
		}
		have := jsonMembers(typ)
		for name, ft := range have {
			if why := spec.extra[name]; why != "" {
				continue
			}
			var shapes []shape
			for _, d := range defs {
				for _, p := range s.property(d, name, map[string]bool{}) {
					shapes = append(shapes, s.shapeOf(p))
				}
			}
			if len(shapes) == 0 {
				t.Errorf("%s.%s: no such member in %v", typ.Name(), name, spec.defs)
				continue
			}
			var reasons []string
			ok := false
			for _, sh := range shapes {
				good, why := compatible(ft, sh)
				if good && !nestedAgrees(ft, sh) {
					good, why = false, "Go "+ft.String()+" models "+strings.Join(wireSpecs[nested(ft)].defs, ", ")+", the schema refers to "+strings.Join(sortedKeys(sh.refs), ", ")
				}
				if good {
					ok = true
					break
				}
				reasons = append(reasons, why)
			}
			if !ok {
				t.Errorf("%s.%s: incompatible: %s", typ.Name(), name, strings.Join(reasons, "; "))
			}
		}
		if spec.part {
			continue
		}
		for i, d := range defs {
			for _, name := range required(d) {
				if _, ok := have[name]; !ok {
					t.Errorf("%s: %s requires %q, which the Go type does not have", typ.Name(), spec.defs[i], name)
				}
			}
		}
	}
	checkAllWireTypesListed(t)
}

// nested is the struct type a member of type t holds, directly or as
// the elements of a slice; nil for none.
func nested(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		if t == reflect.TypeFor[json.RawMessage]() {
			return nil
		}
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	return t
}

// nestedAgrees reports whether a nested wire type models one of the
// definitions the member refers to, when it refers to any.
func nestedAgrees(t reflect.Type, sh shape) bool {
	n := nested(t)
	if n == nil || len(sh.refs) == 0 {
		return true
	}
	for _, d := range wireSpecs[n].defs {
		path, _, _ := strings.Cut(d, "#")
		if sh.refs[path] {
			return true
		}
	}
	return false
}

// checkAllWireTypesListed fails for a wire type declared in the package
// but missing from wireSpecs, so that none escapes the check.
func checkAllWireTypesListed(t *testing.T) {
	listed := map[string]bool{}
	for typ := range wireSpecs {
		listed[typ.Name()] = true
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, spec := range g.Specs {
				ts := spec.(*ast.TypeSpec)
				if _, isStruct := ts.Type.(*ast.StructType); isStruct && strings.HasPrefix(ts.Name.Name, "wire") && !listed[ts.Name.Name] {
					t.Errorf("wire type %s is not in wireSpecs", ts.Name.Name)
				}
			}
		}
	}
}

// refresh regenerates schemaFile with the real CLI: its bundle of every
// definition, pruned to those wireSpecs names and those they refer to.
func refresh(t *testing.T) {
	bin := realcodex.Binary(t, AppServerVersion)
	out := t.TempDir()
	cmd := exec.CommandContext(t.Context(), bin, "app-server", "generate-json-schema", "--out", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s app-server generate-json-schema: %v\n%s", bin, err, msg)
	}
	data, err := os.ReadFile(filepath.Join(out, "codex_app_server_protocol.schemas.json"))
	if err != nil {
		t.Fatal(err)
	}
	var full map[string]any
	if err := json.Unmarshal(data, &full); err != nil {
		t.Fatal(err)
	}
	s := &schema{root: full, t: t}
	keep := map[string]bool{}
	var visit func(path string)
	visit = func(path string) {
		if keep[path] {
			return
		}
		d := s.def(path)
		if d == nil {
			t.Fatalf("the schema has no definition %s", path)
		}
		keep[path] = true
		for _, ref := range refs(d) {
			visit(strings.TrimPrefix(ref, "#/definitions/"))
		}
	}
	for _, spec := range wireSpecs {
		for _, name := range spec.defs {
			path, _, _ := strings.Cut(name, "#")
			visit(path)
		}
	}
	defs := map[string]any{}
	for path := range keep {
		parent := defs
		parts := strings.Split(path, "/")
		for _, p := range parts[:len(parts)-1] {
			if parent[p] == nil {
				parent[p] = map[string]any{}
			}
			parent = parent[p].(map[string]any)
		}
		parent[parts[len(parts)-1]] = s.def(path)
	}
	pruned := map[string]any{
		"$schema":         full["$schema"],
		"title":           full["title"],
		"x-codex-version": AppServerVersion,
		"x-generated-by":  "codex app-server generate-json-schema (codex-cli " + AppServerVersion + "), pruned by go test ./codex -run TestAppServerSchema -refresh-schema",
		"definitions":     defs,
	}
	b, err := json.MarshalIndent(pruned, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(schemaFile, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s: %d definitions, %d bytes", schemaFile, len(keep), len(b))
}

// refs lists every "$ref" in a schema.
func refs(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "$ref" {
				out = append(out, s)
			} else {
				out = append(out, refs(x)...)
			}
		}
	case []any:
		for _, x := range v {
			out = append(out, refs(x)...)
		}
	}
	return out
}
