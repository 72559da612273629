package checkout

import "fmt"

// catalog prices every product in US cents.
var catalog = map[string]int64{
	"mug":       1200,
	"tee":       2400,
	"hoodie":    5500,
	"stickers":  400,
	"notebook":  900,
	"water-btl": 1800,
}

// total is the price of the items in US cents.
func total(items []Item) (int64, error) {
	var sum int64
	for _, it := range items {
		price, ok := catalog[it.SKU]
		if !ok {
			return 0, fmt.Errorf("catalog: unknown sku %q", it.SKU)
		}
		if it.Qty < 1 {
			return 0, fmt.Errorf("catalog: quantity %d of %q", it.Qty, it.SKU)
		}
		sum += price * int64(it.Qty)
	}
	return sum, nil
}
