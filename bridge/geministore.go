package bridge

import (
	"io"
	"io/fs"
	"iter"
	"path"
	"path/filepath"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/gemini"
)

// Gemini CLI's sessions on disk (package gemini's "Stored sessions"):
// tmp/<project>/chats/session-<start>-<id8>.jsonl under ~/.gemini, where
// projects.json names each cwd's project.

// StoreDir is ~/.gemini.
func (geminiCLI) StoreDir(home string, getenv func(string) string) string {
	return filepath.Join(home, ".gemini")
}

func (geminiCLI) ValidID(id string) bool { return gemini.ValidSessionID(id) }

// Files yields the session files of cwd's project, or of every project
// projects.json names, each with its project's cwd.
func (geminiCLI) Files(store fs.FS, cwd string) iter.Seq2[StoredFile, error] {
	parse := func(name string) (string, bool) {
		id, _, ok := gemini.ParseSessionFile(name)
		return id, ok
	}
	return func(yield func(StoredFile, error) bool) {
		projects, err := readProjects(store)
		if err != nil {
			yield(StoredFile{}, err)
			return
		}
		for dir, err := range projects {
			if err != nil {
				if !yield(StoredFile{}, err) {
					return
				}
				continue
			}
			if cwd != "" && dir.cwd != cwd {
				continue
			}
			for f, err := range dirFiles(store, dir.chats, parse) {
				f.CWD = dir.cwd
				if !yield(f, err) {
					return
				}
			}
		}
	}
}

// project is a project folder of projects.json.
type project struct{ cwd, chats string }

// readProjects reads projects.json, and yields each project's cwd and
// chats folder.
func readProjects(store fs.FS) (iter.Seq2[project, error], error) {
	file, err := store.Open(gemini.ProjectsFile)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	projects, err := gemini.ReadProjects(file)
	if err != nil {
		return nil, err
	}
	return func(yield func(project, error) bool) {
		for cwd, name := range projects {
			chats, err := gemini.ChatsDir(name)
			if !yield(project{cwd, chats}, err) {
				return
			}
		}
	}, nil
}

// ReadInfo shows a file under the cwd of its project only when the file
// names that cwd's hash, and shows no session for a chat that holds no
// message, which the CLI leaves out of its list (that of a run whose
// authentication failed: nothing in it replays).
func (geminiCLI) ReadInfo(f StoredFile, r io.ReaderAt) (StoredInfo, error) {
	in, err := gemini.ReadInfo(r, f.Size)
	if err != nil || !in.HasMessages {
		return StoredInfo{}, err
	}
	info := StoredInfo{SessionID: in.SessionID, Title: in.Title, Named: in.Named, Updated: epochTime(in.Updated)}
	if f.CWD != "" && in.ProjectHash == gemini.ProjectHash(f.CWD) {
		info.CWD = f.CWD
	}
	return info, nil
}

// Find looks in cwd's project, then in the others: a file's name holds 8
// digits of its session's id, and its metadata the whole id.
func (geminiCLI) Find(store fs.FS, id, cwd string) (StoredFile, error) {
	pattern, err := gemini.SessionFilePattern(id)
	if err != nil {
		return StoredFile{}, err
	}
	projects, err := readProjects(store)
	if err != nil {
		return StoredFile{}, err
	}
	var first, rest []project
	for p, err := range projects {
		switch {
		case err != nil:
		case p.cwd == cwd:
			first = append(first, p)
		default:
			rest = append(rest, p)
		}
	}
	for _, p := range append(first, rest...) {
		names, _ := fs.Glob(store, path.Join(p.chats, pattern))
		for _, name := range names {
			f, err := statFile(store, name, id[:8])
			if err != nil {
				continue
			}
			f.CWD = p.cwd
			if sessionIn(store, f) == id {
				return f, nil
			}
		}
	}
	return StoredFile{}, &fs.PathError{Op: "open", Path: pattern, Err: fs.ErrNotExist}
}

// sessionIn returns the id of the session in f, as its metadata names
// it; "" when f cannot be read or names none.
func sessionIn(store fs.FS, f StoredFile) string {
	file, err := store.Open(f.Path)
	if err != nil {
		return ""
	}
	defer file.Close()
	r, err := readerAt(file)
	if err != nil {
		return ""
	}
	in, err := gemini.ReadInfo(r, f.Size)
	if err != nil {
		return ""
	}
	return in.SessionID
}

func (geminiCLI) Remove(store Store, f StoredFile) error { return store.RemoveAll(f.Path) }

func (g *geminiConversation) StoredID() string { return g.sessionID }

// Replay builds the conversation from the file's log of records, as the
// CLI does when it resumes it, and translates its messages as the turns
// that wrote them did, each model message's thoughts, which the live
// stream does not show, before it.
func (g *geminiConversation) Replay(h Host, store fs.FS, f StoredFile) error {
	file, err := store.Open(f.Path)
	if err != nil {
		return err
	}
	defer file.Close()
	var conv gemini.Conversation
	for e := range readable[gemini.Entry, *gemini.LineError](gemini.ReadEntries(file), g.cfg.Logger, f.Path, &err) {
		conv.Apply(e)
	}
	if err != nil {
		return err
	}
	defer func(n notices) { g.notices, g.streamed = n, false }(g.notices)
	g.notices = true
	for _, m := range conv.Messages() {
		if m.Type == "user" && !m.Meta && m.Prompt != nil {
			h.Notify(userChunks(storedPrompt(m.Prompt, promptBlocks))...)
		}
		h.Notify(thoughtChunks(m.Thoughts)...)
		for _, ev := range m.Events {
			g.updates = g.translate(g.updates[:0], ev)
			h.Notify(g.updates...)
		}
	}
	return nil
}

// thoughtChunks shows the model's thoughts as Gemini CLI's own ACP mode
// does, each its subject in bold on a line of its own, then its
// description; a blank line between two thoughts.
func thoughtChunks(thoughts []gemini.Thought) []acp.Update {
	out := make([]acp.Update, 0, len(thoughts))
	for i, t := range thoughts {
		text := t.Description
		if t.Subject != "" {
			text = "**" + t.Subject + "**\n" + text
		}
		if i > 0 {
			text = "\n\n" + text
		}
		out = append(out, acp.AgentThoughtChunk{Content: acp.TextContent{Text: text}})
	}
	return out
}
