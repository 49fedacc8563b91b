import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { freePort } from '../helpers/ports';
import { n8nBin, nodeBin, toolchain } from './toolchain';

const run = promisify(execFile);

/** Node types of this package as n8n names them once it is installed as a community package. */
export const LMS = (node: string) => `n8n-nodes-lms.${node}`;

interface NodeRun {
	/** Items of the node's first output (json only). */
	items: Array<Record<string, unknown>>;
	/** Each of those items' pairedItem, as n8n recorded it. */
	paired: unknown[];
	error?: { message: string; description?: string; httpCode?: string; context?: { itemIndex?: number } };
	/** How long n8n says the node's run took (ms). */
	executionTime?: number;
}

/** `n8n execute`'s result: each node's runs by node name. */
export interface WorkflowRun {
	nodes: Record<string, NodeRun>;
	error?: { message: string; description?: string };
	/** The execution's own start and end, as n8n recorded them (ISO 8601), when it says. */
	startedAt?: string;
	stoppedAt?: string;
}

type Json = Record<string, unknown>;

/**
 * A fresh n8n user folder with this package installed from its tarball into
 * `.n8n/nodes/node_modules`, as n8n's community-package installer does, so the package loads
 * n8n's own n8n-workflow (a symlinked checkout would load its dev copy).
 */
export class N8nHome {
	private constructor(
		readonly folder: string,
		private readonly cache: string,
	) {}

	static async create(): Promise<N8nHome> {
		const { cache, tarball } = toolchain();
		const folder = mkdtempSync(join(tmpdir(), 'lms-real-n8n-'));
		const nodes = join(folder, '.n8n', 'nodes');
		mkdirSync(nodes, { recursive: true });
		writeFileSync(join(nodes, 'package.json'), JSON.stringify({ name: 'installed-nodes', private: true }));
		await run('npm', ['install', '--omit=peer', '--ignore-scripts', '--no-audit', '--no-fund', tarball], { cwd: nodes });
		return new N8nHome(folder, cache);
	}

	/** The environment of every n8n process: quiet, local, SQLite, a fixed encryption key. */
	env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
		return {
			PATH: `${nodeBin(this.cache)}:${process.env.PATH}`,
			HOME: this.folder,
			N8N_USER_FOLDER: this.folder,
			N8N_ENCRYPTION_KEY: 'lms-real-n8n-tests-0123456789abcdef',
			DB_TYPE: 'sqlite',
			// Expressions such as $now.startOf('week') then mean the same as in the tests.
			GENERIC_TIMEZONE: 'UTC',
			N8N_LOG_LEVEL: 'info',
			N8N_DIAGNOSTICS_ENABLED: 'false',
			N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
			N8N_TEMPLATES_ENABLED: 'false',
			N8N_PERSONALIZATION_ENABLED: 'false',
			N8N_HIRING_BANNER_ENABLED: 'false',
			N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
			N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'true',
			N8N_SECURE_COOKIE: 'false',
			EXTERNAL_FRONTEND_HOOKS_URLS: '',
			SCARF_ANALYTICS: 'false',
			DO_NOT_TRACK: '1',
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_HOST: '127.0.0.1',
			N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
			...extra,
		};
	}

	/**
	 * One n8n CLI command; rejects with its output when it fails, or after `timeoutMs`. Its output
	 * goes to files, not pipes: n8n ends with process.exit(), which drops what a pipe has not taken
	 * yet (the end of a large run, e.g. 10,000 items), while writes to a file are synchronous.
	 */
	async cli(args: string[], extra: Record<string, string> = {}, timeoutMs = 180_000): Promise<string> {
		const port = String(await freePort());
		const broker = String(await freePort());
		const name = join(this.folder, `cli-${process.hrtime.bigint()}`);
		const [out, err] = [`${name}.out`, `${name}.err`].map((path) => ({ path, fd: openSync(path, 'w') }));
		try {
			const child = spawn(nodeBin(this.cache) + '/node', [n8nBin(this.cache), ...args], {
				env: this.env({ N8N_PORT: port, N8N_RUNNERS_BROKER_PORT: broker, ...extra }),
				stdio: ['ignore', out.fd, err.fd],
			});
			const exit = await new Promise<number | string>((resolve, reject) => {
				const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
				child.once('error', reject);
				child.once('exit', (code, signal) => {
					clearTimeout(timer);
					resolve(code ?? String(signal));
				});
			});
			const stdout = readFileSync(out.path, 'utf8');
			if (exit !== 0) throw new Error(`n8n ${args.join(' ')} failed (exit ${exit}):\n${stdout}\n${readFileSync(err.path, 'utf8')}`);
			return stdout;
		} finally {
			for (const file of [out, err]) {
				closeSync(file.fd);
				rmSync(file.path, { force: true });
			}
		}
	}

	async importCredentials(credentials: Json[]): Promise<void> {
		await this.cli(['import:credentials', `--input=${this.file('credentials.json', credentials)}`]);
	}

	async importWorkflow(workflow: Json): Promise<void> {
		await this.cli(['import:workflow', `--input=${this.file(`${String(workflow.id)}.json`, workflow)}`]);
	}

	/** Several workflows in one `n8n import:workflow` (every n8n CLI start costs seconds). */
	async importWorkflows(workflows: Json[]): Promise<void> {
		await this.cli(['import:workflow', `--input=${this.file('workflows.json', workflows)}`]);
	}

	/**
	 * `n8n execute --rawOutput`: the run JSON follows n8n's log lines (a line `{` to the last
	 * line `}`). A workflow that fails still prints its run; n8n then exits non-zero. A run that
	 * waits out the LMS's per-IP limit (a benchmark) needs more than the default 3 minutes.
	 */
	async execute(workflowId: string, timeoutMs?: number): Promise<WorkflowRun> {
		const output = await this.cli(['execute', `--id=${workflowId}`, '--rawOutput'], {}, timeoutMs).catch((err: Error) => err.message);
		const lines = output.split('\n');
		const first = lines.indexOf('{');
		const last = lines.lastIndexOf('}');
		if (first < 0 || last < first) throw new Error(`n8n execute printed no run:\n${output}`);
		return runOf(JSON.parse(lines.slice(first, last + 1).join('\n')) as Json);
	}

	/**
	 * `n8n start` on free ports, with its owner signed in. `port` starts it again where it
	 * listened before (after a stop), so that its webhook URLs stay the same.
	 */
	async start(extra: Record<string, string> = {}, port?: number): Promise<N8nServer> {
		port ??= await freePort();
		const url = `http://127.0.0.1:${port}`;
		const child = spawn(nodeBin(this.cache) + '/node', [n8nBin(this.cache), 'start'], {
			env: this.env({
				N8N_PORT: String(port),
				N8N_RUNNERS_BROKER_PORT: String(await freePort()),
				WEBHOOK_URL: `${url}/`,
				...extra,
			}),
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		const server = new N8nServer(url, child, this.cache);
		await server.ready();
		return server;
	}

	remove(): void {
		rmSync(this.folder, { recursive: true, force: true });
	}

	private file(name: string, content: unknown): string {
		const path = join(this.folder, name);
		writeFileSync(path, JSON.stringify(content));
		return path;
	}
}

/** Each node's output from a run's resultData (the shape `n8n execute` and the REST API share). */
function runOf(run: Json): WorkflowRun {
	const resultData = ((run.data as Json | undefined)?.resultData ?? run.resultData ?? {}) as Json;
	const nodes: Record<string, NodeRun> = {};
	for (const [name, runs] of Object.entries((resultData.runData ?? {}) as Record<string, Json[]>)) {
		const last = runs[runs.length - 1];
		const main = ((last.data as Json | undefined)?.main ?? []) as Array<Array<{ json: Json; pairedItem?: unknown }> | null>;
		nodes[name] = {
			items: (main[0] ?? []).map((item) => item.json),
			paired: (main[0] ?? []).map((item) => item.pairedItem),
			error: last.error as NodeRun['error'],
			executionTime: typeof last.executionTime === 'number' ? last.executionTime : undefined,
		};
	}
	const time = (value: unknown) => (typeof value === 'string' ? value : undefined);
	return { nodes, error: resultData.error as WorkflowRun['error'], startedAt: time(run.startedAt), stoppedAt: time(run.stoppedAt) };
}

export interface Execution {
	id: string;
	status: string;
	mode: string;
	startedAt: string;
	run: WorkflowRun;
}

const OWNER = { email: 'owner@lms-tests.example', firstName: 'Test', lastName: 'Owner', password: 'Real-n8n-tests-1' };

/** A running `n8n start`, driven through its REST API as the editor drives it. */
export class N8nServer {
	private cookie = '';
	private log = '';
	private readonly exited: Promise<void>;

	constructor(
		readonly url: string,
		private readonly child: ChildProcess,
		private readonly cache: string,
	) {
		child.stdout?.on('data', (chunk: Buffer) => (this.log += chunk.toString('utf8')));
		child.stderr?.on('data', (chunk: Buffer) => (this.log += chunk.toString('utf8')));
		this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
	}

	/** The port it listens on (to start it again there). */
	get port(): number {
		return Number(new URL(this.url).port);
	}

	output(): string {
		return this.log;
	}

	async ready(timeoutMs = 120_000): Promise<void> {
		const until = Date.now() + timeoutMs;
		for (;;) {
			if (this.child.exitCode !== null) throw new Error(`n8n exited with ${this.child.exitCode}:\n${this.log}`);
			const health = await fetch(`${this.url}/healthz/readiness`).catch(() => undefined);
			if (health?.ok) break;
			if (Date.now() > until) throw new Error(`n8n was not ready within ${timeoutMs} ms:\n${this.log}`);
			await sleep(250);
		}
		let setup = await fetch(`${this.url}/rest/owner/setup`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(OWNER),
		});
		if (!setup.ok) {
			// Started again in the same user folder: the owner exists, so sign in instead.
			setup = await fetch(`${this.url}/rest/login`, {
				method: 'POST',
				headers: { 'content-type': 'application/json', 'browser-id': 'lms-real-n8n-tests' },
				body: JSON.stringify({ emailOrLdapLoginId: OWNER.email, password: OWNER.password }),
			});
		}
		if (!setup.ok) throw new Error(`owner setup and sign-in answered ${setup.status}: ${await setup.text()}`);
		this.cookie = (setup.headers.getSetCookie().find((c) => c.startsWith('n8n-auth=')) ?? '').split(';')[0];
		if (!this.cookie) throw new Error('owner setup set no n8n-auth cookie');
	}

	/** A call to n8n's REST API as the signed-in owner; answers `data` of n8n's envelope. */
	async rest<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
		const response = await fetch(`${this.url}/rest${path}`, {
			method,
			headers: { cookie: this.cookie, 'content-type': 'application/json', 'browser-id': 'lms-real-n8n-tests' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		if (!response.ok) throw new Error(`${method} /rest${path} answered ${response.status}: ${text}`);
		return (text ? (JSON.parse(text) as { data: T }).data : undefined) as T;
	}

	/** Publishes (activates) a workflow and waits until its trigger is really running. */
	async activate(workflowId: string, isActive: () => Promise<boolean>): Promise<void> {
		const workflow = await this.rest<{ versionId: string }>('GET', `/workflows/${workflowId}`);
		await this.rest('POST', `/workflows/${workflowId}/activate`, { versionId: workflow.versionId });
		await waitFor(isActive, 60_000, `workflow ${workflowId} to be active`);
	}

	/** The editor's "Execute workflow" from `trigger`: a manual run; answers its execution id. */
	async runManually(workflowId: string, trigger: string): Promise<string> {
		const result = await this.rest<{ executionId?: string }>('POST', `/workflows/${workflowId}/run`, { triggerToStartFrom: { name: trigger } });
		if (!result.executionId) throw new Error(`n8n started no execution of ${workflowId}: ${JSON.stringify(result)}`);
		return result.executionId;
	}

	async deactivate(workflowId: string): Promise<void> {
		await this.rest('POST', `/workflows/${workflowId}/deactivate`, {});
	}

	async staticData(workflowId: string): Promise<Json | undefined> {
		const workflow = await this.rest<{ staticData?: Json | null }>('GET', `/workflows/${workflowId}`);
		return workflow.staticData ?? undefined;
	}

	/** The workflow's executions, oldest first, each with its run data. */
	async executions(workflowId: string): Promise<Execution[]> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const list = await this.rest<{ results: Array<{ id: string }> }>('GET', `/executions?filter=${filter}`);
		const executions: Execution[] = [];
		for (const { id } of list.results) {
			const execution = await this.rest<Json & { data: string }>('GET', `/executions/${id}`);
			const { parse } = createRequire(join(this.cache, 'n8n', 'node_modules', 'n8n', 'package.json'))('flatted') as {
				parse: (text: string) => Json;
			};
			executions.push({
				id,
				status: String(execution.status),
				mode: String(execution.mode),
				startedAt: String(execution.startedAt),
				run: runOf({ data: parse(execution.data) }),
			});
		}
		return executions.sort((a, b) => Number(a.id) - Number(b.id));
	}

	/**
	 * The workflow's executions once at least `count` of them have finished: n8n lists an
	 * execution as soon as it starts, still without its run data.
	 */
	async finishedExecutions(workflowId: string, count: number, timeoutMs: number, what: string): Promise<Execution[]> {
		let executions: Execution[] = [];
		await waitFor(
			async () => {
				executions = await this.executions(workflowId);
				return executions.length >= count && executions.every((execution) => !['new', 'running'].includes(execution.status));
			},
			timeoutMs,
			what,
		);
		return executions;
	}

	/** POST /rest/credentials/test, as the editor's "Retry"/"Save" does. */
	async testCredential(type: string, data: Json): Promise<{ status: string; message: string }> {
		return await this.rest('POST', '/credentials/test', { credentials: { id: '', name: 'LMS test', type, data } });
	}

	async stop(): Promise<void> {
		if (this.child.exitCode === null) {
			this.child.kill('SIGTERM');
			const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
			await this.exited;
			clearTimeout(timer);
		}
	}
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it is true; every wait in this suite is bounded. */
export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
	const until = Date.now() + timeoutMs;
	while (!(await check())) {
		if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
		await sleep(100);
	}
}

/**
 * A workflow file of test/n8n/workflows with its `@@NAME@@` placeholders filled in (a
 * placeholder that fills a whole string may become a number or boolean).
 */
export function workflowFrom(name: string, values: Record<string, string | number | boolean>): Json {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const template = JSON.stringify(require(`./workflows/${name}.json`));
	const filled = template.replace(/"@@(\w+)@@"|@@(\w+)@@/g, (_whole, quoted?: string, inner?: string) => {
		const key = (quoted ?? inner)!;
		if (!(key in values)) throw new Error(`workflow ${name}: no value for @@${key}@@`);
		return quoted ? JSON.stringify(values[key]) : String(values[key]);
	});
	return JSON.parse(filled) as Json;
}
