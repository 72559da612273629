module example.com/shop

go 1.26.0

require github.com/getsentry/sentry-go v0.46.2

require (
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
)
