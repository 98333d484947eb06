// A node --test reporter: it writes nothing to its own destination, and
// appends every skipped test to the file TOOLSIFT_SKIP_LOG names, one
// "suite: test: reason" line, as the Go helper in this folder (testskip.go)
// and the pytest plugin (pytest_skiplog.py) do; `make test` lists them at
// the end and fails on them (summary.py). Without the variable it does
// nothing. A package's `npm test` loads it beside the spec reporter:
//   node --test --test-reporter=spec --test-reporter-destination=stdout \
//     --test-reporter=<this file> --test-reporter-destination=stderr ...
import { appendFileSync, existsSync } from "node:fs";
import path from "node:path";

function suite(file) {
  if (!file) return "node";
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "go.mod"))) return `node ${path.relative(dir, file).split(path.sep).join("/")}`;
    if (path.dirname(dir) === dir) return `node ${file}`;
  }
}

export default async function* skiplog(source) {
  const log = process.env.TOOLSIFT_SKIP_LOG;
  for await (const event of source) {
    if (!log || (event.type !== "test:pass" && event.type !== "test:fail")) continue;
    const { skip, name, file } = event.data;
    if (skip === undefined || skip === false) continue;
    const reason = typeof skip === "string" ? skip : "skipped";
    appendFileSync(log, `${suite(file)}: ${name}: ${reason.replace(/\n/g, " ")}\n`);
  }
}
