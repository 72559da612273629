package mcpkit

import (
	"runtime/debug"
	"testing"
)

func TestBuildVersion(t *testing.T) {
	for _, tt := range []struct {
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{nil, false, "dev"},
		{&debug.BuildInfo{Main: debug.Module{Path: "github.com/mcpkit/reference/servers/github", Version: "(devel)"}}, true, "dev"},
		{&debug.BuildInfo{Main: debug.Module{Path: "github.com/mcpkit/reference/servers/github"}}, true, "dev"},
		{&debug.BuildInfo{Main: debug.Module{Path: "github.com/mcpkit/reference/servers/github", Version: "v1.2.3"}}, true, "v1.2.3"},
	} {
		if got := buildVersion(tt.bi, tt.ok); got != tt.want {
			t.Errorf("buildVersion(%+v, %v) = %q, want %q", tt.bi, tt.ok, got, tt.want)
		}
	}
}
