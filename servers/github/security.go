package github

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v62/github"
	"github.com/mcpkit/reference/pkg/mcpkit"
)

// SecurityAlert is one code scanning, Dependabot or secret scanning alert, or one
// repository security advisory: the fields each kind has. A secret scanning alert
// never carries the secret itself: the model needs to know that one leaked, where
// and whether it is resolved, not its value.
type SecurityAlert struct {
	Number     int    `json:"number,omitempty" jsonschema_description:"Alert number"`
	ID         string `json:"id,omitempty" jsonschema_description:"Rule ID, GHSA or CVE ID, or secret type"`
	State      string `json:"state" jsonschema_description:"Alert or advisory state"`
	Severity   string `json:"severity,omitempty" jsonschema_description:"critical or high or medium or low (or error, warning, note)"`
	Title      string `json:"title" jsonschema_description:"Rule, advisory summary or secret type"`
	Location   string `json:"location,omitempty" jsonschema_description:"path:line, or the manifest"`
	Package    string `json:"package,omitempty" jsonschema_description:"ecosystem/name and the vulnerable range"`
	FixedIn    string `json:"fixedIn,omitempty" jsonschema_description:"First patched version"`
	Resolution string `json:"resolution,omitempty" jsonschema_description:"Why it was closed or dismissed"`
	Author     string `json:"author,omitempty" jsonschema_description:"Advisory author"`
	Text       string `json:"text,omitempty" jsonschema_description:"Alert message or advisory description (capped)"`
	TextHidden bool   `json:"textHidden,omitempty" jsonschema_description:"True when lockdown mode replaced the text with a notice"`
	CreatedAt  string `json:"createdAt,omitempty" jsonschema_description:"Creation time (RFC 3339)"`
	URL        string `json:"url,omitempty" jsonschema_description:"Web page"`
}

// SecurityAlertList is one page of alerts or advisories.
type SecurityAlertList struct {
	Alerts     []SecurityAlert `json:"alerts" jsonschema_description:"Alerts on this page"`
	Page       int             `json:"page,omitempty" jsonschema_description:"This page number"`
	NextPage   int             `json:"nextPage,omitempty" jsonschema_description:"Next page number"`
	NextCursor string          `json:"nextCursor,omitempty" jsonschema_description:"Pass as after for the next page"`
	Lockdown   int             `json:"hiddenByLockdown,omitempty" jsonschema_description:"Texts lockdown mode hid"`
	mcpkit.Truncation
}

// AlertsInput selects alerts of a repository.
type AlertsInput struct {
	Owner    string `json:"owner"`
	Repo     string `json:"repo"`
	State    string `json:"state,omitempty" jsonschema_description:"Default open"`
	Severity string `json:"severity,omitempty"`
	Page     int    `json:"page,omitempty" jsonschema:"minimum=1"`
	PerPage  int    `json:"perPage,omitempty" jsonschema:"minimum=1,maximum=100"`
}

// SecretAlertsInput selects secret scanning alerts of a repository.
type SecretAlertsInput struct {
	Owner   string `json:"owner"`
	Repo    string `json:"repo"`
	State   string `json:"state,omitempty" jsonschema:"enum=open,enum=resolved"`
	Page    int    `json:"page,omitempty" jsonschema:"minimum=1"`
	PerPage int    `json:"perPage,omitempty" jsonschema:"minimum=1,maximum=100"`
}

// AdvisoriesInput selects repository security advisories; pages go by cursor.
type AdvisoriesInput struct {
	Owner   string `json:"owner"`
	Repo    string `json:"repo"`
	State   string `json:"state,omitempty" jsonschema:"enum=triage,enum=draft,enum=published,enum=closed"`
	After   string `json:"after,omitempty" jsonschema_description:"nextCursor of the previous page"`
	PerPage int    `json:"perPage,omitempty" jsonschema:"minimum=1,maximum=100"`
}

// checkWord accepts a short lower-case filter value (a state, a severity).
func checkWord(field, v string) error {
	if len(v) > 40 {
		return fmt.Errorf("%s is %d bytes; expected a short value such as open", field, len(v))
	}
	for _, c := range v {
		if !(c >= 'a' && c <= 'z' || c == '_' || c == ',') {
			return fmt.Errorf("%s %q is not a filter value; expected lower-case words such as open or high", field, clip(v))
		}
	}
	return nil
}

// ListCodeScanningAlerts lists code scanning alerts, each with its rule, severity and
// where it was last found.
func (b *Backend) ListCodeScanningAlerts(ctx context.Context, in AlertsInput) (SecurityAlertList, error) {
	out := SecurityAlertList{Alerts: []SecurityAlert{}}
	lo, ctx, cancel, err := b.startAlerts(ctx, in.Owner, in.Repo, in.State, in.Severity, in.Page, in.PerPage)
	if err != nil {
		return out, err
	}
	defer cancel()
	list, resp, err := b.gh.CodeScanning.ListAlertsForRepo(ctx, in.Owner, in.Repo, &gh.AlertListOptions{State: in.State, Severity: in.Severity, ListOptions: lo})
	if err != nil {
		return out, b.fail(err, "list code scanning alerts of "+repoName(in.Owner, in.Repo))
	}
	for _, a := range list {
		sev := a.GetRule().GetSecuritySeverityLevel()
		if sev == "" {
			sev = a.GetRule().GetSeverity()
		}
		al := SecurityAlert{Number: a.GetNumber(), ID: name(a.GetRule().GetID()), State: name(a.GetState()), Severity: name(sev),
			Title: out.CleanField("a rule description", a.GetRule().GetDescription(), maxTitleBytes), Resolution: name(a.GetDismissedReason()),
			CreatedAt: ts(a.CreatedAt), URL: name(a.GetHTMLURL())}
		if inst := a.GetMostRecentInstance(); inst != nil {
			if loc := inst.GetLocation(); loc.GetPath() != "" {
				al.Location = name(fmt.Sprintf("%s:%d", loc.GetPath(), loc.GetStartLine()))
			}
			al.Text = out.CleanField("an alert message", inst.GetMessage().GetText(), maxShortBytes)
		}
		out.Alerts = append(out.Alerts, al)
	}
	out.Page = lo.Page
	out.NextPage = nextPage(&out.Truncation, resp, "alerts")
	return out, nil
}

// ListDependabotAlerts lists Dependabot alerts: the vulnerable dependency, the
// advisory, and the first version that fixes it.
func (b *Backend) ListDependabotAlerts(ctx context.Context, in AlertsInput) (SecurityAlertList, error) {
	out := SecurityAlertList{Alerts: []SecurityAlert{}}
	lo, ctx, cancel, err := b.startAlerts(ctx, in.Owner, in.Repo, in.State, in.Severity, in.Page, in.PerPage)
	if err != nil {
		return out, err
	}
	defer cancel()
	opts := &gh.ListAlertsOptions{ListOptions: lo}
	if in.State != "" {
		opts.State = &in.State
	}
	if in.Severity != "" {
		opts.Severity = &in.Severity
	}
	list, resp, err := b.gh.Dependabot.ListRepoAlerts(ctx, in.Owner, in.Repo, opts)
	if err != nil {
		return out, b.fail(err, "list Dependabot alerts of "+repoName(in.Owner, in.Repo))
	}
	for _, a := range list {
		adv, vul, dep := a.GetSecurityAdvisory(), a.GetSecurityVulnerability(), a.GetDependency()
		id := adv.GetGHSAID()
		if adv.GetCVEID() != "" {
			id += " " + adv.GetCVEID()
		}
		out.Alerts = append(out.Alerts, SecurityAlert{
			Number: a.GetNumber(), ID: name(id), State: name(a.GetState()), Severity: name(adv.GetSeverity()),
			Title:    out.CleanField("an advisory summary", adv.GetSummary(), maxTitleBytes),
			Location: name(dep.GetManifestPath()),
			Package:  name(fmt.Sprintf("%s/%s %s", dep.GetPackage().GetEcosystem(), dep.GetPackage().GetName(), vul.GetVulnerableVersionRange())),
			FixedIn:  name(vul.GetFirstPatchedVersion().GetIdentifier()), Resolution: name(a.GetDismissedReason()),
			CreatedAt: ts(a.CreatedAt), URL: name(a.GetHTMLURL()),
		})
	}
	out.Page = lo.Page
	out.NextPage = nextPage(&out.Truncation, resp, "alerts")
	return out, nil
}

// ListSecretScanningAlerts lists secret scanning alerts: the kind of secret, its
// state and resolution. The secret itself is never returned.
func (b *Backend) ListSecretScanningAlerts(ctx context.Context, in SecretAlertsInput) (SecurityAlertList, error) {
	out := SecurityAlertList{Alerts: []SecurityAlert{}}
	lo, ctx, cancel, err := b.startAlerts(ctx, in.Owner, in.Repo, in.State, "", in.Page, in.PerPage)
	if err != nil {
		return out, err
	}
	defer cancel()
	list, resp, err := b.gh.SecretScanning.ListAlertsForRepo(ctx, in.Owner, in.Repo, &gh.SecretScanningAlertListOptions{State: in.State, ListOptions: lo})
	if err != nil {
		return out, b.fail(err, "list secret scanning alerts of "+repoName(in.Owner, in.Repo))
	}
	for _, a := range list {
		out.Alerts = append(out.Alerts, SecurityAlert{
			Number: a.GetNumber(), ID: name(a.GetSecretType()), State: name(a.GetState()),
			Title:      out.CleanField("a secret type", a.GetSecretTypeDisplayName(), maxTitleBytes),
			Resolution: name(a.GetResolution()), CreatedAt: ts(a.CreatedAt), URL: name(a.GetHTMLURL()),
		})
	}
	out.Page = lo.Page
	out.NextPage = nextPage(&out.Truncation, resp, "alerts")
	return out, nil
}

// ListSecurityAdvisories lists a repository's security advisories. An advisory can
// be a private vulnerability report by anyone: under lockdown the description of an
// author without push access is hidden.
func (b *Backend) ListSecurityAdvisories(ctx context.Context, in AdvisoriesInput) (SecurityAlertList, error) {
	out := SecurityAlertList{Alerts: []SecurityAlert{}}
	if in.After != "" && !cursorPattern.MatchString(in.After) {
		return out, fmt.Errorf("after %q is not a page cursor; pass nextCursor from the previous page", clip(in.After))
	}
	_, ctx, cancel, err := b.startAlerts(ctx, in.Owner, in.Repo, in.State, "", 0, in.PerPage)
	if err != nil {
		return out, err
	}
	defer cancel()
	opts := &gh.ListRepositorySecurityAdvisoriesOptions{State: in.State, ListCursorOptions: gh.ListCursorOptions{After: in.After, PerPage: in.PerPage}}
	list, resp, err := b.gh.SecurityAdvisories.ListRepositorySecurityAdvisories(ctx, in.Owner, in.Repo, opts)
	if err != nil {
		return out, b.fail(err, "list security advisories of "+repoName(in.Owner, in.Repo))
	}
	filter := b.filterFor(ctx, in.Owner, in.Repo)
	for _, a := range list {
		al := SecurityAlert{ID: name(a.GetGHSAID()), State: name(a.GetState()), Severity: name(a.GetSeverity()),
			Title: out.CleanField("an advisory summary", a.GetSummary(), maxTitleBytes), Author: login(a.GetAuthor()),
			CreatedAt: ts(a.CreatedAt), URL: name(a.GetHTMLURL())}
		if len(a.Vulnerabilities) > 0 {
			v := a.Vulnerabilities[0]
			al.Package = name(fmt.Sprintf("%s/%s %s", v.GetPackage().GetEcosystem(), v.GetPackage().GetName(), v.GetVulnerableVersionRange()))
			al.FixedIn = name(v.GetPatchedVersions())
		}
		text, hidden := filter.text(ctx, al.Author, "", "advisory description", a.GetDescription())
		al.Text, al.TextHidden = out.CleanField("an advisory description", text, maxCommentBytes), hidden
		out.Alerts = append(out.Alerts, al)
	}
	if resp != nil && resp.After != "" {
		out.NextCursor = name(resp.After)
		out.Cut("more advisories: call again with after=" + out.NextCursor)
	}
	out.Lockdown = filter.count()
	return out, nil
}

// startAlerts validates what every alert list takes and starts the call.
func (b *Backend) startAlerts(ctx context.Context, owner, repo, state, severity string, page, perPage int) (gh.ListOptions, context.Context, context.CancelFunc, error) {
	lo, err := listOptions(page, perPage)
	if err == nil {
		err = checkWord("state", state)
	}
	if err == nil {
		err = checkWord("severity", severity)
	}
	if err != nil {
		return lo, nil, nil, err
	}
	ctx, cancel, err := b.start(ctx, owner, repo)
	return lo, ctx, cancel, err
}
