/**
 * Runs LMS nodes through n8n's real execution engine (n8n-core's WorkflowExecute and
 * PollContext) instead of a mocked `this`, so parameters, credentials, `httpRequestWithAuthentication`,
 * pairedItem and Continue On Fail behave as they do inside n8n.
 *
 * n8n's own test harness (NodeTestHarness) is not published, so this file provides the few pieces
 * the engine expects from the n8n server: a node-type registry, a credentials helper that applies
 * the credential's generic `authenticate` block, and "additional data" with valid URLs.
 */

import {
	ExecutionLifecycleHooks,
	LoadOptionsContext,
	PollContext,
	WorkflowExecute,
} from 'n8n-core';
import {
	createRunExecutionData,
	ICredentialsHelper,
	isExpression,
	NodeHelpers,
	Workflow,
	type ICredentialDataDecryptedObject,
	type ICredentials,
	type ICredentialType,
	type IDataObject,
	type IHttpRequestOptions,
	type INode,
	type INodeCredentialTestResult,
	type INodeExecutionData,
	type INodeParameters,
	type INodeType,
	type INodeTypes,
	type IVersionedNodeType,
	type INodeListSearchResult,
	type IRequestOptionsSimplified,
	type IRun,
	type IWorkflowBase,
	type IWorkflowExecuteAdditionalData,
	type WorkflowActivateMode,
	type WorkflowExecuteMode,
} from 'n8n-workflow';

import { Container } from '@n8n/di';
import { SSHClientsManager } from 'n8n-core/dist/execution-engine/ssh-clients-manager';

import { LmsApi } from '../../credentials/LmsApi.credentials';

const PACKAGE_NAME = 'n8n-nodes-lms';

export interface LmsTestCredentials {
	baseUrl: string;
	apiKey: string;
}

const credentialTypes: Record<string, ICredentialType> = { lmsApi: new LmsApi() };

/** What the n8n server's CredentialsHelper does, minus the database and encryption. */
class TestCredentialsHelper extends ICredentialsHelper {
	constructor(private readonly data: Record<string, ICredentialDataDecryptedObject>) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow: Workflow,
		node: INode,
	): Promise<IHttpRequestOptions> {
		const authenticate = credentialTypes[typeName]?.authenticate;
		if (typeof authenticate === 'function') {
			return await authenticate(credentials, requestOptions as IHttpRequestOptions);
		}
		if (authenticate?.type === 'generic') {
			const resolve = (value: string) =>
				isExpression(value)
					? String(
							workflow.expression.getSimpleParameterValue(
								node,
								value,
								'internal',
								{ $credentials: credentials },
								undefined,
								'',
							) ?? '',
						)
					: value;
			for (const [target, entries] of Object.entries(authenticate.properties)) {
				const options = requestOptions as unknown as Record<string, IDataObject>;
				options[target] ??= {};
				for (const [key, value] of Object.entries(entries as Record<string, string>)) {
					options[target][resolve(key)] = resolve(value);
				}
			}
		}
		return requestOptions as IHttpRequestOptions;
	}

	preAuthentication() {
		return Promise.resolve(undefined);
	}

	getCredentials(): Promise<ICredentials> {
		return Promise.reject(new Error('not used by these tests'));
	}

	getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: unknown,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const data = this.data[type];
		if (!data) return Promise.reject(new Error(`No test credentials of type ${type}`));
		return Promise.resolve({ ...data });
	}

	async updateCredentials() {}

	async updateCredentialsOauthTokenData() {}

	getCredentialsProperties(type: string) {
		return credentialTypes[type]?.properties ?? [];
	}

	isCredentialUsableByNode() {
		return true;
	}
}

/** A node type as a package exports it: a plain node, or a versioned one (VersionedNodeType). */
export type AnyNodeType = INodeType | IVersionedNodeType;

export function nodeTypesOf(types: Record<string, AnyNodeType>): INodeTypes {
	return {
		getByName: (name) => types[name],
		getByNameAndVersion: (name, version) => NodeHelpers.getVersionedNodeType(types[name], version),
		getKnownTypes: () => ({}),
	};
}

function typeName(nodeType: AnyNodeType): string {
	return `${PACKAGE_NAME}.${nodeType.description.name}`;
}

let pinnedTypeVersion: number | undefined;

/**
 * Makes runNode, runPoll and runListSearch of this test file use this node version unless a call
 * names another: files that hold version 1's parameters (v1 fixtures) pin 1, so they go on
 * proving that workflows saved with version 1 run unchanged.
 */
export function pinTypeVersion(version: number | undefined): void {
	pinnedTypeVersion = version;
}

/** The version a new node gets in the editor: a versioned type's default, else the latest. */
function latestVersion(nodeType: AnyNodeType): number {
	if ('nodeVersions' in nodeType) return nodeType.description.defaultVersion ?? nodeType.currentVersion;
	const version = nodeType.description.version;
	return Array.isArray(version) ? version[version.length - 1] : version;
}

/** The INodeType n8n runs for this node version. */
export function nodeTypeAt(nodeType: AnyNodeType, version?: number): INodeType {
	return NodeHelpers.getVersionedNodeType(nodeType, version ?? pinnedTypeVersion ?? latestVersion(nodeType));
}

export function additionalDataFor(
	credentials: LmsTestCredentials | undefined,
	workflowData: IWorkflowBase,
	mode: WorkflowExecuteMode,
): IWorkflowExecuteAdditionalData {
	const credentialsHelper = new TestCredentialsHelper(
		credentials ? { lmsApi: { ...credentials } } : {},
	);
	return {
		credentialsHelper,
		hooks: new ExecutionLifecycleHooks(mode, 'test-execution', workflowData),
		executeWorkflow: () => Promise.reject(new Error('not used by these tests')),
		getRunExecutionData: () => Promise.resolve(undefined),
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://localhost:5678/rest',
		instanceBaseUrl: 'http://localhost:5678/',
		formWaitingBaseUrl: 'http://localhost:5678/form-waiting',
		webhookBaseUrl: 'http://localhost:5678/webhook',
		webhookWaitingBaseUrl: 'http://localhost:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://localhost:5678/webhook-test',
		variables: {},
		logAiEvent: () => {},
		startRunnerTask: () => Promise.reject(new Error('not used by these tests')),
	} as unknown as IWorkflowExecuteAdditionalData;
}

export function nodeFor(nodeType: AnyNodeType, parameters: INodeParameters, extra: Partial<INode> = {}): INode {
	const typeVersion = extra.typeVersion ?? pinnedTypeVersion ?? latestVersion(nodeType);
	const described = nodeTypeAt(nodeType, typeVersion).description;
	return {
		id: 'node-under-test',
		name: described.defaults.name ?? described.displayName,
		type: typeName(nodeType),
		typeVersion,
		position: [0, 0],
		parameters,
		credentials: { lmsApi: { id: 'test-credential', name: 'LMS API (test)' } },
		...extra,
	};
}

export interface RunNodeOptions {
	credentials: LmsTestCredentials;
	/** Input items (their `json`); one empty item by default, as after a Manual Trigger. */
	items?: IDataObject[];
	/** The node setting "On Error: Continue (regular output)". */
	continueOnFail?: boolean;
	/** The node setting "On Error", when the other choices matter. */
	onError?: INode['onError'];
	/** The node's version as saved in the workflow; the pinned one, else the latest. */
	typeVersion?: number;
	/**
	 * The execution's id, as n8n gives every execution (writes derive their Idempotency-Key from
	 * it); none by default, so that separate runs never share keys.
	 */
	executionId?: string;
	/** The node settings "Retry On Fail", "Max. Tries" and "Wait Between Tries (ms)". */
	retryOnFail?: { maxTries: number; waitBetweenTries: number };
	/** The workflow setting "Time Zone" (what a zone-less date picked in the editor means). */
	timezone?: string;
}

export interface RunNodeResult {
	/** The node's first output. */
	items: INodeExecutionData[];
	/** The error output, with "On Error: Continue (using error output)". */
	errorItems: INodeExecutionData[];
	/** The error that stopped the node, as n8n recorded it. */
	error?: Error & { description?: string | null; httpCode?: string | null; context?: IDataObject };
	run: IRun;
}

/** Executes one node with the given parameters, fed with `items`, and returns what it output. */
export async function runNode(
	nodeType: AnyNodeType,
	parameters: INodeParameters,
	options: RunNodeOptions,
): Promise<RunNodeResult> {
	const onError = options.onError ?? (options.continueOnFail ? 'continueRegularOutput' : undefined);
	const node = nodeFor(nodeType, parameters, {
		...(onError ? { onError } : {}),
		...(options.typeVersion !== undefined ? { typeVersion: options.typeVersion } : {}),
		...(options.retryOnFail ? { retryOnFail: true, ...options.retryOnFail } : {}),
	});
	const workflowData: IWorkflowBase = {
		id: 'test-workflow',
		name: 'LMS node test',
		active: false,
		isArchived: false,
		nodes: [node],
		connections: {},
		createdAt: new Date(),
		updatedAt: new Date(),
	} as IWorkflowBase;
	const workflow = new Workflow({
		id: workflowData.id,
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: nodeTypesOf({ [node.type]: nodeType }),
		...(options.timezone ? { settings: { timezone: options.timezone } } : {}),
	});
	const input = (options.items ?? [{}]).map((json) => ({ json }));
	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [{ node, data: { main: [input] }, source: null }],
		},
	});
	const additionalData = additionalDataFor(options.credentials, workflowData, 'manual');
	if (options.executionId !== undefined) additionalData.executionId = options.executionId;
	const run = await new WorkflowExecute(additionalData, 'manual', runExecutionData)
		.processRunExecutionData(workflow)
		.finally(releaseN8nResources);
	const task = run.data.resultData.runData[node.name]?.[0];
	return {
		items: task?.data?.main?.[0] ?? [],
		errorItems: task?.data?.main?.[1] ?? [],
		error: (task?.error ?? run.data.resultData.error) as RunNodeResult['error'],
		run,
	};
}

export interface PollOptions {
	credentials: LmsTestCredentials;
	/** The workflow's static data, kept between polls; pass the same object to the next call. */
	staticData?: IDataObject;
	/** 'manual' is the editor's "Fetch Test Event"; 'trigger' is an active workflow. */
	mode?: WorkflowExecuteMode;
	activation?: WorkflowActivateMode;
	typeVersion?: number;
}

export interface PollResult {
	/** What poll() returned: null when there was nothing new. */
	output: INodeExecutionData[][] | null;
	staticData: IDataObject;
}

/**
 * Calls a polling trigger's poll() once with n8n's real PollContext. Static data lives under
 * `staticData['node:<node name>']`, as in n8n; keep the returned object for the next tick.
 */
export async function runPoll(
	anyNodeType: AnyNodeType,
	parameters: INodeParameters,
	options: PollOptions,
): Promise<PollResult> {
	const node = nodeFor(anyNodeType, parameters, options.typeVersion !== undefined ? { typeVersion: options.typeVersion } : {});
	const nodeType = nodeTypeAt(anyNodeType, node.typeVersion);
	if (!nodeType.poll) throw new Error(`${nodeType.description.name} has no poll()`);
	const staticData = options.staticData ?? {};
	const workflow = new Workflow({
		id: 'test-workflow',
		nodes: [node],
		connections: {},
		active: true,
		nodeTypes: nodeTypesOf({ [node.type]: anyNodeType }),
		staticData,
	});
	const mode = options.mode ?? 'trigger';
	const additionalData = additionalDataFor(
		options.credentials,
		{ id: 'test-workflow', name: 'LMS poll test', nodes: [node], connections: {} } as unknown as IWorkflowBase,
		mode,
	);
	const context = new PollContext(workflow, node, additionalData, mode, options.activation ?? 'init');
	const output = await nodeType.poll.call(context).finally(releaseN8nResources);
	return { output, staticData: workflow.staticData };
}

export interface ListSearchOptions {
	credentials: LmsTestCredentials;
	/** What the person typed in the picker. */
	filter?: string;
	/** The token the previous call returned, when the person scrolled past the end. */
	paginationToken?: string;
	typeVersion?: number;
	/** The node's parameters (n8n sends the current ones along). */
	parameters?: INodeParameters;
}

/**
 * A resource locator's From List call as the n8n server makes it (DynamicNodeParametersService):
 * the node type at the node's version, its `methods.listSearch[method]` called on n8n-core's
 * LoadOptionsContext with the filter and the pagination token.
 */
export async function runListSearch(
	anyNodeType: AnyNodeType,
	method: string,
	options: ListSearchOptions,
): Promise<INodeListSearchResult> {
	const node = nodeFor(anyNodeType, options.parameters ?? {}, options.typeVersion !== undefined ? { typeVersion: options.typeVersion } : {});
	const nodeType = nodeTypeAt(anyNodeType, node.typeVersion);
	const search = nodeType.methods?.listSearch?.[method];
	if (!search) throw new Error(`${nodeType.description.name} v${node.typeVersion} has no listSearch method ${method}`);
	const workflow = new Workflow({
		id: 'test-workflow',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: nodeTypesOf({ [node.type]: anyNodeType }),
	});
	const additionalData = additionalDataFor(
		options.credentials,
		{ id: 'test-workflow', name: 'LMS list search test', nodes: [node], connections: {} } as unknown as IWorkflowBase,
		'internal',
	);
	const context = new LoadOptionsContext(workflow, node, additionalData, 'parameters');
	return await search.call(context, options.filter, options.paginationToken).finally(releaseN8nResources);
}

/**
 * The credential's declarative test as n8n's CredentialsTester (in the n8n app, not in n8n-core)
 * runs it when a credential is saved: a node whose one property routes the test request, run by
 * n8n-core's engine with real HTTP, then the rules in order. test/n8n/credentials.test.ts runs the
 * same cases through a real n8n 2.41's own tester.
 */
export async function testCredential(credentials: Record<string, unknown>): Promise<INodeCredentialTestResult> {
	const { test } = new LmsApi();
	if (!test) throw new Error('the LMS API credential has no test');
	const probe: INodeType = {
		description: {
			displayName: 'Credential test',
			name: 'credentialTest',
			group: ['transform'],
			version: 1,
			description: '',
			defaults: {},
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: 'lmsApi', required: true }],
			properties: [{ displayName: 'Temp', name: 'temp', type: 'string', default: '', routing: { request: test.request } }],
		},
	} as unknown as INodeType;
	const { items, error } = await runNode(probe, {}, { credentials: credentials as unknown as LmsTestCredentials });
	if (error) {
		// The request sets ignoreHttpStatusErrors, so only a request that got no answer fails here;
		// n8n then shows the network error's code (ECONNREFUSED, ENOTFOUND, …) or its message.
		const code = (error as { cause?: { code?: string } }).cause?.code;
		return { status: 'Error', message: code ?? error.message };
	}
	for (const rule of test.rules ?? []) {
		if (rule.type !== 'responseSuccessBody') continue;
		const { key, value, message } = rule.properties;
		// n8n's tester reads the key with lodash's get: a dotted path.
		const found = key.split('.').reduce<unknown>((node, part) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined), items[0]?.json);
		if (found === value) return { status: 'Error', message };
	}
	return { status: 'OK', message: 'Connection successful!' };
}

/**
 * The first node execution makes n8n-core start a one-minute cleanup interval (its SSH tunnel
 * manager) that would keep Jest alive after the tests. runNode, runPoll and testCredential stop
 * it after every run; call this after using n8n-core contexts directly.
 */
function releaseN8nResources(): void {
	if (Container.has(SSHClientsManager)) Container.get(SSHClientsManager).onShutdown();
}
