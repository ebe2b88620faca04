// berth mcp driven by the official MCP TypeScript SDK client (Client + StdioClientTransport)
// through a whole lifecycle: tools listed (accept only with --allow-accept), create, file tools,
// run with progress and a cancelled run, diff, commit, accept, discard, restore. Every
// structuredContent is validated against its tool's outputSchema (JSON Schema 2020-12); every
// escape attempt through the file tools fails with escape_refused and leaves its target as it was.
//
//   node sdk_lifecycle.mjs BERTH_BIN REPO SCRATCH     (run by t_sdk_lifecycle.sh)
import assert from 'node:assert/strict';
import { harness } from './sdk_client.mjs';
import fs from 'node:fs';
import path from 'node:path';

const [berth, repo, scratch] = process.argv.slice(2);

const { step, connect, call, ok, refused } = harness('sdk_lifecycle', berth, repo);

// Running: not gone, and not a zombie its new parent has yet to reap.
const alive = (pid) => {
  try {
    return !fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].startsWith('Z');
  } catch {
    return false;
  }
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(what, predicate, ms = 8000) {
  const end = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

// ---- a server without --allow-accept -------------------------------------------------------
step('tools/list without --allow-accept');
const a = await connect([]);
const names = a.tools.map((t) => t.name).sort();
for (const expected of ['workspace_create', 'workspace_list', 'workspace_status', 'workspace_diff',
  'workspace_read_file', 'workspace_write_file', 'workspace_edit_file', 'workspace_delete_file',
  'workspace_list_files', 'workspace_run', 'workspace_commit', 'workspace_sync',
  'workspace_discard', 'workspace_restore', 'workspace_compare'])
  assert.ok(names.includes(expected), `${expected} is listed: ${names}`);
assert.ok(!names.includes('workspace_accept'), 'workspace_accept is not listed by default');
const byName = Object.fromEntries(a.tools.map((t) => [t.name, t]));
assert.equal(byName.workspace_list.annotations.readOnlyHint, true);
assert.equal(byName.workspace_discard.annotations.destructiveHint, true);
assert.deepEqual(byName.workspace_run.inputSchema.properties.command.type, 'array');

step('create, files');
const created = await ok(a, 'workspace_create', { name: 'task' });
const ws = created.path;
assert.ok(fs.existsSync(path.join(ws, 'README.md')));
await refused(a, 'workspace_create', { name: 'task' }, 'name_taken');
await ok(a, 'workspace_write_file', { name: 'task', path: 'src/new.txt', content: 'one\ntwo\n' });
assert.equal(fs.readFileSync(path.join(ws, 'src/new.txt'), 'utf8'), 'one\ntwo\n');
const edited = await ok(a, 'workspace_edit_file',
  { name: 'task', path: 'src/new.txt', old_string: 'two', new_string: 'TWO' });
assert.equal(edited.replacements, 1);
await refused(a, 'workspace_edit_file',
  { name: 'task', path: 'src/new.txt', old_string: 'absent', new_string: 'x' }, 'not_found');
const read = await ok(a, 'workspace_read_file', { name: 'task', path: 'src/new.txt' });
assert.equal(read.content, 'one\nTWO\n');
assert.equal(read.truncated, false);
const part = await ok(a, 'workspace_read_file', { name: 'task', path: 'src/new.txt', offset: 2, limit: 3 });
assert.deepEqual([part.content, part.truncated, part.next_offset], ['e\nT', true, 5]);
const listed = await ok(a, 'workspace_list_files', { name: 'task' });
assert.ok(listed.entries.some((e) => e.name === 'src' && e.type === 'dir'));
assert.ok(!listed.entries.some((e) => e.name === '.git'));
const globbed = await ok(a, 'workspace_list_files', { name: 'task', path: 'src', pattern: '*.txt' });
assert.deepEqual(globbed.entries.map((e) => e.name), ['new.txt']);
// Recursive: every file git sees (tracked, new and not ignored) by its path from the top; a
// pattern without `/` matches names at any depth, one with `/` the whole path.
fs.appendFileSync(path.join(repo, '.git/info/exclude'), '\nignored-dir/\n');
fs.mkdirSync(path.join(ws, 'ignored-dir'));
fs.writeFileSync(path.join(ws, 'ignored-dir/dep.txt'), 'x');
const deep = await ok(a, 'workspace_list_files', { name: 'task', recursive: true, pattern: '*.txt' });
assert.deepEqual(deep.entries.map((e) => [e.name, e.type, e.size]), [['src/new.txt', 'file', 8]]);
assert.equal(deep.recursive, true);
const all = await ok(a, 'workspace_list_files', { name: 'task', recursive: true });
assert.ok(all.entries.some((e) => e.name === 'README.md'));
assert.ok(!all.entries.some((e) => e.name.startsWith('ignored-dir/') || e.name.startsWith('.git/')));
for (const pattern of ['src/*.txt', '**/*.txt'])
  assert.deepEqual((await ok(a, 'workspace_list_files',
    { name: 'task', recursive: true, pattern })).entries.map((e) => e.name), ['src/new.txt'], pattern);
const below = await ok(a, 'workspace_list_files', { name: 'task', path: 'src', recursive: true });
assert.deepEqual(below.entries.map((e) => e.name), ['src/lib/util.c', 'src/main.c', 'src/new.txt']);
assert.deepEqual((await ok(a, 'workspace_list_files',
  { name: 'task', recursive: true, pattern: 'src/**/*.c' })).entries.map((e) => e.name), ['src/lib/util.c', 'src/main.c']);
fs.rmSync(path.join(ws, 'ignored-dir'), { recursive: true });
await ok(a, 'workspace_write_file', { name: 'task', path: 'gone.txt', content: 'x' });
await ok(a, 'workspace_delete_file', { name: 'task', path: 'gone.txt' });
assert.ok(!fs.existsSync(path.join(ws, 'gone.txt')));
// A model's argument mistake is a tool error it can read, not a protocol error.
await refused(a, 'workspace_read_file', { name: 'task' }, 'usage');

step('escape attempts');
const outside = path.join(scratch, 'outside');
fs.mkdirSync(outside, { recursive: true });
const secret = path.join(outside, 'secret');
fs.writeFileSync(secret, 'secret bytes\n');
fs.symlinkSync(outside, path.join(ws, 'out'));
fs.symlinkSync(secret, path.join(ws, 'link'));
fs.linkSync(secret, path.join(ws, 'hard'));
const relSecret = path.relative(ws, secret);
const before = fs.readFileSync(secret);
const attempts = ['../x', relSecret, secret, '/etc/passwd', 'out/secret', 'link',
  '/proc/self/root' + secret, 'src/../../x', '.git'];
for (const p of attempts) {
  await refused(a, 'workspace_read_file', { name: 'task', path: p }, 'escape_refused');
  await refused(a, 'workspace_write_file', { name: 'task', path: p, content: 'pwned' }, 'escape_refused');
  await refused(a, 'workspace_edit_file',
    { name: 'task', path: p, old_string: 'secret', new_string: 'pwned' }, 'escape_refused');
  // Deleting the symlink `link` removes the link itself (inside): checked below.
  if (p !== 'link') await refused(a, 'workspace_delete_file', { name: 'task', path: p }, 'escape_refused');
}
for (const p of ['..', 'out', '/', '/proc/self/root', outside])
  await refused(a, 'workspace_list_files', { name: 'task', path: p }, 'escape_refused');
await refused(a, 'workspace_write_file', { name: 'task', path: 'hard', content: 'pwned' }, 'escape_refused');
await refused(a, 'workspace_edit_file',
  { name: 'task', path: 'hard', old_string: 'secret', new_string: 'pwned' }, 'escape_refused');
await refused(a, 'workspace_write_file', { name: 'task', path: 'out/made/f', content: 'x' }, 'escape_refused');
assert.deepEqual(fs.readFileSync(secret), before, 'the file outside is unchanged');
assert.deepEqual(fs.readdirSync(outside), ['secret'], 'nothing was made outside');
await ok(a, 'workspace_delete_file', { name: 'task', path: 'link' });
await ok(a, 'workspace_delete_file', { name: 'task', path: 'hard' });
assert.ok(!fs.existsSync(path.join(ws, 'link')) && !fs.existsSync(path.join(ws, 'hard')));
assert.deepEqual(fs.readFileSync(secret), before, 'deleting a link inside leaves its target');
fs.rmSync(path.join(ws, 'out'));

step('run, with progress');
const progress = [];
const ran = await ok(a, 'workspace_run', {
  name: 'task',
  command: ['sh', '-c', 'for i in 1 2 3 4; do echo line$i; sleep 0.3; done; echo oops >&2; exit 3'],
}, { onprogress: (p) => progress.push(p) });
assert.equal(ran.exit_status, 3);
assert.equal(ran.cancelled, false);
assert.ok(ran.sandbox.length > 0, 'sandboxed by default');
assert.equal(ran.output.stdout, 'line1\nline2\nline3\nline4\n');
assert.equal(ran.output.stderr, 'oops\n');
assert.equal(ran.output.truncated, false);
assert.ok(progress.length >= 1, 'progress notifications arrived');
assert.ok(progress.some((p) => (p.message || '').includes('line')), JSON.stringify(progress));
const big = await ok(a, 'workspace_run',
  { name: 'task', command: ['sh', '-c', 'seq 1 100000'] });
assert.equal(big.output.truncated, true);
assert.ok(big.output.stdout.startsWith('1\n2\n'));
assert.ok(big.output.stdout.endsWith('99999\n100000\n'));
assert.ok(big.output.stdout.length < 40000);
assert.equal(big.output.stdout_bytes, 588895);
await refused(a, 'workspace_run', { name: 'task', command: ['true'], sandbox: false }, 'usage');

step('a cancelled run stops its whole process tree, and the server goes on serving');
const controller = new AbortController();
const pending = a.client.callTool({
  name: 'workspace_run',
  arguments: {
    name: 'task',
    command: ['sh', '-c', 'sleep 60 & echo $! > child.pid; echo $$ > shell.pid; wait'],
  },
}, undefined, { signal: controller.signal, timeout: 60000 });
pending.catch(() => {});
await until('the command to start', () =>
  fs.existsSync(path.join(ws, 'child.pid')) && fs.existsSync(path.join(ws, 'shell.pid')) &&
  fs.readFileSync(path.join(ws, 'child.pid'), 'utf8').trim() !== '');
// Served meanwhile: a long run does not block a list.
const during = await ok(a, 'workspace_list', {});
assert.equal(during.workspaces.find((w) => w.name === 'task').state, 'busy');
const pids = ['child.pid', 'shell.pid'].map((f) => Number(fs.readFileSync(path.join(ws, f), 'utf8')));
assert.ok(pids.every(alive));
controller.abort('test cancels');
await assert.rejects(pending);
await until('the process tree to be gone', () => pids.every((pid) => !alive(pid)));
await until('the workspace to be free', async () =>
  (await ok(a, 'workspace_status', { name: 'task' })).state === 'ready');
fs.rmSync(path.join(ws, 'child.pid'));
fs.rmSync(path.join(ws, 'shell.pid'));

step('diff, commit');
const diff = await ok(a, 'workspace_diff', { name: 'task' });
assert.ok(diff.files.some((f) => f.path === 'src/new.txt'));
assert.ok(diff.patch.includes('+TWO'));
assert.equal(diff.truncated, false);
const stat = await ok(a, 'workspace_diff', { name: 'task', stat: true });
assert.ok(!('patch' in stat));
const capped = await ok(a, 'workspace_diff', { name: 'task', max_bytes: 20 });
assert.equal(capped.truncated, true);
assert.ok(capped.patch.length <= 20 && capped.patch_bytes > 20);
const only = await ok(a, 'workspace_diff', { name: 'task', paths: ['nothing-here'] });
assert.deepEqual(only.files, []);
assert.equal(only.patch, '');

step('compare');
await ok(a, 'workspace_create', { name: 'task-other' });
// The page is written in the project (the agent writes nowhere else): relative to it.
const page = path.join(repo, 'compare.html');
const compared = await ok(a, 'workspace_compare', { names: ['task', 'task-other'], html: 'compare.html' });
assert.deepEqual(compared.attempts.map((x) => x.name), ['task', 'task-other']);
assert.ok(compared.attempts[0].files_changed > 0 && compared.attempts[0].uncommitted);
assert.equal(compared.attempts[1].files_changed, 0);
assert.equal(compared.pairs[0].relation, 'disjoint');
assert.equal(compared.html, page);
assert.ok(fs.readFileSync(page, 'utf8').includes('data-attempt="task-other"'));
fs.unlinkSync(page);
await refused(a, 'workspace_compare', { names: ['task', 'task-other'], html: path.join(scratch, 'compare.html') }, 'escape_refused');
assert.ok(!fs.existsSync(path.join(scratch, 'compare.html')));
assert.equal(byName.workspace_compare.annotations.destructiveHint, false);
await refused(a, 'workspace_compare', { names: ['task'] }, 'usage');
await refused(a, 'workspace_compare', { names: ['task', 'nope'] }, 'not_found');
await ok(a, 'workspace_discard', { name: 'task-other' });
const committed = await ok(a, 'workspace_commit', { name: 'task', message: 'agent work' });
assert.match(committed.commit, /^[0-9a-f]{40}$/);

step('discard, restore');
const discarded = await ok(a, 'workspace_discard', { name: 'task' });
assert.ok(!fs.existsSync(ws));
assert.ok(discarded);
await refused(a, 'workspace_status', { name: 'task' }, 'not_found');
const restored = await ok(a, 'workspace_restore', { name: 'task' });
assert.equal(fs.readFileSync(path.join(restored.workspace.path, 'src/new.txt'), 'utf8'), 'one\nTWO\n');
const listAfter = await ok(a, 'workspace_list', {});
assert.deepEqual(listAfter.workspaces.map((w) => w.name), ['task']);

step('resources');
const resources = await a.client.listResources();
assert.ok(resources.resources.some((r) => r.uri === 'berth://workspaces'));
const templates = await a.client.listResourceTemplates();
assert.equal(templates.resourceTemplates[0].uriTemplate, 'berth://workspace/{name}/diff');
const wsResource = await a.client.readResource({ uri: 'berth://workspaces' });
assert.equal(JSON.parse(wsResource.contents[0].text)[0].name, 'task');
const diffResource = await a.client.readResource({ uri: 'berth://workspace/task/diff' });
assert.ok(diffResource.contents[0].text.includes('+TWO'));
await assert.rejects(a.client.readResource({ uri: 'berth://workspace/nope/diff' }));

step('file writes racing a discard: every write reported done is in the snapshot');
await ok(a, 'workspace_create', { name: 'race' });
// Four writers go on until the workspace is gone; the discard starts once writes are flowing.
const written = [];
let started = 0;
const writer = async (k) => {
  for (let i = 0; i < 400; i++) {
    const file = `w/${k}-${i}.txt`;
    started++;
    const r = await call(a, 'workspace_write_file', { name: 'race', path: file, content: `${file}\n` });
    if (r.error) return assert.equal(r.error.code, 'not_found', JSON.stringify(r.error));
    written.push(file);
  }
};
const writers = [0, 1, 2, 3].map(writer);
await until('writes to flow', () => written.length >= 8);
assert.ok(!(await call(a, 'workspace_discard', { name: 'race' })).error, 'the discard went through');
await Promise.all(writers);
const back = await ok(a, 'workspace_restore', { name: 'race' });
for (const file of written)
  assert.equal(fs.readFileSync(path.join(back.workspace.path, file), 'utf8'), `${file}\n`, file);
step(`race: ${written.length} of ${started} writes landed before the discard, all in its snapshot`);
await ok(a, 'workspace_discard', { name: 'race' });
await a.client.close();

// ---- a server with --allow-accept ----------------------------------------------------------
step('accept, with --allow-accept');
const b = await connect(['--allow-accept']);
assert.ok(b.tools.some((t) => t.name === 'workspace_accept'));
assert.equal(b.tools.find((t) => t.name === 'workspace_accept').annotations.destructiveHint, true);
const dry = await ok(b, 'workspace_accept', { name: 'task', dry_run: true });
assert.equal(dry.dry_run, true);
assert.ok(!fs.existsSync(path.join(repo, 'src/new.txt')));
const accepted = await ok(b, 'workspace_accept', { name: 'task', strategy: 'merge', message: 'land it' });
assert.equal(accepted.strategy, 'merge');
assert.equal(fs.readFileSync(path.join(repo, 'src/new.txt'), 'utf8'), 'one\nTWO\n');
await b.client.close();
step('done');
