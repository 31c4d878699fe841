import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * The floors of the code, top to bottom (README "Architecture"). A floor may import itself
 * and the floors below it; src/util is a base every src floor but shared may use; src/demo
 * (the reference backend, a bundle of its own) may use domain, shared and util, and no floor
 * imports it. Anything else under src/, webview-ui/, test/ or scripts/ is an upward (or
 * sideways) import and fails `npm run lint`; a new folder under src/ is importable by no
 * floor until it is added here.
 */
const STACK = [
  'extension.ts', // the composition root: builds everything, hands callbacks down
  'webview', // the webview host; it may use commands and views
  'commands', // may use views
  'views', // tree, status bar, notifications; given openers, never the host
  'background', // long-running work in the host: file watching, live local sessions, the embedded demo backend
  'store',
  'config', // settings and SecretStorage; sources get tokens and settings as functions
  'sources',
  'domain',
  'shared', // what both sides of postMessage use: the webview app imports only this
];
export const FLOORS = [
  ...STACK.map((name, i) => ({
    name,
    imports: [...STACK.slice(i + 1), ...(name === 'shared' ? [] : ['util'])],
  })),
  { name: 'util', imports: [] },
  { name: 'demo', imports: ['domain', 'shared', 'util'] },
];
const floorGlob = (name) => (name === 'extension.ts' ? 'src/*.ts' : `src/${name}/**`);
// The rule resolves `target` and `from` against basePath but matches `except` as written.
const absolute = (glob) => `${import.meta.dirname}/${glob}`;
const EVERYWHERE = ['src/**', 'webview-ui/**', 'test/**', 'scripts/**'];
const layerZones = [
  ...FLOORS.map((floor) => ({
    target: floorGlob(floor.name),
    from: EVERYWHERE,
    except: [floor.name, ...floor.imports].map((name) => absolute(floorGlob(name))),
    message: `src/${floor.name} may import ${[floor.name, ...floor.imports].map((name) => `src/${name}`).join(', ')} and npm packages, nothing above it (FLOORS in eslint.config.mjs).`,
  })),
  {
    target: 'webview-ui/**',
    from: ['src/**', 'test/**', 'scripts/**'],
    except: [absolute('src/shared/**')],
    message: 'webview-ui may import only src/shared (and its own files and npm packages).',
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', 'test-results/**', '.vscode-test/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
      eqeqeq: ['error', 'always'],
    },
  },
  {
    // Layers: every relative import must resolve (an unresolved one would slip past
    // no-restricted-paths), and no import may climb a floor.
    files: ['src/**/*.ts', 'webview-ui/src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js'] })] },
    rules: {
      'import-x/no-unresolved': ['error', { ignore: ['^[^.]'], commonjs: true }],
      'import-x/no-restricted-paths': [
        'error',
        { basePath: import.meta.dirname, zones: layerZones },
      ],
    },
  },
  {
    // The domain layer is plain TypeScript: no vscode, so it stays unit-testable in Node.
    files: [
      'src/domain/**',
      'src/shared/**',
      'src/util/**',
      'src/sources/**',
      'src/store/**',
      'src/demo/**',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'vscode', message: 'Keep vscode out of this layer.' }] },
      ],
    },
  },
  {
    // VS Code renders `[x](command:…)` in a notification as a link that runs the command:
    // every notification and modal goes through src/views/safeMessage.ts (the sanitiser).
    files: ['src/**/*.ts'],
    ignores: ['src/views/safeMessage.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        ...['showInformationMessage', 'showWarningMessage', 'showErrorMessage'].map((property) => ({
          property,
          message: 'Use showInformation/showWarning/showError from src/views/safeMessage.ts.',
        })),
      ],
    },
  },
  {
    files: ['webview-ui/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
  prettier,
);
