// Runs the reference backend from a terminal (`npm run backend -- --port 8787`).
import { parseArgs } from 'node:util';
import { startReferenceBackend } from './server.ts';

/** The token from the environment: a command line is visible to every user in `ps`. */
const TOKEN_ENV = 'REFERENCE_BACKEND_TOKEN';

const USAGE =
  'usage: node src/demo/cli.ts --port <port> [--token <token>] [--seed <n>] [--url-ttl <seconds>] ' +
  '[--large-mb <n>] [--now <iso>] [--monitoring-disabled] [--legacy-itential] ' +
  '[--hostile [--canary-url <url>]]\n' +
  `The token can come from ${TOKEN_ENV} instead (not visible in the process list, as arguments are).`;

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

function integer(value: string | undefined, name: string, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) fail(`--${name} must be an integer >= ${min}`);
  return n;
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        port: { type: 'string' },
        token: { type: 'string' },
        seed: { type: 'string' },
        'url-ttl': { type: 'string' },
        'large-mb': { type: 'string' },
        now: { type: 'string' },
        'monitoring-disabled': { type: 'boolean' },
        'legacy-itential': { type: 'boolean' },
        hostile: { type: 'boolean' },
        'canary-url': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (error) {
    fail((error as Error).message);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const now = values.now === undefined ? undefined : new Date(values.now);
  if (now && Number.isNaN(now.getTime())) fail('--now must be an ISO 8601 timestamp');
  const largeMb = integer(values['large-mb'], 'large-mb', 1);
  const canaryUrl = values['canary-url'];
  if (canaryUrl !== undefined) {
    if (!values.hostile) fail('--canary-url needs --hostile');
    if (!/^https?:\/\/[^/?#]+\/?$/.test(canaryUrl))
      fail('--canary-url must be http(s)://host[:port]');
  }
  const token = values.token ?? (process.env[TOKEN_ENV] || undefined);
  const backend = await startReferenceBackend({
    port: integer(values.port, 'port', 0) ?? 0,
    ...(token === undefined ? {} : { token }),
    ...(values.seed === undefined ? {} : { seed: integer(values.seed, 'seed', 0) }),
    ...(values['url-ttl'] === undefined
      ? {}
      : { urlTtlSeconds: integer(values['url-ttl'], 'url-ttl', 1) }),
    ...(largeMb === undefined ? {} : { largeTranscriptBytes: largeMb * 1024 * 1024 }),
    ...(now ? { now } : {}),
    monitoringEnabled: !values['monitoring-disabled'],
    legacyItentialShape: values['legacy-itential'] === true,
    hostile: values.hostile === true,
    ...(canaryUrl === undefined ? {} : { canaryUrl }),
  });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void backend.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  // Announce only once a signal can stop the server cleanly.
  process.stdout.write(`listening on ${backend.url}\n`);
  if (backend.hostile) {
    process.stdout.write(
      `hostile data: ${backend.hostile.payloads.length} payloads, URLs point at ${backend.hostile.canaryUrl}\n`,
    );
  }
  if (token === undefined) process.stdout.write(`token: ${backend.token}\n`);
}

void main().catch((error: unknown) => {
  process.stderr.write(`reference backend failed to start: ${(error as Error).message}\n`);
  process.exit(1);
});
