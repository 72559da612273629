package postgres

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest"
)

// testResources (run by TestReadServer, page size 3): resources/list pages through
// the overview and every table with an opaque cursor; each table URI, special
// characters included, reads back as describe_table's JSON; unknown names and bad
// cursors are protocol errors.
func testResources(t *testing.T, s *mcpkit.Server, db *DB, dbName string) {
	c := mcpkittest.Connect(t, s, "2026-07-28", nil)
	type page struct {
		Resources []struct {
			URI      string `json:"uri"`
			Name     string `json:"name"`
			MIMEType string `json:"mimeType"`
		} `json:"resources"`
		NextCursor string `json:"nextCursor"`
	}
	var uris, names []string
	pages := 0
	for cursor := ""; ; pages++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		var p page
		if err := json.Unmarshal(c.Call("resources/list", params), &p); err != nil {
			t.Fatal(err)
		}
		for _, r := range p.Resources {
			uris = append(uris, r.URI)
			names = append(names, r.Name)
			if r.MIMEType != "application/json" {
				t.Errorf("%s: mimeType %q", r.URI, r.MIMEType)
			}
		}
		if cursor = p.NextCursor; cursor == "" || pages > 10 {
			break
		}
	}
	special := "postgres://" + dbName + "/shop/Order%20Items%2F2024%3F%23%25/schema"
	wantURIs := []string{
		"postgres://" + dbName + "/overview",
		"postgres://" + dbName + "/public/t/schema",
		special,
		"postgres://" + dbName + "/shop/customers/schema",
		"postgres://" + dbName + "/shop/orders/schema",
	}
	if d := cmp.Diff(wantURIs, uris); d != "" {
		t.Errorf("listed URIs (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"overview", "public.t", "shop.Order Items/2024?#%", "shop.customers", "shop.orders"}, names); d != "" {
		t.Errorf("listed names (-want +got):\n%s", d)
	}
	if pages != 1 {
		t.Errorf("listing took %d follow-up pages; want 1 (overview + 3 tables, then 1 table)", pages)
	}

	var tmpl struct {
		ResourceTemplates []struct {
			URITemplate string `json:"uriTemplate"`
		} `json:"resourceTemplates"`
	}
	if err := json.Unmarshal(c.Call("resources/templates/list", nil), &tmpl); err != nil {
		t.Fatal(err)
	}
	if len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != "postgres://"+dbName+"/{schema}/{table}/schema" {
		t.Errorf("templates %+v", tmpl.ResourceTemplates)
	}

	read := func(uri string) (string, *mcpkittest.Response) {
		t.Helper()
		r := c.Request("resources/read", map[string]any{"uri": uri})
		if r.Error != nil {
			return "", r
		}
		var res struct {
			Contents []struct {
				URI      string `json:"uri"`
				MIMEType string `json:"mimeType"`
				Text     string `json:"text"`
			} `json:"contents"`
		}
		if err := json.Unmarshal(r.Result, &res); err != nil || len(res.Contents) != 1 || res.Contents[0].URI != uri || res.Contents[0].MIMEType != "application/json" {
			t.Fatalf("read %s: %s (%v)", uri, r.Result, err)
		}
		return res.Contents[0].Text, r
	}
	for _, tc := range []struct{ uri, schema, table string }{
		{wantURIs[1], "public", "t"},
		{special, "shop", "Order Items/2024?#%"},
		{wantURIs[4], "shop", "orders"},
	} {
		text, r := read(tc.uri)
		if r.Error != nil {
			t.Errorf("read %s: %d %s", tc.uri, r.Error.Code, r.Error.Message)
			continue
		}
		want, err := db.DescribeTable(context.Background(), tc.schema, tc.table)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(jsonAt(t, want), text); d != "" {
			t.Errorf("read %s: not describe_table's JSON (-want +got):\n%s", tc.uri, d)
		}
	}

	text, r := read(wantURIs[0])
	if r.Error != nil {
		t.Fatalf("overview: %s", r.Error.Message)
	}
	var o Overview
	if err := json.Unmarshal([]byte(text), &o); err != nil {
		t.Fatal(err)
	}
	if o.Database != dbName || len(o.Schemas) != 2 || len(o.Tables) != 4 || o.Truncated {
		t.Errorf("overview %s; want database %s, 2 schemas, 4 tables", text, dbName)
	}

	for _, uri := range []string{
		"postgres://" + dbName + "/shop/nosuch/schema",
		"postgres://" + dbName + "/nosuch/orders/schema",
		"postgres://otherdb/shop/orders/schema",
		"postgres://" + dbName + "/shop/orders",
	} {
		if _, r := read(uri); r.Error == nil || r.Error.Code != mcpkit.CodeInvalidParams || !strings.Contains(r.Error.Message, "not found") {
			t.Errorf("read %s: %s; want a resource-not-found error", uri, r.Raw)
		}
	}
	if r := c.Request("resources/list", map[string]any{"cursor": "L:not-a-cursor"}); r.Error == nil || r.Error.Code != mcpkit.CodeInvalidParams || !strings.Contains(r.Error.Message, "cursor") {
		t.Errorf("bad cursor: %s; want invalid params naming the cursor", r.Raw)
	}
}

// testPrompt (run by TestReadServer): write_query embeds the rules and the tables
// of the chosen schema, and refuses a missing question or an unknown schema.
func testPrompt(t *testing.T, s *mcpkit.Server, dbName string) {
	c := mcpkittest.Connect(t, s, "2026-07-28", nil)
	var res struct {
		Messages []struct {
			Role    string `json:"role"`
			Content struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	raw := c.Call("prompts/get", map[string]any{"name": "write_query", "arguments": map[string]string{"question": "Which customers paid the most?", "schema": "shop"}})
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Messages) != 1 || res.Messages[0].Role != "user" {
		t.Fatalf("prompt %s (%v)", raw, err)
	}
	text := res.Messages[0].Content.Text
	for _, want := range []string{
		`database "` + dbName + `"`,
		"Question: Which customers paid the most?",
		"Exactly one statement", "READ ONLY", "params ($1, $2, …)", "Add a LIMIT: at most 1000 rows",
		"shop.customers (table, about 2 rows) -- People who buy things\n  id bigint NOT NULL PRIMARY KEY\n  name text NOT NULL\n  email text\n  UNIQUE (email)\n  Referenced by: shop.orders(customer_id)\n",
		"  customer_id bigint NOT NULL REFERENCES shop.customers(id)\n",
		"  status text NOT NULL DEFAULT 'new'::text -- new, paid or shipped\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("prompt lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "public.t") {
		t.Errorf("prompt for schema shop describes public.t:\n%s", text)
	}
	for _, args := range []map[string]string{{"schema": "shop"}, {"question": " "}, {"question": "x", "schema": "nosuch"}} {
		if r := c.Request("prompts/get", map[string]any{"name": "write_query", "arguments": args}); r.Error == nil || r.Error.Code != mcpkit.CodeInvalidParams {
			t.Errorf("arguments %v: %s; want invalid params", args, r.Raw)
		}
	}
}
