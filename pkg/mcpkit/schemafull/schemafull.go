// Package schemafull validates tool arguments against any JSON Schema (draft 2020-12 by
// default), for tools whose input schema goes beyond the keywords mcpkit checks itself:
//
//	mcpkit.NewServer(info, &mcpkit.ServerOptions{SchemaCompiler: schemafull.Compile})
//
// It is a separate package because the validator it uses costs every program that
// links it 3–9 ms of initialisation at start (1.7 MB allocated); servers whose schemas mcpkit
// generates never need it.
package schemafull

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"encoding/json"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	xmessage "golang.org/x/text/message"
)

// Compile is a mcpkit.SchemaCompiler. Remote $refs are never fetched: a tool schema
// must be self-contained.
func Compile(schema json.RawMessage) (mcpkit.ArgumentValidator, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(schema)))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	const loc = "mcpkit:///tool-input.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	sch, err := c.Compile(loc)
	if err != nil {
		return nil, err
	}
	return func(args json.RawMessage) string { return validate(sch, args) }, nil
}

// noLoader refuses every external schema.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schema references %s; only self-contained schemas are allowed", url)
}

var printer = xmessage.NewPrinter(language.English)

// maxExponent bounds the exponents of numbers in arguments. The validator computes
// with numbers exactly, and a number such as 1e999999 costs it a tenth of a second: a
// request of a few MiB of them would keep a server busy for hours.
const maxExponent = 1000

// validate returns a message naming every bad field, or "" when args are valid.
func validate(sch *jsonschema.Schema, args json.RawMessage) string {
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(args)))
	if err != nil {
		return "arguments are not valid JSON"
	}
	if n := hugeNumber(v); n != "" {
		return fmt.Sprintf("number %.40s is out of range: exponents beyond ±%d are not accepted", n, maxExponent)
	}
	err = sch.Validate(v)
	if err == nil {
		return ""
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var msgs []string
	collectLeaves(ve, &msgs)
	slices.Sort(msgs)
	return strings.Join(slices.Compact(msgs), "; ")
}

func collectLeaves(ve *jsonschema.ValidationError, out *[]string) {
	if len(ve.Causes) == 0 {
		what := ve.ErrorKind.LocalizedString(printer)
		if len(ve.InstanceLocation) == 0 {
			*out = append(*out, what)
		} else {
			*out = append(*out, mcpkit.FieldPath(ve.InstanceLocation)+": "+what)
		}
		return
	}
	for _, c := range ve.Causes {
		collectLeaves(c, out)
	}
}

// hugeNumber returns the first number in v whose exponent is beyond maxExponent.
func hugeNumber(v any) string {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		i := strings.IndexAny(s, "eE")
		if i < 0 {
			return ""
		}
		digits := strings.TrimLeft(s[i+1:], "+-0")
		if digits == "" {
			return "" // an exponent of zero
		}
		if len(digits) > 4 {
			return s
		}
		if e, err := strconv.Atoi(digits); err != nil || e > maxExponent {
			return s
		}
	case []any:
		for _, e := range x {
			if n := hugeNumber(e); n != "" {
				return n
			}
		}
	case map[string]any:
		for _, e := range x {
			if n := hugeNumber(e); n != "" {
				return n
			}
		}
	}
	return ""
}
