package ingest

import (
	"strings"
	"testing"
)

func TestCheckJSONBoundsIgnoresStrings(t *testing.T) {
	// Brackets and commas inside strings (escaped quotes included) are text.
	s := `{"a":"` + strings.Repeat(`[{,\"`, 10_000) + `"}`
	if err := checkJSONBounds("x", []byte(s)); err != nil {
		t.Errorf("brackets in a string counted: %v", err)
	}
	if err := checkJSONBounds("x", []byte(`{"a":"\\"`+strings.Repeat("[", 200))); err == nil {
		t.Error(`an escaped backslash before a quote ended the string late: 200 levels after it passed`)
	}
}

// TestCheckJSONBoundsAtTheLimit: deepEvent of 126 arrays is 128 levels in all (event,
// extra, the arrays), the deepest the bounds take; one more is refused.
func TestCheckJSONBoundsAtTheLimit(t *testing.T) {
	if err := checkJSONBounds("", []byte(deepEvent("[", "]", ingestMaxNesting-2))); err != nil {
		t.Errorf("%d levels refused: %v", ingestMaxNesting, err)
	}
	if err := checkJSONBounds("", []byte(deepEvent("[", "]", ingestMaxNesting-1))); err == nil {
		t.Errorf("%d levels taken", ingestMaxNesting+1)
	}
}
