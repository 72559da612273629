package github

import (
	"context"
	"errors"
	"reflect"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseAllowList(t *testing.T) {
	tests := []struct {
		in      string
		want    string // String() of the result
		wantErr string
	}{
		{in: "octo/hello", want: "octo/hello"},
		{in: " octo/hello , acme/* ,", want: "acme/*,octo/hello"},
		{in: "", wantErr: "--repos is empty"},
		{in: " , ", wantErr: "--repos is empty"},
		{in: "octo", wantErr: `--repos entry "octo" has no '/'`},
		{in: "octo/hel*", wantErr: "only a whole-name wildcard"},
		{in: "*/hello", wantErr: "is not a GitHub user or organization name"},
		{in: "octo/..", wantErr: "is not a GitHub repository name"},
		{in: "octo/a/b", wantErr: "is not a GitHub repository name"},
	}
	for _, tt := range tests {
		a, err := ParseAllowList(tt.in)
		if tt.wantErr != "" {
			if err == nil || !contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseAllowList(%q) err = %v; want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseAllowList(%q): %v", tt.in, err)
			continue
		}
		if a.String() != tt.want {
			t.Errorf("ParseAllowList(%q) = %q; want %q", tt.in, a.String(), tt.want)
		}
	}
}

func TestAllowed(t *testing.T) {
	a := mustAllow(t, "octo/hello,acme/*")
	tests := []struct {
		owner, repo string
		want        bool
	}{
		{"octo", "hello", true},
		{"OCTO", "Hello", true}, // GitHub names are case-insensitive
		{"octo", "other", false},
		{"acme", "anything", true},
		{"acme", "", false},
		{"acmex", "anything", false},
		{"octo", "hello/../../outsider/x", false}, // path tricks are not names
		{"acme", "x/../../../outsider/x", false},
		{"outsider", "hello", false},
	}
	for _, tt := range tests {
		if got := a.Allowed(tt.owner, tt.repo); got != tt.want {
			t.Errorf("Allowed(%q, %q) = %v; want %v", tt.owner, tt.repo, got, tt.want)
		}
	}
	var none *AllowList
	if !none.Allowed("anyone", "anything") {
		t.Error("a nil allow-list must allow every repository")
	}
}

// TestAllowListRefusesOutsideRepositoryInEveryOperation finds, by reflection, every
// Backend method whose input names a repository (reads, writes and Describe…), calls
// it for a repository outside the list, and checks it is refused before any request
// is sent. A new operation is covered without editing this test.
func TestAllowListRefusesOutsideRepositoryInEveryOperation(t *testing.T) {
	f := newFake(t)
	b := f.backend(BackendConfig{Repos: mustAllow(t, "octo/*")})
	ctxType := reflect.TypeOf((*context.Context)(nil)).Elem()
	var tested []string
	for _, target := range []struct{ owner, repo string }{
		{"outsider", "elsewhere"},
		{"octo", "hello/../../outsider/elsewhere"},
	} {
		bv := reflect.ValueOf(b)
		for i := range bv.NumMethod() {
			m := bv.Type().Method(i)
			mt := m.Type // includes the receiver
			var inType reflect.Type
			switch {
			case mt.NumIn() == 3 && mt.In(1) == ctxType && mt.In(2).Kind() == reflect.Struct:
				inType = mt.In(2)
			case mt.NumIn() == 2 && mt.In(1).Kind() == reflect.Struct:
				inType = mt.In(1)
			default:
				continue
			}
			if _, ok := inType.FieldByName("Owner"); !ok {
				continue
			}
			in := plausibleInput(inType, target.owner, target.repo)
			args := []reflect.Value{bv}
			if mt.NumIn() == 3 {
				args = append(args, reflect.ValueOf(context.Background()))
			}
			out := m.Func.Call(append(args, in))
			err, _ := out[len(out)-1].Interface().(error)
			var na *NotAllowedError
			switch {
			case target.owner == "outsider" && !errors.As(err, &na):
				t.Errorf("%s(%s/%s): err = %v; want *NotAllowedError", m.Name, target.owner, target.repo, err)
			case err == nil:
				t.Errorf("%s(%s/%s): accepted", m.Name, target.owner, target.repo)
			}
			if target.owner == "outsider" {
				tested = append(tested, m.Name)
			}
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("refused operations sent %d requests; want 0", n)
	}
	sort.Strings(tested)
	want := []string{
		"AddComment", "CreateIssue", "CreateOrUpdateFile", "CreatePullRequest",
		"DescribeAddComment", "DescribeCreateIssue", "DescribeCreateOrUpdateFile", "DescribeCreatePullRequest",
		"GetCommit", "GetFileContents", "GetIssue", "GetJobLogTail", "GetPullRequest", "GetPullRequestDiff", "GetRepository",
		"ListBranches", "ListCommits", "ListIssues", "ListPullRequests", "ListReleases", "ListTags", "ListWorkflowRuns",
	}
	want = append(want, breadthOperations...)
	sort.Strings(want)
	if d := cmp.Diff(want, tested); d != "" {
		t.Errorf("operations checked (-want +got):\n%s", d)
	}
}

// plausibleInput fills an input struct so that it passes validation, naming owner/repo.
func plausibleInput(typ reflect.Type, owner, repo string) reflect.Value {
	v := reflect.New(typ).Elem()
	set := map[string]any{
		"Owner": owner, "Repo": repo, "Number": 1, "Title": "t", "Body": "b", "Ref": "main",
		"Path": "a.txt", "Content": "x", "Message": "m", "Head": "feature", "Base": "main", "JobID": int64(1),
		"Tag": "v1.0.0", "RunID": int64(1),
		"Add": []string{"bug"}, "CommentID": int64(1), "ThreadID": "PRRT_1", "Event": "APPROVE",
	}
	for name, val := range set {
		if fv := v.FieldByName(name); fv.IsValid() {
			fv.Set(reflect.ValueOf(val).Convert(fv.Type()))
		}
	}
	return v
}
