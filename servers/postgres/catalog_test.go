package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpkit/reference/servers/postgres/internal/pgtest"
)

const catalogFixture = `
CREATE SCHEMA shop;
COMMENT ON SCHEMA shop IS 'The shop';
CREATE TABLE shop.customers (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  email text NOT NULL UNIQUE,
  name varchar(80),
  created_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE shop.customers IS 'People who buy';
COMMENT ON COLUMN shop.customers.email IS 'Login email';
CREATE TABLE shop.orders (
  id int PRIMARY KEY,
  customer_id bigint NOT NULL REFERENCES shop.customers (id) ON DELETE CASCADE,
  total numeric(10,2) CHECK (total >= 0),
  status text DEFAULT 'new',
  total_cents bigint GENERATED ALWAYS AS ((total * 100)::bigint) STORED
);
CREATE INDEX orders_customer_idx ON shop.orders (customer_id);
CREATE VIEW shop.big_orders AS SELECT id, total FROM shop.orders WHERE total > 100;
CREATE TABLE shop.events (id int, at date) PARTITION BY RANGE (at);
CREATE TABLE shop.events_2024 PARTITION OF shop.events FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
INSERT INTO shop.customers (email, name) VALUES ('a@example.com', 'A'), ('b@example.com', 'B');
INSERT INTO shop.orders VALUES (1, 1, 10, DEFAULT), (2, 1, 200, DEFAULT), (3, 2, 30, 'paid');
INSERT INTO shop.events VALUES (1, '2024-05-01'), (2, '2024-06-01');
CREATE MATERIALIZED VIEW shop.order_totals AS SELECT customer_id, sum(total) AS total FROM shop.orders GROUP BY customer_id;
ANALYZE;
`

func i64(n int64) *int64   { return &n }
func str(s string) *string { return &s }

// TestCatalog checks schema, table and column descriptions against a small fixture.
func TestCatalog(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	d.Exec(t, catalogFixture)
	db := openDB(t, d.URL, Options{})
	ctx := context.Background()

	t.Run("ListSchemas", func(t *testing.T) {
		got, err := db.ListSchemas(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := &SchemaList{Schemas: []Schema{
			{Name: "public", Owner: "pg_database_owner", Tables: 0, Comment: "standard public schema"},
			{Name: "shop", Owner: "postgres", Tables: 5, Comment: "The shop"},
		}, RowText: RowText{Untrusted: "comment"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})

	wantShop := []TableSummary{
		{Schema: "shop", Name: "big_orders", Kind: "view"},
		{Schema: "shop", Name: "customers", Kind: "table", RowEstimate: i64(2), Comment: "People who buy"},
		{Schema: "shop", Name: "events", Kind: "partitioned table", RowEstimate: i64(2)},
		{Schema: "shop", Name: "order_totals", Kind: "materialized view", RowEstimate: i64(2)},
		{Schema: "shop", Name: "orders", Kind: "table", RowEstimate: i64(3)},
	}
	t.Run("ListTables", func(t *testing.T) {
		for _, schema := range []string{"shop", ""} {
			got, err := db.ListTables(ctx, schema)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&TableList{Tables: wantShop, RowText: RowText{Untrusted: "comment"}}, got); diff != "" {
				t.Errorf("schema %q (-want +got):\n%s", schema, diff)
			}
		}
		_, err := db.ListTables(ctx, "nope")
		var nf *NotFoundError
		if !errors.As(err, &nf) || !strings.Contains(err.Error(), `schema "nope" does not exist`) {
			t.Errorf("missing schema: got %v", err)
		}
	})
	t.Run("ListTables capped", func(t *testing.T) {
		small := openDB(t, d.URL, Options{MaxRows: 2})
		got, err := small.ListTables(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Tables) != 2 || !got.Truncated || !strings.Contains(got.Hint, "one schema at a time") {
			t.Errorf("got %d tables truncated=%v hint=%q", len(got.Tables), got.Truncated, got.Hint)
		}
	})

	t.Run("DescribeTable orders", func(t *testing.T) {
		got, err := db.DescribeTable(ctx, "shop", "orders")
		if err != nil {
			t.Fatal(err)
		}
		want := &TableDescription{
			Schema: "shop", Name: "orders", Kind: "table", RowEstimate: i64(3),
			Columns: []ColumnInfo{
				{Name: "id", Type: "integer", Nullable: false},
				{Name: "customer_id", Type: "bigint", Nullable: false},
				{Name: "total", Type: "numeric(10,2)", Nullable: true},
				{Name: "status", Type: "text", Nullable: true, Default: str("'new'::text")},
				{Name: "total_cents", Type: "bigint", Nullable: true, Default: str("((total * (100)::numeric))::bigint"), Generated: true},
			},
			PrimaryKey: &PrimaryKey{Name: "orders_pkey", Columns: []string{"id"}},
			ForeignKeys: []ForeignKey{{Name: "orders_customer_id_fkey", Table: "shop.orders", Columns: []string{"customer_id"},
				ReferencedTable: "shop.customers", ReferencedColumns: []string{"id"}, OnUpdate: "NO ACTION", OnDelete: "CASCADE"}},
			Indexes: []Index{
				{Name: "orders_customer_idx", Definition: "CREATE INDEX orders_customer_idx ON shop.orders USING btree (customer_id)"},
				{Name: "orders_pkey", Definition: "CREATE UNIQUE INDEX orders_pkey ON shop.orders USING btree (id)", Unique: true, Primary: true},
			},
			Constraints: []TableConstraint{{Name: "orders_total_check", Type: "check", Columns: []string{"total"}, Definition: "CHECK (total >= 0::numeric)"}},
			RowText:     RowText{Untrusted: "comment"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})

	t.Run("DescribeTable customers", func(t *testing.T) {
		got, err := db.DescribeTable(ctx, "shop", "customers")
		if err != nil {
			t.Fatal(err)
		}
		want := &TableDescription{
			Schema: "shop", Name: "customers", Kind: "table", RowEstimate: i64(2), Comment: "People who buy",
			Columns: []ColumnInfo{
				{Name: "id", Type: "bigint", Nullable: false, Identity: "always"},
				{Name: "email", Type: "text", Nullable: false, Comment: "Login email"},
				{Name: "name", Type: "character varying(80)", Nullable: true},
				{Name: "created_at", Type: "timestamp with time zone", Nullable: false, Default: str("now()")},
			},
			PrimaryKey: &PrimaryKey{Name: "customers_pkey", Columns: []string{"id"}},
			ReferencedBy: []ForeignKey{{Name: "orders_customer_id_fkey", Table: "shop.orders", Columns: []string{"customer_id"},
				ReferencedTable: "shop.customers", ReferencedColumns: []string{"id"}, OnUpdate: "NO ACTION", OnDelete: "CASCADE"}},
			Indexes: []Index{
				{Name: "customers_email_key", Definition: "CREATE UNIQUE INDEX customers_email_key ON shop.customers USING btree (email)", Unique: true},
				{Name: "customers_pkey", Definition: "CREATE UNIQUE INDEX customers_pkey ON shop.customers USING btree (id)", Unique: true, Primary: true},
			},
			Constraints: []TableConstraint{{Name: "customers_email_key", Type: "unique", Columns: []string{"email"}, Definition: "UNIQUE (email)"}},
			RowText:     RowText{Untrusted: "comment"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})

	t.Run("DescribeTable view", func(t *testing.T) {
		got, err := db.DescribeTable(ctx, "shop", "big_orders")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(got.ViewDefinition, "FROM shop.orders") || !strings.Contains(got.ViewDefinition, "> 100") {
			t.Errorf("view definition %q", got.ViewDefinition)
		}
		got.ViewDefinition = ""
		want := &TableDescription{Schema: "shop", Name: "big_orders", Kind: "view", Columns: []ColumnInfo{
			{Name: "id", Type: "integer", Nullable: true}, {Name: "total", Type: "numeric(10,2)", Nullable: true}},
			RowText: RowText{Untrusted: "comment, viewDefinition"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})

	t.Run("DescribeTable not found", func(t *testing.T) {
		for _, c := range []struct{ schema, table, want string }{
			{"", "orders", `table "orders" not found on the search path`},
			{"shop", "Orders", `table "Orders" not found in schema "shop"`},
			{"public", "orders", `table "orders" not found in schema "public"`},
		} {
			_, err := db.DescribeTable(ctx, c.schema, c.table)
			var nf *NotFoundError
			if !errors.As(err, &nf) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("DescribeTable(%q, %q): got %v, want %q", c.schema, c.table, err, c.want)
			}
		}
	})
}

// TestCanWrite checks the write-access report for a superuser, an owner and a role
// with pg_read_all_data only.
func TestCanWrite(t *testing.T) {
	t.Parallel()
	d := pgtest.NewDatabase(t)
	owner := d.CreateRole(t, "owner", "NOSUPERUSER", "")
	reader := d.CreateRole(t, "reader", "NOSUPERUSER", "")
	d.Exec(t, `REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT CREATE ON SCHEMA public TO `+owner+`;
GRANT pg_read_all_data TO `+reader+`;
SET ROLE `+owner+`;
CREATE TABLE t (id int);
CREATE SEQUENCE s;`)
	ctx := context.Background()
	tests := []struct {
		url  string
		want WriteAccess
	}{
		{d.URL, WriteAccess{Role: "postgres", Superuser: true, CanWrite: true, Reasons: []string{
			"role is a superuser", "role has CREATEROLE", "role has CREATEDB", "role is a member of pg_write_all_data",
			"CREATE on database " + d.Name, "INSERT/UPDATE/DELETE/TRUNCATE on public.t", "CREATE on schema public", "USAGE/UPDATE on sequence public.s"}}},
		{d.URLAs(owner, ""), WriteAccess{Role: owner, CanWrite: true, Reasons: []string{
			"INSERT/UPDATE/DELETE/TRUNCATE on public.t", "CREATE on schema public", "USAGE/UPDATE on sequence public.s"}}},
		{d.URLAs(reader, ""), WriteAccess{Role: reader}},
	}
	for _, tt := range tests {
		t.Run(tt.want.Role, func(t *testing.T) {
			db := openDB(t, tt.url, Options{})
			got, err := db.CanWrite(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if diff := cmp.Diff(&want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if tt.want.Role == reader {
				// And the database agrees: the read role can read but not write.
				if _, err := db.Query(ctx, "SELECT * FROM t", nil); err != nil {
					t.Errorf("reader cannot read: %v", err)
				}
			}
		})
	}
}
