import { execFile } from 'node:child_process';
import { join } from 'node:path';

import { openApiDocument } from '../../server/src/openapi/document';

/**
 * What integrators feed to code generators and gateways passes the two linters they run: Redocly's
 * `recommended` ruleset and Spectral's `oas` ruleset, with no error and no warning.
 */

interface Finding {
	tool: 'redocly' | 'spectral';
	rule: string;
	severity: string;
	message: string;
	at: string;
}

function lint(document: unknown): Promise<Finding[]> {
	return new Promise((resolve, reject) => {
		const child = execFile(process.execPath, [join(__dirname, '..', 'helpers', 'openapi-lint.mjs')], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
			if (error) reject(new Error(`the linters failed: ${stderr || error.message}`));
			else resolve(JSON.parse(stdout) as Finding[]);
		});
		child.stdin?.end(JSON.stringify(document));
	});
}

test('the served document passes Redocly recommended and Spectral oas with nothing to report', async () => {
	expect(await lint(openApiDocument())).toEqual([]);
}, 60_000);

test('the linters do report what they are there to catch', async () => {
	const broken = openApiDocument() as Record<string, unknown>;
	delete broken.servers;
	const findings = await lint(broken);
	expect(findings).toEqual(
		expect.arrayContaining([
			expect.objectContaining({ tool: 'redocly', rule: 'no-empty-servers' }),
			expect.objectContaining({ tool: 'spectral', rule: 'oas3-api-servers' }),
		]),
	);
}, 60_000);
