package gemini_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpkit/acpkit/gemini"
	"github.com/google/go-cmp/cmp"
)

// TestSessionFileCaptured checks the layout rules against every captured
// session: its projects.json names its folder, its name comes from its
// start and id, its projectHash is that of its cwd, and the pattern of
// its id finds it.
func TestSessionFileCaptured(t *testing.T) {
	for _, p := range storeFiles(t) {
		slash := filepath.ToSlash(p)
		home, rel, _ := strings.Cut(slash, "/tmp/")
		rel = "tmp/" + rel
		projects, err := gemini.ReadProjects(open(t, home+"/"+gemini.ProjectsFile))
		if err != nil || len(projects) != 1 {
			t.Fatalf("ReadProjects: %v, %v", projects, err)
		}
		var cwd, project string
		for k, v := range projects {
			cwd, project = k, v
		}
		info, err := gemini.ReadInfo(open(t, p), size(t, open(t, p)))
		if err != nil {
			t.Fatal(err)
		}
		if got := gemini.ProjectHash(cwd); got != info.ProjectHash {
			t.Errorf("ProjectHash(%q) = %s, the file says %s", cwd, got, info.ProjectHash)
		}
		short, start, ok := gemini.ParseSessionFile(filepath.Base(p))
		if !ok || !strings.HasPrefix(info.SessionID, short) {
			t.Fatalf("ParseSessionFile(%q) = %q, %v, %v", filepath.Base(p), short, start, ok)
		}
		got, err := gemini.SessionFile(project, start, info.SessionID)
		if err != nil || got != rel {
			t.Errorf("SessionFile(%q, %v, %q) = %q, %v; want %q", project, start, info.SessionID, got, err, rel)
		}
		dir, _ := gemini.ChatsDir(project)
		pattern, err := gemini.SessionFilePattern(info.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		matches, err := fs.Glob(os.DirFS(home+"/"+dir), pattern)
		if err != nil || len(matches) != 1 || dir+"/"+matches[0] != rel {
			t.Errorf("Glob(%q) in %s = %q, %v; want %q", pattern, dir, matches, err, rel)
		}
	}
}

func TestSessionFile(t *testing.T) {
	const id = "181cb93b-9be0-4ddf-8212-3da9bd3ff8d1"
	start := time.Date(2026, 12, 1, 21, 6, 37, 943e6, time.FixedZone("CET", 3600))
	got, err := gemini.SessionFile("work", start, id)
	if want := "tmp/work/chats/session-2026-12-01T20-06-181cb93b.jsonl"; err != nil || got != want {
		t.Errorf("SessionFile = %q, %v; want %q (the start in UTC)", got, err, want)
	}
	short, gotStart, ok := gemini.ParseSessionFile(filepath.Base(got))
	if !ok || short != "181cb93b" || !gotStart.Equal(start.Truncate(time.Minute)) {
		t.Errorf("ParseSessionFile = %q, %v, %v", short, gotStart, ok)
	}
	for _, name := range []string{"", "session-.jsonl", "session-2026-12-01T21-06-181cb93b.json", "session-2026-12-01T21-06-181cb93.jsonl",
		"session-2026-12-01T21-06-181cb93g.jsonl", "session-2026-12-01T25-06-181cb93b.jsonl", "session-2026-12-01T21-06-../x.jsonl", "181cb93b.jsonl"} {
		if s, _, ok := gemini.ParseSessionFile(name); ok {
			t.Errorf("ParseSessionFile(%q) = %q, true", name, s)
		}
	}
}

// hostileIDs are ids that must never become a path.
var hostileIDs = []string{
	"", "../x", "..", "/abs", "/etc/passwd", `..\x`, "a/b", "*", "181cb93b*",
	"181cb93b-9be0-4ddf-8212-3da9bd3ff8d1/../../x",
	"181cb93b-9be0-4ddf-8212-3da9bd3ff8d1\x00",
	"181cb93b-9be0-4ddf-8212-3da9bd3ff8d",
	"181cb93b-9be0-4ddf-8212-3da9bd3ff8d1 ",
	"18１cb93b-9be0-4ddf-8212-3da9bd3ff8d1",
	strings.Repeat("a", 4096),
}

func TestValidSessionID(t *testing.T) {
	for _, id := range hostileIDs {
		if gemini.ValidSessionID(id) {
			t.Errorf("ValidSessionID(%q) = true", id)
		}
		for name, f := range map[string]func() (string, error){
			"SessionFile":        func() (string, error) { return gemini.SessionFile("work", time.Unix(0, 0), id) },
			"SessionFilePattern": func() (string, error) { return gemini.SessionFilePattern(id) },
		} {
			p, err := f()
			if !errors.Is(err, gemini.ErrInvalidSessionID) || p != "" || len(err.Error()) > 200 {
				t.Errorf("%s(%q) = %q, %v; want a short ErrInvalidSessionID", name, id, p, err)
			}
		}
	}
	if !gemini.ValidSessionID("181cb93b-9be0-4ddf-8212-3da9bd3ff8d1") {
		t.Error("a captured id is not valid")
	}
}

func TestProjects(t *testing.T) {
	for _, bad := range []string{"", ".", "..", "a/b", `a\b`, "a\x00", "*", "a?", "[a]", strings.Repeat("p", 256)} {
		if p, err := gemini.ChatsDir(bad); !errors.Is(err, gemini.ErrInvalidProject) || p != "" {
			t.Errorf("ChatsDir(%q) = %q, %v; want ErrInvalidProject", bad, p, err)
		}
		if _, err := gemini.SessionFile(bad, time.Unix(0, 0), "181cb93b-9be0-4ddf-8212-3da9bd3ff8d1"); !errors.Is(err, gemini.ErrInvalidProject) {
			t.Errorf("SessionFile(%q): %v; want ErrInvalidProject", bad, err)
		}
	}
	got, err := gemini.ReadProjects(strings.NewReader(`{"projects":{"/w/a":"a","/w/b":"../etc","/w/c":"c-1"},"other":1}`))
	if diff := cmp.Diff(map[string]string{"/w/a": "a", "/w/c": "c-1"}, got); err != nil || diff != "" {
		t.Errorf("ReadProjects (-want +got), error %v:\n%s", err, diff)
	}
	for _, bad := range []string{"", "[1]", `{"projects":[1]}`, `{"projects":{"a":1}}`} {
		if _, err := gemini.ReadProjects(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadProjects(%q) succeeded", bad)
		}
	}
	if got := gemini.ProjectHash("/tmp/gm-store/plain/work"); got != "3e1d5bf4fbd3f05b20d8df16febe8064558530454fcbda6579864fa005a8b4f2" {
		t.Errorf("ProjectHash = %s, want the captured file's", got)
	}
}
