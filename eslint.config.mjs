// n8n's strict, cloud-eligible lint for community nodes, as `n8n-node lint` runs it
// (@n8n/node-cli 0.48.3, dist/configs/eslint.js, `config` = createConfig(supportCloud = true)).
// The CLI itself does not install on Node 20, so its configuration is reproduced here with the
// same plugins; keep it in step when upgrading @n8n/eslint-plugin-community-nodes.
import js from '@eslint/js';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import { globalIgnores } from 'eslint/config';
import importPlugin from 'eslint-plugin-import-x';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import tseslint from 'typescript-eslint';

const communityNodesRecommended = n8nCommunityNodesPlugin.configs.recommended;

export default tseslint.config(
	// The package's own sources only: the server workspace, the tests and the build helpers are
	// not part of what n8n loads, and have their own rules.
	globalIgnores(['dist', 'server', 'test', 'scripts', 'bench', 'coverage', 'artifacts', '.n8n-package', '**/*.js', '**/*.mjs']),
	{
		files: ['**/*.ts'],
		extends: [
			js.configs.recommended,
			tseslint.configs.recommended,
			communityNodesRecommended,
			importPlugin.flatConfigs.recommended,
		],
		rules: {
			'prefer-spread': 'off',
			'no-console': 'error',
		},
	},
	{
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		settings: {
			'import-x/resolver': { typescript: true, node: true },
		},
	},
	{
		files: ['package.json'],
		extends: [communityNodesRecommended],
		rules: {
			...n8nNodesBase.configs.community.rules,
		},
		languageOptions: {
			parser: tseslint.parser,
			parserOptions: {
				extraFileExtensions: ['.json'],
			},
		},
	},
	{
		files: ['./credentials/**/*.ts'],
		rules: {
			...n8nNodesBase.configs.credentials.rules,
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
			'n8n-nodes-base/cred-class-field-type-options-password-missing': 'off',
		},
	},
	{
		files: ['./nodes/**/*.ts'],
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
			'n8n-nodes-base/node-param-type-options-max-value-present': 'off',
		},
	},
);
