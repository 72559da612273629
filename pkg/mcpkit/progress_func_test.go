package mcpkit_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
)

// TestReportProgressFuncLazy: ReportProgressFunc makes the message only for a report
// that is sent: the first, then none within the interval except the one reaching
// total; with nobody listening, never.
func TestReportProgressFuncLazy(t *testing.T) {
	made := 0
	msg := func() string { made++; return "step" }
	mcpkit.ReportProgressFunc(context.Background(), 1, 10, msg)
	if made != 0 {
		t.Fatalf("message made %d times with nobody listening", made)
	}
	req := &mcpkit.Request{}
	req.Meta.ProgressToken = []byte(`"tok"`)
	ctx := mcpkit.WithProgress(context.Background(), req, time.Hour)
	for i, want := range []int{1, 1, 1, 2} { // done 1, 2, 3 within the hour, then 10 of 10
		done := float64(i + 1)
		if i == 3 {
			done = 10
		}
		mcpkit.ReportProgressFunc(ctx, done, 10, msg)
		if made != want {
			t.Fatalf("after reporting %g of 10: message made %d times, want %d", done, made, want)
		}
	}
}
