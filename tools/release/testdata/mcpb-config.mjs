// Prints, as JSON, the command, arguments and environment a host starts an unpacked
// MCP Bundle with: the official library's getMcpConfigForManifest (what the hosts
// use) applied to the bundle's manifest and a user configuration.
//
//   node mcpb-config.mjs MCPB_MODULE BUNDLE_DIR USER_CONFIG_JSON
//
// MCPB_MODULE is @anthropic-ai/mcpb's dist/index.js (the pinned tools/npm copy).
// Exits 3 when the host would not start the bundle: required configuration missing.
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [mcpbModule, dir, userConfig] = process.argv.slice(2);
const { getMcpConfigForManifest } = await import(pathToFileURL(mcpbModule).href);
const manifest = JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8"));
const home = os.homedir();
const config = await getMcpConfigForManifest({
  manifest,
  extensionPath: dir,
  systemDirs: {
    HOME: home,
    DESKTOP: path.join(home, "Desktop"),
    DOCUMENTS: path.join(home, "Documents"),
    DOWNLOADS: path.join(home, "Downloads"),
  },
  userConfig: JSON.parse(userConfig),
  pathSeparator: path.sep,
});
if (!config) {
  process.stderr.write("the host would not start this bundle: required user configuration is missing\n");
  process.exit(3);
}
process.stdout.write(JSON.stringify(config) + "\n");
