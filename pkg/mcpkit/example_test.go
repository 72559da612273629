package mcpkit_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

type greetIn struct {
	Name string `json:"name" jsonschema_description:"Who to greet"`
}

type greetOut struct {
	Greeting string `json:"greeting"`
}

// A complete server: one typed tool, served over stdio. Here stdin is a string with
// one 2026-07-28 tools/call request, and stdout is printed.
func Example() {
	s := mcpkit.NewServer(mcpkit.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	mcpkit.AddTool(s, &mcpkit.Tool{
		Name:        "greet",
		Description: "Greet someone by name.",
		Annotations: mcpkit.ReadOnly(),
	}, func(ctx context.Context, req *mcpkit.Request, in greetIn) (greetOut, error) {
		return greetOut{Greeting: "Hello, " + in.Name + "!"}, nil
	})

	stdin := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n")
	var stdout strings.Builder
	if err := serve.Serve(context.Background(), s, &serve.Options{Stdin: stdin, Stdout: &stdout}); err != nil {
		fmt.Println(err)
	}
	fmt.Print(stdout.String())
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"greeter","version":"1.0.0"}},"content":[{"type":"text","text":"{\"greeting\":\"Hello, Ada!\"}"}],"structuredContent":{"greeting":"Hello, Ada!"}}}
}
