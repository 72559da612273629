package mcpkit

import (
	"bytes"
	"encoding/json"
	"slices"
)

// Optional arguments sent as null are treated as absent, at both revisions.
//
// Agent frameworks that make tool schemas strict (OpenAI's Agents SDK with strict
// schemas on, and any host following OpenAI's structured outputs) must mark every
// property required, so they turn each optional property into "type or null" and the
// model sends null for every argument it leaves out. A schema-exact server would
// refuse those calls with "invalid arguments"; dropping the null optional arguments
// first gives the handler what the model meant. A required argument sent as null is
// kept, and refused by validation as before.

// requiredNames returns the top-level required names of the tool's input schema.
func (rt *registeredTool) requiredNames() []string {
	rt.requiredOnce.Do(func() {
		var sch struct {
			Required []string `json:"required"`
		}
		if json.Unmarshal(rt.tool.InputSchema, &sch) == nil {
			rt.required = sch.Required
		}
	})
	return rt.required
}

// dropNullOptionals returns args (a JSON object) without the members whose value is
// null and whose name is not in required. Arguments without such a member are
// returned as they are, without decoding (the common case costs one byte search).
func dropNullOptionals(args json.RawMessage, required []string) json.RawMessage {
	if !bytes.Contains(args, []byte("null")) {
		return args
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(args, &members) != nil {
		return args // not an object: validation says what is wrong
	}
	dropped := false
	for k, v := range members {
		if string(bytes.TrimSpace(v)) == "null" && !slices.Contains(required, k) {
			delete(members, k)
			dropped = true
		}
	}
	if !dropped {
		return args
	}
	out, err := json.Marshal(members)
	if err != nil {
		return args
	}
	return out
}
