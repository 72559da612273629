package main

// The Kubernetes example in deploy/kubernetes runs this fixture in HTTP mode with a
// Redis every replica shares. The test renders it as `kubectl apply -k` would
// (`kubectl kustomize`, offline) and checks the rendered objects against the server
// itself: the container arguments parse with the server's flags and every
// environment variable is one the server reads (with internal/distcheck's checks of
// README snippets, then the server's own parser), the probes and the Service reach
// the port --http listens on, the autoscaler scales this Deployment, the Secret holds
// what the env refers to, the shared store's URL reaches the Redis Service with
// Redis's password, and the NetworkPolicy lets only the MCP pods reach Redis. Then it
// configures the server exactly as the Pod would be (args and env, a throwaway Redis
// in place of the in-cluster one) and probes it.

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	yaml "go.yaml.in/yaml/v4"

	"github.com/mcpkit/reference/internal/distcheck"
	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/redistest"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

type k8sProbe struct {
	HTTPGet struct {
		Path string `yaml:"path"`
		Port any    `yaml:"port"`
	} `yaml:"httpGet"`
}

type k8sContainer struct {
	Name  string   `yaml:"name"`
	Image string   `yaml:"image"`
	Args  []string `yaml:"args"`
	Ports []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	} `yaml:"ports"`
	Env []struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom *struct {
			SecretKeyRef *struct {
				Name     string `yaml:"name"`
				Key      string `yaml:"key"`
				Optional bool   `yaml:"optional"`
			} `yaml:"secretKeyRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	ReadinessProbe *k8sProbe `yaml:"readinessProbe"`
	LivenessProbe  *k8sProbe `yaml:"livenessProbe"`
}

type k8sSelector struct {
	MatchLabels map[string]string `yaml:"matchLabels"`
}

type k8sObject struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		Replicas int `yaml:"replicas"`
		Selector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
		Template struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec struct {
				TerminationGracePeriodSeconds int            `yaml:"terminationGracePeriodSeconds"`
				Containers                    []k8sContainer `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
		// Service ports; HPA target and bounds.
		Ports []struct {
			Port       int `yaml:"port"`
			TargetPort any `yaml:"targetPort"`
		} `yaml:"ports"`
		ScaleTargetRef struct {
			Kind string `yaml:"kind"`
			Name string `yaml:"name"`
		} `yaml:"scaleTargetRef"`
		MinReplicas int `yaml:"minReplicas"`
		MaxReplicas int `yaml:"maxReplicas"`
		// NetworkPolicy.
		PodSelector k8sSelector `yaml:"podSelector"`
		Ingress     []struct {
			From []struct {
				PodSelector *k8sSelector `yaml:"podSelector"`
			} `yaml:"from"`
			Ports []struct {
				Port any `yaml:"port"`
			} `yaml:"ports"`
		} `yaml:"ingress"`
	} `yaml:"spec"`
	StringData map[string]string `yaml:"stringData"`
	// kustomization.yaml
	Resources []string `yaml:"resources"`
	Images    []struct {
		Name    string `yaml:"name"`
		NewName string `yaml:"newName"`
		NewTag  string `yaml:"newTag"`
	} `yaml:"images"`
}

// serviceSelector reads a Service's selector, a plain label map (a Deployment's is
// nested under matchLabels).
func serviceSelector(t *testing.T, node *yaml.Node) map[string]string {
	var svc struct {
		Spec struct {
			Selector map[string]string `yaml:"selector"`
		} `yaml:"spec"`
	}
	if err := node.Decode(&svc); err != nil {
		t.Fatal(err)
	}
	return svc.Spec.Selector
}

// renderKustomization runs `kubectl kustomize dir` (offline, no cluster) and returns
// the rendered objects by "Kind/name", with their YAML nodes. Without kubectl the
// test is skipped, except in CI, where it fails.
func renderKustomization(t *testing.T, dir string) (map[string]*k8sObject, map[string]*yaml.Node) {
	t.Helper()
	kubectl, err := exec.LookPath("kubectl")
	realclient.Require(t, err == nil, "kubectl is not installed (apt-get install -y kubernetes-client); CI must render deploy/kubernetes")
	cmd := exec.Command(kubectl, "kustomize", dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kubectl kustomize %s: %v\n%s", dir, err, stderr.String())
	}
	objs, nodes := map[string]*k8sObject{}, map[string]*yaml.Node{}
	dec := yaml.NewDecoder(bytes.NewReader(out))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("rendered manifests: %v", err)
		}
		var o k8sObject
		if err := n.Decode(&o); err != nil {
			t.Fatal(err)
		}
		id := o.Kind + "/" + o.Metadata.Name
		if objs[id] != nil {
			t.Fatalf("two %s", id)
		}
		objs[id], nodes[id] = &o, &n
	}
	return objs, nodes
}

// fixtureServer is the fixture's command line as internal/distcheck sees a built
// server: its flags (whether each takes a value) and the variables it reads.
func fixtureServer(fs *flag.FlagSet) *distcheck.Server {
	s := &distcheck.Server{ServerDir: distcheck.ServerDir{Name: "everything", Cmd: "everything"}, Flags: map[string]bool{}, Env: map[string]bool{}}
	fs.VisitAll(func(f *flag.Flag) {
		b, ok := f.Value.(interface{ IsBoolFlag() bool })
		s.Flags[f.Name] = !ok || !b.IsBoolFlag()
	})
	for _, e := range serve.StandardEnv() {
		s.Env[e] = true
	}
	return s
}

func TestKubernetesManifests(t *testing.T) {
	dir := filepath.Join(realclient.RepoRoot(t), "deploy", "kubernetes")

	// The kustomization lists every other file and maps the Deployment's image.
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in %s: %v", dir, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var kust k8sObject
	if err := yaml.Unmarshal(b, &kust); err != nil {
		t.Fatalf("kustomization.yaml: %v", err)
	}
	var others []string
	for _, f := range files {
		if b := filepath.Base(f); b != "kustomization.yaml" {
			others = append(others, b)
		}
	}
	slices.Sort(others)
	if listed := slices.Sorted(slices.Values(kust.Resources)); !slices.Equal(listed, others) {
		t.Errorf("kustomization resources %v, files %v", listed, others)
	}

	objs, nodes := renderKustomization(t, dir)
	for _, id := range []string{"Deployment/mcp-server", "Service/mcp-server", "HorizontalPodAutoscaler/mcp-server", "PodDisruptionBudget/mcp-server",
		"Secret/mcp-server-state", "Deployment/mcp-redis", "Service/mcp-redis", "NetworkPolicy/mcp-redis"} {
		if objs[id] == nil {
			t.Fatalf("the rendered manifests have no %s (they have %v)", id, slices.Sorted(func(yield func(string) bool) {
				for k := range objs {
					if !yield(k) {
						return
					}
				}
			}))
		}
	}
	dep, svc, hpa, secret := objs["Deployment/mcp-server"], objs["Service/mcp-server"], objs["HorizontalPodAutoscaler/mcp-server"], objs["Secret/mcp-server-state"]
	rdep, rsvc, policy := objs["Deployment/mcp-redis"], objs["Service/mcp-redis"], objs["NetworkPolicy/mcp-redis"]
	if len(dep.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("want one container, got %d", len(dep.Spec.Template.Spec.Containers))
	}
	c := dep.Spec.Template.Spec.Containers[0]
	if len(kust.Images) != 1 || c.Image != kust.Images[0].NewName+":"+kust.Images[0].NewTag {
		t.Errorf("kustomization images %+v did not map the container image, rendered %q (the one line to change)", kust.Images, c.Image)
	}

	// Every argument is one of this server's flags (distcheck's check of README
	// snippets), and the server's own parser takes them all.
	fs, sf, _ := newFlags(io.Discard)
	fixture := fixtureServer(fs)
	for _, p := range fixture.UnknownFlags(c.Args) {
		t.Errorf("container args: %s", p)
	}
	if err := fs.Parse(c.Args); err != nil {
		t.Fatalf("container args %v: %v", c.Args, err)
	}
	if fs.NArg() != 0 {
		t.Errorf("container args leave %v unparsed", fs.Args())
	}
	httpAddr := fs.Lookup("http").Value.String()
	_, portText, err := net.SplitHostPort(httpAddr)
	if err != nil {
		t.Fatalf("--http %q is not host:port: %v", httpAddr, err)
	}
	port, _ := strconv.Atoi(portText)
	var portName string
	for _, p := range c.Ports {
		if p.ContainerPort == port {
			portName = p.Name
		}
	}
	if portName == "" {
		t.Fatalf("no containerPort %d (--http %s) in %+v", port, httpAddr, c.Ports)
	}
	probePort := func(what string, p *k8sProbe, path string) {
		if p == nil {
			t.Errorf("no %s probe", what)
			return
		}
		if p.HTTPGet.Path != path || (p.HTTPGet.Port != portName && p.HTTPGet.Port != port) {
			t.Errorf("%s probe %s on port %v, want %s on %s/%d", what, p.HTTPGet.Path, p.HTTPGet.Port, path, portName, port)
		}
	}
	probePort("readiness", c.ReadinessProbe, "/readyz")
	probePort("liveness", c.LivenessProbe, "/healthz")

	// Graceful shutdown fits in the termination grace period.
	drain, _ := time.ParseDuration(fs.Lookup("drain-delay").Value.String())
	shutdown, _ := time.ParseDuration(fs.Lookup("shutdown-timeout").Value.String())
	if grace := time.Duration(dep.Spec.Template.Spec.TerminationGracePeriodSeconds) * time.Second; grace <= drain+shutdown {
		t.Errorf("terminationGracePeriodSeconds %v does not exceed --drain-delay %v + --shutdown-timeout %v", grace, drain, shutdown)
	}

	// Every environment variable is one the server reads; secret references resolve.
	env := map[string]string{}
	var names []string
	for _, e := range c.Env {
		names = append(names, e.Name)
		if ref := e.ValueFrom; ref != nil && ref.SecretKeyRef != nil {
			r := ref.SecretKeyRef
			v, ok := secret.StringData[r.Key]
			if r.Name != secret.Metadata.Name || (!ok && !r.Optional) {
				t.Errorf("env %s refers to secret %s key %s, which the Secret manifest (%s) does not hold", e.Name, r.Name, r.Key, secret.Metadata.Name)
			}
			if ok {
				env[e.Name] = v
			}
			continue
		}
		env[e.Name] = e.Value
	}
	for _, p := range fixture.UnknownEnv(names) {
		t.Errorf("container env: %s", p)
	}
	if _, ok := env[serve.EnvStateKey]; !ok {
		t.Errorf("the Deployment does not set %s: replicas could not verify each other's requestState", serve.EnvStateKey)
	}
	if _, err := serve.ParseStateKey([]byte(env[serve.EnvStateKey])); err == nil {
		t.Errorf("the Secret's placeholder state key is usable: it must be refused so that no one deploys it")
	}
	storeEnv := serve.FlagEnv["task-store"]
	storeURL, err := url.Parse(env[storeEnv])
	if err != nil || storeURL.Scheme != "redis" {
		t.Fatalf("the Deployment's %s %q is not a redis:// URL: replicas would keep tasks, used requestStates and caller limits to themselves", storeEnv, env[storeEnv])
	}
	for _, own := range []string{"replay-store", "limit-store"} {
		if v, ok := env[serve.FlagEnv[own]]; ok && v != "" {
			t.Errorf("%s is set (%q): the example shares one Redis through %s", serve.FlagEnv[own], v, storeEnv)
		}
	}

	// The shared store is the Redis Service, with Redis's own password; only the MCP
	// pods may reach it.
	if len(rsvc.Spec.Ports) != 1 || storeURL.Hostname() != rsvc.Metadata.Name || storeURL.Port() != strconv.Itoa(rsvc.Spec.Ports[0].Port) {
		t.Errorf("%s reaches %s, not the Redis Service %s:%+v", storeEnv, storeURL.Host, rsvc.Metadata.Name, rsvc.Spec.Ports)
	}
	if sel := serviceSelector(t, nodes["Service/mcp-redis"]); len(sel) == 0 || !subset(sel, rdep.Spec.Template.Metadata.Labels) || subset(sel, dep.Spec.Template.Metadata.Labels) {
		t.Errorf("the Redis Service selector %v does not select the Redis pods %v alone", sel, rdep.Spec.Template.Metadata.Labels)
	}
	if len(rdep.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("want one Redis container, got %d", len(rdep.Spec.Template.Spec.Containers))
	}
	rc := rdep.Spec.Template.Spec.Containers[0]
	pw, _ := storeURL.User.Password()
	i := slices.Index(rc.Args, "--requirepass")
	if i < 0 || i+1 >= len(rc.Args) || rc.Args[i+1] != "$(REDIS_PASSWORD)" {
		t.Errorf("Redis args %v do not ask for the password ($(REDIS_PASSWORD))", rc.Args)
	}
	var redisPW string
	for _, e := range rc.Env {
		if e.Name == "REDIS_PASSWORD" && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && e.ValueFrom.SecretKeyRef.Name == secret.Metadata.Name {
			redisPW = secret.StringData[e.ValueFrom.SecretKeyRef.Key]
		}
	}
	if redisPW == "" || redisPW != pw {
		t.Errorf("the password in %s is not the Redis container's (REDIS_PASSWORD from the Secret)", storeEnv)
	}
	if i := slices.Index(rc.Args, "--maxmemory-policy"); i < 0 || i+1 >= len(rc.Args) || rc.Args[i+1] != "noeviction" {
		t.Errorf("Redis args %v: want --maxmemory-policy noeviction, so that a full Redis refuses rather than forgets used requestStates", rc.Args)
	}
	if !subset(policy.Spec.PodSelector.MatchLabels, rdep.Spec.Template.Metadata.Labels) || len(policy.Spec.PodSelector.MatchLabels) == 0 {
		t.Errorf("the NetworkPolicy selects %v, not the Redis pods %v", policy.Spec.PodSelector.MatchLabels, rdep.Spec.Template.Metadata.Labels)
	}
	if len(policy.Spec.Ingress) != 1 || len(policy.Spec.Ingress[0].From) != 1 || policy.Spec.Ingress[0].From[0].PodSelector == nil ||
		!subset(policy.Spec.Ingress[0].From[0].PodSelector.MatchLabels, dep.Spec.Template.Metadata.Labels) || len(policy.Spec.Ingress[0].From[0].PodSelector.MatchLabels) == 0 {
		t.Errorf("the NetworkPolicy's ingress %+v does not admit the MCP pods (%v) alone", policy.Spec.Ingress, dep.Spec.Template.Metadata.Labels)
	}

	// Service and autoscaler point at this Deployment and port.
	if sel := serviceSelector(t, nodes["Service/mcp-server"]); len(sel) == 0 || !subset(sel, dep.Spec.Template.Metadata.Labels) || subset(sel, rdep.Spec.Template.Metadata.Labels) {
		t.Errorf("Service selector %v does not select the MCP pods %v alone", sel, dep.Spec.Template.Metadata.Labels)
	}
	if !subset(dep.Spec.Selector.MatchLabels, dep.Spec.Template.Metadata.Labels) {
		t.Errorf("Deployment selector %v does not match its pod labels", dep.Spec.Selector.MatchLabels)
	}
	if len(svc.Spec.Ports) != 1 || (svc.Spec.Ports[0].TargetPort != portName && svc.Spec.Ports[0].TargetPort != port) {
		t.Errorf("Service ports %+v do not target %s", svc.Spec.Ports, portName)
	}
	if hpa.Spec.ScaleTargetRef.Kind != "Deployment" || hpa.Spec.ScaleTargetRef.Name != dep.Metadata.Name || hpa.Spec.MinReplicas < 2 || hpa.Spec.MaxReplicas < hpa.Spec.MinReplicas {
		t.Errorf("autoscaler %+v min %d max %d does not scale Deployment %s across at least two replicas", hpa.Spec.ScaleTargetRef, hpa.Spec.MinReplicas, hpa.Spec.MaxReplicas, dep.Metadata.Name)
	}

	// Configure the server as the Pod would be (the operator's secret in place of the
	// placeholder, a throwaway Redis in place of the in-cluster one) and probe what
	// the kubelet and clients reach.
	for _, name := range serve.StandardEnv() {
		t.Setenv(name, "")
	}
	env[serve.EnvStateKey] = "c3RhdGUta2V5LWZvci10aGUtZGVwbG95bWVudC10ZXN0LTEyMzQ1Njc4"
	env[storeEnv] = redistest.Start(t)
	for k, v := range env {
		t.Setenv(k, v)
	}
	opts, err := sf.Options()
	if err != nil {
		t.Fatalf("the server refuses the Pod's configuration: %v", err)
	}
	if opts.Auth == nil || opts.Auth.Resource != env["MCP_AUTH_RESOURCE"] || len(opts.StateKey) < mcpkit.MinStateKeyBytes {
		t.Fatalf("the Pod's configuration did not turn on authorization and the shared key: %+v", opts)
	}
	if opts.TaskStore == nil || opts.ReplayGuard == nil || opts.HTTP.SharedLimits == nil {
		t.Fatalf("the Pod's configuration does not share tasks (%v), used requestStates (%v) and caller limits (%v) through Redis", opts.TaskStore != nil, opts.ReplayGuard != nil, opts.HTTP.SharedLimits != nil)
	}
	h, err := serve.HTTPService(newServer(slog.New(slog.NewTextHandler(io.Discard, nil))), opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	for path, want := range map[string]int{c.ReadinessProbe.HTTPGet.Path: 200, c.LivenessProbe.HTTPGet.Path: 200, opts.Path: 401} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		if path == opts.Path {
			req.Method = http.MethodPost
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%s %s: status %d, want %d", req.Method, path, resp.StatusCode, want)
		}
		if want == 401 && !strings.Contains(resp.Header.Get("WWW-Authenticate"), `resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"`) {
			t.Errorf("401 challenge %q does not point at the public metadata URL", resp.Header.Get("WWW-Authenticate"))
		}
	}
}

func subset(sub, of map[string]string) bool {
	for k, v := range sub {
		if of[k] != v {
			return false
		}
	}
	return true
}
