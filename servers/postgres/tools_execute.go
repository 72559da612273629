package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

type executeInput struct {
	dbArg
	SQL    string `json:"sql" jsonschema_description:"One statement: INSERT, UPDATE, DELETE, MERGE or DDL, with $1, $2, … for values"`
	Params Params `json:"params,omitempty"`
}

// maxConfirmBytes bounds what the confirmation shows. A statement (with its params)
// longer than this is refused rather than shown in part: the user must be able to
// read all of what they approve.
const maxConfirmBytes = 32 << 10

// errNotRun starts the answer of an execute call refused before the user is asked.
var errNotRun = errors.New("the statement was not run")

// executeTool is the row of execute (registered only with --allow-writes). A call
// validates and plans the statement without running it, shows it to the user with the
// estimated rows it affects (req.Confirm), and runs and commits it only after the user
// confirms; with confirm false (--no-confirm) it runs without asking.
//
// On 2026-07-28 the handler runs twice (input_required, then the client's retry with
// the answer; the retry is bound to the same arguments and to the message shown by
// the signed requestState, which is good for one retry), so everything before the
// confirmation is read-only.
func executeTool(ds *databases, confirm bool) mcpkit.ServerTool {
	asks := "The user is shown the statement and the estimated number of rows it affects and must confirm before it runs. "
	if !confirm {
		asks = "It runs without asking the user (the server was started with --no-confirm: the host confirms each call). "
	}
	return mcpkit.NewServerTool(&mcpkit.Tool{
		Name: "execute",
		Description: "Run one statement that changes the database (INSERT, UPDATE, DELETE, MERGE, or DDL such as CREATE, ALTER, DROP) and commit it. " +
			asks + "Use query for reads.",
		Annotations: &mcpkit.ToolAnnotations{DestructiveHint: true},
	}, func(ctx context.Context, req *mcpkit.Request, in executeInput) (*ExecResult, error) {
		named, err := ds.pick(in.Database)
		if err != nil {
			return nil, err
		}
		db := named.DB
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
		label := ""
		if ds.multi() {
			label = named.Name
		}
		msg, err := confirmMessage(db.Target(), label, in, est)
		if err != nil {
			return nil, err
		}
		// The one confirmation of every server here: input_required, a missing
		// capability and every answer but a checked yes are handled by mcpkit.
		if err := req.Confirm(ctx, "confirm", msg); err != nil {
			return nil, err
		}
		res, err := db.Execute(ctx, in.SQL, params, true)
		if res != nil {
			res.Database = label
		}
		return res, err
	})
}

// confirmMessage is what the user reads before a write: where it runs (with several
// databases, label is the name the server serves it under), the exact
// statement and params (hidden characters made visible), and what the planner
// expects it to touch.
func confirmMessage(target Target, label string, in executeInput, est *EffectEstimate) (string, error) {
	var b strings.Builder
	if label != "" {
		fmt.Fprintf(&b, "Run this statement on database %s (PostgreSQL database %q, host %s, user %s) and commit it?\n\n", label, target.Database, target.Host, target.User)
	} else {
		fmt.Fprintf(&b, "Run this statement on database %q (host %s, user %s) and commit it?\n\n", target.Database, target.Host, target.User)
	}
	sql, hidden := mcpkit.ShowHidden(in.SQL)
	b.WriteString(sql)
	b.WriteString("\n")
	if len(in.Params) > 0 {
		b.WriteString("\nParameters:\n")
		for i, p := range in.Params {
			v, h := mcpkit.ShowHidden(string(p))
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
