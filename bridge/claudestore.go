package bridge

import (
	"cmp"
	"errors"
	"io"
	"io/fs"
	"iter"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/claude"
)

// Claude Code's sessions on disk (package claude's "Stored sessions"):
// <project folder>/<session id>.jsonl under its projects folder, with the
// session's subagents in <session id>/subagents/.

// StoreDir is $CLAUDE_CONFIG_DIR/projects, or ~/.claude/projects.
func (claudeCLI) StoreDir(home string, getenv func(string) string) string {
	return homeStore(home, getenv, "CLAUDE_CONFIG_DIR", ".claude", "projects")
}

// homeStore is the folder sub of the CLI's folder: the one the
// environment variable env names, else def in home.
func homeStore(home string, getenv func(string) string, env, def, sub string) string {
	dir := getenv(env)
	if dir == "" {
		dir = filepath.Join(home, def)
	}
	return filepath.Join(dir, sub)
}

func (claudeCLI) ValidID(id string) bool { return claude.ValidSessionID(id) }

// Files yields the session files of the project folders of cwd, or of
// every project folder.
func (claudeCLI) Files(store fs.FS, cwd string) iter.Seq2[StoredFile, error] {
	return func(yield func(StoredFile, error) bool) {
		folders, err := fs.ReadDir(store, ".")
		if err != nil {
			yield(StoredFile{}, err)
			return
		}
		for _, folder := range folders {
			if !folder.IsDir() || cwd != "" && !claude.IsProjectFolder(folder.Name(), cwd) {
				continue
			}
			for f, err := range dirFiles(store, folder.Name(), claude.ParseSessionFile) {
				if !yield(f, err) {
					return
				}
			}
		}
	}
}

// dirFiles yields the files of the folder dir whose names parse, with
// the id they hold.
func dirFiles(store fs.FS, dir string, parse func(name string) (id string, ok bool)) iter.Seq2[StoredFile, error] {
	return func(yield func(StoredFile, error) bool) {
		entries, err := fs.ReadDir(store, dir)
		if err != nil {
			yield(StoredFile{}, err)
			return
		}
		for _, e := range entries {
			id, ok := parse(e.Name())
			if !ok || !e.Type().IsRegular() {
				continue
			}
			fi, err := e.Info()
			if err != nil {
				if !yield(StoredFile{}, err) {
					return
				}
				continue
			}
			if !yield(StoredFile{Path: path.Join(dir, e.Name()), ModTime: fi.ModTime(), Size: fi.Size(), ID: id}, nil) {
				return
			}
		}
	}
}

func (claudeCLI) ReadInfo(f StoredFile, r io.ReaderAt) (StoredInfo, error) {
	in, err := claude.ReadInfo(r, f.Size)
	if err != nil {
		return StoredInfo{}, err
	}
	// The file's name is the id the CLI resumes; a forked session's
	// file begins with the lines it copied.
	return StoredInfo{SessionID: f.ID, CWD: in.CWD, Title: in.Title, Named: in.Named, Updated: epochTime(in.Updated)}, nil
}

// Find looks in cwd's project folder first, then in every one: the CLI
// that wrote a long cwd's folder may have hashed its name otherwise.
func (claudeCLI) Find(store fs.FS, id, cwd string) (StoredFile, error) {
	if cwd != "" {
		name, err := claude.SessionFile(cwd, id)
		if err != nil {
			return StoredFile{}, err
		}
		if f, err := statFile(store, name, id); err == nil {
			return f, nil
		}
	}
	pattern, err := claude.SessionFilePattern(id)
	if err != nil {
		return StoredFile{}, err
	}
	return globFile(store, pattern, id)
}

// statFile returns the file name of session id.
func statFile(store fs.FS, name, id string) (StoredFile, error) {
	fi, err := fs.Stat(store, name)
	if err != nil {
		return StoredFile{}, err
	}
	if !fi.Mode().IsRegular() {
		return StoredFile{}, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return StoredFile{Path: name, ModTime: fi.ModTime(), Size: fi.Size(), ID: id}, nil
}

// globFile returns the newest file that pattern matches, of session id.
func globFile(store fs.FS, pattern, id string) (StoredFile, error) {
	names, err := fs.Glob(store, pattern)
	if err != nil {
		return StoredFile{}, err
	}
	var newest StoredFile
	for _, name := range names {
		if f, err := statFile(store, name, id); err == nil && f.ModTime.After(newest.ModTime) {
			newest = f
		}
	}
	if newest.Path == "" {
		return StoredFile{}, &fs.PathError{Op: "open", Path: pattern, Err: fs.ErrNotExist}
	}
	return newest, nil
}

// Remove removes the session's file and the folder beside it, which
// holds its subagents and its custom title.
func (claudeCLI) Remove(store Store, f StoredFile) error {
	return errors.Join(store.RemoveAll(f.Path), store.RemoveAll(strings.TrimSuffix(f.Path, ".jsonl")))
}

// epochTime is a time in Unix epoch milliseconds; the zero time for 0.
func epochTime(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

func (c *claudeConversation) StoredID() string {
	if c.resumeID != "" && !c.fork {
		return c.resumeID
	}
	return c.cfg.SessionID // --session-id
}

// Replay translates the stored entries, the subagents' interleaved in
// the order the live stream showed them, with a ClaudeTranslator of its
// own, so that the session's usage and turn are left as they were.
func (c *claudeConversation) Replay(h Host, store fs.FS, f StoredFile) error {
	main, err := store.Open(f.Path)
	if err != nil {
		return err
	}
	defer main.Close()
	subagents, closeAll := c.subagents(store, f)
	defer closeAll()
	tr := &ClaudeTranslator{Notices: true, Location: c.tr.Location, Zones: c.tr.Zones}
	view := newSubagentView(c.cfg.SessionID)
	now := c.cfg.Now()
	var updates []acp.Update
	entries := claude.Interleave(claude.ReadEntries(main), subagents...)
	for e := range readable[claude.Entry, *claude.LineError](entries, c.cfg.Logger, f.Path, &err) {
		if n := e.Notification; n != nil {
			if !e.Sidechain {
				tr.End(false, "", nil, now) // the CLI begins a turn to answer it
			}
			if u, ok := taskEnded(*n); ok {
				view.notify(h, tr, []acp.Update{u})
			}
			continue
		}
		if e.Internal || e.Meta || e.Interrupt {
			continue
		}
		if e.Prompt != nil && !e.Sidechain {
			tr.End(false, "", nil, now) // the turn before is over
			h.Notify(userChunks(storedPrompt(e.Prompt, textBlock))...)
		}
		for _, ev := range e.Events {
			updates = tr.Translate(updates[:0], ev, now)
			view.notify(h, tr, updates)
		}
	}
	return err
}

// taskEnded shows the end of a task the CLI ran in the background as its
// notification tells it: as the result of the call that started it (an
// Agent call, a Bash call), with the task's report, or the CLI's summary,
// as its content. ok is false when the notification names no call.
func taskEnded(n claude.TaskNotification) (acp.ToolCallUpdate, bool) {
	if n.ToolUseID == "" {
		return acp.ToolCallUpdate{}, false
	}
	u := acp.ToolCallUpdate{ToolCallID: n.ToolUseID}
	switch n.Status {
	case "completed":
		u.Status = acp.ToolCallStatusCompleted
	case "failed", "killed", "stopped":
		u.Status = acp.ToolCallStatusFailed
	}
	if text := cmp.Or(n.Result, n.Summary); text != "" {
		u.Content, u.RawOutput = []acp.ToolCallContent{textContent(text)}, rawText(text)
	}
	return u, true
}

// subagents opens the files of the session's subagents, and returns
// their entries and a function that closes them. A subagent without a
// meta file naming the call that launched it is left out: the live
// stream shows its activity inside that call.
func (c *claudeConversation) subagents(store fs.FS, f StoredFile) ([]iter.Seq2[claude.Entry, error], func()) {
	dir := path.Join(strings.TrimSuffix(f.Path, ".jsonl"), claude.SubagentsDir)
	entries, err := fs.ReadDir(store, dir)
	if err != nil {
		return nil, func() {}
	}
	var seqs []iter.Seq2[claude.Entry, error]
	var open []fs.File
	for _, e := range entries {
		agentID, ok := claude.ParseSubagentFile(e.Name())
		if !ok {
			continue
		}
		name, _ := claude.SubagentFile(agentID)
		meta, err := readMeta(store, path.Join(dir, strings.TrimSuffix(name, ".jsonl")+".meta.json"))
		if err != nil || meta.ToolUseID == "" {
			c.cfg.Logger.Warn("a subagent without its meta file skipped", "agent", agentID, "error", err)
			continue
		}
		file, err := store.Open(path.Join(dir, name))
		if err != nil {
			c.cfg.Logger.Warn("a subagent skipped", "agent", agentID, "error", err)
			continue
		}
		open = append(open, file)
		seqs = append(seqs, claude.ReadSubagent(file, meta.ToolUseID))
	}
	return seqs, func() {
		for _, file := range open {
			file.Close()
		}
	}
}

func readMeta(store fs.FS, name string) (claude.SubagentMeta, error) {
	file, err := store.Open(name)
	if err != nil {
		return claude.SubagentMeta{}, err
	}
	defer file.Close()
	return claude.ReadSubagentMeta(file)
}
