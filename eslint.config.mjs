import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.data/**', 'coverage/**', '*.js', '*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': ['error', { allow: ['error'] }],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/apps/*', '../../apps/*'],
              message: 'Apps never import apps; libs never import apps.',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests and benchmarks boot the apps they exercise; only apps and libs keep the import rule.
    files: ['scripts/**/*.ts', 'bench/**/*.ts', 'test/**/*.ts'],
    rules: { 'no-console': 'off', 'no-restricted-imports': 'off' },
  },
  {
    // Plain Node scripts that must run before anything is built (npm lifecycle helpers).
    files: ['scripts/**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        console: 'readonly',
        process: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off', 'no-console': 'off' },
  },
);
