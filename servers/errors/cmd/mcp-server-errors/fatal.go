package main

import (
	"log/slog"
	"os"
)

// exitForRestart is the collector's LocalConfig.OnFatal: when its store can no longer
// write where the data directory says (the database file was deleted or replaced
// under it), a live collector that refuses every event helps no one; it exits with
// status 3 so that its service manager (Restart=on-failure) starts it again on the
// directory as it is now.
func exitForRestart(logger *slog.Logger) func(error) {
	return func(err error) {
		logger.Error("collector: exiting so that the service manager starts it again", "error", err.Error())
		os.Exit(3)
	}
}
