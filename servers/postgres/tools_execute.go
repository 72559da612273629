package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

type executeInput struct {
	SQL    string `json:"sql" jsonschema_description:"Exactly one statement that changes the database: INSERT, UPDATE, DELETE, MERGE or DDL such as CREATE, ALTER or DROP. Use $1, $2, … placeholders for values."`
	Params Params `json:"params,omitempty" jsonschema_description:"Values for $1, $2, … in order, as in query"`
}

// maxConfirmBytes bounds what the confirmation shows. A statement (with its params)
// longer than this is refused rather than shown in part: the user must be able to
// read all of what they approve.
const maxConfirmBytes = 32 << 10

// confirmSchema is the form the user answers: one required yes/no.
var confirmSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"confirm": map[string]any{"type": "boolean", "title": "Run and commit this statement?", "description": "Check to run exactly the statement shown and commit it"},
	},
	"required": []string{"confirm"},
}

// errNotRun starts every answer of an execute call that changed nothing.
var errNotRun = errors.New("the statement was not run")

// executeTool is the row of execute (registered only with --allow-writes). A call
// validates and plans the statement without running it, shows it to the user with the
// estimated rows it affects, and runs and commits it only after the user confirms.
//
// On 2026-07-28 the handler runs twice (input_required, then the client's retry with
// the answer; the retry is bound to the same arguments by the signed requestState),
// so everything before the confirmation is read-only.
func executeTool(db *DB) mcpkit.ServerTool {
	return mcpkit.NewServerTool(&mcpkit.Tool{
		Name: "execute",
		Description: "Run one statement that changes the database (INSERT, UPDATE, DELETE, MERGE, or DDL such as CREATE, ALTER, DROP) and commit it. " +
			"The user is shown the statement and the estimated number of rows it affects and must confirm before it runs. " +
			"One statement per call, values as $1, $2 params. Use query for reads.",
		Annotations: &mcpkit.ToolAnnotations{DestructiveHint: true},
	}, func(ctx context.Context, req *mcpkit.Request, in executeInput) (*ExecResult, error) {
		params, err := in.Params.values()
		if err != nil {
			return nil, err
		}
		// Broken SQL, several statements or wrong params fail here, before the user
		// is asked anything.
		est, err := db.EstimateEffect(ctx, in.SQL, params)
		if err != nil {
			return nil, err
		}
		msg, err := confirmMessage(db.Target(), in, est)
		if err != nil {
			return nil, err
		}
		res, err := req.Elicit(ctx, "confirm", mcpkit.ElicitParams{Message: msg, RequestedSchema: confirmSchema})
		if err != nil {
			return nil, err // input_required or a missing capability: mcpkit answers those
		}
		if err := accepted(res); err != nil {
			return nil, err
		}
		return db.Execute(ctx, in.SQL, params, true)
	})
}

// accepted checks the user's answer: accept with confirm set to true, nothing else.
func accepted(res *mcpkit.ElicitResult) error {
	switch {
	case res == nil:
		return fmt.Errorf("%w: the client returned no answer to the confirmation", errNotRun)
	case res.Action == "decline":
		return fmt.Errorf("%w: the user declined it", errNotRun)
	case res.Action == "cancel":
		return fmt.Errorf("%w: the user dismissed the confirmation", errNotRun)
	case res.Action != "accept":
		return fmt.Errorf("%w: the confirmation answer %q is not accept", errNotRun, mcpkitClean(res.Action, 40))
	}
	if ok, _ := res.Content["confirm"].(bool); !ok {
		return fmt.Errorf("%w: the user did not check confirm", errNotRun)
	}
	return nil
}

// confirmMessage is what the user reads before a write: where it runs, the exact
// statement and params (hidden characters made visible), and what the planner
// expects it to touch.
func confirmMessage(target Target, in executeInput, est *EffectEstimate) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Run this statement on database %q (host %s, user %s) and commit it?\n\n", target.Database, target.Host, target.User)
	sql, hidden := showHidden(in.SQL)
	b.WriteString(sql)
	b.WriteString("\n")
	if len(in.Params) > 0 {
		b.WriteString("\nParameters:\n")
		for i, p := range in.Params {
			v, h := showHidden(string(p))
			hidden += h
			fmt.Fprintf(&b, "  $%d = %s\n", i+1, v)
		}
	}
	if hidden > 0 {
		fmt.Fprintf(&b, "\nWARNING: the statement contains %d invisible or control character(s), shown above as \\u{…}.\n", hidden)
	}
	b.WriteString("\n")
	switch {
	case est.Estimated:
		fmt.Fprintf(&b, "Estimated effect: about %s", rowsText(est.EstimatedRows))
		var parts []string
		for _, t := range est.Targets {
			parts = append(parts, fmt.Sprintf("%s %s: %s", strings.ToUpper(t.Operation), t.Table, rowsText(t.EstimatedRows)))
		}
		fmt.Fprintf(&b, " (%s), as estimated by the planner without running the statement.\n", strings.Join(parts, "; "))
	default:
		fmt.Fprintf(&b, "Estimated effect: not available: %s. Functions the statement calls may still change data.\n", est.Note)
	}
	b.WriteString("It is committed as soon as you confirm; this server cannot undo it.")
	if b.Len() > maxConfirmBytes {
		return "", fmt.Errorf("%w: the statement and its params are %d bytes, too long to show the user in full for confirmation (at most %d): split the change into smaller statements",
			errNotRun, b.Len(), maxConfirmBytes)
	}
	return b.String(), nil
}

func rowsText(n int64) string {
	if n == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", n)
}

// showHidden returns s with every character that would not show on screen
// (zero-width, bidirectional controls, control characters other than tab, newline
// and CR LF, invalid UTF-8) written as a visible \u{XXXX} escape, and how many there
// were: a confirmation must show what will run, not what it renders as. A bare CR
// counts, as it can make a terminal overwrite what was shown before it.
func showHidden(s string) (string, int) {
	if mcpkit.SanitizeText(s) == s && !strings.ContainsRune(s, '\r') {
		return s, 0
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		chunk := s[i : i+size]
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, "\\x{%02X}", chunk[0])
			n++
		case r == '\r' && strings.HasPrefix(s[i:], "\n"):
			b.WriteString(chunk)
		case r == '\r' || (r != '\t' && r != '\n' && mcpkit.SanitizeText(chunk) != chunk):
			fmt.Fprintf(&b, "\\u{%04X}", r)
			n++
		default:
			b.WriteString(chunk)
		}
	}
	return b.String(), n
}
