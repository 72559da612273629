package sentryapi

import (
	"context"
	"net/http"
)

// GetIssueForTest makes the one GET that reads an issue, for the external tests of
// retries and rate limits; HTTPClient is the client every request goes through.
func (b *Backend) GetIssueForTest(ctx context.Context, segments []string) error {
	_, err := b.get(ctx, "get issue", segments, nil, new(apiIssue))
	return err
}

func (b *Backend) HTTPClient() *http.Client { return b.hc }
