// Validates SARIF logs against the SARIF 2.1.0 JSON schema (draft-04) with ajv.
//   node validate.js <schema.json> <log.sarif>...
// Exits 1 and prints every violation when a log does not validate.
"use strict";
const fs = require("fs");
const Ajv = require("ajv");

const [schemaFile, ...logs] = process.argv.slice(2);
if (!schemaFile || logs.length === 0) {
  console.error("usage: node validate.js <schema.json> <log.sarif>...");
  process.exit(2);
}
const schema = JSON.parse(fs.readFileSync(schemaFile, "utf8"));
// The SARIF schema is draft-04 (`id`, not `$id`); format checks (uri, date-time) are on.
const ajv = new Ajv({ schemaId: "auto", allErrors: true, format: "full" });
ajv.addMetaSchema(require("ajv/lib/refs/json-schema-draft-04.json"));
const validate = ajv.compile(schema);
let failed = false;
for (const file of logs) {
  const log = JSON.parse(fs.readFileSync(file, "utf8"));
  if (validate(log)) {
    const results = log.runs.reduce((n, run) => n + (run.results || []).length, 0);
    console.log(`ok: ${file} is valid SARIF 2.1.0 (${results} results)`);
  } else {
    failed = true;
    console.log(`FAIL: ${file} does not validate:`);
    for (const e of validate.errors) console.log(`  ${e.dataPath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
  }
}
process.exit(failed ? 1 : 0);
