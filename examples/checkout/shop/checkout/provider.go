package checkout

import (
	"context"
	"fmt"
	"sync/atomic"
)

// FakeProvider accepts every payment: the shop's stand-in for the payment
// provider's sandbox.
type FakeProvider struct{}

var receipts atomic.Int64

// Charge returns a receipt number.
func (FakeProvider) Charge(_ context.Context, p Payment) (string, error) {
	if p.Amount <= 0 {
		return "", fmt.Errorf("provider: amount %d %s", p.Amount, p.Currency)
	}
	return fmt.Sprintf("r-%06d", receipts.Add(1)), nil
}
