// Command release prepares, checks, tags and packages a release of the servers.
//
// The repository holds one library module at its root (github.com/mcpkit/reference,
// pkg/mcpkit) and one module per server (servers/<name>), each requiring a
// published version of the library: their go.mod files have no replace, so `go
// install github.com/mcpkit/reference/servers/<name>/cmd/mcp-server-<name>@<version>`
// works; go.work puts this checkout in place of that version while developing. A
// release gives every module the same version: the root module is tagged v1.2.3, each
// server servers/<name>/v1.2.3, all on one commit whose server go.mod files require
// the root at v1.2.3.
//
//	release prepare v1.2.3        set every version in the repository to v1.2.3 (go.mod requirements, go.work, server.json, bundle manifests)
//	release verify  [-rev REV] v1.2.3
//	                              build a module proxy of REV (default: the working tree) at v1.2.3 and go install every server from it, offline
//	release tag [-push REMOTE] v1.2.3
//	                              tag HEAD: the root module first, then each server; with -push, push them in that order and ask the Go module proxy for each
//	release modproxy -out DIR [-rev REV] v1.2.3
//	                              write the file-based module proxy only
//	release package -dist DIR [-platforms P] VERSION
//	                              from make dist's binaries in DIR: archives, npm packages and tarballs, MCP Bundles, registry server.json files, SHA256SUMS
//
// See the README's "Releasing" section for the whole procedure.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func usage() error {
	return fmt.Errorf("usage: release prepare|verify|tag|modproxy|package [flags] VERSION (see go doc)")
}

func run(args []string) error {
	if len(args) == 0 {
		return usage()
	}
	root, err := FindRoot(".")
	if err != nil {
		return err
	}
	cmd, args := args[0], args[1:]
	fs := flag.NewFlagSet("release "+cmd, flag.ContinueOnError)
	rev := fs.String("rev", "", "git revision to publish (default: the working tree)")
	out := fs.String("out", "", "output directory (modproxy)")
	push := fs.String("push", "", "git remote to push the tags to, in order (tag)")
	dist := fs.String("dist", filepath.Join(root, "dist"), "make dist's output directory (package)")
	platforms := fs.String("platforms", DefaultPlatforms, "platforms to package (package)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usage()
	}
	version := fs.Arg(0)
	servers, err := FindServers(root)
	if err != nil {
		return err
	}
	switch cmd {
	case "prepare":
		if err := CheckReleaseVersion(version); err != nil {
			return err
		}
		changed, err := Prepare(root, servers, version)
		for _, c := range changed {
			fmt.Println("updated", c)
		}
		return err
	case "verify":
		if err := CheckReleaseVersion(version); err != nil {
			return err
		}
		return Verify(root, *rev, servers, version, os.Stdout)
	case "tag":
		if err := CheckReleaseVersion(version); err != nil {
			return err
		}
		return Tag(root, servers, version, *push, os.Stdout)
	case "modproxy":
		if *out == "" {
			return fmt.Errorf("modproxy needs -out DIR")
		}
		if err := CheckReleaseVersion(version); err != nil {
			return err
		}
		return WriteProxy(*out, ModuleSource{Root: root, Revision: *rev}, servers, version)
	case "package":
		ps, err := ParsePlatforms(*platforms)
		if err != nil {
			return err
		}
		return Package(PackageConfig{Root: root, Dist: *dist, Version: version, Platforms: ps, Servers: servers, Log: os.Stdout})
	}
	return usage()
}
