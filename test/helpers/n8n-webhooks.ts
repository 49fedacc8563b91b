/**
 * n8n's webhook path for a trigger node, from n8n-core's own contexts: activation runs the
 * node's webhookMethods (checkExists, then create) in a HookContext, deactivation runs delete,
 * and every HTTP request to the node's URL runs webhook() in a WebhookContext, as the n8n server
 * does (WebhookService): the raw body is kept in `req.rawBody`, the parsed one in `req.body`;
 * `noWebhookResponse` means the node answered itself; `workflowData` means the workflow starts.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import express from 'express';
import { HookContext, WebhookContext } from 'n8n-core';
import {
	Workflow,
	type IDataObject,
	type INodeExecutionData,
	type INodeType,
	type INodeParameters,
	type IWebhookData,
	type IWorkflowBase,
} from 'n8n-workflow';

import { additionalDataFor, nodeFor, nodeTypesOf, type LmsTestCredentials } from './n8n';

export interface WebhookHost {
	/** The node's production webhook URL (what create() registers with the LMS). */
	webhookUrl: string;
	staticData: IDataObject;
	/** The items of every workflow run the webhook started, in order. */
	runs: INodeExecutionData[][];
	/** Every request as it arrived (headers and raw body), to replay or tamper with. */
	received: Array<{ headers: Record<string, string>; body: string }>;
	/** Every request that reached webhook(), with the status it was answered. */
	answers: Array<{ status: number; body: string }>;
	/** n8n's activation: checkExists, then create if it answered false. `manual` is "Listen for test event". */
	activate(mode?: 'trigger' | 'manual'): Promise<void>;
	/** checkExists alone, as n8n calls it. */
	checkExists(mode?: 'trigger' | 'manual'): Promise<boolean>;
	deactivate(): Promise<boolean>;
	close(): Promise<void>;
}

export async function hostWebhookTrigger(
	nodeType: INodeType,
	parameters: INodeParameters,
	credentials: LmsTestCredentials,
): Promise<WebhookHost> {
	const node = nodeFor(nodeType, parameters);
	const staticData: IDataObject = {};
	const workflow = new Workflow({
		id: 'test-workflow',
		name: 'LMS instant trigger test',
		nodes: [node],
		connections: {},
		active: true,
		nodeTypes: nodeTypesOf({ [node.type]: nodeType }),
		staticData,
	});
	const workflowData = { id: workflow.id, name: workflow.name, nodes: [node], connections: {} } as unknown as IWorkflowBase;
	const description = nodeType.description.webhooks![0];
	const runs: INodeExecutionData[][] = [];
	const answers: WebhookHost['answers'] = [];
	const received: WebhookHost['received'] = [];

	const app = express();
	app.use(express.raw({ type: () => true, limit: '1mb' }));
	let webhookData: IWebhookData;
	app.post(/.*/, async (req, res) => {
		const raw = req.body as Buffer;
		received.push({ headers: req.headers as Record<string, string>, body: raw.toString('utf8') });
		Object.assign(req, { rawBody: raw, body: raw.length > 0 ? JSON.parse(raw.toString('utf8')) : {} });
		const send = res.send.bind(res);
		res.send = (body?: unknown) => {
			answers.push({ status: res.statusCode, body: typeof body === 'string' ? body : JSON.stringify(body) });
			return send(body);
		};
		const additionalData = { ...additionalDataFor(credentials, workflowData, 'webhook'), httpRequest: req, httpResponse: res };
		const context = new WebhookContext(workflow, node, additionalData, 'webhook', webhookData, [], null);
		try {
			const result = await nodeType.webhook!.call(context);
			if (result.workflowData) runs.push(result.workflowData[0]);
			if (!result.noWebhookResponse) res.status(200).json(onReceivedAnswer(description.responseData, result.webhookResponse));
		} catch (error) {
			res.status(500).json({ message: (error as Error).message });
		}
	});
	const server: Server = await new Promise((resolve) => {
		const s = app.listen(0, '127.0.0.1', () => resolve(s));
	});
	const { port } = server.address() as AddressInfo;
	const hookData = (isTest = false) => {
		const additionalData = {
			...additionalDataFor(credentials, workflowData, 'trigger'),
			webhookBaseUrl: `http://127.0.0.1:${port}/webhook`,
			webhookTestBaseUrl: `http://127.0.0.1:${port}/webhook-test`,
		};
		webhookData = {
			httpMethod: 'POST',
			node: node.name,
			path: String(description.path),
			webhookDescription: description,
			workflowId: workflow.id,
			workflowExecuteAdditionalData: additionalData,
			isTest,
		};
		return additionalData;
	};
	const hook = (activation: 'activate' | 'init', mode: 'trigger' | 'manual' = 'trigger') => {
		const additionalData = hookData(mode === 'manual');
		return new HookContext(workflow, node, additionalData, mode, activation, webhookData);
	};
	const methods = nodeType.webhookMethods!.default!;
	const webhookUrl = hook('init').getNodeWebhookUrl('default')!;
	return {
		webhookUrl,
		staticData: workflow.staticData,
		runs,
		answers,
		received,
		async activate(mode = 'trigger') {
			const context = hook('activate', mode);
			if (!(await methods.checkExists.call(context))) await methods.create.call(context);
		},
		async checkExists(mode = 'trigger') {
			return methods.checkExists.call(hook('activate', mode));
		},
		async deactivate() {
			return methods.delete.call(hook('activate'));
		},
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

/**
 * What n8n 2.41 answers a webhook in responseMode 'onReceived' (its
 * webhook-on-received-response-extractor): the description's `responseData` as it stands when it
 * is set (its default is the word 'firstEntryJson'), else what webhook() gave, else a fixed message.
 */
function onReceivedAnswer(responseData: unknown, webhookResponse: unknown): unknown {
	const data = responseData === undefined ? 'firstEntryJson' : responseData;
	if (data === 'noData') return undefined;
	if (data) return data;
	return webhookResponse ?? { message: 'Workflow was started' };
}
