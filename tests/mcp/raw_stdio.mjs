// `berth mcp` spoken to line by line, no SDK: the stateless 2026-07-28 revision (server/discover
// and requests carrying their version in _meta, answered with resultType), malformed input of
// every kind (each answered with the code JSON-RPC names, and the server answers a ping after
// each), a run cancelled by notifications/cancelled (its process tree gone, its result saying
// so), and the end of stdin stopping a run still going and ending the server.
//
//   node raw_stdio.mjs BERTH_BIN REPO     (run by t_raw_stdio.sh)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';

const [berth, repo] = process.argv.slice(2);
const server = spawn(berth, ['mcp', '-C', repo], { stdio: ['pipe', 'pipe', 'inherit'] });
const waiting = new Map(); // id -> resolve
const notifications = [];
const unmatched = [];
readline.createInterface({ input: server.stdout }).on('line', (line) => {
  const message = JSON.parse(line); // every stdout line is one JSON-RPC message
  assert.equal(message.jsonrpc, '2.0');
  if (message.method) {
    notifications.push(message);
    return;
  }
  const key = JSON.stringify(message.id);
  // The refusal of a second request with an id in flight answers that second request.
  if (message.error && /already in use/.test(message.error.message)) {
    unmatched.push(message);
    return;
  }
  if (waiting.has(key)) {
    waiting.get(key)(message);
    waiting.delete(key);
  } else {
    unmatched.push(message);
  }
});
const exited = new Promise((resolve) => server.on('exit', (code, signal) => resolve({ code, signal })));

function send(text) {
  server.stdin.write(text + '\n');
}
function request(id, method, params) {
  const reply = new Promise((resolve) => waiting.set(JSON.stringify(id), resolve));
  send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }));
  return reply;
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
// Gone, or a zombie its new parent has not reaped yet (it runs nothing any more).
function gone(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].startsWith('Z');
  } catch {
    return true;
  }
}
async function until(what, predicate, ms = 5000) {
  const end = Date.now() + ms;
  while (!predicate()) {
    assert.ok(Date.now() < end, `timed out waiting for ${what}`);
    await sleep(25);
  }
}
async function nextUnmatched() {
  for (let i = 0; i < 200 && unmatched.length === 0; ++i) await sleep(25);
  assert.ok(unmatched.length > 0, 'an answer with a null id arrived');
  return unmatched.shift();
}
let pings = 1000;
// Send, then take the next answer no request waits for (its id is another's).
async function nextUnmatchedAfter(sendIt) {
  unmatched.length = 0;
  sendIt();
  return nextUnmatched();
}
async function stillServing() {
  const id = ++pings;
  const reply = await request(id, 'ping');
  assert.deepEqual(reply.result, {}, 'the server still answers');
}
const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
};
function step(what) {
  process.stderr.write(`raw_stdio: ${what}\n`);
}

step('server/discover, stateless requests');
const discover = await request('d1', 'server/discover', { _meta: meta });
assert.equal(discover.result.resultType, 'complete');
assert.ok(discover.result.supportedVersions.includes('2026-07-28'));
assert.ok(discover.result.supportedVersions.includes('2025-11-25'));
assert.ok(discover.result.capabilities.tools);
assert.equal(discover.result.serverInfo.name, 'berth');
const tools = await request(2, 'tools/list', { _meta: meta });
assert.equal(tools.result.resultType, 'complete');
assert.ok(tools.result.tools.some((t) => t.name === 'workspace_create'));
const created = await request(3, 'tools/call',
  { _meta: meta, name: 'workspace_create', arguments: { name: 'raw' } });
assert.equal(created.result.resultType, 'complete');
assert.equal(created.result.isError, false);
const ws = created.result.structuredContent.path;
const unsupported = await request(4, 'tools/list',
  { _meta: { ...meta, 'io.modelcontextprotocol/protocolVersion': '1999-01-01' } });
assert.equal(unsupported.error.code, -32602);
assert.ok(unsupported.error.data.supported.includes('2026-07-28'));

step('the initialize lifecycle: the client\'s version echoed, else the newest');
for (const [asked, got] of [['2025-03-26', '2025-03-26'], ['2025-06-18', '2025-06-18'],
  ['2025-11-25', '2025-11-25'], ['2024-11-05', '2025-11-25']]) {
  const init = await request(`i${asked}`, 'initialize',
    { protocolVersion: asked, capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
  assert.equal(init.result.protocolVersion, got);
  assert.ok(!('resultType' in init.result));
}
send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));

step('malformed input');
send('{"jsonrpc": "2.0", "id": 5, "method": ');
let bad = await nextUnmatched();
assert.equal(bad.error.code, -32700);
assert.equal(bad.id, null);
await stillServing();
send('[{"jsonrpc":"2.0","id":6,"method":"ping"}]');
bad = await nextUnmatched();
assert.equal(bad.error.code, -32600, 'a batch is refused');
await stillServing();
send('{"id":7,"method":"ping"}');
bad = await nextUnmatched();
assert.equal(bad.error.code, -32600, 'no jsonrpc member');
await stillServing();
assert.equal((await request(8, 'no/such/method')).error.code, -32601);
await stillServing();
assert.equal((await request(9, 'tools/call', {})).error.code, -32602, 'no tool name');
assert.equal((await request(10, 'tools/call', { name: 'no_such_tool' })).error.code, -32602);
assert.equal((await request(11, 'resources/read', {})).error.code, -32602, 'no uri');
send('{"jsonrpc":"2.0","id":12,"method":"tools/list","params":[1,2]}');
assert.equal((await new Promise((resolve) => waiting.set('12', resolve))).error.code, -32602);
await stillServing();
const wrongType = await request(13, 'tools/call', { name: 'workspace_status', arguments: { name: 5 } });
assert.equal(wrongType.result.isError, true, 'a wrong argument is a tool error the model can read');
assert.equal(JSON.parse(wrongType.result.content[0].text).error.code, 'usage');
send('x'.repeat(9 * 1024 * 1024)); // beyond the 8 MiB line limit
bad = await nextUnmatched();
assert.equal(bad.error.code, -32600);
assert.match(bad.error.message, /larger than/);
await stillServing();
send('');
send('   ');
await stillServing();
assert.equal(unmatched.length, 0, 'blank lines get no answer');

step('paged reads never split a UTF-8 character; bad run arguments are usage errors');
const text = 'é中😀x'.repeat(4000); // 2-, 3- and 4-byte characters
fs.writeFileSync(path.join(ws, 'utf8.txt'), text);
let pages = [];
for (let offset = 0, id = 40; ; ++id) {
  const page = (await request(id, 'tools/call', { name: 'workspace_read_file',
    arguments: { name: 'raw', path: 'utf8.txt', offset, limit: 1001 } })).result.structuredContent;
  assert.ok(!page.content.includes('\uFFFD'), `page at ${offset} has no broken character`);
  pages.push(page.content);
  if (!page.truncated) break;
  assert.ok(page.next_offset > offset, 'each page moves on');
  offset = page.next_offset;
}
assert.equal(pages.join(''), text, 'the pages put together are the file');
fs.rmSync(path.join(ws, 'utf8.txt'));
const usageOf = async (id, args) => {
  const r = await request(id, 'tools/call', { name: 'workspace_run', arguments: { name: 'raw', ...args } });
  assert.equal(r.result.isError, true, JSON.stringify(args));
  return JSON.parse(r.result.content[0].text).error.code;
};
assert.equal(await usageOf(80, { command: [] }), 'usage', 'an empty command');
assert.equal(await usageOf(81, { command: ['true'], timeout_s: 1e18 }), 'usage', 'a huge timeout');
const zero = await request(82, 'tools/call', { name: 'workspace_read_file',
  arguments: { name: 'raw', path: 'README.md', limit: 0 } });
assert.equal(zero.result.isError, true, 'limit 0 would never move on');
for (const [id, p] of [[83, './.git/HEAD'], [84, 'a/../.git/config'], [85, 'sub/.git']]) {
  const r = await request(id, 'tools/call', { name: 'workspace_read_file', arguments: { name: 'raw', path: p } });
  assert.equal(JSON.parse(r.result.content[0].text).error.code, 'escape_refused', p);
}

step('resources/read: the template\'s {name} percent-decoded; a bad name is invalid params');
const slashed = await request(90, 'tools/call', { name: 'workspace_create', arguments: { name: 'ns/w' } });
assert.equal(slashed.result.isError, false);
const diffOf = await request(91, 'resources/read', { uri: 'berth://workspace/ns%2Fw/diff' });
assert.equal(diffOf.result.contents[0].uri, 'berth://workspace/ns%2Fw/diff');
assert.equal((await request(92, 'resources/read', { uri: 'berth://workspace/..%2Fx/diff' })).error.code, -32602);
assert.equal((await request(93, 'resources/read', { uri: 'berth://workspace/-bad/diff' })).error.code, -32602);
assert.equal((await request(94, 'resources/read', { uri: 'berth://workspace/nope/diff' })).error.code, -32002);

step('notifications/cancelled stops a run\'s process tree; the result says so');
const run = request(20, 'tools/call', {
  name: 'workspace_run',
  arguments: { name: 'raw', command: ['sh', '-c', 'sleep 60 & echo $! > child.pid; wait'] },
  _meta: { progressToken: 'p20' },
});
const pidFile = path.join(ws, 'child.pid');
for (let i = 0; i < 200 && !(fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim()); ++i)
  await sleep(25);
const child = Number(fs.readFileSync(pidFile, 'utf8'));
assert.ok(!gone(child));
await stillServing(); // a long run does not block other requests
const reused = await nextUnmatchedAfter(() => send(JSON.stringify({ jsonrpc: '2.0', id: 20, method: 'ping' })));
assert.equal(reused.error.code, -32600, 'an id in flight is not answered twice');
send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled',
  params: { requestId: 20, reason: 'test' } }));
const cancelled = await run;
assert.equal(cancelled.result.structuredContent.cancelled, true);
assert.equal(cancelled.result.structuredContent.exit_status, 130);
await until('the sleep the command started to be gone', () => gone(child));
fs.rmSync(pidFile);

step('end of stdin: a run still going is stopped, the server exits');
const last = request(30, 'tools/call', {
  name: 'workspace_run',
  arguments: { name: 'raw', command: ['sh', '-c', 'sleep 60 & echo $! > last.pid; wait'] },
});
last.catch(() => {});
const lastPid = path.join(ws, 'last.pid');
for (let i = 0; i < 200 && !(fs.existsSync(lastPid) && fs.readFileSync(lastPid, 'utf8').trim()); ++i)
  await sleep(25);
const straggler = Number(fs.readFileSync(lastPid, 'utf8'));
server.stdin.end();
// (The timer is cleared once the server has exited: a pending one keeps node from ending, its
// whole 8 s.)
let stillRunning;
const end = await Promise.race([
  exited,
  new Promise((resolve) => { stillRunning = setTimeout(() => resolve('still running'), 8000); }),
]);
clearTimeout(stillRunning);
assert.deepEqual(end, { code: 0, signal: null });
await until('no child left behind', () => gone(straggler), 1000);
step('done');
