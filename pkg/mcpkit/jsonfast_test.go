package mcpkit

import (
	"encoding/json"
	"reflect"
	"testing"
)

var jsonFastCorpus = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"a":1},"name":"add","arguments":{"a":1,"b":2}}}`,
	`{"jsonrpc":"2.0","id":"x y","method":"tools/list"}`,
	` { "jsonrpc" : "2.0" , "id" : -7 , "method" : "ping" , "params" : { } } `,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":null}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":"a\"b","uri":"x","extra":[1,{"y":"}"}]}}`,
	`{"jsonrpc":"2.0","id":1,"Method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"Name":"x"}}`,
	`{"jsonrpc":"2.0","id":1,"me\u0074hod":"m"}`,
	`{"jsonrpc":"2.0","id":null,"method":"m"}`,
	`{"jsonrpc":"2.0","id":1.5,"method":"m"}`,
	`{"jsonrpc":2,"id":1,"method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"method":"a\u00e9"}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","method":"n"}`,
	`{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"arguments":null,"_meta":null}}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"requestState":"s","inputResponses":{"a":[]}}}`,
	`{}`,
	`{"a":{"b":[1,2,{"c":"\\\""}]},"jsonrpc":"2.0","id":2,"method":"x"}`,
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":"x","name":"y"}}`,
}

// checkJSONFast: whenever the fast path decides, it decides as encoding/json does.
func checkJSONFast(t *testing.T, data []byte) {
	var fast message
	if !decodeMessageFast(data, &fast) {
		return
	}
	var slow message
	if err := json.Unmarshal(data, &slow); err != nil {
		t.Fatalf("fast path accepted what encoding/json refuses (%v): %s", err, data)
	}
	fast.paramsValid = false
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("message differs for %s:\nfast %+v\nslow %+v", data, fast, slow)
	}
	fast.paramsValid = true
	fe, ok := fast.envelopeFast()
	if !ok {
		return
	}
	var se paramsEnvelope
	if err := json.Unmarshal(slow.Params, &se); err != nil {
		t.Fatalf("fast envelope accepted what encoding/json refuses (%v): %s", err, slow.Params)
	}
	if !reflect.DeepEqual(*fe, se) {
		t.Fatalf("envelope differs for %s:\nfast %+v\nslow %+v", slow.Params, *fe, se)
	}
}

func TestJSONFastPathMatchesEncodingJSON(t *testing.T) {
	decided := 0
	for _, c := range jsonFastCorpus {
		checkJSONFast(t, []byte(c))
		var m message
		if decodeMessageFast([]byte(c), &m) {
			decided++
		}
	}
	if decided < 8 {
		t.Errorf("the fast path decided only %d of the corpus", decided)
	}
	// The fast path never decides these: encoding/json matches keys case-insensitively
	// and unescapes them, reads a null id, and turns invalid UTF-8 into U+FFFD.
	for _, c := range []string{jsonFastCorpus[5], jsonFastCorpus[7], jsonFastCorpus[8], jsonFastCorpus[19]} {
		var m message
		if decodeMessageFast([]byte(c), &m) {
			t.Errorf("fast path decided %s", c)
		}
	}
}

func FuzzJSONFastPath(f *testing.F) {
	for _, c := range jsonFastCorpus {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkJSONFast(t, data) })
}
