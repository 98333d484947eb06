// Makes the toolsift component from the component's core module (a wasip1
// build of wasm/component): componentEmbed puts ../../toolsift.wit's world
// into it, componentNew links the WASI preview 1 reactor adapter that jco
// ships and wraps both into a WASI 0.2 component. Both run wasm-tools
// (wit-component) compiled to WebAssembly inside jco, pinned by
// package-lock.json, so the same inputs give the same bytes.
//
//   node build.mjs CORE.wasm OUT.component.wasm
import { readFile, writeFile } from "node:fs/promises";
import { componentEmbed, componentNew, componentWit, preview1AdapterReactorPath } from "@bytecodealliance/jco";

const [core, out] = process.argv.slice(2);
if (!core || !out) {
  console.error("usage: node build.mjs CORE.wasm OUT.component.wasm");
  process.exit(2);
}
const witPath = new URL("../../toolsift.wit", import.meta.url);
const embedded = await componentEmbed({
  binary: await readFile(core),
  witSource: await readFile(witPath, "utf8"),
  world: "toolsift",
  stringEncoding: "utf8",
});
const adapter = await readFile(preview1AdapterReactorPath());
const component = await componentNew(embedded, [["wasi_snapshot_preview1", adapter]]);
// The component must say the interface we wrote (componentWit decodes it).
const printed = await componentWit(component);
if (!printed.includes("export toolsift:search/tool-search@1.0.0;")) {
  console.error(printed);
  throw new Error("the component's WIT does not export tool-search");
}
await writeFile(out, component);
