module example.com/shop

go 1.25.0

require github.com/getsentry/sentry-go v0.46.2

require (
	golang.org/x/sys v0.41.0 // indirect
	golang.org/x/text v0.14.0 // indirect
)
