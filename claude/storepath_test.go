package claude_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acpkit/acpkit/claude"
	"github.com/acpkit/acpkit/internal/parsetest"
	"github.com/google/go-cmp/cmp"
)

// TestProjectFolder checks the folder names of cwds against the CLI's
// rule. The names of long cwds were computed by the Node.js reference of
// the rule (String.replace(/[^a-zA-Z0-9]/g, '-'), cut at 200 UTF-16 code
// units, djb2 over the code units in base 36), the same as the official
// Python SDK's _sanitize_path for cwds inside the Basic Multilingual
// Plane.
func TestProjectFolder(t *testing.T) {
	dashes := func(n int) string { return strings.Repeat("-", n) }
	tests := []struct {
		name, cwd, want string
	}{
		{"plain", "/tmp/cc-store/plain/work", "-tmp-cc-store-plain-work"},
		{"unusual, as captured", "/tmp/cc-store/cwd-unusual/My Project.v2 (ü) #1/.hidden_dir+x@y/🚀 nai\u0308ve",
			"-tmp-cc-store-cwd-unusual-My-Project-v2------1--hidden-dir-x-y----nai-ve"},
		{"precomposed is not normalized", "/naïve", "-na-ve"},
		{"windows", `C:\Users\me\proj`, "C--Users-me-proj"},
		{"empty", "", ""},
		{"exactly 200", "/tmp/" + strings.Repeat("x", 195), "-tmp-" + strings.Repeat("x", 195)},
		{"201 is cut", "/tmp/" + strings.Repeat("x", 196), "-tmp-" + strings.Repeat("x", 195) + "-diaimx"},
		{"long", "/home/u/" + strings.Repeat("a", 250), "-home-u-" + strings.Repeat("a", 192) + "-bkw3mj"},
		{"long, Latin-1", "/w/" + strings.Repeat("é", 210), "-w-" + dashes(197) + "-7iwtcp"},
		{"long, many folders", "/" + dirs(60), "-dir0-dir1-dir2-dir3-dir4-dir5-dir6-dir7-dir8-dir9-dir10-dir11-dir12-dir13-dir14-dir15-dir16-dir17-dir18-dir19-dir20-dir21-dir22-dir23-dir24-dir25-dir26-dir27-dir28-dir29-dir30-dir31-dir32-dir33-dir34-dteer0"},
		{"astral, cut inside a surrogate pair", "/r/" + strings.Repeat("🚀", 99), "-r-" + dashes(197) + "-j7qnt7"},
		{"astral, cut after a pair", "/r/" + strings.Repeat("🚀", 98) + "ab", "-r-" + dashes(196) + "a-j8slhp"},
		{"astral, 203 units", "/r/" + strings.Repeat("🚀", 100), "-r-" + dashes(197) + "-2fmnbs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := claude.ProjectFolder(tt.cwd)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ProjectFolder(%q) (-want +got):\n%s", tt.cwd, diff)
			}
			if !claude.IsProjectFolder(got, tt.cwd) {
				t.Errorf("IsProjectFolder(ProjectFolder(%q)) = false", tt.cwd)
			}
		})
	}
}

// dirs returns "dir0/dir1/…" with n folders.
func dirs(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = "dir" + strconv.Itoa(i)
	}
	return strings.Join(parts, "/")
}

// TestProjectFolderCaptured checks that every captured session lies in the
// folder of the cwd its entries name.
func TestProjectFolderCaptured(t *testing.T) {
	for _, p := range storeFiles(t) {
		if strings.Contains(filepath.ToSlash(p), "/subagents/") {
			continue
		}
		cwd := firstCWD(t, p)
		folder := filepath.Base(filepath.Dir(p))
		if got := claude.ProjectFolder(cwd); got != folder {
			t.Errorf("ProjectFolder(%q) = %q, want the captured %q", cwd, got, folder)
		}
		id, ok := claude.ParseSessionFile(filepath.Base(p))
		want, err := claude.SessionFile(cwd, id)
		if !ok || err != nil || want != folder+"/"+filepath.Base(p) {
			t.Errorf("ParseSessionFile(%q) = %q, %v; SessionFile = %q, %v", filepath.Base(p), id, ok, want, err)
		}
		projects := filepath.Dir(filepath.Dir(p))
		pattern, _ := claude.SessionFilePattern(id)
		if matches, err := fs.Glob(os.DirFS(projects), pattern); err != nil || len(matches) != 1 || matches[0] != want {
			t.Errorf("Glob(%q) = %q, %v; want [%q]", pattern, matches, err, want)
		}
	}
}

// storeFiles lists the session files under testdata/store: every file
// Claude Code 2.1.328 stored in the captures (see
// testdata/store/README.md), subagents' included.
func storeFiles(t *testing.T) []string {
	return parsetest.StoreFiles(t, "testdata/store", "/projects/")
}

// firstCWD returns the first "cwd" of the session file at p.
func firstCWD(t *testing.T, p string) string {
	t.Helper()
	lines, _ := parsetest.Lines(t, p)
	for _, line := range lines {
		var v struct{ CWD string }
		if json.Unmarshal(line, &v) == nil && v.CWD != "" {
			return v.CWD
		}
	}
	t.Fatalf("no cwd in %s", p)
	return ""
}

func TestIsProjectFolder(t *testing.T) {
	long := "/home/u/" + strings.Repeat("a", 250)
	prefix := "-home-u-" + strings.Repeat("a", 192)
	tests := []struct {
		name, folder, cwd string
		want              bool
	}{
		{"exact", "-tmp-w", "/tmp/w", true},
		{"short cwd wants the exact name", "-tmp-w-abc", "/tmp/w", false},
		{"other cwd", "-tmp-x", "/tmp/w", false},
		{"long, the SDK's hash", prefix + "-bkw3mj", long, true},
		{"long, Bun's hash", prefix + "-1y2p0ij32e8e7", long, true},
		{"long, no hash", prefix, long, false},
		{"long, empty hash", prefix + "-", long, false},
		{"long, not base 36", prefix + "-AB", long, false},
		{"long, hash with a separator", prefix + "-ab/c", long, false},
	}
	for _, tt := range tests {
		if got := claude.IsProjectFolder(tt.folder, tt.cwd); got != tt.want {
			t.Errorf("%s: IsProjectFolder = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// hostileIDs are ids that must never become a path.
var hostileIDs = []string{
	"", "../x", "..", ".", "/abs", "/etc/passwd", `..\x`, "a/b",
	"5474356c-702e-48b0-8ecb-5f54d4bff9a2/../../x",
	"5474356c-702e-48b0-8ecb-5f54d4bff9a2\x00",
	"\x005474356c-702e-48b0-8ecb-5f54d4bff9a",
	"5474356c-702e-48b0-8ecb-5f54d4bff9a2 ",
	"5474356c-702e-48b0-8ecb-5f54d4bff9a2.jsonl",
	"5474356c-702e-48b0-8ecb-5f54d4bff9a22",
	"5474356c-702e-48b0-8ecb-5f54d4bff9a",
	"5474356c702e48b08ecb5f54d4bff9a2",
	"5474356c-702e-48b0-8ecb_5f54d4bff9a2",
	"g474356c-702e-48b0-8ecb-5f54d4bff9a2",
	"５474356c-702e-48b0-8ecb-5f54d4bff9a2", // a full-width digit
	"5474356c-702e-48b0-8ecb-5f54d4bff9ä",
	strings.Repeat("a", 4096),
}

func TestValidSessionID(t *testing.T) {
	for _, id := range []string{"5474356c-702e-48b0-8ecb-5f54d4bff9a2", "5474356C-702E-48B0-8ECB-5F54D4BFF9A2", "00000000-0000-0000-0000-000000000000"} {
		if !claude.ValidSessionID(id) {
			t.Errorf("ValidSessionID(%q) = false", id)
		}
		if _, err := claude.SessionFile("/w", id); err != nil {
			t.Errorf("SessionFile(%q): %v", id, err)
		}
	}
	for _, id := range hostileIDs {
		if claude.ValidSessionID(id) {
			t.Errorf("ValidSessionID(%q) = true", id)
		}
		pattern := func(_, id string) (string, error) { return claude.SessionFilePattern(id) }
		for name, f := range map[string]func(string, string) (string, error){"SessionFile": claude.SessionFile, "SessionDir": claude.SessionDir, "SessionFilePattern": pattern} {
			p, err := f("/w", id)
			if !errors.Is(err, claude.ErrInvalidSessionID) || p != "" {
				t.Errorf("%s(%q) = %q, %v; want ErrInvalidSessionID", name, id, p, err)
			}
			if err != nil && len(err.Error()) > 200 {
				t.Errorf("%s(%q): error of %d bytes", name, id, len(err.Error()))
			}
		}
		if got, ok := claude.ParseSessionFile(id + ".jsonl"); ok {
			t.Errorf("ParseSessionFile(%q) = %q, true", id+".jsonl", got)
		}
	}
}

func TestSessionPaths(t *testing.T) {
	id := "6d0706c6-94f5-4004-a4aa-42746a618990"
	cwd := "/tmp/cc-store/subagent/work"
	file, err1 := claude.SessionFile(cwd, id)
	dir, err2 := claude.SessionDir(cwd, id)
	agent, err3 := claude.SubagentFile("a7407c38efeb483c1")
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatal(err)
	}
	got := []string{file, dir + "/" + claude.SubagentsDir + "/" + agent}
	want := []string{
		"-tmp-cc-store-subagent-work/6d0706c6-94f5-4004-a4aa-42746a618990.jsonl",
		"-tmp-cc-store-subagent-work/6d0706c6-94f5-4004-a4aa-42746a618990/subagents/agent-a7407c38efeb483c1.jsonl",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	for _, p := range want {
		if _, err := os.Stat(filepath.Join("testdata/store/subagent/projects", p)); err != nil {
			t.Errorf("the captured store has no %s: %v", p, err)
		}
	}
	for _, bad := range []string{"", "../x", "a/b", "a.b", strings.Repeat("a", 65), "a\x00"} {
		if _, err := claude.SubagentFile(bad); err == nil {
			t.Errorf("SubagentFile(%q) succeeded", bad)
		}
	}
	tests := []struct {
		name, id string
		ok       bool
	}{
		{"agent-a7407c38efeb483c1.jsonl", "a7407c38efeb483c1", true},
		{"agent-a7407c38efeb483c1.meta.json", "", false},
		{"agent-.jsonl", "", false},
		{"agent-../x.jsonl", "", false},
		{"a7407c38efeb483c1.jsonl", "", false},
	}
	for _, tt := range tests {
		id, ok := claude.ParseSubagentFile(tt.name)
		if id != tt.id || ok != tt.ok {
			t.Errorf("ParseSubagentFile(%q) = %q, %v; want %q, %v", tt.name, id, ok, tt.id, tt.ok)
		}
	}
}

func TestReadSubagentMeta(t *testing.T) {
	m := readMeta(t, "testdata/store/subagent/projects/-tmp-cc-store-subagent-work/6d0706c6-94f5-4004-a4aa-42746a618990/subagents/agent-a7407c38efeb483c1.meta.json")
	m.Raw = nil
	want := claude.SubagentMeta{AgentType: "general-purpose", Description: "Check the shell", ToolUseID: "toolu_01tAj9vCJitiNj9ZdeGHDOMP"}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("meta (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"", "null", "[1]", `{"toolUseId":1}`, `{"a"`} {
		if _, err := claude.ReadSubagentMeta(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadSubagentMeta(%q) succeeded", bad)
		}
	}
}

func readMeta(t *testing.T, p string) claude.SubagentMeta {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := claude.ReadSubagentMeta(f)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func open(t *testing.T, p string) *os.File { return parsetest.Open(t, p) }

func size(t *testing.T, f *os.File) int64 { return parsetest.Size(t, f) }
