import { startTestServer } from '../helpers/server';
import { N8nHome } from './n8n';

/**
 * What most real-n8n suites start from: the LMS with its demo data (limit raised), a key of
 * `scopes` for acme, and a fresh n8n home holding an LMS credential (`credentialId`) for it.
 * `api` reads the LMS with that key; `close` removes both.
 */
export async function lmsWithN8n({ scopes, credentialId, label }: { scopes: string[]; credentialId: string; label: string }) {
	const server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
	const { key } = await server.createKey('acme', scopes, label);
	const home = await N8nHome.create();
	await home.importCredentials([{ id: credentialId, name: 'LMS', type: 'lmsApi', data: { baseUrl: server.baseUrl, apiKey: key } }]);
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
