// berth mcp's workspace_fork and workspace_pick, driven by the official MCP TypeScript SDK client:
// fork is listed by default, pick only with --allow-accept; a fork with a command records each
// attempt's exit code (structuredContent validated against the tool's outputSchema); a refused
// fork (a taken name) makes nothing; compare runs a test command (an argv array) in each attempt,
// sandboxed; pick lands one attempt and discards its sibling.
//
//   node sdk_fork.mjs BERTH_BIN REPO     (run by t_sdk_fork.sh)
import assert from 'node:assert/strict';
import { harness } from './sdk_client.mjs';
import fs from 'node:fs';

const [berth, repo] = process.argv.slice(2);

const { step, connect, call, ok, refused } = harness('sdk_fork', berth, repo);

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
step('compare with a test command (argv), sandboxed as the fork ran');
const compareTool = a.tools.find((t) => t.name === 'workspace_compare');
assert.equal(compareTool.inputSchema.properties.test.type, 'array');
const compared = await ok(a, 'workspace_compare', {
  names: ['try'],
  test: ['sh', '-c', 'echo "tested $BERTH_ATTEMPT"; test "$(cat answer.txt)" = 1'],
});
assert.deepEqual(compared.test_command.slice(0, 2), ['sh', '-c']);
assert.deepEqual(compared.attempts.map((t) => [t.name, t.test.exit_code, t.test.output.trim()]),
  [['try-1', 0, 'tested 1'], ['try-2', 1, 'tested 2']]);
assert.ok(compared.attempts.every((t) => t.test.sandboxed && t.test.sandbox === 'landlock'));
step('compare: sandbox false is refused by a default server, nothing run');
await refused(a, 'workspace_compare',
  { names: ['try'], test: ['sh', '-c', 'touch ran'], sandbox: false }, 'usage');
assert.ok(!fs.existsSync(`${forked.workspaces[0].path}/ran`));
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
