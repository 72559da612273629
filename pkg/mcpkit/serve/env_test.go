package serve_test

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

// TestEnvFlags: a flag on the command line wins over its variable, which wins over
// the default; flags set from the environment are not reported as given; a value
// the flag refuses is an error naming the variable and what it expects.
func TestEnvFlags(t *testing.T) {
	env := map[string]string{"name": "X_NAME", "writes": "X_WRITES", "rows": "X_ROWS", "timeout": "X_TIMEOUT"}
	parse := func(args []string, vars map[string]string) (*flag.FlagSet, error) {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.String("name", "default", "")
		fs.Bool("writes", false, "")
		fs.Int("rows", 10, "")
		fs.Duration("timeout", time.Second, "")
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return fs, serve.EnvFlags(fs, func(k string) string { return vars[k] }, env)
	}
	values := func(fs *flag.FlagSet) map[string]string {
		out := map[string]string{}
		fs.VisitAll(func(f *flag.Flag) { out[f.Name] = f.Value.String() })
		return out
	}
	fs, err := parse([]string{"--rows", "5"}, map[string]string{"X_NAME": " from-env ", "X_WRITES": "1", "X_ROWS": "99", "X_TIMEOUT": ""})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]string{"name": "from-env", "writes": "true", "rows": "5", "timeout": "1s"}, values(fs)); d != "" {
		t.Errorf("values (-want +got):\n%s", d)
	}
	var given []string
	fs.Visit(func(f *flag.Flag) { given = append(given, f.Name) })
	if d := cmp.Diff([]string{"rows"}, given); d != "" {
		t.Errorf("flags reported as given (-want +got):\n%s", d)
	}
	if fs.Lookup("name").DefValue != "default" {
		t.Errorf("the environment changed the default shown in help: %q", fs.Lookup("name").DefValue)
	}

	for _, tc := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"X_WRITES": "yes please"}, `environment variable X_WRITES="yes please" is not valid: expected 1, true, 0 or false`},
		{map[string]string{"X_ROWS": "lots"}, `environment variable X_ROWS="lots" is not valid: expected a whole number`},
		{map[string]string{"X_TIMEOUT": "30"}, `environment variable X_TIMEOUT="30" is not valid: expected a duration such as 30s`},
	} {
		if _, err := parse(nil, tc.vars); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.vars, err, tc.want)
		}
	}
	// A bad variable is not read when its flag is given.
	if _, err := parse([]string{"--writes"}, map[string]string{"X_WRITES": "yes please"}); err != nil {
		t.Errorf("the variable of a flag given on the command line was read: %v", err)
	}

	fs = flag.NewFlagSet("x", flag.ContinueOnError)
	if err := serve.EnvFlags(fs, func(string) string { return "" }, map[string]string{"nope": "X_NOPE"}); err == nil || !strings.Contains(err.Error(), "-nope, which is not defined") {
		t.Errorf("a variable for an undefined flag: %v", err)
	}
}
