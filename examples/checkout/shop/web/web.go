// Package web is the shop's HTTP API: POST /checkout with a cart as JSON.
// Errors and panics go to Sentry (sentry-go's net/http integration), with the
// customer as the user and the cart's currency as a tag.
package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/getsentry/sentry-go"
	sentryhttp "github.com/getsentry/sentry-go/http"

	"example.com/shop/checkout"
)

// Handler serves the shop's API, charging through pr.
func Handler(pr checkout.Provider, log *slog.Logger) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /checkout", func(w http.ResponseWriter, r *http.Request) {
		var cart checkout.Cart
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&cart); err != nil {
			http.Error(w, "bad cart: "+err.Error(), http.StatusBadRequest)
			return
		}
		if hub := sentry.GetHubFromContext(r.Context()); hub != nil {
			hub.Scope().SetUser(sentry.User{ID: cart.Customer})
			hub.Scope().SetTag("currency", cart.Currency)
		}
		receipt, err := checkout.Checkout(r.Context(), pr, cart)
		switch {
		case errors.Is(err, checkout.ErrNotOffered):
			http.Error(w, err.Error(), http.StatusBadRequest)
		case err != nil:
			if hub := sentry.GetHubFromContext(r.Context()); hub != nil {
				hub.CaptureException(err)
			}
			log.Error("checkout failed", "customer", cart.Customer, "error", err)
			http.Error(w, "checkout failed", http.StatusInternalServerError)
		default:
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, "{\"receipt\":%q}\n", receipt)
		}
	})
	// sentryhttp reports a panic (with the stack where it happened) and panics
	// again; recoverer then answers 500 instead of dropping the connection.
	return recoverer(sentryhttp.New(sentryhttp.Options{Repanic: true}).Handle(mux), log)
}

func recoverer(next http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				log.Error("checkout panicked", "panic", fmt.Sprint(p))
				http.Error(w, "checkout failed", http.StatusInternalServerError)
			}
		}()
		next.ServeHTTP(w, r)
	})
}
