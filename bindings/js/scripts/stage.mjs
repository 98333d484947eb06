#!/usr/bin/env node
// Puts the module and the DWS snapshot into the package. Git holds one copy
// of each (wasm/toolsearch.wasm, catalogs/dws/dws.snap); in a checkout this
// copies them here (git-ignored) with their hashes, and in every case it
// fails unless the package's copies are the bytes wasm/artifacts.sha256
// records (wasm/build.sh writes that list). package.json runs it as
// `prepare` (npm ci / npm install in this directory, and `npm install
// ./bindings/js` from elsewhere), `prepack` (npm pack, npm publish) and
// `pretest`; the playground server runs it too.
//   node scripts/stage.mjs
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const PKG = fileURLToPath(new URL("..", import.meta.url));
const MANIFEST = "wasm/artifacts.sha256";
/** Name inside the package -> path in the repository. */
const ARTIFACTS = { "toolsearch.wasm": "wasm/toolsearch.wasm", "dws.snap": "catalogs/dws/dws.snap" };
const PACKAGED_MANIFEST = "artifacts.sha256";

const sha256 = (file) => createHash("sha256").update(readFileSync(file)).digest("hex");

/** sha256sum's format: "<hex>  <path>" per line. */
function readManifest(file) {
  const out = new Map();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const at = line.indexOf("  ");
    out.set(line.slice(at + 2).trim(), line.slice(0, at).trim());
  }
  return out;
}

// This package must be the checkout's own bindings/js: a package unpacked
// from its tarball sits anywhere.
function inCheckout(pkg, repo) {
  if (!existsSync(path.join(repo, MANIFEST))) return false;
  const own = path.join(repo, "bindings", "js");
  return existsSync(own) && realpathSync(own) === realpathSync(pkg);
}

/** Copy (from a checkout) and check the package at pkg (default: this one);
 * throws an Error naming what differs or is missing. */
export function stage(pkg = PKG) {
  const repo = path.resolve(pkg, "..", "..");
  if (inCheckout(pkg, repo)) {
    const recorded = readManifest(path.join(repo, MANIFEST));
    const lines = [];
    for (const [name, source] of Object.entries(ARTIFACTS)) {
      const want = recorded.get(source);
      if (!want) throw new Error(`${MANIFEST} has no line for ${source}: run wasm/build.sh`);
      const got = sha256(path.join(repo, source));
      if (got !== want) {
        throw new Error(`${source} has SHA-256 ${got}, but ${MANIFEST} records ${want}: ` +
          "run wasm/build.sh (it records the hashes of the module and the DWS snapshot)");
      }
      const dest = path.join(pkg, name);
      if (!existsSync(dest) || sha256(dest) !== want) copyFileSync(path.join(repo, source), dest);
      lines.push(`${want}  ${name}\n`);
    }
    writeFileSync(path.join(pkg, PACKAGED_MANIFEST), lines.join(""));
  }
  const manifest = path.join(pkg, PACKAGED_MANIFEST);
  if (!existsSync(manifest)) {
    throw new Error(`${manifest} is missing: install toolsift from a checkout of the repository (npm install ./bindings/js) or from its tarball`);
  }
  const recorded = readManifest(manifest);
  for (const name of Object.keys(ARTIFACTS)) {
    const file = path.join(pkg, name);
    if (!existsSync(file)) throw new Error(`${file} is missing: install toolsift from a checkout of the repository or from its tarball`);
    const got = sha256(file);
    if (got !== recorded.get(name)) throw new Error(`${file} has SHA-256 ${got}, but the package records ${recorded.get(name)}: it is not the committed file`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  try {
    stage();
  } catch (err) {
    console.error(`toolsift: ${err.message}`);
    process.exit(1);
  }
}
