#!/usr/bin/env node
// The peer: Ruff's WASM build (npm @astral-sh/ruff-wasm-nodejs, pinned in package-lock.json)
// linting the same files as `ptlint check`, in process, on one thread. Every file is read
// first; then one untimed warm-up pass (WASM compilation, caches) and N timed passes of
// `Workspace.check` over every file. Prints one JSON line: the wall and CPU (user+sys) seconds of
// each pass and their medians, the files, bytes and diagnostics.
//
// usage: node ruff_wasm_check.js FILE_LIST [--passes N] [--select CODES]
//   FILE_LIST   a file naming one source file per line (ptlint_parse_floor --list)
//   --select    comma-separated codes instead of Ruff's default rule set (e.g. E4,E7,E9,F)
"use strict";

const fs = require("fs");
const ruff = require("@astral-sh/ruff-wasm-nodejs");

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function main() {
  const args = process.argv.slice(2);
  let listPath = null;
  let passes = 3;
  let select = null;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--passes") passes = Math.max(1, parseInt(args[++i], 10));
    else if (args[i] === "--select") select = args[++i].split(",").filter(Boolean);
    else listPath = args[i];
  }
  if (!listPath) {
    console.error("usage: node ruff_wasm_check.js FILE_LIST [--passes N] [--select CODES]");
    process.exit(2);
  }
  const files = fs.readFileSync(listPath, "utf8").split("\n").filter(Boolean);
  const sources = [];
  let bytes = 0;
  for (const file of files) {
    const buffer = fs.readFileSync(file);
    bytes += buffer.length;
    sources.push(buffer.toString("utf8"));
  }

  const settings = ruff.Workspace.defaultSettings();
  if (select) settings.lint = Object.assign({}, settings.lint, { select });
  const workspace = new ruff.Workspace(settings, ruff.PositionEncoding.Utf8);

  let diagnostics = 0;
  let failures = 0;
  const pass = () => {
    let count = 0;
    for (const source of sources) {
      try {
        count += workspace.check(source).length;
      } catch (e) {
        failures++;
      }
    }
    return count;
  };

  diagnostics = pass();  // warm-up, untimed
  const seconds = [];
  const cpuSeconds = [];
  for (let p = 0; p < passes; p++) {
    const started = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    pass();
    seconds.push(Number(process.hrtime.bigint() - started) / 1e9);
    const used = process.cpuUsage(cpu);
    cpuSeconds.push((used.user + used.system) / 1e6);
  }
  console.log(JSON.stringify({
    ruff: ruff.Workspace.version(),
    rules: select ? select.join(",") : "default",
    files: sources.length,
    bytes,
    diagnostics,
    failures: failures / (passes + 1),
    seconds,
    median: median(seconds),
    cpu_seconds: cpuSeconds,
    cpu_median: median(cpuSeconds),
  }));
}

main();
