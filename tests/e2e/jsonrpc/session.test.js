// A realistic editor session against `ptlint --lsp`, driven by vscode-jsonrpc (the JSON-RPC
// implementation VS Code itself uses): open a file, make 200 quick edits without waiting,
// check that the last diagnostics equal a fresh `ptlint check` of the final text, apply a
// quickfix, run `ptlint.applyFixAll` (the server's workspace/applyEdit is applied like an
// editor would), check the result against `ptlint check --fix`, close; then open a Jupyter
// notebook (LSP 3.17 notebook documents) and compare its per-cell diagnostics with `ptlint
// check` on the .ipynb; shut down.
//
// usage: PTLINT=/path/to/ptlint node session.test.js
'use strict';

const assert = require('node:assert/strict');
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const rpc = require('vscode-jsonrpc/node');

const PTLINT = process.env.PTLINT;
if (!PTLINT) throw new Error('set PTLINT to the ptlint binary');

// --- A tiny document model, in UTF-16 (JavaScript strings are UTF-16: LSP's default) ---------

function lineStarts(text) {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\r' && text[i + 1] === '\n') { starts.push(i + 2); i++; }
    else if (c === '\r' || c === '\n') starts.push(i + 1);
  }
  return starts;
}
function offsetAt(text, pos) {
  const starts = lineStarts(text);
  if (pos.line >= starts.length) return text.length;
  let end = pos.line + 1 < starts.length ? starts[pos.line + 1] : text.length;
  while (end > starts[pos.line] && (text[end - 1] === '\n' || text[end - 1] === '\r')) end--;
  return Math.min(starts[pos.line] + pos.character, end);
}
function positionAt(text, offset) {
  const starts = lineStarts(text);
  let line = 0;
  while (line + 1 < starts.length && starts[line + 1] <= offset) line++;
  return { line, character: offset - starts[line] };
}
// Applies non-overlapping edits (as a client does: from the last to the first).
function applyEdits(text, edits) {
  const sorted = edits.map(e => ({ start: offsetAt(text, e.range.start), end: offsetAt(text, e.range.end), newText: e.newText }))
    .sort((a, b) => b.start - a.start);
  for (const e of sorted) text = text.slice(0, e.start) + e.newText + text.slice(e.end);
  return text;
}

// A seeded PRNG: the session is the same on every run.
let seed = 20240611;
function random() { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; }
function pick(list) { return list[Math.floor(random() * list.length)]; }

// --- ptlint check, the reference -------------------------------------------------------------

function checkJson(text, file) {
  const out = spawnSync(PTLINT, ['check', '--output-format', 'json', '--stdin-filename', file, '-'],
    { input: text, cwd: path.dirname(file), encoding: 'utf8' });
  assert.ok(out.status === 0 || out.status === 1, `ptlint check failed: ${out.stderr}`);
  const lines = text.split('\n');
  // CLI columns count code points; convert to UTF-16 units.
  const toPos = (loc) => {
    const line = lines[loc.row - 1] ?? '';
    const prefix = Array.from(line).slice(0, loc.column - 1).join('');
    return { line: loc.row - 1, character: prefix.length };
  };
  return JSON.parse(out.stdout).map(d => ({
    code: d.code, message: d.message, range: { start: toPos(d.location), end: toPos(d.end_location) },
  }));
}
function checkFix(text, file) {
  const out = spawnSync(PTLINT, ['check', '--fix', '--stdin-filename', file, '-'],
    { input: text, cwd: path.dirname(file), encoding: 'utf8' });
  return out.stdout;
}
const summary = (ds) => ds.map(d => ({ code: d.code, message: d.message, range: d.range }))
  .sort((a, b) => JSON.stringify(a) < JSON.stringify(b) ? -1 : 1);

// --- The session -------------------------------------------------------------------------------

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptlint-jsonrpc-'));
  const file = path.join(dir, 'train.py');
  const uri = 'file://' + file;
  const server = spawn(PTLINT, ['--lsp'], { cwd: dir, stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise(resolve => server.on('exit', code => resolve(code)));
  const connection = rpc.createMessageConnection(new rpc.StreamMessageReader(server.stdout),
                                                 new rpc.StreamMessageWriter(server.stdin));

  let text = 'import torch\nfrom torch.cuda.amp import GradScaler\n\n' +
             'def train(model, données):  # é 中文 😀\n' +
             '    scaler = GradScaler()\n' +
             '    with torch.cuda.amp.autocast():\n' +
             '        loss = model(données)\n' +
             '    return loss\n';
  let version = 1;
  const published = [];  // every publishDiagnostics for our document, in arrival order
  const waiters = [];
  connection.onNotification('textDocument/publishDiagnostics', (params) => {
    if (params.uri !== uri) return;
    published.push(params);
    for (const w of waiters.splice(0)) w();
  });
  const diagnosticsFor = (v) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no diagnostics for version ${v}`)), 30000);
    const look = () => {
      const hit = published.find(p => p.version === v);
      if (hit) { clearTimeout(timer); resolve(hit.diagnostics); } else waiters.push(look);
    };
    look();
  });
  // The editor side of workspace/applyEdit: apply if the version matches, then sync.
  connection.onRequest('workspace/applyEdit', (params) => {
    const change = params.edit.documentChanges[0];
    if (change.textDocument.uri !== uri || change.textDocument.version !== version) return { applied: false };
    sendEdits(change.edits);
    return { applied: true };
  });
  connection.onRequest('client/registerCapability', () => null);
  connection.onRequest('workspace/configuration', (params) => params.items.map(() => ({})));
  connection.listen();

  // An editor sends the edits of one operation as one didChange, last edit first.
  function sendEdits(edits) {
    const sorted = [...edits].sort((a, b) => offsetAt(text, b.range.start) - offsetAt(text, a.range.start))
      .map(e => ({ range: e.range, text: e.newText }));
    text = applyEdits(text, edits);
    version++;
    connection.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: sorted });
  }

  const init = await connection.sendRequest('initialize', {
    processId: process.pid, rootUri: 'file://' + dir, workspaceFolders: [{ uri: 'file://' + dir, name: 'w' }],
    capabilities: { workspace: { applyEdit: true, workspaceEdit: { documentChanges: true } } },
  });
  assert.equal(init.capabilities.positionEncoding, 'utf-16');
  connection.sendNotification('initialized', {});
  connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version, text } });
  assert.equal((await diagnosticsFor(1)).length, 3);  // import, GradScaler(), autocast()

  // 200 quick edits, none awaited: typing a statement, multi-byte text in a comment, deletions.
  const typed = '    scaler2 = torch.cuda.amp.GradScaler()\n';
  let typedAt = text.indexOf('    return loss');
  for (let i = 0; i < 200; i++) {
    let edit;
    if (i < typed.length) {
      edit = { range: { start: positionAt(text, typedAt), end: positionAt(text, typedAt) }, newText: typed[i] };
      typedAt++;
    } else {
      // Inside the only comment, after its `#` (which is never deleted).
      const hash = text.indexOf('#');
      let at = hash + 1 + Math.floor(random() * 4);
      if (at > 0 && at < text.length && text.charCodeAt(at) >= 0xdc00 && text.charCodeAt(at) <= 0xdfff) at--;  // not mid-pair
      if (random() < 0.6 || at >= text.length || text[at] === '\n' || text[at] === '\r') {
        edit = { range: { start: positionAt(text, at), end: positionAt(text, at) }, newText: pick(['é', '中', '😀', 'x', ' ']) };
      } else {
        // Delete one code point (both halves of a surrogate pair).
        const end = at + ((text.codePointAt(at) ?? 0) > 0xffff ? 2 : 1);
        edit = { range: { start: positionAt(text, at), end: positionAt(text, end) }, newText: '' };
      }
    }
    sendEdits([edit]);
  }
  const last = await diagnosticsFor(version);
  for (let i = 1; i < published.length; i++)
    assert.ok(published[i].version >= published[i - 1].version, 'published versions went backwards');
  console.log(`200 edits: ${published.length} publishes for ${version} versions (coalesced)`);
  assert.deepEqual(summary(last), summary(checkJson(text, file)));
  assert.equal(last.filter(d => d.code === 'PTL101').length, 4);

  // The quickfix of the autocast diagnostic.
  const autocast = last.find(d => d.message.includes('autocast'));
  const actions = await connection.sendRequest('textDocument/codeAction', {
    textDocument: { uri }, range: autocast.range, context: { diagnostics: [autocast], only: ['quickfix'] },
  });
  const fix = actions.find(a => a.isPreferred);
  assert.ok(fix, 'a preferred quickfix');
  assert.ok(actions.some(a => a.title === 'PTL101: Disable for this line'));
  assert.equal(fix.edit.documentChanges[0].textDocument.version, version);
  sendEdits(fix.edit.documentChanges[0].edits);
  assert.ok(text.includes('with torch.amp.autocast("cuda"):'), text);
  const afterFix = await diagnosticsFor(version);
  assert.equal(afterFix.length, 3);
  assert.deepEqual(summary(afterFix), summary(checkJson(text, file)));

  // Fix all: the server asks us to apply a versioned edit; the result is what `--fix` gives.
  const expected = checkFix(text, file);
  await connection.sendRequest('workspace/executeCommand', { command: 'ptlint.applyFixAll', arguments: [{ uri, version }] });
  const fixed = await diagnosticsFor(version);
  assert.equal(text, expected);
  assert.deepEqual(fixed, []);
  assert.ok(text.includes('from torch.amp import GradScaler') || text.includes('torch.amp.GradScaler("cuda")'), text);

  connection.sendNotification('textDocument/didClose', { textDocument: { uri } });
  await new Promise((resolve) => {
    const look = () => { if (published.some(p => p.version === undefined && p.diagnostics.length === 0)) resolve(); else waiters.push(look); };
    look();
  });
  // A Jupyter notebook, as VS Code syncs it (LSP 3.17 notebook documents): diagnostics arrive
  // per cell URI and match `ptlint check` on the .ipynb (cell and row); a quickfix edits its cell.
  const nbFile = path.join(dir, 'finetune.ipynb');
  const nbUri = 'file://' + nbFile;
  const cellUri = (n) => 'vscode-notebook-cell://' + nbFile + '#W' + n + 'sZmlsZQ%3D%3D';
  const cells = ['import torch\nfrom torch.cuda.amp import GradScaler', '# Notes', '%matplotlib inline\nscaler = GradScaler()',
                 '!nvidia-smi\nwith torch.cuda.amp.autocast():\n    pass'];
  const kinds = [2, 1, 2, 2];
  const nbJson = JSON.stringify({ cells: cells.map((c, i) => ({ cell_type: kinds[i] === 2 ? 'code' : 'markdown', metadata: {},
    ...(kinds[i] === 2 ? { outputs: [], execution_count: null } : {}), source: c.split(/(?<=\n)/) })),
    metadata: { kernelspec: { language: 'python', name: 'python3', display_name: 'Python 3' } }, nbformat: 4, nbformat_minor: 5 }, null, 1) + '\n';
  const cellPublished = new Map();
  connection.onNotification('textDocument/publishDiagnostics', (params) => {
    if (params.uri === uri) { published.push(params); for (const w of waiters.splice(0)) w(); return; }
    cellPublished.set(params.uri, params.diagnostics);
    for (const w of waiters.splice(0)) w();
  });
  connection.sendNotification('notebookDocument/didOpen', {
    notebookDocument: { uri: nbUri, notebookType: 'jupyter-notebook', version: 1,
      cells: cells.map((c, i) => ({ kind: kinds[i], document: cellUri(i + 1) })) },
    cellTextDocuments: cells.map((c, i) => ({ uri: cellUri(i + 1), languageId: kinds[i] === 2 ? 'python' : 'markdown', version: 1, text: c })),
  });
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no notebook diagnostics')), 30000);
    const look = () => { if ([1, 3, 4].every(n => cellPublished.has(cellUri(n)))) { clearTimeout(timer); resolve(); } else waiters.push(look); };
    look();
  });
  const cli = spawnSync(PTLINT, ['check', '--output-format', 'json', '--stdin-filename', nbFile, '-'], { input: nbJson, cwd: dir, encoding: 'utf8' });
  const expectedCells = JSON.parse(cli.stdout).map(d => `${d.cell}:${d.location.row - 1}:${d.code}`).sort();
  const gotCells = [];
  for (const n of [1, 3, 4]) for (const d of cellPublished.get(cellUri(n))) gotCells.push(`${n}:${d.range.start.line}:${d.code}`);
  assert.deepEqual(gotCells.sort(), expectedCells);
  assert.ok(expectedCells.includes('4:1:PTL101'), expectedCells);
  const d4 = cellPublished.get(cellUri(4)).find(d => d.range.start.line === 1);
  const nbActions = await connection.sendRequest('textDocument/codeAction', {
    textDocument: { uri: cellUri(4) }, range: d4.range, context: { diagnostics: [d4] } });
  const nbFix = nbActions.find(a => a.kind === 'quickfix' && a.isPreferred);
  assert.ok(nbFix, 'a quickfix in the cell');
  const nbEdit = nbFix.edit.documentChanges ? nbFix.edit.documentChanges[0] : null;
  assert.ok(nbEdit && nbEdit.textDocument.uri === cellUri(4), JSON.stringify(nbFix.edit));
  assert.equal(applyEdits(cells[3], nbEdit.edits), '!nvidia-smi\nwith torch.amp.autocast("cuda"):\n    pass');
  connection.sendNotification('notebookDocument/didClose', { notebookDocument: { uri: nbUri },
    cellTextDocuments: cells.map((c, i) => ({ uri: cellUri(i + 1) })) });

  await connection.sendRequest('shutdown');
  connection.sendNotification('exit');
  assert.equal(await exited, 0);
  connection.dispose();
  console.log('ok: vscode-jsonrpc session');
}

main().catch((e) => { console.error(e); process.exit(1); });
