package checkout

import "slices"

// Currencies are the currencies a customer can pick in the storefront, in the
// order the currency menu shows them.
var Currencies = []string{"USD", "GBP", "CAD", "EUR"}

// Offered reports whether the storefront offers currency.
func Offered(currency string) bool { return slices.Contains(Currencies, currency) }
