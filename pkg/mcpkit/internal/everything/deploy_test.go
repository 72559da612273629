package main

// The Kubernetes example in deploy/kubernetes runs this fixture in HTTP mode. The
// test reads the manifests and checks them against the server itself: the container
// arguments parse with the server's flags, every environment variable is one the
// server reads, the probes and the Service reach the port --http listens on, the
// autoscaler scales this Deployment, and the Secret holds what the env refers to.
// Then it configures the server exactly as the Pod would be (args and env) and
// probes it.

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	yaml "go.yaml.in/yaml/v4"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/mcpkittest/realclient"
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
func serviceSelector(t *testing.T, raw []byte) map[string]string {
	var svc struct {
		Spec struct {
			Selector map[string]string `yaml:"selector"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(raw, &svc); err != nil {
		t.Fatal(err)
	}
	return svc.Spec.Selector
}

func TestKubernetesManifests(t *testing.T) {
	dir := filepath.Join(realclient.RepoRoot(t), "deploy", "kubernetes")
	raw := map[string][]byte{}
	objs := map[string]*k8sObject{} // by kind
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in %s: %v", dir, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var o k8sObject
		if err := yaml.Unmarshal(b, &o); err != nil {
			t.Fatalf("%s: %v", filepath.Base(f), err)
		}
		if objs[o.Kind] != nil {
			t.Fatalf("two %s manifests", o.Kind)
		}
		objs[o.Kind], raw[o.Kind] = &o, b
	}
	for _, kind := range []string{"Kustomization", "Deployment", "Service", "HorizontalPodAutoscaler", "Secret", "PodDisruptionBudget"} {
		if objs[kind] == nil {
			t.Fatalf("no %s manifest", kind)
		}
	}
	kust, dep, svc, hpa, secret := objs["Kustomization"], objs["Deployment"], objs["Service"], objs["HorizontalPodAutoscaler"], objs["Secret"]

	// Kustomization: lists every other file and maps the Deployment's image.
	var others []string
	for _, f := range files {
		if b := filepath.Base(f); b != "kustomization.yaml" {
			others = append(others, b)
		}
	}
	slices.Sort(others)
	listed := slices.Sorted(slices.Values(kust.Resources))
	if !slices.Equal(listed, others) {
		t.Errorf("kustomization resources %v, files %v", listed, others)
	}
	if len(dep.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("want one container, got %d", len(dep.Spec.Template.Spec.Containers))
	}
	c := dep.Spec.Template.Spec.Containers[0]
	if len(kust.Images) != 1 || kust.Images[0].Name != c.Image || kust.Images[0].NewName == "" {
		t.Errorf("kustomization images %+v do not map the container image %q (the one line to change)", kust.Images, c.Image)
	}

	// The container's arguments are this server's flags.
	fs, sf, _ := newFlags(io.Discard)
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
	known := serve.StandardEnv()
	env := map[string]string{}
	for _, e := range c.Env {
		if !slices.Contains(known, e.Name) {
			t.Errorf("env %s is not read by the server (known: %v)", e.Name, known)
		}
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
	if _, ok := env[serve.EnvStateKey]; !ok {
		t.Errorf("the Deployment does not set %s: replicas could not verify each other's requestState", serve.EnvStateKey)
	}
	if _, err := serve.ParseStateKey([]byte(env[serve.EnvStateKey])); err == nil {
		t.Errorf("the Secret's placeholder state key is usable: it must be refused so that no one deploys it")
	}

	// Service and autoscaler point at this Deployment and port.
	if sel := serviceSelector(t, raw["Service"]); len(sel) == 0 || !subset(sel, dep.Spec.Template.Metadata.Labels) {
		t.Errorf("Service selector %v does not select the pods %v", sel, dep.Spec.Template.Metadata.Labels)
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
	// placeholder) and probe what the kubelet and clients reach.
	for _, name := range serve.StandardEnv() {
		t.Setenv(name, "")
	}
	env[serve.EnvStateKey] = "c3RhdGUta2V5LWZvci10aGUtZGVwbG95bWVudC10ZXN0LTEyMzQ1Njc4"
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
