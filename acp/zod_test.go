package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/internal/tssdk"
)

// The golden lines of golden_test.go, what the package's builders and
// encoders send, are checked against the zod schemas of the official
// TypeScript SDK, the peer they must satisfy, in both editions of ACP v1.
// internal/tssdk installs the SDK; the test skips only without node.

// goldenResults names the method of each golden result, which a line
// does not say.
var goldenResults = map[string]string{
	"result_initialize":          Initialize.Name,
	"result_session_new":         SessionNew.Name,
	"result_session_list":        SessionList.Name,
	"result_session_prompt":      SessionPrompt.Name,
	"result_permission_selected": SessionRequestPermission.Name,
	"result_terminal_output":     TerminalOutput.Name,
}

// notZodChecked lists the golden lines the SDK refuses by design, with
// the reason.
var notZodChecked = map[string]string{
	"content_unknown":                           "a content block of a type the schema does not know, kept and forwarded as received",
	"session_update_unknown":                    "an update of a kind the schema does not know, kept and forwarded as received",
	"session_update_plan_update_other":          "a plan of a type the schema does not know, kept and forwarded as received",
	"session_update_config_option_update_other": "a config option of a type the schema does not know, kept and forwarded as received",
}

// unstableGoldens lists the golden lines of what only the unstable
// edition defines, which the stable one refuses: they are checked
// against the unstable edition only.
var unstableGoldens = map[string]string{
	"session_update_plan_update_items":    "plan_update",
	"session_update_plan_update_file":     "plan_update",
	"session_update_plan_update_markdown": "plan_update",
	"session_update_plan_removed":         "plan_removed",
}

func TestGoldenZod(t *testing.T) {
	sdk := tssdk.Package(t)
	var defs struct {
		Defs map[string]struct {
			Method string `json:"x-method"`
		} `json:"$defs"`
	}
	b, err := os.ReadFile(filepath.Join("schema", "schema.unstable.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &defs); err != nil {
		t.Fatal(err)
	}
	defOf := func(method, suffix string) string {
		for name, d := range defs.Defs {
			if d.Method == method && strings.HasSuffix(name, suffix) {
				return name
			}
		}
		t.Fatalf("no schema type for %s's %s", method, suffix)
		return ""
	}
	type check struct {
		File     string `json:"file"`
		Member   string `json:"member"`
		Schema   string `json:"schema"`
		Unstable bool   `json:"unstable,omitempty"` // checked against the unstable edition only
	}
	var cases []check
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".jsonl")
		if notZodChecked[name] != "" {
			seen[name] = true
			continue
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(b, &msg); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		abs, err := filepath.Abs(file)
		if err != nil {
			t.Fatal(err)
		}
		n := len(cases)
		switch {
		case msg.Method != "" && msg.ID != nil:
			cases = append(cases, check{File: abs, Member: "params", Schema: defOf(msg.Method, "Request")})
		case msg.Method != "":
			cases = append(cases, check{File: abs, Member: "params", Schema: defOf(msg.Method, "Notification")})
		case msg.Error != nil:
			cases = append(cases, check{File: abs, Member: "error", Schema: "Error"})
		default:
			method, ok := goldenResults[name]
			if !ok {
				t.Errorf("%s: a result of no method in goldenResults", file)
				continue
			}
			cases = append(cases, check{File: abs, Member: "result", Schema: defOf(method, "Response")})
		}
		if len(cases) > n && unstableGoldens[name] != "" {
			cases[n].Unstable = true
		}
	}
	for name := range unstableGoldens {
		if _, err := os.Stat(filepath.Join("testdata", "golden", name+".jsonl")); err != nil {
			t.Errorf("unstableGoldens lists %s, which is no golden file", name)
		}
	}
	for name := range notZodChecked {
		if !seen[name] {
			t.Errorf("notZodChecked lists %s, which is no golden file", name)
		}
	}
	list, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	casesFile := filepath.Join(t.TempDir(), "cases.json")
	if err := os.WriteFile(casesFile, list, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := tssdk.Command(t, filepath.Join("testdata", "zod", "validate.mjs"), sdk, casesFile).CombinedOutput()
	if err != nil {
		t.Fatalf("the SDK's schemas refuse golden lines: %v\n%s", err, out)
	}
	t.Logf("%d golden lines: %s", len(cases), strings.TrimSpace(string(out)))
}

// TestGoldenZodListsCurrent keeps goldenResults in step with the golden
// results golden_test.go writes.
func TestGoldenZodListsCurrent(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "result_*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".jsonl"))
	}
	for name := range goldenResults {
		if !slices.Contains(names, name) {
			t.Errorf("goldenResults lists %s, which is no golden file", name)
		}
	}
}
