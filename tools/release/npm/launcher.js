#!/usr/bin/env node
// Starts the static __BINARY__ binary that npm installed with this package's
// optional dependency for this platform (__PACKAGE__-<os>-<cpu>, chosen by npm
// from its "os" and "cpu" fields: no install script, no download), and stands
// aside: stdin, stdout and stderr are the binary's own, signals this process gets
// are passed on, and it exits with the binary's exit code or signal.
"use strict";

const { spawn } = require("node:child_process");
const { accessSync, chmodSync, constants } = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const PACKAGE = "__PACKAGE__";
const BINARY = "__BINARY__";

function binaryPath() {
  const platformPackage = `${PACKAGE}-${process.platform}-${process.arch}`;
  const file = BINARY + (process.platform === "win32" ? ".exe" : "");
  let dir;
  try {
    dir = path.dirname(require.resolve(`${platformPackage}/package.json`));
  } catch {
    process.stderr.write(
      `${BINARY}: no binary for ${process.platform}-${process.arch}: the optional dependency ` +
        `${platformPackage} is not installed. Builds exist for linux, darwin and win32 on x64 ` +
        `and arm64; if npm was told to omit optional dependencies (--omit=optional), ` +
        `install without that. The binary is also at https://github.com/mcpkit/reference/releases ` +
        `and through \`go install\`.\n`,
    );
    process.exit(1);
  }
  const bin = path.join(dir, "bin", file);
  if (process.platform !== "win32") {
    try {
      accessSync(bin, constants.X_OK);
    } catch {
      try {
        chmodSync(bin, 0o755); // a package manager that dropped the mode bits
      } catch {}
    }
  }
  return bin;
}

const child = spawn(binaryPath(), process.argv.slice(2), { stdio: "inherit", windowsHide: true });

const signals = ["SIGINT", "SIGTERM", "SIGHUP"];
if (process.platform !== "win32") signals.push("SIGQUIT", "SIGUSR1", "SIGUSR2");
const forward = {};
for (const sig of signals) {
  forward[sig] = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(sig);
  };
  process.on(sig, forward[sig]);
}

child.on("error", (err) => {
  process.stderr.write(`${BINARY}: cannot start ${err.path || BINARY}: ${err.message}\n`);
  process.exit(1);
});

child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so whoever started us sees what happened to the server.
    // (Should the signal be one Node ignores, the exit code says it the shell's way.)
    for (const sig of signals) process.removeListener(sig, forward[sig]);
    process.exitCode = 128 + (os.constants.signals[signal] || 0);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 1 : code);
});
