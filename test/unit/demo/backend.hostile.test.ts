import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { HUGE_PAYLOAD_LENGTH, hostilePayloads } from '../../../src/demo/data/hostilePayloads.ts';
import type { ReferenceBackend } from '../../../src/demo/server.ts';
import {
  callTool,
  connectMcp,
  readJson,
  restFetch,
  startTestBackend,
  type LooseJson,
} from '../../support/backend.ts';

const CANARY = 'http://127.0.0.1:4444';

let backend: ReferenceBackend;
let closedloop: Client;
let itential: Client;
let payloads: ReadonlySet<string>;

async function listAll(client: Client): Promise<LooseJson[]> {
  const rows: LooseJson[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await callTool(client, 'list-agent-sessions', {
      limit: 100,
      offset,
      quality: 'all',
    });
    assert.equal(page.isError, false, page.text.slice(0, 200));
    rows.push(...page.json.items);
    if (offset + 100 >= page.json.total) return rows;
  }
}

/** Every string in a JSON value. */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value && typeof value === 'object')
    for (const v of Object.values(value)) strings(v, out);
  return out;
}

/** A string is a payload, or an original text followed by one on its own line. */
function carriesPayload(text: string): boolean {
  if (payloads.has(text)) return true;
  const cut = text.indexOf('\n');
  for (let i = cut; i >= 0; i = text.indexOf('\n', i + 1)) {
    if (payloads.has(text.slice(i + 1))) return true;
  }
  return false;
}

before(async () => {
  backend = await startTestBackend({ hostile: true, canaryUrl: CANARY });
  closedloop = await connectMcp(backend, { url: backend.mcpUrls.closedloop });
  itential = await connectMcp(backend, { url: backend.mcpUrls.itential });
  payloads = new Set(backend.hostile!.payloads);
});
after(async () => {
  await closedloop.close();
  await itential.close();
  await backend.close();
});

describe('the hostile corpus', () => {
  it('holds at least 200 distinct payloads of every kind, one of them 1 MB', () => {
    const list = backend.hostile!.payloads;
    assert.ok(new Set(list).size >= 200, `${new Set(list).size} distinct payloads`);
    assert.equal(list[0]!.length, HUGE_PAYLOAD_LENGTH);
    const kinds: [string, RegExp][] = [
      ['img onerror', /<img src=x onerror=/i],
      ['svg onload', /<svg onload=/],
      ['MathML mutation', /<math><mtext><table><mglyph><style><img/],
      ['javascript: URL', /^javascript:/],
      ['data: URL', /^data:text\/html/],
      ['vbscript: URL', /^vbscript:/],
      ['Markdown link', /^\[docs\]\(http/],
      ['Markdown image', /^!\[chart\]\(http/],
      ['command link', /\]\(command:workbench\.action\.terminal\.sendSequence\?/],
      ['autolink', /^<https:\/\//],
      ['codicon', /^\$\(alert\)$/],
      ['bidi override', /\u202E/],
      ['zero-width', /\u200B/],
      ['lone surrogate', /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/],
      ['template', /^\$\{alert\(1\)\}$/],
      ['CSS expression', /expression\(/],
      ['</script>', /^<\/script>$/],
    ];
    for (const [kind, pattern] of kinds) {
      assert.ok(
        list.some((p) => pattern.test(p)),
        `no ${kind} payload`,
      );
    }
    // URLs point at the canary, each with its own index.
    const canary = list.filter((p) => p.includes(`${CANARY}/leak?p=`));
    assert.ok(canary.length >= 40, `${canary.length} canary payloads`);
    for (const p of canary) {
      const index = Number(/leak\?p=(\d+)/.exec(p)?.[1]);
      assert.equal(list[index], p, 'a canary URL names its own payload');
    }
  });

  it('is the same for the same canary, and the 1 MB string is one shared object', () => {
    const a = hostilePayloads(CANARY);
    assert.deepEqual(a, backend.hostile!.payloads);
    assert.ok(Object.is(a[0], backend.hostile!.payloads[0]));
  });
});

describe('hostile data mode', () => {
  it('puts a payload in every text field of every reporting row', async () => {
    const rows = await listAll(closedloop);
    assert.equal(rows.length, 240);
    for (const row of rows) {
      for (const field of [
        'name',
        'slug',
        'harness',
        'model',
        'repositoryFullName',
        'baseBranch',
      ]) {
        assert.ok(
          payloads.has(row[field]),
          `${field} of ${row.id}: ${String(row[field]).slice(0, 60)}`,
        );
      }
      assert.ok(payloads.has(row.user.email) || row.user.email === '', `user e-mail of ${row.id}`);
      // ids stay what clients page and look up by
      assert.match(row.id, /^[0-9a-f-]{36}$/);
    }
    const distinctNames = new Set(rows.map((r) => r.name));
    assert.ok(distinctNames.size >= 200, `${distinctNames.size} distinct names`);
    const huge = rows.filter((r) => r.name.length === HUGE_PAYLOAD_LENGTH);
    assert.ok(huge.length <= 1);
    if (backend.hostile!.fixtures.hugeName)
      assert.equal(huge[0]?.id, backend.hostile!.fixtures.hugeName);
  });

  it('usage and analytics dimensions are payloads', async () => {
    const usage = (await callTool(closedloop, 'get-agent-session-usage', { quality: 'all' })).json;
    for (const key of ['byModel', 'byHarness', 'byRepository'] as const) {
      for (const group of usage[key]) {
        const name = group.model ?? group.harness ?? group.repositoryFullName;
        assert.ok(payloads.has(name), `${key}: ${String(name).slice(0, 60)}`);
      }
    }
    assert.ok(usage.byUser.every((u: LooseJson) => payloads.has(u.name) || payloads.has(u.email)));
    const analytics = (await callTool(closedloop, 'get-agent-session-analytics', {})).json;
    assert.ok(analytics.byTool.length > 5);
    for (const t of analytics.byTool) assert.ok(payloads.has(t.toolName), t.toolName);
    for (const t of analytics.byAgentType)
      assert.ok(t.agentType === 'main' || payloads.has(t.agentType), t.agentType);
    for (const p of analytics.byProject) assert.ok(payloads.has(p.project));
  });

  it('transcripts carry payloads in prompts, replies, thinking, tool input and output and paths', async () => {
    const rows = await listAll(closedloop);
    const keysSeen = new Set<string>();
    let files = 0;
    let failures = 0;
    let huge = 0;
    for (const row of rows
      .slice(0, 60)
      .concat(rows.filter((r) => r.id === backend.hostile!.fixtures.hugeTranscript))) {
      const listing = await callTool(closedloop, 'get-agent-session-transcript', {
        sessionId: row.id,
      });
      if (listing.isError) {
        // A detail request that fails says a payload as its message.
        assert.ok(payloads.has((listing.structured as LooseJson).error.message));
        failures++;
        continue;
      }
      for (const file of listing.json.files) {
        if (!file.url) continue;
        const text = await (await fetch(file.url)).text();
        files++;
        if (text.includes(backend.hostile!.payloads[0]!)) huge++;
        for (const line of text.split('\n')) {
          let parsed: unknown;
          try {
            parsed = JSON.parse(line);
          } catch {
            continue; // pretty-printed and cut lines (quirks) stay as generated
          }
          const walk = (value: unknown, key: string): void => {
            if (typeof value === 'string') {
              if (carriesPayload(value)) keysSeen.add(key);
            } else if (Array.isArray(value)) value.forEach((v) => walk(v, key));
            else if (value && typeof value === 'object')
              for (const [k, v] of Object.entries(value)) walk(v, k);
          };
          walk(parsed, '');
        }
      }
    }
    assert.ok(files > 20, `${files} files`);
    assert.ok(failures > 0, 'some transcript listings fail with a payload');
    assert.equal(huge, 1, 'the 1 MB payload is in exactly one transcript');
    for (const key of [
      'text',
      'thinking',
      'content',
      'command',
      'file_path',
      'stdout',
      'message',
      'cwd',
    ]) {
      assert.ok(keysSeen.has(key), `no payload under "${key}" (saw ${[...keysSeen].join(', ')})`);
    }
  });

  it('comments: bodies, replies, authors and anchors', async () => {
    const rows = await listAll(closedloop);
    const seen = { body: 0, reply: 0, author: 0, anchor: 0, failed: 0 };
    for (const row of rows) {
      const result = await callTool(closedloop, 'list-session-comments', {
        sessionId: row.id,
        limit: 100,
      });
      if (result.isError) {
        assert.ok(payloads.has((result.structured as LooseJson).error.message));
        seen.failed++;
        continue;
      }
      for (const c of result.json.items) {
        assert.ok(payloads.has(c.body), c.body.slice(0, 60));
        seen.body++;
        // A display name is "first last" (two payloads) or the e-mail (one).
        if (
          [...payloads].some((p) => p && (c.authorName === p || c.authorName.startsWith(`${p} `)))
        )
          seen.author++;
        if (strings(c.anchor.sourceText).some((s) => carriesPayload(s) || s.length > 0))
          seen.anchor++;
        for (const r of c.replies) {
          assert.ok(payloads.has(r.body));
          seen.reply++;
        }
      }
    }
    assert.ok(
      seen.body > 50 && seen.reply > 10 && seen.author > 20 && seen.failed > 5,
      JSON.stringify(seen),
    );
  });

  it('instructions, platform sessions, manual tasks and agents-API events', async () => {
    const rows = await listAll(closedloop);
    let instructions = 0;
    for (const row of rows.filter((r) => r.endedAt === null)) {
      const list = await callTool(closedloop, 'list-pending-instructions', { sessionId: row.id });
      for (const i of list.json.items) {
        assert.ok(payloads.has(i.text));
        instructions++;
      }
    }
    assert.ok(instructions > 20, `${instructions} instructions`);

    const sessions = (await callTool(itential, 'get_sessions', {})).json as LooseJson[];
    assert.ok(sessions.every((s) => payloads.has(s.agent_name)));
    let reasoning = 0;
    let tasks = 0;
    let failed = 0;
    for (const s of sessions) {
      const described = await callTool(itential, 'describe_session', { session_id: s.session_id });
      if (described.isError) {
        failed++;
        continue;
      }
      for (const e of described.json.reasoning_events) {
        assert.ok(payloads.has(e.text));
        reasoning++;
      }
      for (const t of described.json.pending_manual_tasks ?? []) {
        assert.ok(payloads.has(t.title));
        const task = await callTool(itential, 'describe_manual_task', {
          work_item_id: t.work_item_id,
        });
        if (task.isError) continue;
        for (const field of ['header', 'message', 'body', 'btn_success'])
          assert.ok(payloads.has(task.json[field]), field);
        assert.ok(Object.keys(task.json.variables).some((k) => payloads.has(k)));
        tasks++;
      }
    }
    assert.ok(
      reasoning > 20 && tasks >= 2 && failed > 0,
      JSON.stringify({ reasoning, tasks, failed }),
    );

    const agents = await readJson(await restFetch(backend, '/agents?limit=100'));
    for (const agent of agents.agents) assert.ok(payloads.has(agent.name));
    const list = await readJson(
      await restFetch(backend, '/agents/customer_support/sessions?limit=100'),
    );
    let events = 0;
    let eventFailures = 0;
    for (const session of list.sessions) {
      assert.ok(payloads.has(session.name));
      const response = await restFetch(
        backend,
        `/agents/customer_support/sessions/${session.key}/events?include_hidden=true&limit=100`,
      );
      const body = await readJson(response);
      if (response.status === 500) {
        assert.ok(payloads.has(body.messages[0]));
        eventFailures++;
        continue;
      }
      for (const event of body.events) {
        // Every text but ids, times and types (which clients pair and order by).
        const keep = new Set([
          'id',
          'session_key',
          'created_at',
          'type',
          'tool_call_id',
          'artifact_key',
          'mime_type',
        ]);
        const texts: string[] = [];
        const walk = (value: unknown, key: string): void => {
          if (typeof value === 'string' && !keep.has(key)) texts.push(value);
          else if (Array.isArray(value)) value.forEach((v) => walk(v, key));
          else if (value && typeof value === 'object')
            for (const [k, v] of Object.entries(value)) walk(v, k);
        };
        walk(event, '');
        assert.ok(
          texts.every((t) => payloads.has(t)),
          JSON.stringify(event).slice(0, 200),
        );
        events++;
      }
    }
    assert.ok(events > 50 && eventFailures > 0, JSON.stringify({ events, eventFailures }));
  });

  it('the same seed places the same payloads (tests can know what to expect)', async () => {
    const again = await startTestBackend({ hostile: true, canaryUrl: CANARY });
    const client = await connectMcp(again, { url: again.mcpUrls.closedloop });
    try {
      assert.deepEqual(await listAll(client), await listAll(closedloop));
      const id = backend.hostile!.fixtures.hugeTranscript;
      assert.equal(again.hostile!.fixtures.hugeTranscript, id);
    } finally {
      await client.close();
      await again.close();
    }
  });

  it('the default data set carries none of it', async () => {
    const plain = await startTestBackend();
    const client = await connectMcp(plain, { url: plain.mcpUrls.closedloop });
    try {
      assert.equal(plain.hostile, undefined);
      const rows = await listAll(client);
      assert.equal(rows.filter((r) => payloads.has(r.name) || /[<$[]/.test(r.name)).length, 0);
    } finally {
      await client.close();
      await plain.close();
    }
  });
});
