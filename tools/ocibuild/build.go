package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Spec describes one image.
type Spec struct {
	Binary, Name, Version, Description, Source, Arch string
	Env                                              listFlag // extra KEY=VALUE in the image config
	Tmpfs                                            listFlag // writable mounts the smoke test provides (besides /tmp)
	Bind                                             listFlag // host:container directories the smoke test bind-mounts (e.g. a database socket)
	Args                                             listFlag // arguments the smoke test passes after the entrypoint
}

// Result is what Build wrote.
type Result struct {
	LayoutDir, Tarball string
	Digest             v1.Hash
	Size               int64 // manifest + config + compressed layer: what a registry stores
	LayerSize          int64
}

// nonRoot is distroless's "nonroot" user, the same number the Dockerfiles use.
const nonRoot = "65532:65532"

// Build packs the binary into an OCI image and writes a layout and a tarball.
func Build(spec Spec, out string) (*Result, error) {
	bin, err := os.ReadFile(spec.Binary)
	if err != nil {
		return nil, err
	}
	layerTar, err := rootfs(spec.Name, bin)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, MediaType: types.OCILayer,
		History: v1.History{CreatedBy: "ocibuild: " + spec.Name + " static binary", Created: v1.Time{Time: time.Unix(0, 0).UTC()}}})
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = "linux", spec.Arch
	cfg.Created = v1.Time{Time: time.Unix(0, 0).UTC()}
	cfg.Config.Entrypoint = []string{"/" + spec.Name}
	cfg.Config.User = nonRoot
	cfg.Config.WorkingDir = "/"
	cfg.Config.Env = append([]string{"PATH=/", "TMPDIR=/tmp", "HOME=/tmp"}, spec.Env...)
	cfg.Config.Labels = map[string]string{
		"org.opencontainers.image.title":       spec.Name,
		"org.opencontainers.image.version":     spec.Version,
		"org.opencontainers.image.description": spec.Description,
		"org.opencontainers.image.source":      spec.Source,
		"org.opencontainers.image.licenses":    "MIT",
	}
	// The MCP Registry checks that an image belongs to the server entry naming it.
	if short, ok := strings.CutPrefix(spec.Name, "mcp-server-"); ok {
		cfg.Config.Labels["io.modelcontextprotocol.server.name"] = "io.github.mcpkit/" + short
	}
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return nil, err
	}
	img = mutate.Annotations(img, map[string]string{
		"org.opencontainers.image.version": spec.Version,
		"org.opencontainers.image.source":  spec.Source,
	}).(v1.Image)

	if err := os.RemoveAll(out); err != nil {
		return nil, err
	}
	layoutDir := filepath.Join(out, "layout")
	lp, err := layout.Write(layoutDir, empty.Index)
	if err != nil {
		return nil, err
	}
	if err := lp.AppendImage(img, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": spec.Version})); err != nil {
		return nil, err
	}
	tag, err := name.NewTag(spec.Name + ":" + spec.Version)
	if err != nil {
		return nil, fmt.Errorf("image tag: %w", err)
	}
	tarPath := filepath.Join(out, "image.tar")
	if err := tarball.WriteToFile(tarPath, tag, img); err != nil {
		return nil, err
	}
	digest, err := img.Digest()
	if err != nil {
		return nil, err
	}
	manifest, _ := img.RawManifest()
	config, _ := img.RawConfigFile()
	lsize, err := layer.Size()
	if err != nil {
		return nil, err
	}
	return &Result{LayoutDir: layoutDir, Tarball: tarPath, Digest: digest,
		Size: int64(len(manifest)+len(config)) + lsize, LayerSize: lsize}, nil
}

// rootfs is the single layer: /tmp (1777) and the binary at /<name> (0555), owned by
// root so the non-root user cannot replace it, with epoch timestamps.
func rootfs(binName string, bin []byte) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	epoch := time.Unix(0, 0).UTC()
	entries := []struct {
		hdr  tar.Header
		data []byte
	}{
		{tar.Header{Name: "tmp/", Typeflag: tar.TypeDir, Mode: 0o1777, ModTime: epoch, Format: tar.FormatPAX}, nil},
		{tar.Header{Name: binName, Typeflag: tar.TypeReg, Mode: 0o555, Size: int64(len(bin)), ModTime: epoch, Format: tar.FormatPAX}, bin},
	}
	for _, e := range entries {
		if err := tw.WriteHeader(&e.hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
