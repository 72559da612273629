package filesystem

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

const (
	// MaxEditBytes is the largest file edit_file works on (it holds the file in memory).
	MaxEditBytes = 16 << 20
	// maxDiffBytes caps the diff returned to the model.
	maxDiffBytes = 64 << 10
)

// Edit is one exact replacement.
type Edit struct {
	OldText string `json:"oldText" jsonschema_description:"Exact text, indentation included (LF also matches CRLF)"`
	NewText string `json:"newText"`
}

// EditFileInput is a list of exact replacements applied in order.
type EditFileInput struct {
	Path       string `json:"path"`
	Edits      []Edit `json:"edits" jsonschema:"minItems=1"`
	ReplaceAll bool   `json:"replaceAll,omitempty"`
	DryRun     bool   `json:"dryRun,omitempty"`
}

// EditFileOutput shows what changed.
type EditFileOutput struct {
	Path         string `json:"path" jsonschema_description:"Absolute path of the file"`
	Diff         string `json:"diff" jsonschema_description:"Unified diff of the change (line breaks shown as LF); empty when nothing changed"`
	Replacements int    `json:"replacements" jsonschema_description:"Number of replacements made"`
	DryRun       bool   `json:"dryRun" jsonschema_description:"True when the file was left unchanged on purpose"`
	Encoding     string `json:"encoding" jsonschema_description:"Encoding kept on disk" jsonschema:"enum=utf-8,enum=utf-8-bom,enum=utf-16le,enum=utf-16be,enum=latin-1"`
	LineEnding   string `json:"lineEnding" jsonschema_description:"Line breaks kept on disk" jsonschema:"enum=lf,enum=crlf,enum=mixed,enum=none"`
	// WhitespaceMatches lists the edits whose oldText was found only when leading
	// and trailing whitespace was ignored (editfallback.go).
	WhitespaceMatches []WhitespaceMatch `json:"whitespaceMatches,omitempty" jsonschema_description:"Edits whose oldText matched only when each line's leading and trailing whitespace was ignored, with the file lines they replaced; check the diff"`
	mcpkit.Truncation
}

// EditFile applies exact replacements, all or nothing, and returns a unified diff. It
// keeps the file's encoding (UTF-8 with or without BOM, UTF-16 LE/BE with BOM, Latin-1
// for files that are not valid UTF-8), its CRLF line breaks (edits written with LF
// match and are written back as CRLF) and its permissions; it writes atomically and
// never through a symbolic link, and gives up if the file changes meanwhile.
// EditFile itself asks nothing; the edit_file tool confirms the diff first.
func (rs *Roots) EditFile(ctx context.Context, in EditFileInput) (EditFileOutput, error) {
	return rs.editFile(ctx, in, nil)
}

// editFile is EditFile with the confirmation of a change (not of a dry run): the user
// is shown the diff, and the edit is bound to the version of the file it was made
// from (a file changed since is not written).
func (rs *Roots) editFile(ctx context.Context, in EditFileInput, confirm confirmFunc) (EditFileOutput, error) {
	if len(in.Edits) == 0 {
		return EditFileOutput{}, errors.New("edits is empty: give at least one {oldText, newText}")
	}
	root, rel, display, err := rs.resolveDisplay(in.Path)
	if err != nil {
		return EditFileOutput{}, err
	}
	data, st, err := rs.readForEdit(root, rel, display)
	if err != nil {
		return EditFileOutput{}, err
	}
	sn := sniffEncoding(data, true)
	if sn.binary {
		return EditFileOutput{}, describeNotText(display, sn)
	}
	text := decodeText(data, sn.enc)
	ending := lineEndingOf([]byte(text))
	newText, count, loose, err := applyEdits(text, ending, in.Edits, in.ReplaceAll)
	if err != nil {
		return EditFileOutput{}, fmt.Errorf("%s: %w", display, err)
	}
	encoded, err := encodeText(newText, sn.enc)
	if err != nil {
		return EditFileOutput{}, fmt.Errorf("%s: %w; nothing was changed", display, err)
	}
	out := EditFileOutput{Path: display, Replacements: count, DryRun: in.DryRun, Encoding: sn.enc.String(), LineEnding: ending, WhitespaceMatches: loose}
	rawDiff := unifiedDiff(display, toLF(text), toLF(newText))
	diff, cut := mcpkit.CleanText(rawDiff, maxDiffBytes)
	out.Diff = diff
	if cut {
		what := "the edit was applied in full"
		if in.DryRun {
			what = "this was a dry run; nothing was written"
		}
		out.Cut(fmt.Sprintf("the diff was cut at %d bytes; %s; read the file to see the result", maxDiffBytes, what))
	}
	if in.DryRun || newText == text {
		return out, nil
	}
	if confirm != nil {
		msg := fmt.Sprintf("Edit %s (%s) as this diff shows?%s\n\n%s", display, replacements(count), looseNote(loose), confirmDiff(rawDiff))
		if err := confirm(msg, contentVersion(st, data)); err != nil {
			return EditFileOutput{}, err
		}
	}
	if err := atomicWrite(root.os, rel, encoded, st.Mode().Perm(), true, st); err != nil {
		return EditFileOutput{}, rs.explain(display, err)
	}
	return out, nil
}

// readForEdit reads a whole regular file (not a symlink) through the root and returns
// the descriptor's FileInfo, which the write later checks the file against.
func (rs *Roots) readForEdit(root *Root, rel, display string) ([]byte, os.FileInfo, error) {
	lst, err := root.os.Lstat(rel)
	if err != nil {
		return nil, nil, rs.explain(display, err)
	}
	if err := writableTarget(display, lst); err != nil {
		return nil, nil, err
	}
	if lst.Size() > MaxEditBytes {
		return nil, nil, fmt.Errorf("%s is %d bytes; edit_file works on files up to %d bytes", display, lst.Size(), MaxEditBytes)
	}
	f, err := openForRead(root.os, rel)
	if err != nil {
		return nil, nil, rs.explain(display, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, rs.explain(display, err)
	}
	if !os.SameFile(st, lst) { // replaced (for example by a symlink) between the two calls
		return nil, nil, fmt.Errorf("%s changed while it was being opened; retry", display)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxEditBytes+1))
	if err != nil {
		return nil, nil, rs.explain(display, err)
	}
	if len(data) > MaxEditBytes {
		return nil, nil, fmt.Errorf("%s is over %d bytes; edit_file works on smaller files", display, MaxEditBytes)
	}
	return data, st, nil
}

func toLF(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// applyEdits applies each edit to the text in turn. In a CRLF file the text is worked
// on with LF breaks and turned back afterwards, so edits match whichever breaks they
// use; in a mixed file an edit is tried as given and then with CRLF breaks. An edit
// found nowhere exactly is tried once more ignoring each line's leading and trailing
// whitespace (whitespaceFallback), and used only if that finds exactly one place; such
// matches are returned so the result can say so.
func applyEdits(text, ending string, edits []Edit, replaceAll bool) (string, int, []WhitespaceMatch, error) {
	work := text
	if ending == "crlf" {
		work = toLF(text)
	}
	total := 0
	var loose []WhitespaceMatch
	for i, e := range edits {
		if e.OldText == "" {
			return "", 0, nil, fmt.Errorf("edit %d: oldText is empty; give the exact text to replace", i+1)
		}
		oldT, newT := e.OldText, e.NewText
		if ending == "crlf" {
			oldT, newT = toLF(oldT), toLF(newT)
		}
		n := strings.Count(work, oldT)
		if n == 0 && ending == "mixed" {
			crOld := strings.ReplaceAll(toLF(oldT), "\n", "\r\n")
			if c := strings.Count(work, crOld); c > 0 {
				oldT, newT, n = crOld, strings.ReplaceAll(toLF(newT), "\n", "\r\n"), c
			}
		}
		switch {
		case n == 0:
			fb, ok := whitespaceFallback(work, toLF(oldT), toLF(newT), i+1)
			switch {
			case !ok:
				return "", 0, nil, notFoundError(i+1, work, oldT)
			case fb.candidates != nil:
				return "", 0, nil, ambiguousFallbackError(i+1, fb.candidates, fb.lines)
			}
			work = fb.text
			loose = append(loose, fb.match)
			total++
			continue
		case n > 1 && !replaceAll:
			return "", 0, nil, fmt.Errorf("edit %d: oldText occurs %d times (at lines %s); include more surrounding lines to make it unique, or set replaceAll to change every occurrence", i+1, n, occurrenceLines(work, oldT, 5))
		}
		if replaceAll {
			work = strings.ReplaceAll(work, oldT, newT)
			total += n
		} else {
			work = strings.Replace(work, oldT, newT, 1)
			total++
		}
	}
	if ending == "crlf" {
		work = strings.ReplaceAll(work, "\n", "\r\n")
	}
	return work, total, loose, nil
}

// looseNote names, in an edit's confirmation, the edits matched ignoring whitespace.
func looseNote(loose []WhitespaceMatch) string {
	if len(loose) == 0 {
		return ""
	}
	var parts []string
	for _, m := range loose {
		parts = append(parts, fmt.Sprintf("edit %d at lines %d-%d", m.Edit, m.StartLine, m.EndLine))
	}
	return "\n\nNot found exactly, so matched ignoring leading and trailing whitespace (the only such place): " + strings.Join(parts, ", ") + "."
}

func notFoundError(n int, text, old string) error {
	msg := fmt.Sprintf("edit %d: oldText was not found, not even ignoring each line's leading and trailing whitespace; copy the text from the file as it is now (read it again)", n)
	first := strings.TrimSpace(strings.SplitN(old, "\n", 2)[0])
	if first != "" && len(first) >= 4 {
		if i := strings.Index(text, first); i >= 0 {
			msg += fmt.Sprintf("; its first line appears at line %d, so a later line differs", strings.Count(text[:i], "\n")+1)
		}
	}
	nothing := "; nothing was changed"
	return errors.New(msg + nothing)
}

// occurrenceLines lists the line numbers of the first few occurrences.
func occurrenceLines(text, sub string, max int) string {
	var lines []string
	off := 0
	for len(lines) < max {
		i := strings.Index(text[off:], sub)
		if i < 0 {
			break
		}
		lines = append(lines, fmt.Sprint(strings.Count(text[:off+i], "\n")+1))
		off += i + len(sub)
	}
	return strings.Join(lines, ", ")
}
