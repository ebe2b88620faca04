// berth mcp's workspace_fork and workspace_pick, driven by the official MCP TypeScript SDK client:
// fork is listed by default, pick only with --allow-accept; a fork with a command records each
// attempt's exit code (structuredContent validated against the tool's outputSchema); a refused
// fork (a taken name) makes nothing; pick lands one attempt and discards its sibling.
//
//   node sdk_fork.mjs BERTH_BIN REPO     (run by t_sdk_fork.sh)
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import Ajv2020 from 'ajv/dist/2020.js';
import assert from 'node:assert/strict';
import fs from 'node:fs';

const [berth, repo] = process.argv.slice(2);
const ajv = new Ajv2020({ strict: false, allErrors: true });
const env = { ...process.env };

function step(what) {
  process.stderr.write(`sdk_fork: ${what}\n`);
}

async function connect(extraArgs) {
  const transport = new StdioClientTransport({
    command: berth,
    args: ['mcp', '-C', repo, ...extraArgs],
    env,
    stderr: 'inherit',
  });
  const client = new Client({ name: 'berth-test', version: '1.0.0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const validators = new Map();
  for (const tool of tools) {
    assert.ok(tool.title, `${tool.name} has a title`);
    assert.ok(tool.description.length > 40, `${tool.name} has a description`);
    assert.equal(tool.inputSchema.type, 'object', `${tool.name} inputSchema`);
    assert.equal(tool.outputSchema.type, 'object', `${tool.name} outputSchema is object-rooted`);
    assert.equal(typeof tool.annotations.readOnlyHint, 'boolean');
    assert.equal(typeof tool.annotations.destructiveHint, 'boolean');
    assert.equal(typeof tool.annotations.idempotentHint, 'boolean');
    assert.equal(tool.annotations.openWorldHint, false);
    assert.ok(!JSON.stringify(tool.outputSchema).includes('defs.json'), `${tool.name} self-contained`);
    validators.set(tool.name, ajv.compile(tool.outputSchema));
  }
  return { client, transport, tools, validators };
}

// One call; its structuredContent must match the tool's outputSchema, and the text copy with it.
async function call(server, name, args, options = {}) {
  const result = await server.client.callTool({ name, arguments: args }, undefined, options);
  if (result.isError) {
    const text = result.content[0].text;
    return { error: JSON.parse(text).error };
  }
  const validate = server.validators.get(name);
  assert.ok(validate(result.structuredContent),
    `${name}: structuredContent does not match its outputSchema: ` +
    JSON.stringify(validate.errors) + '\n' + JSON.stringify(result.structuredContent));
  assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
  return result.structuredContent;
}

async function ok(server, name, args, options) {
  const r = await call(server, name, args, options);
  assert.ok(!r.error, `${name} ${JSON.stringify(args)} failed: ${JSON.stringify(r.error)}`);
  return r;
}

async function refused(server, name, args, code) {
  const r = await call(server, name, args);
  assert.ok(r.error, `${name} ${JSON.stringify(args)} should fail with ${code}, got ${JSON.stringify(r)}`);
  assert.equal(r.error.code, code, `${name} ${JSON.stringify(args)}: ${JSON.stringify(r.error)}`);
  assert.ok(r.error.message);
  return r.error;
}


step('fork listed, pick not, without --allow-accept');
const a = await connect([]);
assert.ok(a.tools.some((t) => t.name === 'workspace_fork'));
assert.ok(!a.tools.some((t) => t.name === 'workspace_pick'));
step('fork with a command');
const forked = await ok(a, 'workspace_fork', {
  task: 'try', attempts: 2,
  command: ['sh', '-c', 'echo "$BERTH_ATTEMPT" >answer.txt && git add answer.txt && git commit -qm "attempt $BERTH_ATTEMPT" && [ "$BERTH_ATTEMPT" = 1 ]'],
});
assert.deepEqual(forked.fork.runs.map((r) => [r.name, r.state, r.exit_code]),
  [['try-1', 'exited', 0], ['try-2', 'exited', 1]]);
assert.equal(fs.readFileSync(forked.fork.runs[0].log, 'utf8'), '');
step('a taken name is refused, nothing made');
await refused(a, 'workspace_fork', { task: 'try', attempts: 1 }, 'name_taken');
await a.client.close();

step('pick, with --allow-accept');
const b = await connect(['--allow-accept']);
const picked = await ok(b, 'workspace_pick', { name: 'try-1', strategy: 'squash' });
assert.equal(picked.picked, 'try-1');
assert.deepEqual(picked.discarded.map((d) => d.workspace.name), ['try-2']);
assert.equal(picked.fork_removed, true);
await b.client.close();
step('done');
