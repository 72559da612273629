package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// PackageConfig is what `release package` works from: make dist's binaries in
// Dist/bin (mcp-server-x_<version>_<os>_<arch>[.exe]), for Platforms.
type PackageConfig struct {
	Root, Dist, Version string
	Platforms           []Platform
	// NpmPlatforms are the platform packages each main npm package lists as optional
	// dependencies; Platforms when empty. (The tests build one platform but list all.)
	NpmPlatforms []Platform
	Servers      []Server
	Log          io.Writer
}

// Package makes everything a release publishes from make dist's binaries, into Dist:
//
//	<cmd>_<version>_<os>_<arch>.tar.gz (.zip on Windows)   binary, LICENSE, README.md (as GoReleaser's archives)
//	<cmd>_<version>_<os>_<arch>.mcpb                        MCP Bundle, validated and packed by the official CLI
//	npm/*.tgz                                               npm tarballs: each server's package and its platform packages
//	registry/<name>/server.json                             server.json at the version, with each bundle's fileSha256
//	SHA256SUMS                                              of all of the above
//
// The version of the file names and of npm and the bundles is the tag without its v.
func Package(c PackageConfig) error {
	ctx := context.Background()
	start := time.Now()
	if err := CheckMCPB(c.Root); err != nil {
		return err
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return fmt.Errorf("npm packs the npm packages: %v", err)
	}
	stage := filepath.Join(c.Dist, ".stage")
	os.RemoveAll(stage)
	for _, d := range []string{"npm", "registry"} {
		os.RemoveAll(filepath.Join(c.Dist, d))
	}
	binary := func(s Server, p Platform) string {
		return filepath.Join(c.Dist, "bin", Binary(s.Cmd, c.Version, p))
	}
	for _, s := range c.Servers {
		for _, p := range c.Platforms {
			if _, err := os.Stat(binary(s, p)); err != nil {
				return fmt.Errorf("%v (make dist builds the binaries first)", err)
			}
		}
	}

	// Archives and bundles, two at a time (the bundle CLI compresses in JavaScript).
	type job struct {
		s Server
		p Platform
	}
	var jobs []job
	for _, s := range c.Servers {
		for _, p := range c.Platforms {
			jobs = append(jobs, job{s, p})
		}
	}
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	slots := make(chan struct{}, 2)
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			err := WriteArchive(c.Root, c.Dist, j.s, c.Version, j.p, binary(j.s, j.p))
			if err == nil {
				var dir string
				dir, err = WriteBundleDir(c.Root, filepath.Join(stage, "mcpb"), j.s, c.Version, j.p, binary(j.s, j.p))
				if err == nil {
					err = PackBundle(ctx, c.Root, dir, filepath.Join(c.Dist, ArtifactBase(j.s.Cmd, c.Version, j.p)+".mcpb"))
				}
			}
			if err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	fmt.Fprintf(c.Log, "package: %d archives and %d bundles (%.0fs)\n", len(jobs), len(jobs), time.Since(start).Seconds())

	// npm: one npm pack for every package.
	npmPlatforms := c.NpmPlatforms
	if len(npmPlatforms) == 0 {
		npmPlatforms = c.Platforms
	}
	var dirs []string
	for _, s := range c.Servers {
		d, err := WriteNpmMain(c.Root, filepath.Join(stage, "npm"), s, c.Version, npmPlatforms)
		if err != nil {
			return err
		}
		dirs = append(dirs, d)
		for _, p := range c.Platforms {
			d, err := WriteNpmPlatform(c.Root, filepath.Join(stage, "npm"), s, c.Version, p, binary(s, p))
			if err != nil {
				return err
			}
			dirs = append(dirs, d)
		}
	}
	// Two npm processes, each packing half (npm packs one package at a time).
	half := (len(dirs) + 1) / 2
	var tarballs []string
	var packErr [2]error
	var packed [2][]string
	var pwg sync.WaitGroup
	for i, part := range [][]string{dirs[:half], dirs[half:]} {
		if len(part) == 0 {
			continue
		}
		pwg.Add(1)
		go func() {
			defer pwg.Done()
			packed[i], packErr[i] = NpmPack(ctx, npm, os.Environ(), filepath.Join(c.Dist, "npm"), part)
		}()
	}
	pwg.Wait()
	for i := range packed {
		if packErr[i] != nil {
			return packErr[i]
		}
		tarballs = append(tarballs, packed[i]...)
	}
	fmt.Fprintf(c.Log, "package: %d npm tarballs (%.0fs)\n", len(tarballs), time.Since(start).Seconds())

	// Registry metadata: each server.json at the version, with the bundles' hashes.
	for _, s := range c.Servers {
		raw, err := os.ReadFile(filepath.Join(s.Dir, "server.json"))
		if err != nil {
			return err
		}
		stamped, err := RegistryServerJSON(raw, c.Version, c.Dist, c.Platforms)
		if err != nil {
			return fmt.Errorf("%s/server.json: %v", s.Rel, err)
		}
		out := filepath.Join(c.Dist, "registry", s.Name, "server.json")
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(out, stamped, 0o644); err != nil {
			return err
		}
	}
	os.RemoveAll(stage)
	n, err := WriteSums(c.Dist)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.Log, "package: SHA256SUMS of %d files in %s (%.0fs)\n", n, c.Dist, time.Since(start).Seconds())
	return nil
}

// WriteArchive writes the server's archive for p into dist: the binary (named
// mcp-server-x, .exe on Windows), LICENSE and the server's README.md, as a .tar.gz,
// or a .zip for Windows.
func WriteArchive(root, dist string, s Server, version string, p Platform, binary string) error {
	files := []struct{ name, src string }{
		{s.Cmd + p.Exe(), binary},
		{"LICENSE", filepath.Join(root, "LICENSE")},
		{"README.md", filepath.Join(s.Dir, "README.md")},
	}
	base := filepath.Join(dist, ArtifactBase(s.Cmd, version, p))
	mtime := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC) // reproducible archives
	if p.GOOS == "windows" {
		f, err := os.Create(base + ".zip")
		if err != nil {
			return err
		}
		zw := zip.NewWriter(f)
		for _, fl := range files {
			h := &zip.FileHeader{Name: fl.name, Method: zip.Deflate, Modified: mtime}
			h.SetMode(0o644)
			w, err := zw.CreateHeader(h)
			if err == nil {
				err = copyInto(w, fl.src)
			}
			if err != nil {
				f.Close()
				return err
			}
		}
		if err := zw.Close(); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	f, err := os.Create(base + ".tar.gz")
	if err != nil {
		return err
	}
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	for i, fl := range files {
		fi, err := os.Stat(fl.src)
		if err != nil {
			f.Close()
			return err
		}
		mode := int64(0o644)
		if i == 0 {
			mode = 0o755
		}
		if err := tw.WriteHeader(&tar.Header{Name: fl.name, Mode: mode, Size: fi.Size(), ModTime: mtime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			f.Close()
			return err
		}
		if err := copyInto(tw, fl.src); err != nil {
			f.Close()
			return err
		}
	}
	for _, c := range []io.Closer{tw, gz, f} {
		if err := c.Close(); err != nil {
			return err
		}
	}
	return nil
}

func copyInto(w io.Writer, src string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(w, f)
	return err
}

func sha256File(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// RegistryServerJSON is the server.json the MCP Registry gets for a release: the
// repository's file at version (SetServerJSONVersion), with the fileSha256 of each
// MCPB package, read from the bundle of that name in dist. The registry requires
// the hash of an MCPB package and checks it against the download; a bundle the
// file names but dist lacks is an error. MCPB packages of platforms not packaged
// (a dist of fewer platforms than a release) are left out.
func RegistryServerJSON(raw []byte, version, dist string, platforms []Platform) ([]byte, error) {
	stamped, err := SetServerJSONVersion(raw, version)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	if err := json.Unmarshal(stamped, &doc); err != nil {
		return nil, err
	}
	pkgs, _ := doc["packages"].([]any)
	var kept []any
	for _, pk := range pkgs {
		p, _ := pk.(map[string]any)
		if p["registryType"] != "mcpb" {
			kept = append(kept, pk)
			continue
		}
		id, _ := p["identifier"].(string)
		name := id[strings.LastIndexByte(id, '/')+1:]
		if !slices.ContainsFunc(platforms, func(pl Platform) bool {
			return strings.HasSuffix(name, "_"+pl.GOOS+"_"+pl.GOARCH+".mcpb")
		}) {
			continue
		}
		sum, err := sha256File(filepath.Join(dist, name))
		if err != nil {
			return nil, fmt.Errorf("MCPB package %s: %v", id, err)
		}
		p["fileSha256"] = sum
		kept = append(kept, p)
	}
	doc["packages"] = kept
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// WriteSums writes dist/SHA256SUMS (sha256sum's format) for the archives, bundles,
// npm tarballs and registry files, and returns how many it lists.
func WriteSums(dist string) (int, error) {
	var files []string
	err := filepath.Walk(dist, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dist, path)
		rel = filepath.ToSlash(rel)
		if fi.IsDir() {
			if rel == "bin" || strings.HasPrefix(rel, ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if rel != "SHA256SUMS" {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	slices.Sort(files)
	var b strings.Builder
	for _, f := range files {
		sum, err := sha256File(filepath.Join(dist, filepath.FromSlash(f)))
		if err != nil {
			return 0, err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, f)
	}
	return len(files), os.WriteFile(filepath.Join(dist, "SHA256SUMS"), []byte(b.String()), 0o644)
}
