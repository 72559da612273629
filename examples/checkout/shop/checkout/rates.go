package checkout

// centsPerUnit is what one unit of each currency is worth in US cents. The
// payment provider charges in the customer's currency; the catalog prices in
// US cents. Updated by the finance team every Monday.
var centsPerUnit = map[string]int64{
	"USD": 100,
	"GBP": 127,
	"CAD": 73,
}
