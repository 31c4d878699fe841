// Entry for `npm test -- integration`: the extension tests in a real VS Code.
import { runIntegrationTests } from './runTests.ts';

process.exit(await runIntegrationTests({}));
