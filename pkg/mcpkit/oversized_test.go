package mcpkit

import (
	"bufio"
	"strings"
	"testing"
)

// TestOversizedID finds the id of a message over the limit from its ends only, and
// never one that belongs to the params.
func TestOversizedID(t *testing.T) {
	big := strings.Repeat("x", 3*oversizedKeep)
	tests := []struct {
		name, msg, want string
	}{
		{"id first (Go SDK order)", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"content":"` + big + `"}}}`, "7"},
		{"string id first", `{"jsonrpc":"2.0","id":"a\"b","method":"tools/call","params":{"c":"` + big + `"}}`, `"a\"b"`},
		{"id last (TypeScript SDK order)", `{"method":"tools/call","params":{"arguments":{"content":"` + big + `"}},"jsonrpc":"2.0","id":42}`, "42"},
		{"id last with spaces", `{"method":"m","params":{"c":"` + big + `"}, "id" : "k-1" }` + "  ", `"k-1"`},
		{"id inside params at the end", `{"method":"m","jsonrpc":"2.0","params":{"c":"` + big + `","id":9}}`, ""},
		{"id inside a string at the end", `{"method":"m","params":{"c":"` + big + `\"id\":9}"}}`, ""},
		{"no id", `{"method":"m","params":{"c":"` + big + `"}}`, ""},
		{"id not an integer", `{"method":"m","params":{"c":"` + big + `"},"id":1.5}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			br := bufio.NewReaderSize(strings.NewReader(tt.msg+"\n"+`{"next":1}`+"\n"), 1024)
			line, over, err := readLine(br, 2*oversizedKeep)
			if err != nil || over == nil || line != nil {
				t.Fatalf("readLine: line %d bytes, over %v, err %v; want the line reported as over", len(line), over != nil, err)
			}
			if got := oversizedID(over.head, over.tail).String(); got != tt.want {
				t.Errorf("id %q, want %q", got, tt.want)
			}
			if next, over, _ := readLine(br, 2*oversizedKeep); string(next) != `{"next":1}` || over != nil {
				t.Errorf("the stream lost sync: next line %q", next)
			}
		})
	}
}
