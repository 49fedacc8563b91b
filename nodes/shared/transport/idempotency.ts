import type { IExecuteFunctions } from 'n8n-workflow';

import type { LmsFunctions } from './request';

/**
 * The Idempotency-Key of a write (SPEC §18): made from the execution, the node, the node's run
 * and the input item(s), plus the method and path, so that sending the same write again in the
 * same execution — n8n's Retry On Fail, or our own retry after a lost answer — gets the LMS's
 * first answer back instead of acting twice. Another run of the node in the same execution (a
 * loop, or each call of an AI agent's tool) has another run index, hence other keys.
 */

/** What the LMS accepts: 1 to 255 printable ASCII characters. */
const MAX_KEY_LENGTH = 255;

/** Execution, node and run, worked out once per node run (the data proxy is not free). */
const prefixes = new WeakMap<object, string | null>();

/** Only printable ASCII: an id with anything else in it is percent-encoded, and bounded. */
const part = (value: string) => encodeURIComponent(value).slice(0, 64);

function prefixOf(context: LmsFunctions): string | undefined {
	let prefix = prefixes.get(context);
	if (prefix === undefined) {
		prefix = null;
		// Only an execution has an id and input items; a trigger's activation or a list search has neither.
		const execute = context as Partial<IExecuteFunctions>;
		const executionId = typeof execute.getExecutionId === 'function' ? execute.getExecutionId() : undefined;
		if (executionId && typeof execute.getWorkflowDataProxy === 'function') {
			const node = context.getNode();
			const runIndex = Number(execute.getWorkflowDataProxy(0)?.$runIndex ?? 0);
			prefix = `n8n:${part(String(executionId))}:${part(node.id || node.name)}:${runIndex}`;
		}
		prefixes.set(context, prefix);
	}
	return prefix ?? undefined;
}

/**
 * The key for a write serving input items `items` (one index, or a batch's first and last), or
 * undefined outside an execution (the request then goes without one, as before).
 */
export function idempotencyKeyFor(
	context: LmsFunctions,
	items: string,
	method: string,
	endpoint: string,
): string | undefined {
	const prefix = prefixOf(context);
	if (prefix === undefined) return undefined;
	// The path comes last: only it can be long, and the rest already tells writes apart.
	return `${prefix}:${items}:${method} ${encodeURI(endpoint)}`.slice(0, MAX_KEY_LENGTH);
}
