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
import { lmsApiRequest } from '../shared/transport';
import { verifySignature } from './signature';

/** SPEC §11's event types, as offered in the node. */
const EVENT_OPTIONS = [
	{ name: 'Certificate Issued', value: 'certificate.issued', description: 'A certificate was issued for a completed enrollment' },
	{ name: 'Enrollment Completed', value: 'enrollment.completed', description: 'A learner completed a course' },
	{ name: 'Enrollment Created', value: 'enrollment.created', description: 'A learner was enrolled in a course' },
	{ name: 'Enrollment Expired', value: 'enrollment.expired', description: 'The platform expired an enrollment' },
	{ name: 'Enrollment Progressed', value: 'enrollment.progressed', description: 'A learner’s progress changed' },
	{ name: 'Enrollment Reactivated', value: 'enrollment.reactivated', description: 'A withdrawn or expired enrollment became active again' },
	{ name: 'Enrollment Withdrawn', value: 'enrollment.withdrawn', description: 'A learner withdrew from a course' },
	{ name: 'User Created', value: 'user.created', description: 'A user was added to the organization' },
];

/** Accepted signatures are remembered this long (the signature tolerance) to refuse replays. */
const REPLAY_WINDOW_SECONDS = 300;
/** Event ids remembered to drop the LMS's at-least-once repeats. */
const REMEMBERED_EVENTS = 200;

interface TriggerStaticData extends IDataObject {
	webhookId?: string;
	webhookSecret?: string;
	/** Signatures accepted in the last five minutes, with their timestamp. */
	seenSignatures?: Record<string, number>;
	/** The latest event ids that started the workflow. */
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
			light: 'file:../../icons/lmsTrigger.svg',
			dark: 'file:../../icons/lmsTrigger.dark.svg',
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
				options: EVENT_OPTIONS,
				description: 'Which events start the workflow',
			},
		],
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const staticData = this.getWorkflowStaticData('node') as TriggerStaticData;
				if (!staticData.webhookId || !staticData.webhookSecret) return false;
				const path = `/webhook_endpoints/${encodeURIComponent(staticData.webhookId)}`;
				const endpoint = await lmsApiRequest.call(this, { method: 'GET', endpoint: path }).catch(unlessNotFound);
				if (endpoint) {
					const events = [...((endpoint.events as string[]) ?? [])].sort();
					const wanted = [...subscribedEvents(this)].sort();
					const same =
						endpoint.url === this.getNodeWebhookUrl('default') &&
						endpoint.status === 'enabled' &&
						JSON.stringify(events) === JSON.stringify(wanted);
					if (same) return true;
					// Another URL, other events, or disabled by the LMS: replace it.
					await lmsApiRequest.call(this, { method: 'DELETE', endpoint: path }).catch(unlessNotFound);
				}
				delete staticData.webhookId;
				delete staticData.webhookSecret;
				return false;
			},

			async create(this: IHookFunctions): Promise<boolean> {
				const url = this.getNodeWebhookUrl('default');
				if (!url) throw new NodeOperationError(this.getNode(), 'n8n has no webhook URL for this node');
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

		const seen = staticData.seenSignatures ?? {};
		for (const [signature, timestamp] of Object.entries(seen)) {
			if (now - timestamp > REPLAY_WINDOW_SECONDS) delete seen[signature];
		}
		if (seen[verdict.signature] !== undefined) return refuse('this exact request was already received (replay)');
		seen[verdict.signature] = verdict.timestamp;
		staticData.seenSignatures = seen;

		const event = this.getBodyData() as LmsEvent;
		const eventId = String(event.id ?? '');
		// The LMS delivers at least once: an event that already started the workflow is acknowledged only.
		const seenEvents = staticData.seenEvents ?? [];
		if (eventId && seenEvents.includes(eventId)) return { webhookResponse: { received: true, duplicate: true } };
		staticData.seenEvents = [...seenEvents, eventId].slice(-REMEMBERED_EVENTS);

		return { workflowData: [this.helpers.returnJsonArray([eventItem(event)])] };
	}
}
