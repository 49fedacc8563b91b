import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { eventItem, type LmsEvent } from '../shared/event-item';
import { LMS_EVENT_OPTIONS } from '../shared/events';
import { lmsApiRequest } from '../shared/transport';
import { verifySignature } from './signature';

/** The shape of the LMS's event ids (SPEC §11); anything else in a signed body is not an LMS event. */
const EVENT_ID = /^evt_[0-9a-f]{28}$/;

interface TriggerStaticData extends IDataObject {
	webhookId?: string;
	webhookSecret?: string;
	/** Left by version 0.1 (seen signatures and event ids), removed on deactivation. */
	seenSignatures?: Record<string, number>;
	seenEvents?: string[];
}

/** For `.catch()`: a 404 (the endpoint is gone) becomes undefined; anything else still fails. */
function unlessNotFound(error: unknown): undefined {
	if (error instanceof NodeApiError && error.httpCode === '404') return undefined;
	throw error;
}

function subscribedEvents(context: IHookFunctions): string[] {
	return context.getNodeParameter('events') as string[];
}

/**
 * Subscribes itself to the LMS when the workflow is activated and unsubscribes when it is
 * deactivated (SPEC §12, §15); starts the workflow the moment the LMS posts an event, after
 * checking that the LMS signed it with this endpoint's secret in the last five minutes.
 */
export class LmsInstantTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'LMS Instant Trigger',
		name: 'lmsInstantTrigger',
		icon: {
			light: 'file:../../icons/lmsInstantTrigger.svg',
			dark: 'file:../../icons/lmsInstantTrigger.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle: '={{ $parameter["events"].join(", ") }}',
		description: 'Starts the workflow the moment something happens in your LMS (webhook)',
		defaults: { name: 'LMS Instant Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'lmsApi', required: true }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				// Empty: n8n then answers with webhook()'s webhookResponse ({"received": true}), not its
				// default 'firstEntryJson', which n8n 2.41 sends to the LMS as that literal word.
				responseData: '',
				path: 'webhook',
			},
		],
		properties: [
			{
				displayName: 'The API key needs the manage:webhooks scope: the node subscribes itself when the workflow is activated',
				name: 'scopeNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				required: true,
				default: ['enrollment.completed'],
				options: LMS_EVENT_OPTIONS,
				description: 'Which events start the workflow',
			},
		],
	};

	webhookMethods = {
		default: {
			/**
			 * Only checks (n8n calls it at every activation, after a restart too, and before
			 * "Listen for test event"): true when the LMS still has this node's endpoint, enabled,
			 * for this URL and these events. A missing, disabled, moved or re-scoped endpoint answers
			 * false, so n8n calls create(); nothing is ever deleted here, so a test listen on an
			 * active workflow cannot remove the live subscription.
			 */
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const staticData = this.getWorkflowStaticData('node') as TriggerStaticData;
				if (!staticData.webhookId || !staticData.webhookSecret) return false;
				const path = `/webhook_endpoints/${encodeURIComponent(staticData.webhookId)}`;
				const endpoint = await lmsApiRequest.call(this, { method: 'GET', endpoint: path }).catch(unlessNotFound);
				if (!endpoint) {
					this.logger.warn(`LMS Instant Trigger: webhook endpoint ${staticData.webhookId} no longer exists in the LMS; subscribing again`);
					return false;
				}
				const events = [...((endpoint.events as string[]) ?? [])].sort();
				const wanted = [...subscribedEvents(this)].sort();
				if (endpoint.status !== 'enabled') {
					this.logger.warn(`LMS Instant Trigger: the LMS ${String(endpoint.status)} webhook endpoint ${staticData.webhookId}; subscribing again`);
					return false;
				}
				return endpoint.url === this.getNodeWebhookUrl('default') && JSON.stringify(events) === JSON.stringify(wanted);
			},

			async create(this: IHookFunctions): Promise<boolean> {
				const url = this.getNodeWebhookUrl('default');
				if (!url) throw new NodeOperationError(this.getNode(), 'n8n has no webhook URL for this node');
				const previous = (this.getWorkflowStaticData('node') as TriggerStaticData).webhookId;
				// Replacing the production subscription (checkExists found it disabled, moved or for
				// other events): the old endpoint goes, or it would keep receiving (and failing) in
				// the LMS. A test listen ("manual") never touches it: the live one must keep working.
				if (previous && this.getMode() !== 'manual') {
					await lmsApiRequest
						.call(this, { method: 'DELETE', endpoint: `/webhook_endpoints/${encodeURIComponent(previous)}` })
						.catch(unlessNotFound);
				}
				const endpoint = await lmsApiRequest.call(this, {
					method: 'POST',
					endpoint: '/webhook_endpoints',
					body: {
						url,
						events: subscribedEvents(this),
						description: `n8n workflow "${this.getWorkflow().name ?? this.getWorkflow().id}"`.slice(0, 500),
					},
				});
				if (typeof endpoint.id !== 'string' || typeof endpoint.secret !== 'string') {
					throw new NodeOperationError(this.getNode(), 'The LMS did not return a webhook endpoint id and secret');
				}
				const staticData = this.getWorkflowStaticData('node') as TriggerStaticData;
				staticData.webhookId = endpoint.id;
				staticData.webhookSecret = endpoint.secret;
				return true;
			},

			async delete(this: IHookFunctions): Promise<boolean> {
				const staticData = this.getWorkflowStaticData('node') as TriggerStaticData;
				if (staticData.webhookId) {
					try {
						// Already gone (404) is what we wanted.
						await lmsApiRequest
							.call(this, { method: 'DELETE', endpoint: `/webhook_endpoints/${encodeURIComponent(staticData.webhookId)}` })
							.catch(unlessNotFound);
					} catch (error) {
						this.logger.warn(`LMS Instant Trigger could not delete its webhook endpoint: ${(error as Error).message}`);
						return false;
					}
				}
				delete staticData.webhookId;
				delete staticData.webhookSecret;
				delete staticData.seenSignatures;
				delete staticData.seenEvents;
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const request = this.getRequestObject() as ReturnType<IWebhookFunctions['getRequestObject']> & { rawBody?: Buffer };
		const staticData = this.getWorkflowStaticData('node') as TriggerStaticData;
		const now = Math.floor(Date.now() / 1000);
		const verdict = verifySignature(request.headers['lms-signature'], request.rawBody, staticData.webhookSecret, now);
		const refuse = (reason: string): IWebhookResponseData => {
			const response = this.getResponseObject();
			response.status(401).json({ message: `Refused: ${reason}` });
			return { noWebhookResponse: true };
		};
		if (!verdict.ok) return refuse(verdict.reason);

		const event = this.getBodyData() as LmsEvent;
		const eventId = typeof event.id === 'string' ? event.id : '';
		if (!EVENT_ID.test(eventId) || !staticData.webhookId) return refuse('the signed body is not an LMS event');

		// Each event starts the workflow once: the LMS records which delivery was received first
		// (POST /webhook_endpoints/{id}/receipts, one conditional UPDATE on its delivery row), and
		// everything else that carries the same event is acknowledged without starting it: an exact
		// replay of a signed request within the 5 minutes, and the LMS's own retry of a delivery
		// whose 2xx was lost (a new signature, the same event id). The node keeps nothing itself:
		// n8n 2.41 does not save what webhook() writes into the workflow's static data for
		// responseMode 'onReceived' (docs/n8n.md), and copies of one delivery may arrive at once.
		let receipt: IDataObject;
		try {
			receipt = await lmsApiRequest.call(this, {
				method: 'POST',
				endpoint: `/webhook_endpoints/${encodeURIComponent(staticData.webhookId)}/receipts`,
				body: { event_id: eventId },
			});
		} catch (error) {
			// Not known to be received: a 503 makes the LMS deliver it again later.
			this.logger.warn(`LMS Instant Trigger could not record event ${eventId} as received: ${(error as Error).message}`);
			this.getResponseObject().status(503).json({ message: 'Could not record the event as received; deliver it again later' });
			return { noWebhookResponse: true };
		}
		if (receipt.first !== true) return { webhookResponse: { received: true, duplicate: true } };

		return { workflowData: [this.helpers.returnJsonArray([eventItem(event)])], webhookResponse: { received: true } };
	}
}
