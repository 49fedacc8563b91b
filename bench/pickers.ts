/**
 * The n8n pickers (issue 29) on one organization of 1,000,000 users with one enrollment each
 * (20 courses of 50,000), one user in 1,000 an instructor, on SQLite and PostgreSQL: the request
 * the Enrollment picker sends (`sort=-created_at&expand=student,course&per_page=50`), with and
 * without a search, and those of the Users and Students pickers (`role=student`). Target: a
 * picker search within 50 ms (p50), a short prefix matching 1 % of the users included. Same data
 * generator, timing and medians as bench/search.ts.
 */
import { loadPostgres, loadSqlite } from './bulk-load';
import { fmt, heading, settings, table, tempPostgres, tempSqlite } from './lib';
import { prepare, serveAndMeasure, type Probe } from './search';

const USERS = Number(process.env.BENCH_PICKERS_USERS ?? 1_000_000);
const TARGET_MS = 50;
const PICKER = '/api/v1/enrollments?sort=-created_at&expand=student,course&per_page=50';

const PROBES: Probe[] = [
	{ name: 'enrollments picker, no search (baseline)', path: PICKER },
	{ name: 'search=user12345 (e-mail prefix, 11 students)', path: `${PICKER}&search=user12345`, target: TARGET_MS },
	{ name: 'search=42 (short prefix, 11,111 students = 1.1 %)', path: `${PICKER}&search=42`, target: TARGET_MS },
	{ name: 'search=zzz (no match)', path: `${PICKER}&search=zzz`, target: TARGET_MS },
	{ name: 'search=course 7 (one course, 50,000 enrollments)', path: `${PICKER}&search=course%207`, target: TARGET_MS },
	{ name: 'users picker: search=42 (11,111 users)', path: '/api/v1/users?search=42&per_page=50', target: TARGET_MS },
	{ name: 'students picker: search=42&role=student (11,100)', path: '/api/v1/users?search=42&role=student&per_page=50', target: TARGET_MS },
	{ name: 'students picker: search=user12345&role=student (11)', path: '/api/v1/users?search=user12345&role=student&per_page=50', target: TARGET_MS },
];

async function run(kind: 'sqlite' | 'postgres'): Promise<Map<string, number>> {
	const sqlite = kind === 'sqlite' ? tempSqlite() : undefined;
	const db = sqlite ?? (await tempPostgres());
	try {
		const { organizationId, key } = await prepare(db.databaseUrl, 'read:users,read:enrollments');
		const plan = { organizationId, users: USERS, enrollments: USERS, searchWords: true, instructorsEvery: 1_000 };
		if (sqlite) await loadSqlite(sqlite.file, plan);
		else await loadPostgres(db.databaseUrl, plan);
		return await serveAndMeasure(db.databaseUrl, key, PROBES);
	} finally {
		await db.remove();
	}
}

export async function pickersBench(): Promise<void> {
	heading(`Pickers: ${USERS.toLocaleString('en-US')} users and enrollments in one organization`);
	console.log(`p50 of sequential requests, median of ${settings.runs} runs; target: a picker search within ${TARGET_MS} ms\n`);
	const only = process.env.BENCH_PICKERS_DIALECT?.toLowerCase();
	const results: Array<[string, Map<string, number>]> = [];
	for (const [dialect, kind] of [['SQLite', 'sqlite'], ['PostgreSQL', 'postgres']] as const) {
		if (only && !dialect.toLowerCase().startsWith(only)) continue;
		console.log(`${dialect}:`);
		results.push([dialect, await run(kind)]);
	}
	const rows = PROBES.map((probe) => [
		probe.name,
		...results.flatMap(([, values]) => {
			const value = values.get(probe.name)!;
			const verdict = probe.target === undefined ? '' : value <= probe.target ? `met (≤ ${probe.target})` : `missed (> ${probe.target})`;
			return [fmt.ms(value), verdict];
		}),
	]);
	console.log('');
	console.log(table(['request', ...results.flatMap(([d]) => [`${d} p50 ms`, 'target'])], rows));
}
