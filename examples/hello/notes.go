package hello

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// maxNoteBytes bounds a note, written or read: everything a tool returns is context a
// model pays for.
const maxNoteBytes = 64 << 10

// validName is the schema's pattern for note names: a file name of its own, never a path.
var validName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// notes is the store: one NAME.md file per note in a directory opened as an os.Root.
type notes struct{ root *os.Root }

type readIn struct {
	Name string `json:"name,omitempty" jsonschema_description:"Note to read; leave out to list the notes" jsonschema:"pattern=^[a-z0-9][a-z0-9_-]*$,maxLength=64"`
}

type readOut struct {
	Notes []string `json:"notes,omitzero" jsonschema_description:"Names of all notes, sorted (when no name was given)"`
	Name  string   `json:"name,omitempty" jsonschema_description:"The note read"`
	Text  string   `json:"text,omitempty" jsonschema_description:"Its text, with invisible and bidirectional control characters removed"`
	mcpkit.Truncation
}

func (n *notes) read(ctx context.Context, req *mcpkit.Request, in readIn) (readOut, error) {
	if in.Name == "" {
		entries, err := fs.ReadDir(n.root.FS(), ".") // sorted by name
		out := readOut{Notes: []string{}}
		for _, e := range entries {
			if name, ok := strings.CutSuffix(e.Name(), ".md"); ok && e.Type().IsRegular() && validName.MatchString(name) {
				out.Notes = append(out.Notes, name)
			}
		}
		return out, err
	}
	f, err := n.root.Open(in.Name + ".md")
	if errors.Is(err, fs.ErrNotExist) {
		return readOut{}, fmt.Errorf("there is no note %q; call read_note without a name to list them", in.Name)
	} else if err != nil {
		return readOut{}, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxNoteBytes+1))
	out := readOut{Name: in.Name}
	out.Text = out.CleanField("text", string(b), maxNoteBytes)
	return out, err
}

type writeIn struct {
	Name   string `json:"name" jsonschema_description:"Note to create, replace or delete" jsonschema:"pattern=^[a-z0-9][a-z0-9_-]*$,maxLength=64"`
	Text   string `json:"text,omitempty" jsonschema_description:"The note's whole new text, in Markdown; leave out to delete" jsonschema:"maxLength=65536"`
	Delete bool   `json:"delete,omitempty" jsonschema_description:"Delete the note (give no text)"`
}

type writeOut struct {
	Name   string `json:"name" jsonschema_description:"The note written"`
	Action string `json:"action" jsonschema_description:"What was done: created, replaced or deleted" jsonschema:"enum=created,enum=replaced,enum=deleted"`
	Bytes  int    `json:"bytes" jsonschema_description:"Size of the note now (0 when deleted)"`
}

// write checks the call, asks the user to confirm exactly what will happen, and only
// then writes. On 2026-07-28 it runs twice (input_required, then the retry with the
// answer), so nothing before Confirm changes anything.
func (n *notes) write(ctx context.Context, req *mcpkit.Request, in writeIn) (writeOut, error) {
	file, out := in.Name+".md", writeOut{Name: in.Name, Action: "created", Bytes: len(in.Text)}
	msg := fmt.Sprintf("Create the note %q with this text?\n\n%s", in.Name, in.Text)
	old, statErr := n.root.Stat(file)
	switch {
	case in.Delete && in.Text != "":
		return out, errors.New("give text to write the note or delete=true to delete it, not both")
	case in.Delete && statErr != nil:
		return out, fmt.Errorf("there is no note %q to delete", in.Name)
	case in.Delete:
		out.Action, out.Bytes = "deleted", 0
		msg = fmt.Sprintf("Delete the note %q (%d bytes)?", in.Name, old.Size())
	case in.Text == "":
		return out, errors.New("text is empty; give the note's whole text, or delete=true to delete it")
	case len(in.Text) > maxNoteBytes:
		return out, fmt.Errorf("text is %d bytes; a note holds at most %d", len(in.Text), maxNoteBytes)
	case statErr == nil:
		out.Action = "replaced"
		msg = fmt.Sprintf("Replace the note %q (%d bytes) with this text?\n\n%s", in.Name, old.Size(), in.Text)
	}
	// req.Confirm is the one confirmation of every server here: accept, decline, a
	// client without elicitation and --no-confirm are handled there. The answer is
	// bound to the note as it is now (its size and modification time), so it is not
	// taken for a note changed since, or already written by this confirmation.
	var version string
	if statErr == nil {
		version = fmt.Sprint(old.Size(), old.ModTime().UnixNano())
	}
	if err := req.Confirm(ctx, "confirm", msg, version); err != nil {
		return out, err
	}
	if in.Delete {
		return out, n.root.Remove(file)
	}
	return out, n.root.WriteFile(file, []byte(in.Text), 0o644)
}
