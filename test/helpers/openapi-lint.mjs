// Lints the OpenAPI document read from stdin with Redocly's `recommended` ruleset and Spectral's
// `oas` ruleset, and prints every finding as one JSON array on stdout. A separate process, because
// @redocly/openapi-core is an ES module that jest's CommonJS runtime cannot load.
import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import spectralRulesets from '@stoplight/spectral-rulesets';

const { Document, Spectral } = spectralCore;
const { Json } = spectralParsers;
const { oas } = spectralRulesets;

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const source = Buffer.concat(chunks).toString('utf8');

const redocly = await lintFromString({
	source,
	absoluteRef: 'openapi.json',
	config: await createConfig({ extends: ['recommended'] }),
});
const spectral = new Spectral();
spectral.setRuleset({ extends: [oas] });
const spectralFindings = await spectral.run(new Document(source, Json, 'openapi.json'));

const severity = ['error', 'warning', 'info', 'hint'];
process.stdout.write(
	JSON.stringify([
		...redocly.map((p) => ({ tool: 'redocly', rule: p.ruleId, severity: p.severity, message: p.message, at: p.location?.[0]?.pointer })),
		...spectralFindings.map((p) => ({ tool: 'spectral', rule: p.code, severity: severity[p.severity], message: p.message, at: p.path.join('.') })),
	]),
);
