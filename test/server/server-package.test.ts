/**
 * Someone who only wants the server installs it alone: `npm ci -w server && npm run start:server`
 * (README, "Only the server"). That install holds what server/package.json declares and nothing of
 * the root's n8n test toolchain, so everything the server imports at run time, and everything its
 * build needs, must be declared there.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';

const serverDir = join(__dirname, '..', '..', 'server');
const manifest = JSON.parse(readFileSync(join(serverDir, 'package.json'), 'utf8')) as {
	scripts: Record<string, string>;
	dependencies: Record<string, string>;
	devDependencies: Record<string, string>;
};
const rootScripts = (
	JSON.parse(readFileSync(join(serverDir, '..', 'package.json'), 'utf8')) as { scripts: Record<string, string> }
).scripts;

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
		entry.isDirectory()
			? sourceFiles(join(dir, entry.name))
			: entry.name.endsWith('.ts')
				? [join(dir, entry.name)]
				: [],
	);
}

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
function packageOf(specifier: string): string {
	const parts = specifier.split('/');
	return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function importedPackages(): Map<string, { typeOnly: boolean }> {
	const found = new Map<string, { typeOnly: boolean }>();
	const statement = /^(import|export)\s+(type\s+)?[^;]*?from\s+'([^'.][^']*)'|require\('([^'.][^']*)'\)/gm;
	for (const file of sourceFiles(join(serverDir, 'src'))) {
		for (const match of readFileSync(file, 'utf8').matchAll(statement)) {
			const specifier = match[3] ?? match[4];
			if (specifier.startsWith('node:') || builtinModules.includes(specifier)) continue;
			const name = packageOf(specifier);
			const typeOnly = Boolean(match[2]) && (found.get(name)?.typeOnly ?? true);
			found.set(name, { typeOnly });
		}
	}
	return found;
}

describe('server/package.json is enough to install, build and start the server alone', () => {
	const imported = importedPackages();

	it('finds the imports it checks', () => {
		expect(imported.has('express')).toBe(true);
		expect(imported.has('sequelize')).toBe(true);
	});

	it('declares every package server/src imports at run time as a dependency', () => {
		const runtime = [...imported].filter(([, how]) => !how.typeOnly).map(([name]) => name);
		const missing = runtime.filter((name) => !(name in manifest.dependencies));
		expect(missing).toEqual([]);
	});

	it('declares what the build needs: the compiler and the Node types', () => {
		expect(Object.keys(manifest.devDependencies)).toEqual(
			expect.arrayContaining(['typescript', '@types/node']),
		);
		expect(manifest.scripts.build).toMatch(/^tsc -p tsconfig\.json/);
		// The root's script runs nothing of the root's own devDependencies, and keeps ./data where
		// `npm start` keeps it.
		expect(rootScripts['start:server']).toBe('npm run build -w server && lms-server start --demo');
	});
});
