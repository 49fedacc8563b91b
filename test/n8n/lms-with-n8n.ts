import { startTestServer, type TestServer } from '../helpers/server';
import { N8nHome } from './n8n';

export interface LmsWithN8nOptions {
	/** The key's scopes (acme's key). */
	scopes: string[];
	/** The id of the LMS credential in n8n, as the suite's workflows name it. */
	credentialId: string;
	/** The key's label. */
	label: string;
	/** Server settings over the raised limit (a suite measures mappings, not waiting). */
	env?: Record<string, string>;
	/** The Base URL n8n's credential points at, when not the LMS itself (a proxy in front of it). */
	baseUrl?: (server: TestServer) => Promise<string>;
	/** More credentials for n8n, imported with the LMS one (another key, SMTP). */
	credentials?: (server: TestServer) => Array<Record<string, unknown>>;
}

/**
 * What the real-n8n suites start from: the LMS with its demo data (limit raised), a key of
 * `scopes` for acme, and a fresh n8n home holding an LMS credential (`credentialId`) for it.
 * `api` reads the LMS with that key; `close` removes both.
 */
export async function lmsWithN8n(options: LmsWithN8nOptions) {
	const server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000', ...options.env } });
	const { key } = await server.createKey('acme', options.scopes, options.label);
	const baseUrl = options.baseUrl ? await options.baseUrl(server) : server.baseUrl;
	const home = await N8nHome.create();
	await home.importCredentials([
		{ id: options.credentialId, name: 'LMS', type: 'lmsApi', data: { baseUrl, apiKey: key } },
		...(options.credentials?.(server) ?? []),
	]);
	async function api<T = Record<string, unknown>>(path: string): Promise<T> {
		const response = await fetch(`${server.baseUrl}/api/v1${path}`, { headers: { Authorization: `Bearer ${key}` } });
		if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
		return (await response.json()) as T;
	}
	return {
		server,
		key,
		home,
		api,
		async close() {
			home.remove();
			await server.stop();
		},
	};
}

export type LmsWithN8n = Awaited<ReturnType<typeof lmsWithN8n>>;
