/**
 * `npm run bench [-- name…]`: runs the named benchmarks, or all of them. Not part of npm test.
 *   api-overhead  scale  return-all  n8n-bulk  n8n-rerun  batch-write  memory  events  webhooks  webhook-throughput  webhook-fairness  sign-in-storm  search  report  overdue  scim  scim-limit  pickers  groups
 */
import { apiOverhead } from './api-overhead';
import { batchWriteBench } from './batch-write';
import { eventsBench } from './events';
import { groupsBench } from './groups';
import { machineInfo } from './lib';
import { memory } from './memory';
import { n8nBulkBench, n8nRerunBench } from './n8n-bulk';
import { overdueBench } from './overdue';
import { pickersBench } from './pickers';
import { reportBench } from './report';
import { returnAllBench } from './return-all';
import { scale } from './scale';
import { scimBench } from './scim';
import { scimLimitBench } from './scim-limit';
import { searchBench } from './search';
import { webhookFairnessBench } from './webhook-fairness';
import { webhookThroughputBench } from './webhook-throughput';
import { webhooksBench } from './webhooks';
import { signInStorm } from './sign-in-storm';

const BENCHMARKS: Record<string, () => Promise<void>> = {
	'api-overhead': apiOverhead,
	scale,
	'return-all': returnAllBench,
	'n8n-bulk': n8nBulkBench,
	'n8n-rerun': n8nRerunBench,
	'batch-write': batchWriteBench,
	memory,
	events: eventsBench,
	webhooks: webhooksBench,
	'webhook-throughput': webhookThroughputBench,
	'webhook-fairness': webhookFairnessBench,
	'sign-in-storm': signInStorm,
	search: searchBench,
	report: reportBench,
	overdue: overdueBench,
	scim: scimBench,
	'scim-limit': scimLimitBench,
	pickers: pickersBench,
	groups: groupsBench,
};

async function main(): Promise<void> {
	const asked = process.argv.slice(2);
	const unknown = asked.filter((name) => !(name in BENCHMARKS));
	if (unknown.length > 0) {
		console.error(`unknown benchmark ${unknown.join(', ')}; choose from ${Object.keys(BENCHMARKS).join(', ')}`);
		process.exit(2);
	}
	console.log(`# n8n-nodes-lms benchmarks\n\n${machineInfo()}\nstarted ${new Date().toISOString()}`);
	for (const name of asked.length > 0 ? asked : Object.keys(BENCHMARKS)) await BENCHMARKS[name]();
}

main().catch((err: unknown) => {
	console.error(err);
	process.exit(1);
});
