/**
 * The price data, extracted from the installed `@pydantic/genai-prices` (genaiPrices.ts).
 * Run from source (tests, scripts) this reads the package; every esbuild bundle gets the
 * extract as a JSON string instead (esbuild.mjs replaces this module), so the bundles never
 * load the package and a dependency bump is all an update of prices takes.
 */
import { readFileSync } from 'node:fs';
import { waitForUpdate } from '@pydantic/genai-prices';
import { extractPriceData, type PriceData, type SourceProvider } from './genaiPrices.ts';

const packageJson = new URL('../package.json', import.meta.resolve('@pydantic/genai-prices'));
const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };

// The package's bundled data: nothing here ever asks it to fetch newer prices.
const data: PriceData = extractPriceData(
  ((await waitForUpdate()) ?? []) as unknown as SourceProvider[],
  version,
);

/** The extract (in a bundle: parsed from JSON on the first call, not when the bundle loads). */
export function priceData(): PriceData {
  return data;
}
