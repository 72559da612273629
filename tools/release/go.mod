module github.com/mcpkit/reference/tools/release

go 1.26

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	golang.org/x/mod v0.39.0
)

require golang.org/x/text v0.14.0 // indirect
