package serve

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// EnvFlags gives flags environment variables: env maps a flag name to its
// variable. Call it after fs.Parse; each flag in env that was not given on the
// command line takes its variable's value (read with getenv, surrounding spaces
// trimmed; empty means unset) through the flag's own parser, so a flag given on the
// command line wins over its variable, which wins over the flag's default. Flags
// set this way are not marked as given: fs.Visit still lists only those on the
// command line. A value the flag does not accept is an error naming the variable
// and what it expects.
//
// Every server uses it for its own flags, as [Flags] does for the standard ones:
//
//	var flagEnv = map[string]string{"allow-writes": "X_ALLOW_WRITES"}
//	...
//	if err := fs.Parse(args); err != nil { return err }
//	if err := serve.EnvFlags(fs, getenv, flagEnv); err != nil { return err }
func EnvFlags(fs *flag.FlagSet, getenv func(string) string, env map[string]string) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, name := range slices.Sorted(maps.Keys(env)) {
		fl := fs.Lookup(name)
		if fl == nil {
			return fmt.Errorf("serve.EnvFlags: environment variable %s is for flag -%s, which is not defined", env[name], name)
		}
		if given[name] {
			continue
		}
		v := strings.TrimSpace(getenv(env[name]))
		if v == "" {
			continue
		}
		if err := fl.Value.Set(v); err != nil {
			return fmt.Errorf("environment variable %s=%q is not valid: %s", env[name], v, expected(fl, err))
		}
	}
	return nil
}

// expected says what a flag takes, for the error about a variable it refused.
func expected(fl *flag.Flag, err error) string {
	if g, ok := fl.Value.(flag.Getter); ok {
		switch g.Get().(type) {
		case bool:
			return "expected 1, true, 0 or false"
		case time.Duration:
			return "expected a duration such as 30s or 2m"
		case int, int64, uint, uint64:
			return "expected a whole number"
		case float64:
			return "expected a number"
		}
	}
	return err.Error()
}
