// Command ocibuild packs a static server binary into an OCI image without a container
// engine (none runs in CI), laid out as the server's Dockerfile places the binary: one
// layer with the binary at /<name> and a world-writable /tmp, user 65532:65532,
// entrypoint the binary, OCI labels. Unlike the Dockerfiles' distroless base, the layer
// holds nothing else: no CA certificates (/etc/ssl/certs), no /etc/passwd, no time
// zone data. The digest is reproducible: every timestamp is
// the Unix epoch and the layer is built deterministically.
//
//	ocibuild -binary bin/linux_amd64/mcp-server-x -name mcp-server-x -version v1.0.0 \
//	    -description "..." -out out/images/mcp-server-x [-smoke]
//
// It writes an OCI layout directory (<out>/layout) and a docker-loadable tarball
// (<out>/image.tar), prints the digest and size, and with -smoke unpacks the image with
// umoci and runs it under runc: no network, read-only root, non-root, every
// capability dropped, no new privileges; the server must answer server/discover and
// tools/list on stdin/stdout and exit when stdin closes.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ocibuild", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var spec Spec
	fs.StringVar(&spec.Binary, "binary", "", "path of the static linux binary to pack (required)")
	fs.StringVar(&spec.Name, "name", "", "image and binary name, e.g. mcp-server-filesystem (required)")
	fs.StringVar(&spec.Version, "version", "dev", "version label and tag")
	fs.StringVar(&spec.Description, "description", "", "OCI description label")
	fs.StringVar(&spec.Source, "source", "https://github.com/mcpkit/reference", "OCI source label")
	fs.StringVar(&spec.Arch, "arch", "amd64", "image architecture")
	fs.Var(&spec.Env, "env", "KEY=VALUE set in the image config (repeatable)")
	fs.Var(&spec.Tmpfs, "tmpfs", "directory the smoke test mounts as tmpfs, as `docker run --tmpfs` would (repeatable; /tmp always)")
	fs.Var(&spec.Bind, "bind", "HOST:CONTAINER directory the smoke test bind-mounts, e.g. a database socket directory (repeatable)")
	fs.Var(&spec.Args, "arg", "argument the smoke test passes to the server (repeatable)")
	out := fs.String("out", "", "output directory (required)")
	smoke := fs.Bool("smoke", false, "unpack and run the image under runc and check it answers")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if spec.Binary == "" || spec.Name == "" || *out == "" {
		fmt.Fprintln(stderr, "ocibuild: -binary, -name and -out are required")
		fs.Usage()
		return 2
	}
	res, err := Build(spec, *out)
	if err != nil {
		fmt.Fprintln(stderr, "ocibuild:", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s %s digest=%s size=%d bytes (%.1f MB compressed layer)\n", spec.Name, spec.Version, res.Digest, res.Size, float64(res.LayerSize)/1e6)
	if *smoke {
		report, err := Smoke(res.LayoutDir, spec)
		if err != nil {
			fmt.Fprintln(stderr, "ocibuild: smoke test:", err)
			return 1
		}
		fmt.Fprintf(stdout, "%s smoke test: %s\n", spec.Name, report)
	}
	return 0
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return fmt.Sprint(*l) }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }
