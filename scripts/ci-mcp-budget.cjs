// ci-mcp-budget: the guess budget (docs/mcp.md) through a real MCP client
// session, @modelcontextprotocol/sdk's Client over stdio against
// `privscan mcp`, whose key map sets `[guard] probe-budget = 5`:
//
//   - five distinct scan_text probes are answered;
//   - a sixth distinct probe is refused with rate_limited (isError, a
//     {"code","message"} body saying when the window moves on);
//   - repeating the first probe is answered (a repeat is free);
//   - the audit log has exactly one "alert":"probe_budget" record, and no
//     output (replies, the server's stderr, the audit log) holds the
//     canary.
//
// Run by scripts/ci-mcp, which installs the SDK with npm and sets:
//   CI_MCP_SDK_DIR   the npm prefix holding node_modules/@modelcontextprotocol/sdk
//   CI_MCP_PRIVSCAN  the privscan binary
//   CI_MCP_CANARY    a catalogued name (it must never come back)
//   CI_MCP_PROJECT   the directory to start the server in
//   XDG_CONFIG_HOME, XDG_STATE_HOME, HOME: the server's configuration,
//     with the budget of 5 in its key map, and a fresh state directory.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { createRequire } = require('node:module');

const need = (name) => {
  const v = process.env[name];
  if (!v) fail(`${name} is not set`);
  return v;
};

function fail(msg) {
  process.stderr.write(`ci-mcp-budget: FAIL: ${msg}\n`);
  process.exit(1);
}

const sdkRequire = createRequire(path.join(need('CI_MCP_SDK_DIR'), 'package.json'));
const { Client } = sdkRequire('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = sdkRequire('@modelcontextprotocol/sdk/client/stdio.js');

const canary = need('CI_MCP_CANARY');
const budget = 5;
const agent = 'ci-budget';

// leaks reports whether s holds the canary, in any case, with or without
// its blanks.
function leaks(s) {
  const low = s.toLowerCase();
  const c = canary.toLowerCase();
  return low.includes(c) || low.replace(/\s+/g, '').includes(c.replace(/\s+/g, ''));
}

// body returns a tool result's text, checked for the canary.
function body(label, res) {
  if (!Array.isArray(res.content) || res.content.length !== 1 || res.content[0].type !== 'text') {
    fail(`${label}: unexpected content ${JSON.stringify(res.content).slice(0, 300)}`);
  }
  const text = res.content[0].text;
  if (leaks(JSON.stringify(res))) fail(`${label}: the reply holds the canary`);
  return text;
}

async function main() {
  const env = {};
  for (const k of ['PATH', 'HOME', 'XDG_CONFIG_HOME', 'XDG_STATE_HOME']) {
    if (process.env[k]) env[k] = process.env[k];
  }
  const transport = new StdioClientTransport({
    command: need('CI_MCP_PRIVSCAN'),
    args: ['mcp'],
    cwd: need('CI_MCP_PROJECT'),
    env,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr.on('data', (d) => { stderr += d.toString(); });
  const client = new Client({ name: 'ci-mcp-budget', version: '1' });
  await client.connect(transport);

  const scan = (text) => client.callTool({ name: 'scan_text', arguments: { text, agent_id: agent } });
  const probe = (i) => `Budget probe ${i}: reviewed with ${canary}`;

  for (let i = 1; i <= budget; i++) {
    const res = await scan(probe(i));
    const text = body(`probe ${i}`, res);
    if (res.isError) fail(`probe ${i} was refused: ${text}`);
    if (!text.includes('"catalog/PER-001"')) fail(`probe ${i} found nothing, so it tests nothing`);
  }
  const over = await scan(probe(budget + 1));
  const overText = body(`probe ${budget + 1}`, over);
  if (!over.isError) fail(`probe ${budget + 1} was answered past the budget of ${budget}`);
  let err;
  try {
    err = JSON.parse(overText);
  } catch {
    fail(`the rate_limited body is not JSON: ${overText}`);
  }
  if (err.code !== 'rate_limited' || !/UTC/.test(err.message) || Object.keys(err).length !== 2) {
    fail(`probe ${budget + 1}: want {"code":"rate_limited","message":…when the window moves on…}, got ${overText}`);
  }
  const again = await scan(probe(1));
  const againText = body('the repeated probe', again);
  if (again.isError) fail(`repeating probe 1 was refused: ${againText}`);

  await client.close();

  if (leaks(stderr)) fail('the server\'s stderr holds the canary');
  const auditPath = path.join(need('XDG_STATE_HOME'), 'privscan', 'audit.jsonl');
  const audit = fs.readFileSync(auditPath, 'utf8');
  if (leaks(audit)) fail('the audit log holds the canary');
  const records = audit.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
  const alerts = records.filter((r) => r.alert === 'probe_budget');
  if (alerts.length !== 1) fail(`${alerts.length} "alert":"probe_budget" records, want exactly 1`);
  if (alerts[0].agent_id !== agent || alerts[0].code !== 'rate_limited') {
    fail(`the alert record is ${JSON.stringify(alerts[0])}`);
  }
  const calls = records.filter((r) => r.tool === 'scan_text').length;
  if (calls !== budget + 2) fail(`${calls} scan_text records, want ${budget + 2}`);
  console.log(`ci-mcp-budget: ${budget} probes answered, the next refused (rate_limited), a repeat answered; ` +
    `one probe_budget alert in ${records.length} audit records; no canary`);
}

main().catch((e) => fail(e && e.message ? e.message : String(e)));
