// Package checkout turns a cart into a payment: it prices the items from the catalog,
// converts the total into the customer's currency and asks the provider to charge it.
package checkout

import (
	"context"
	"errors"
	"fmt"
)

// A Cart is what a customer checks out.
type Cart struct {
	Customer string `json:"customer"`
	Currency string `json:"currency"`
	Items    []Item `json:"items"`
}

// An Item is a quantity of one product.
type Item struct {
	SKU string `json:"sku"`
	Qty int    `json:"qty"`
}

// A Payment is what the provider is asked to charge.
type Payment struct {
	Customer string
	Currency string
	Amount   int64 // in the currency's minor unit (cents, pence)
}

// A Provider charges payments.
type Provider interface {
	Charge(ctx context.Context, p Payment) (receipt string, err error)
}

// ErrNotOffered is returned for a currency the storefront does not offer.
var ErrNotOffered = errors.New("checkout: currency not offered")

// Checkout prices the cart and charges it in the cart's currency.
func Checkout(ctx context.Context, pr Provider, cart Cart) (string, error) {
	if !Offered(cart.Currency) {
		return "", fmt.Errorf("%w: %q", ErrNotOffered, cart.Currency)
	}
	usd, err := total(cart.Items)
	if err != nil {
		return "", err
	}
	return pr.Charge(ctx, Payment{Customer: cart.Customer, Currency: cart.Currency, Amount: convert(usd, cart.Currency)})
}

// convert turns an amount in US cents into the minor unit of currency.
func convert(usdCents int64, currency string) int64 {
	return usdCents * 100 / centsPerUnit[currency]
}
