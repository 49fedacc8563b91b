import type { Scope } from '../../server/src/api-keys/model';
import { createKey } from '../../server/src/api-keys/lifecycle';
import { WebhookEndpoint } from '../../server/src/db';
import { NO_LIMIT, startApiServer, type World } from '../server/api-fixtures';
import { startReceiver, type Receiver } from './receiver';
import type { TestServer } from './server';

export interface WebhookSuite {
	server: TestServer;
	world: World;
	/** The test's receiver (`receiver: 'each'`) or the suite's (`'suite'`); none with `'none'`. */
	receiver: Receiver;
	/** An Acme key with the scopes `key` names, made once for the suite. */
	key: string;
}

/**
 * What a suite that sends webhooks to a real receiver sets up: the API server and its world
 * (api-fixtures.ts) with no rate limit, private receivers allowed and the worker's timings from
 * `env`, stopped after the suite. With `receiver: 'each'` (the default) every test gets its own
 * receiver, and its endpoints are deleted after it; `'suite'`: one receiver for the whole suite.
 * The fields are set by the hooks: read them inside tests and hooks, not at load.
 */
export function webhookSuite(env: Record<string, string>, { receiver = 'each', key }: { receiver?: 'each' | 'suite' | 'none'; key?: Scope[] } = {}): WebhookSuite {
	const suite = {} as WebhookSuite;
	beforeAll(async () => {
		({ server: suite.server, world: suite.world } = await startApiServer({ ...NO_LIMIT, WEBHOOK_ALLOW_PRIVATE: 'true', ...env }));
		if (key) suite.key = (await createKey({ organizationId: suite.world.acme.id, label: 'n8n', scopes: key, actor: { kind: 'cli' } })).secret;
		if (receiver === 'suite') suite.receiver = await startReceiver();
	});
	afterAll(async () => {
		await suite.server?.stop();
		if (receiver === 'suite') await suite.receiver?.close();
	});
	if (receiver === 'each') {
		beforeEach(async () => (suite.receiver = await startReceiver()));
		afterEach(async () => {
			await WebhookEndpoint.destroy({ where: {} });
			await suite.receiver.close();
		});
	}
	return suite;
}
