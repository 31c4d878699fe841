/** What the Marketplace and VS Code read from the manifest: the icon, where the extension runs, machine settings. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
  icon?: string;
  extensionKind?: string[];
  contributes: { configuration: { properties: Record<string, { scope?: string }> } };
};

test('the icon is a 128 × 128 PNG that the .vsix ships', () => {
  assert.equal(manifest.icon, 'media/icon.png');
  const png = readFileSync(manifest.icon);
  assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
  assert.equal(png.subarray(12, 16).toString('latin1'), 'IHDR');
  assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128]);
  // The files vsce would package (.vscodeignore applied).
  const files = execFileSync(
    process.execPath,
    ['node_modules/@vscode/vsce/vsce', 'ls', '--no-dependencies'],
    { encoding: 'utf8' },
  ).split('\n');
  for (const file of ['media/icon.png', 'media/panel-light.svg', 'media/panel-dark.svg'])
    assert.ok(files.includes(file), `${file} is packaged`);
});

test('webview tab icons exist for light and dark themes', () => {
  for (const file of ['media/panel-light.svg', 'media/panel-dark.svg'])
    assert.match(readFileSync(file, 'utf8'), /^<svg [^>]*viewBox="0 0 24 24"/, file);
  assert.ok(existsSync('media/session-inspector.svg'));
});

test('it runs where the workspace is, and the transcript folders are machine settings', () => {
  assert.deepEqual(manifest.extensionKind, ['workspace']);
  const props = manifest.contributes.configuration.properties;
  assert.equal(props['sessionInspector.local.claudeConfigDirs']?.scope, 'machine');
  assert.equal(props['sessionInspector.local.codexHome']?.scope, 'machine');
});
