// Command testsum runs `go test -json` in every module of the workspace and prints
// failures in full, one line per package, and a closing line "N passed, M failed,
// K skipped" that CI reads as the result. Third-party tools that tests run keep
// their own output in files, so this line is the only summary on stdout.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

func main() {
	timeout := flag.String("timeout", "12m", "go test -timeout per module")
	race := flag.Bool("race", false, "run with the race detector")
	flag.Parse()
	os.Exit(run(*timeout, *race, flag.Args(), os.Stdout))
}

func run(timeout string, race bool, modules []string, out io.Writer) int {
	if len(modules) == 0 {
		modules = listModules()
	}
	var passed, failed, skipped int
	var failures []string
	start := time.Now()
	for _, dir := range modules {
		args := []string{"test", "-json", "-count=1", "-timeout", timeout}
		if race {
			args = append(args, "-race")
		}
		args = append(args, "./...")
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Stderr = os.Stderr
		pipe, err := cmd.StdoutPipe()
		if err != nil {
			fmt.Fprintln(out, "testsum:", err)
			return 2
		}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(out, "testsum:", err)
			return 2
		}
		outputs := map[string][]string{} // test key -> output lines
		pkgFailed := map[string]int{}    // package -> failed tests
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var e event
			if json.Unmarshal(sc.Bytes(), &e) != nil {
				fmt.Fprintln(out, sc.Text()) // build errors and the like
				continue
			}
			key := e.Package + " " + e.Test
			switch e.Action {
			case "output":
				if len(outputs[key]) < 400 {
					outputs[key] = append(outputs[key], e.Output)
				}
			case "pass":
				if e.Test != "" {
					passed++
				} else {
					fmt.Fprintf(out, "ok   %s (%.1fs)\n", e.Package, e.Elapsed)
				}
				delete(outputs, key)
			case "skip":
				if e.Test != "" {
					skipped++
				} else {
					fmt.Fprintf(out, "--   %s (no tests)\n", e.Package)
				}
				delete(outputs, key)
			case "fail":
				if e.Test != "" {
					failed++
					pkgFailed[e.Package]++
					failures = append(failures, key)
					fmt.Fprintf(out, "FAIL %s %s (%.1fs)\n%s", e.Package, e.Test, e.Elapsed, indent(outputs[key]))
				} else {
					fmt.Fprintf(out, "FAIL %s (%.1fs)\n", e.Package, e.Elapsed)
					if lines := outputs[key]; len(lines) > 0 {
						fmt.Fprint(out, indent(lines))
					}
					if pkgFailed[e.Package] == 0 {
						// The package failed outside any test: build error, TestMain, timeout.
						failed++
						failures = append(failures, e.Package)
					}
				}
				delete(outputs, key)
			}
		}
		if err := cmd.Wait(); err != nil && len(failures) == 0 {
			// go test failed without a failing test event: a build or setup error.
			failed++
			failures = append(failures, dir+": go test: "+err.Error())
			fmt.Fprintf(out, "FAIL %s: %v\n", dir, err)
		}
	}
	fmt.Fprintf(out, "\ntests took %s\n", time.Since(start).Round(time.Second))
	if len(failures) > 0 {
		fmt.Fprintf(out, "failed: %s\n", strings.Join(failures, ", "))
	}
	fmt.Fprintf(out, "%d passed, %d failed, %d skipped\n", passed, failed, skipped)
	if failed > 0 {
		return 1
	}
	return 0
}

func indent(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("    " + l)
	}
	return b.String()
}

func listModules() []string {
	b, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsum: go list -m:", err)
		os.Exit(2)
	}
	return strings.Fields(string(b))
}
