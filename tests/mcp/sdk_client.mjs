// The SDK-client side the MCP tests share: connect to `berth mcp` over stdio (checking every
// listed tool's metadata and compiling its outputSchema), and call a tool with its
// structuredContent validated against that schema.
//
//   import { harness } from './sdk_client.mjs';
//   const { step, connect, call, ok, refused } = harness('sdk_x', berth, repo);
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import Ajv2020 from 'ajv/dist/2020.js';
import assert from 'node:assert/strict';

export function harness(label, berth, repo, env = { ...process.env }) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  function step(what) {
    process.stderr.write(`${label}: ${what}\n`);
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

  return { step, connect, call, ok, refused };
}
