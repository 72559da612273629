package mcpkit

import "encoding/json"

// CompileArgSchema exposes mcpkit's own argument validator to the external tests.
func CompileArgSchema(schema json.RawMessage) (ArgumentValidator, error) {
	c, err := compileArgSchema(schema)
	if err != nil {
		return nil, err
	}
	return c.validator(), nil
}
