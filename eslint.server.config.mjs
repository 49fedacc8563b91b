// Lint for the server workspace (server/src) and the tests (test/). The root eslint.config.mjs is
// n8n's strict community-node lint for nodes/ and credentials/ and ignores both folders; this one
// is type-aware (typescript-eslint's recommendedTypeChecked, with the types of tsconfig.test.json,
// which covers server/src and test/). `npm run lint` runs both.
import js from '@eslint/js';
import { globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default tseslint.config(
	// The settings pages' browser script is plain JavaScript served as it is.
	globalIgnores(['**/dist/**', 'server/src/settings/assets/**']),
	{
		files: ['server/src/**/*.ts', 'test/**/*.ts'],
		extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
		languageOptions: {
			parserOptions: {
				project: './tsconfig.test.json',
				tsconfigRootDir: import.meta.dirname,
			},
		},
		linterOptions: { reportUnusedDisableDirectives: 'error' },
		rules: {
			// `_`-prefixed parameters are the ones a signature requires (Express's error handler).
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
		},
	},
	{
		// Domain code knows nothing of HTTP. In a component folder, routes.ts and the files named
		// after an HTTP operation are its web endpoints; every other file is domain code.
		files: [
			'server/src/{users,courses,enrollments,certificates,api-keys,events,webhooks,idempotency,organizations,sign-in,search,common,db,demo}/**/*.ts',
		],
		ignores: ['**/{routes,get,list,create,update,delete,retry,send-test,rotate}.ts'],
		rules: {
			'no-restricted-imports': [
				'error',
				{
					patterns: [
						{
							group: ['express', '**/http', '**/http/*', '**/common/problem'],
							message:
								'Domain code knows nothing of HTTP: throw RuleError (common/rule-error.ts) and let http/rule-problems.ts answer it.',
						},
					],
				},
			],
		},
	},
	{
		// One way to a write transaction: writeTransaction (db/write-transaction.ts) takes SQLite's
		// writers in turn and joins a write opened inside another; a bare sequelize.transaction
		// inside one hangs on SQLite and commits on its own on PostgreSQL.
		files: ['server/src/**/*.ts', 'test/**/*.ts'],
		ignores: ['server/src/db/**'],
		rules: {
			'no-restricted-syntax': [
				'error',
				{
					selector: "CallExpression[callee.property.name='transaction']",
					message: 'Open write transactions with writeTransaction (server/src/db/write-transaction.ts), the one door on both databases.',
				},
			],
		},
	},
	{
		files: ['test/**/*.ts'],
		rules: {
			// The tests read the API's JSON answers, which are `any` on purpose: the test states
			// what it expects of them with expect(); typing every body would restate the API in
			// types the server does not share. Everything else (floating promises, unbound
			// methods, awaiting non-promises) holds for tests as for the server.
			'@typescript-eslint/no-unsafe-argument': 'off',
			'@typescript-eslint/no-unsafe-assignment': 'off',
			'@typescript-eslint/no-unsafe-call': 'off',
			'@typescript-eslint/no-unsafe-member-access': 'off',
			'@typescript-eslint/no-unsafe-return': 'off',
			// For the same reason n8n's item values (IDataObject: a union of every JSON shape) are
			// stringified where the test knows they hold an id or a date; the assertion checks them.
			'@typescript-eslint/no-base-to-string': 'off',
			'@typescript-eslint/restrict-template-expressions': 'off',
		},
	},
);
