/**
 * The four action nodes are n8n versioned nodes: version 1 exactly as it shipped (its description
 * byte for byte, recorded in fixtures/v1-descriptions.json from the last commit before versioning)
 * and version 2, the default for new nodes. Workflows saved with version 1 keep running: saved
 * version-1 nodes (fixtures/v1-nodes.json and the examples) run through n8n-core against the real
 * server and answer what the API answers.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IDataObject, INode, INodeParameters, INodeProperties, IVersionedNodeType } from 'n8n-workflow';

import { LmsCertificates } from '../../nodes/LmsCertificates/LmsCertificates.node';
import { LmsCourses } from '../../nodes/LmsCourses/LmsCourses.node';
import { LmsEnrollments } from '../../nodes/LmsEnrollments/LmsEnrollments.node';
import { LmsUsers } from '../../nodes/LmsUsers/LmsUsers.node';
import { nodeTypeAt, runNode, type AnyNodeType } from '../helpers/n8n';
import { startTestServer, type TestServer } from '../helpers/server';
import v1Descriptions from './fixtures/v1-descriptions.json';
import v1Nodes from './fixtures/v1-nodes.json';

const NODES: Record<string, IVersionedNodeType> = Object.fromEntries(
	[new LmsUsers(), new LmsCourses(), new LmsEnrollments(), new LmsCertificates()].map((type) => [
		`n8n-nodes-lms.${type.description.name}`,
		type,
	]),
);

describe('versions', () => {
	// 2.1 (n8n's light versioning): version 2 plus parameters shown from 2.1 on: LMS Users Get's If
	// No User Matches, LMS Enrollments' Due Date (Create's Additional Fields, Update's changes);
	// LMS Enrollments 2.2: a Due Date that is a date alone is the end of that day.
	const LIGHT: Record<string, number[]> = { 'n8n-nodes-lms.lmsUsers': [2.1], 'n8n-nodes-lms.lmsEnrollments': [2.1, 2.2] };

	it.each(Object.entries(NODES))('%s has versions 1 and 2 (LMS Users also 2.1, Enrollments 2.1 and 2.2), new nodes get the latest', (name, type) => {
		const light = LIGHT[name] ?? [];
		const latest = light.at(-1) ?? 2;
		expect(Object.keys(type.nodeVersions).map(Number).sort()).toEqual([1, 2, ...light]);
		expect(type.description.defaultVersion).toBe(latest);
		expect(type.currentVersion).toBe(latest);
		expect(nodeTypeAt(type, 2).description.version).toEqual(latest === 2 ? 2 : [2, ...light]);
	});

	it.each(Object.entries(NODES))('%s version 1 is described exactly as it shipped', (_name, type) => {
		const shipped = (v1Descriptions as Record<string, unknown>)[type.description.name];
		expect(JSON.parse(JSON.stringify(nodeTypeAt(type, 1).description))).toEqual(shipped);
	});

	it.each(Object.entries(NODES))('%s version 2 keeps the type name, the credential and usableAsTool', (_name, type) => {
		const v2 = nodeTypeAt(type, 2).description;
		expect(v2.name).toBe(type.description.name);
		expect(v2.usableAsTool).toBe(true);
		expect(v2.credentials).toEqual(nodeTypeAt(type, 1).description.credentials);
	});
});

describe('version 2 for AI agents', () => {
	/** Every parameter an agent may fill with $fromAI, filters and pickers included. */
	function parametersOf(properties: INodeProperties[]): INodeProperties[] {
		return properties.flatMap((property) => [
			property,
			...(property.type === 'collection' ? parametersOf((property.options ?? []) as INodeProperties[]) : []),
		]);
	}

	it.each(Object.entries(NODES))('%s: every parameter says what to fill in', (_name, type) => {
		const parameters = parametersOf(nodeTypeAt(type, 2).description.properties).filter((p) => p.name !== 'operation'); // the operation is the tool itself, each option described
		for (const parameter of parameters) {
			expect({ name: parameter.name, described: (parameter.description ?? '').length > 20 }).toEqual({ name: parameter.name, described: true });
		}
	});

	it.each(Object.entries(NODES))('%s: every operation names the key scope it needs', (_name, type) => {
		const operation = nodeTypeAt(type, 2).description.properties.find((p) => p.name === 'operation')!;
		for (const option of operation.options as Array<{ value: string; description?: string }>) {
			// n8n's lint fixes an upsert's description word for word; its Match By names the scopes.
			const described = option.value === 'upsert' ? parametersOf(nodeTypeAt(type, 2).description.properties).find((p) => p.name === 'matchBy')?.description : option.description;
			expect(described).toMatch(/Needs (read|write):(users|courses|enrollments)/);
		}
		expect(type.description.description).toMatch(/Needs a key with (read|write):/);
	});
});

describe('version-1 nodes against the real server', () => {
	const ALL_SCOPES = ['read:users', 'read:courses', 'read:enrollments', 'write:enrollments'];
	let server: TestServer;
	let apiKey: string;

	async function api(path: string): Promise<IDataObject> {
		const response = await fetch(`${server.baseUrl}/api/v1${path}`, { headers: { Authorization: `Bearer ${apiKey}` } });
		return (await response.json()) as IDataObject;
	}

	/** Every record the API lists for `path` (the filters already in it), all pages. */
	async function apiAll(path: string): Promise<IDataObject[]> {
		const records: IDataObject[] = [];
		for (let page = 1; ; page++) {
			const joiner = path.includes('?') ? '&' : '?';
			const body = await api(`${path}${joiner}per_page=100&page=${page}`);
			records.push(...(body.data as IDataObject[]));
			if ((body.data as unknown[]).length < 100) return records;
		}
	}

	const inputs: Record<string, IDataObject> = {};

	beforeAll(async () => {
		server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '100000' } });
		apiKey = (await server.createKey('acme', ALL_SCOPES, 'n8n v1 fixtures')).key;
		inputs.student = ((await api('/users?role=student&per_page=1')).data as IDataObject[])[0];
		inputs.enrollment = ((await api('/enrollments?per_page=1')).data as IDataObject[])[0];
		inputs.certificate = ((await api('/certificates?per_page=1')).data as IDataObject[])[0];
	}, 120_000);

	afterAll(async () => {
		await server?.stop();
	});

	const as = () => ({ credentials: { baseUrl: server.baseUrl, apiKey } });

	/** "GET /users?email={email}" with the input's fields filled in. */
	function expectedPath(template: string, input: IDataObject | undefined): string {
		return template.replace(/^GET /, '').replace(/\{(\w+)\}/g, (_m, field: string) => encodeURIComponent(input?.[field] as string));
	}

	it.each(v1Nodes.map((node) => [node.name, node] as const))('%s answers what the API answers', async (_name, saved) => {
		const type = NODES[saved.type] as AnyNodeType;
		const input = saved.input ? inputs[saved.input] : undefined;
		const { items, error } = await runNode(type, saved.parameters, {
			...as(),
			typeVersion: saved.typeVersion,
			items: input ? [input] : undefined,
		});
		expect(error).toBeUndefined();
		const path = expectedPath(saved.expect, input);
		const [collection, rest] = path.split('?');
		let expected: IDataObject[];
		if (/^\/\w+\/[^/]+$/.test(collection)) {
			expected = [await api(path)];
		} else {
			const limit = /per_page=(\d+)/.exec(rest ?? '')?.[1];
			expected = limit ? ((await api(path)).data as IDataObject[]) : await apiAll(path);
		}
		expect(expected.length).toBeGreaterThan(0);
		expect(items.map((item) => item.json)).toEqual(expected);
	});

	const examplesDir = join(__dirname, '..', '..', 'examples');
	/** The examples saved with version-1 action nodes (the ones from before version 2). */
	const v1Examples = readdirSync(examplesDir)
		.filter((file) => file.endsWith('.json'))
		.map((file) => [file, JSON.parse(readFileSync(join(examplesDir, file), 'utf8')) as { nodes: INode[] }] as const)
		.filter(([, workflow]) => workflow.nodes.some((node) => NODES[node.type] && node.typeVersion === 1));

	it('three examples are saved with version 1', () => {
		expect(v1Examples.map(([file]) => file).sort()).toEqual(['certificates-this-week.json', 'enroll-new-hires.json', 'new-certificate-notify.json']);
	});

	describe.each(v1Examples)(
		'examples/%s',
		(_file, workflow) => {
			const saved = workflow.nodes.filter((node) => NODES[node.type] && node.typeVersion === 1);

			it.each(saved.map((node) => [node.name, node] as const))('%s (version 1) runs against the server', async (_name, node) => {
				// The items the nodes before it give: a webhook body, a certificate, a user.
				const student = inputs.student;
				const item: IDataObject = { ...inputs.certificate, body: { email: student.email }, id: student.id };
				// Alone in the test workflow, a reference to an earlier node reads the input item instead;
				// the placeholder a user replaces gets a real course.
				const parameters = JSON.parse(
					JSON.stringify(node.parameters)
						.replace(/\$\('[^']+'\)\.item\.json/g, '$json')
						.replace('crs_REPLACE_WITH_ONBOARDING_COURSE_ID', (inputs.enrollment.course_id as string)),
				) as INodeParameters;
				const { items, error } = await runNode(NODES[node.type], parameters, { ...as(), typeVersion: 1, items: [item] });
				expect(error).toBeUndefined();
				expect(items.length).toBeGreaterThan(0);
				expect(items.every((out) => typeof out.json.id === 'string')).toBe(true);
			});
		},
	);
});
