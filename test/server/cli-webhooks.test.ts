import { runCli } from '../helpers/cli';
import { startTestServer, type TestServer } from '../helpers/server';
import { api } from '../helpers/webhook-deployment';

/** `lms-server webhooks list / delete`: the operator's view of Settings → Webhooks. */
let server: TestServer;
let key: string;
beforeAll(async () => {
	server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000', WEBHOOK_ALLOW_PRIVATE: 'true' } });
	key = (await server.createKey('acme', ['manage:webhooks', 'read:enrollments'])).key;
});
afterAll(() => server.stop());

const cli = (...args: string[]) => runCli(args, { env: { DATABASE_URL: server.databaseUrl } });

test('list shows the endpoints without their secrets; --json is one document; delete stops them', async () => {
	expect((await cli('webhooks', 'list', '--org', 'acme')).stdout).toBe('acme has no webhook endpoints.\n');
	const created = await api(server.baseUrl, key, '/api/v1/webhook_endpoints', {
		method: 'POST',
		body: { url: 'http://127.0.0.1:5678/webhook/abc', events: ['enrollment.completed', 'certificate.issued'] },
	});
	const table = await cli('webhooks', 'list', '--org', 'acme');
	expect(table.code).toBe(0);
	expect(table.stdout).toMatch(new RegExp(`^ID +URL +EVENTS +STATUS +CREATED\\n${created.body.id} +http://127\\.0\\.0\\.1:5678/webhook/abc +enrollment\\.completed,certificate\\.issued +enabled +\\d{4}-`));
	const json = await cli('webhooks', 'list', '--org', 'acme', '--json');
	const { secret, ...shown } = created.body;
	expect(JSON.parse(json.stdout)).toEqual([shown]);
	for (const out of [table.stdout, json.stdout]) expect(out).not.toContain(secret);

	const deleted = await cli('webhooks', 'delete', created.body.id);
	expect(deleted).toMatchObject({ code: 0, stdout: expect.stringContaining(`Deleted webhook endpoint ${created.body.id}`) });
	expect((await api(server.baseUrl, key, `/api/v1/webhook_endpoints/${created.body.id}`)).status).toBe(404);
	expect(await cli('webhooks', 'delete', created.body.id)).toMatchObject({ code: 1, stderr: `lms-server: No webhook endpoint ${created.body.id}.\n` });
	expect(await cli('webhooks', 'list', '--org', 'nope')).toMatchObject({ code: 1 });
});
