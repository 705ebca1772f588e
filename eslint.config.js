// Lint: type-aware rules that catch what corrupts a journal (a dropped promise) and little else.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', '.output/', '.wxt/', 'dist/', 'test-results/', 'playwright-report/', 'bin/'] },
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
);
