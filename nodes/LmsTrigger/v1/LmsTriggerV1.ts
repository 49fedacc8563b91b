import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeBaseDescription,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { cursorScope, pollingTriggerDescription } from '../../shared/polling';
import { readCursor, writeCursor } from './cursor';
import { EVENTS, eventProperties, type LmsTriggerEvent } from './events';
import { catchUp, sample, takeBaseline } from './poll';

/**
 * The LMS has no webhooks, so this trigger polls the list of the chosen records. It never
 * misses and never repeats a record (see cursor.ts), and a quiet poll costs one request, so
 * frequent polling stays well inside the LMS's per-IP limit.
 */
export class LmsTriggerV1 implements INodeType {
	description: INodeTypeDescription;

	constructor(baseDescription: INodeTypeBaseDescription) {
		this.description = pollingTriggerDescription(baseDescription, {
			version: 1,
			subtitle:
				'={{ { newCertificate: "New certificate", newEnrollment: "New enrollment", newUser: "New user" }[$parameter["event"]] }}',
			description: 'Starts the workflow when a user, an enrollment or a certificate is created in your LMS',
			properties: eventProperties,
		});
	}

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const eventName = this.getNodeParameter('event') as LmsTriggerEvent;
		const event = EVENTS[eventName];
		if (!event) {
			throw new NodeOperationError(this.getNode(), `The event "${eventName}" is not supported`);
		}
		const query = event.query.call(this);

		if (this.getMode() === 'manual') {
			const records = await sample(this, event, query);
			return records.length > 0 ? [this.helpers.returnJsonArray(records)] : null;
		}

		// Any error below propagates before the static data is written: a failed poll emits
		// nothing and leaves the cursor where it was, so the next poll catches up.
		const staticData = this.getWorkflowStaticData('node') as IDataObject;
		const scope = await cursorScope(this, eventName, query);
		const cursor = readCursor(staticData, scope);
		const outcome = cursor
			? await catchUp(this, event, query, cursor)
			: await takeBaseline(this, event, query, scope);
		if (outcome.cursor) writeCursor(staticData, outcome.cursor);
		return outcome.records.length > 0 ? [this.helpers.returnJsonArray(outcome.records)] : null;
	}
}
