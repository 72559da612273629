module github.com/mcpkit/reference/servers/filesystem

go 1.26

require github.com/mcpkit/reference v0.0.0

replace github.com/mcpkit/reference => ../..
