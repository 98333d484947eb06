// node bench/buildtime/build.mjs FORMAT CATALOG: buildSnapshot in Node, the
// median CPU and wall time of five builds after a warm-up (see main.go).
import { readFileSync } from "node:fs";
import { buildSnapshot } from "../../bindings/js/index.js";

const [format, path] = process.argv.slice(2);
const catalog = readFileSync(path);
await buildSnapshot(format, catalog);
const cpu = [], wall = [];
for (let i = 0; i < 5; i++) {
  const c = process.cpuUsage(), start = performance.now();
  await buildSnapshot(format, catalog);
  wall.push((performance.now() - start) / 1000);
  const d = process.cpuUsage(c);
  cpu.push((d.user + d.system) / 1e6);
}
cpu.sort((a, b) => a - b); wall.sort((a, b) => a - b);
console.log(`node: cpu median ${cpu[2].toFixed(2)} s (${cpu[0].toFixed(2)}–${cpu[4].toFixed(2)}), wall median ${wall[2].toFixed(2)} s`);
