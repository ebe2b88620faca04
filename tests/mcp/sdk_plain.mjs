// berth mcp in a folder that is no git repository (docs/plain.md), driven by the MCP SDK client:
// the server starts; until a workspace is made the other tools say not_a_repository;
// workspace_create makes the folder a plain folder (its private repository outside it) and the
// workspace has the folder's files, the folder untouched. In a git repository's subfolder,
// `plain: true` keeps that subfolder as a plain folder, as `berth new --plain` does.
//
//   node sdk_plain.mjs BERTH_BIN FOLDER SUBFOLDER_OF_A_REPO   (run by t_sdk_plain.sh)
import assert from 'node:assert/strict';
import { harness } from './sdk_client.mjs';
import fs from 'node:fs';
import path from 'node:path';

const [berth, folder, docs] = process.argv.slice(2);

{
  const { step, connect, ok, refused } = harness('sdk_plain', berth, folder);
  step('a server in a plain folder that has no private repository yet');
  const s = await connect([]);
  const schema = s.tools.find((t) => t.name === 'workspace_create').inputSchema;
  assert.equal(schema.properties.plain.type, 'boolean', 'workspace_create offers plain');
  await refused(s, 'workspace_list', {}, 'not_a_repository');
  step('workspace_create makes the plain folder');
  const created = await ok(s, 'workspace_create', { name: 'task' });
  assert.equal(fs.readFileSync(path.join(created.path, 'notes.txt'), 'utf8'), 'notes\n');
  assert.ok(!fs.existsSync(path.join(folder, '.git')), 'no .git in the folder');
  const listed = await ok(s, 'workspace_list', {});
  assert.deepEqual(listed.workspaces.map((w) => w.name), ['task']);
  await ok(s, 'workspace_write_file', { name: 'task', path: 'notes.txt', content: 'agent\n' });
  assert.equal(fs.readFileSync(path.join(folder, 'notes.txt'), 'utf8'), 'notes\n', 'folder untouched');
  const diff = await ok(s, 'workspace_diff', { name: 'task', stat: true });
  assert.deepEqual(diff.files.map((f) => f.path), ['notes.txt']);
  await s.client.close();
}
{
  const { step, connect, ok } = harness('sdk_plain', berth, docs);
  step('plain: true in a repository\'s subfolder');
  const s = await connect([]);
  const created = await ok(s, 'workspace_create', { name: 'docs-task', plain: true });
  assert.ok(fs.existsSync(path.join(created.path, 'guide.md')), 'the subfolder\'s file');
  assert.ok(!fs.existsSync(path.join(created.path, 'README.md')), 'not the repository\'s');
  const listed = await ok(s, 'workspace_list', {});
  assert.deepEqual(listed.workspaces.map((w) => w.name), ['docs-task']);
  await s.client.close();
}
