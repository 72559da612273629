module github.com/mcpkit/reference/tools/release

go 1.26

require golang.org/x/mod v0.39.0
