import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

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
    // The domain layer is plain TypeScript: no vscode, so it stays unit-testable in Node.
    files: ['src/domain/**', 'src/shared/**', 'src/sources/**', 'src/store/**', 'src/demo/**'],
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
