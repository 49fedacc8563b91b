import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

import ts from 'typescript';

/**
 * Issue 41: no import circle crosses a folder of server/src. The graph is the TypeScript
 * compiler's own reading of each file's imports (preProcessFile); `import type` is left out, since
 * it is erased and orders nothing at run time. Tarjan's algorithm finds every strongly connected
 * set of files; any that spans two folders fails, listed by file.
 */
const ROOT = resolve(__dirname, '../../server/src');

function sourceFiles(folder: string): string[] {
	return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
		const path = join(folder, entry.name);
		return entry.isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
	});
}

function runtimeImports(file: string): string[] {
	const text = readFileSync(file, 'utf8');
	const typeOnly = new Set([...text.matchAll(/^import\s+type\s[^;]*?from\s+'([^']+)'/gms)].map((m) => m[1]));
	return ts
		.preProcessFile(text, true, true)
		.importedFiles.map((i) => i.fileName)
		.filter((name) => name.startsWith('.') && !typeOnly.has(name))
		.map((name) => resolve(dirname(file), name))
		.flatMap((target) => [`${target}.ts`, join(target, 'index.ts')].filter((candidate) => existsSync(candidate)).slice(0, 1));
}

function circles(graph: Map<string, string[]>): string[][] {
	let next = 0;
	const order = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const found: string[][] = [];
	const visit = (file: string) => {
		order.set(file, next);
		low.set(file, next++);
		stack.push(file);
		for (const to of graph.get(file) ?? []) {
			if (!order.has(to)) {
				visit(to);
				low.set(file, Math.min(low.get(file)!, low.get(to)!));
			} else if (stack.includes(to)) low.set(file, Math.min(low.get(file)!, order.get(to)!));
		}
		if (low.get(file) !== order.get(file)) return;
		const group: string[] = [];
		for (let top = stack.pop()!; ; top = stack.pop()!) {
			group.push(top);
			if (top === file) break;
		}
		if (group.length > 1) found.push(group);
	};
	for (const file of graph.keys()) if (!order.has(file)) visit(file);
	return found;
}

test('no import circle of server/src crosses a folder', () => {
	const files = sourceFiles(ROOT);
	expect(files.length).toBeGreaterThan(100);
	const graph = new Map(files.map((file) => [file, runtimeImports(file)]));
	// The reading works: db/index.ts imports the models at run time.
	expect(graph.get(join(ROOT, 'db/index.ts'))).toContain(join(ROOT, 'db/models.ts'));
	const crossing = circles(graph)
		.filter((group) => new Set(group.map((file) => dirname(file))).size > 1)
		.map((group) => group.map((file) => relative(ROOT, file)).sort());
	expect(crossing).toEqual([]);
});
