// ESLint flat config: typescript-eslint's recommended rules plus the few this project relies on.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'out-bench/**', 'crew-runs.vsix', 'media/dist/**', '.vscode-test/**', 'node_modules/**', 'test-results/**', 'bench-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      // The extension logs through its LogOutputChannel; console is for the simulator CLI and tests.
      'no-console': 'error',
      eqeqeq: ['error', 'always'],
      // Input validation here looks for control characters on purpose.
      'no-control-regex': 'off',
      curly: 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    // Type-aware: a promise nobody awaits or catches loses its error (and a run) silently.
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    // Notifications go through src/ui/notify.ts, which makes their text inert (no command links from a crew).
    files: ['src/**/*.ts'],
    ignores: ['src/ui/notify.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'MemberExpression[property.name=/^(show(Information|Warning|Error)Message|setStatusBarMessage)$/]',
          message: 'Use showInfo/showWarning/showError/showStatusMessage from src/ui/notify.ts: they make untrusted text inert.',
        },
      ],
    },
  },
  {
    // require() only for the bundles loaded on first use (esbuild.js lazyModules): the transport, the markdown
    // renderer, the simulator, the trace's commands and AI text, the platform sign-in, and the test API (integration tests only).
    // Anything else is an import.
    files: ['src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-require-imports': ['error', { allow: ['/api/transport$', '^\\./transport$', '/page/markdown$', '/simulator/server$', '^\\./testApi$', '^\\./traceViews$', '^\\./traceText$', '^\\./signIn$', '^\\./suiteFeature$'] }],
    },
  },
  // The allowed imports between src/'s folders are checked by dependency-cruiser (.dependency-cruiser.cjs).
  {
    files: ['src/simulator/main.ts', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
    languageOptions: { globals: { require: 'readonly', module: 'writable', process: 'readonly', console: 'readonly', __dirname: 'readonly' } },
  },
);
