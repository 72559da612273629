package event

import "strings"

// Grouping version 2 (issue 26) keys a frame as Sentry's stack-trace grouping does:
// by its module (the file when the SDK sent no module) and its function, and, for
// the platforms whose source Sentry trusts for grouping (its contextline_platforms:
// javascript, node, python, php, ruby), by the frame's source line when the SDK sent
// one, so two raise sites in one function are two issues. The line is taken with its
// runs of whitespace collapsed and left out when longer than 120 characters
// (minified code), as Sentry does; without it a frame is keyed by module and
// function only, Sentry's fallback. Go is not among those platforms: Sentry groups
// sentry-go's frames by module and function whether or not they carry source
// context, and so does this store. Line numbers never count: an edit elsewhere in a
// file keeps the group.
//
// Version 1 keyed every frame by module and function only (the file only when both
// are missing). Issue ids are hashes of the grouping, so an event whose version-2 id
// is new is filed under its version-1 id when an issue of that id exists (the store's
// prepare computes both with LegacyIssueID; its writer.issueRow looks them up): a store written by an earlier
// version keeps its issues and their new events, as Sentry keeps a group across a
// grouping upgrade. Events whose frames all have modules and no trusted source lines
// have the same id in both versions.

// contextLinePlatforms are the event platforms whose frames' source lines group.
var contextLinePlatforms = map[string]bool{"javascript": true, "node": true, "python": true, "php": true, "ruby": true}

// maxGroupingContextLine is the longest source line that takes part in grouping.
const maxGroupingContextLine = 120

// frameKeyFor returns how the frames of an event of platform are keyed.
func frameKeyFor(platform string) func(Frame) string {
	if contextLinePlatforms[platform] {
		return frameKeyWithLine
	}
	return frameKeyV2
}

// frameKeyV2 identifies a frame by its module, or its file when it has none, and
// its function.
func frameKeyV2(f Frame) string {
	if f.Module == "" && f.Function == "" {
		return "file:" + f.Filename
	}
	mod := f.Module
	if mod == "" {
		mod = f.Filename
	}
	return mod + "." + f.Function
}

// frameKeyWithLine is frameKeyV2 plus the frame's source line, when it has one that
// groups.
func frameKeyWithLine(f Frame) string {
	key := frameKeyV2(f)
	if line := groupingContextLine(f); line != "" {
		key += "\x00line:" + line
	}
	return key
}

// frameKeyV1 identifies a frame by grouping version 1 (module and function).
func frameKeyV1(f Frame) string {
	if f.Module == "" && f.Function == "" {
		return "file:" + f.Filename
	}
	return f.Module + "." + f.Function
}

// groupingContextLine is the frame's own source line as grouping takes it, or "".
func groupingContextLine(f Frame) string {
	for _, c := range f.Context {
		if c.Line == f.Line {
			if len(c.Code) > maxGroupingContextLine {
				return ""
			}
			return strings.Join(strings.Fields(c.Code), " ")
		}
	}
	return ""
}

// LegacyIssueID is the id grouping version 1 gave the event, or "" when it is the
// one it has now.
func LegacyIssueID(e *Event) string {
	if id := IssueIDFor(e.Project, groupingPartsBy(e, frameKeyV1)); id != e.IssueID {
		return id
	}
	return ""
}
