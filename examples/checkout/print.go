package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// printTranscript prints each call with its arguments and the bytes of its result,
// and with verbose the result itself.
func printTranscript(out io.Writer, res *Result, verbose bool) {
	fmt.Fprintf(out, "%-2s %-13s %-24s %7s  %s\n", "#", "server", "tool", "bytes", "arguments")
	for i, c := range res.Calls {
		args, _ := json.Marshal(c.Args)
		mark := ""
		if c.IsError {
			mark = "  (isError)"
		}
		fmt.Fprintf(out, "%-2d %-13s %-24s %7s  %s%s\n", i+1, c.Server, c.Tool, thousands(c.Bytes), args, mark)
		if verbose {
			fmt.Fprintf(out, "%s\n\n", indent(c.Text))
		}
	}
	fmt.Fprintf(out, "   %d calls, %s bytes of tool output", len(res.Calls), thousands(res.Bytes))
	var lists []string
	for name, n := range res.ToolsList {
		lists = append(lists, fmt.Sprintf("%s %s", name, thousands(n)))
	}
	sort.Strings(lists)
	fmt.Fprintf(out, " (tools/list, once per conversation: %s)\n\n", strings.Join(lists, ", "))
}

// printAnswer prints the answer material.
func printAnswer(out io.Writer, res *Result) {
	a := res.Answer
	id := a.IssueID
	if a.ShortID != "" {
		id = a.ShortID + " (" + a.IssueID + ")"
	}
	fmt.Fprintln(out, "answer material")
	fmt.Fprintf(out, "  issue     %s %q\n", id, a.Title)
	fmt.Fprintf(out, "  count     %d events, %d users, first %s, last %s", a.Count, a.Users, a.FirstSeen, a.LastSeen)
	if a.Now != "" {
		fmt.Fprintf(out, ", now %s", a.Now)
	}
	fmt.Fprintln(out)
	fmt.Fprintf(out, "  release   %s on %d/%d events (%d release(s))\n", a.Release, a.ReleaseEvents, a.Count, a.Releases)
	fmt.Fprintf(out, "  tag       currency=%s on %d/%d events (%d value(s))\n", a.Currency, a.CurrencyEvents, a.Count, a.Currencies)
	if a.Found == "search" {
		fmt.Fprintf(out, "  frame     %s in %s, found by search at %s\n", a.Frame, a.Function, a.Mapped)
	} else {
		fmt.Fprintf(out, "  frame     %s in %s (%s)\n", a.Frame, a.Function, a.Found)
	}
	fmt.Fprintf(out, "  source    %d: %s\n", a.Line, strings.TrimSpace(a.SourceLine))
	if a.Table != "" {
		fmt.Fprintf(out, "  table     %s at %s has %s (no %s)\n", a.Table, a.TableFile, strings.Join(a.TableKeys, ", "), a.Currency)
	}
	if res.Conclusion != "" {
		fmt.Fprintf(out, "\nanswer\n  %s\n", res.Conclusion)
	}
}

// conclusion is the one-sentence answer to the question, built only from the material
// the tools gave: what fails, how often and since when, with which release and tag,
// at which line, and why (the table without the currency). "" when the material is
// not all there: the transcript then ends at the material.
func conclusion(a Answer) string {
	if a.Title == "" || a.Frame == "" || a.Currency == "" || a.Table == "" {
		return ""
	}
	return fmt.Sprintf("Checkout fails with %q (%d events from %d users since %s, release %s): %s at %s indexes %s with the currency, and %s has no %s (it has %s), so every %s payment fails.",
		a.Title, a.Count, a.Users, a.FirstSeen, a.Release, a.Function, a.Frame, a.Table, a.Table, a.Currency, strings.Join(a.TableKeys, ", "), a.Currency)
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func indent(s string) string {
	return "     | " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n     | ")
}
