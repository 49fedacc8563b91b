/**
 * What every benchmark shares: machine facts, the real server as a child process (so the load
 * generator never shares its event loop), the CLI, autocannon runs, medians and tables.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { cpus, platform, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';

import autocannon from 'autocannon';
import { Client } from 'pg';

import { freePort } from '../test/helpers/ports';

/** The repository root (this file runs from bench/dist/bench/). */
export const ROOT = join(__dirname, '..', '..', '..');
const BIN = join(ROOT, 'server', 'bin', 'lms-server.js');

export function machineInfo(): string {
	const cpu = cpus();
	return [
		`CPU: ${cpu[0]?.model ?? 'unknown'} × ${cpu.length} cores`,
		`memory: ${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
		`OS: ${platform()} ${release()}`,
		`node: ${process.version}`,
	].join(' | ');
}

export function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A markdown table, so the output pastes straight into docs/benchmarks.md. */
export function table(headers: string[], rows: Array<Array<string | number>>): string {
	const line = (cells: Array<string | number>) => `| ${cells.join(' | ')} |`;
	return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

export function heading(title: string): void {
	console.log(`\n## ${title}\n`);
	console.log(machineInfo());
	console.log('');
}

export interface ChildServer {
	baseUrl: string;
	pid: number;
	/** Resident set size of the server process, in bytes (Linux /proc). */
	rss(): number;
	/** CPU time the server process has used so far, all its threads, in seconds (Linux /proc). */
	cpuSeconds(): number;
	stop(): Promise<void>;
}

async function waitUntilUp(baseUrl: string, child: ChildProcess, logFile: string): Promise<void> {
	const deadline = Date.now() + 60_000;
	while (Date.now() < deadline) {
		if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${readFileSync(logFile, 'utf8').slice(-2000)}`);
		try {
			if ((await fetch(`${baseUrl}/healthz`)).ok) return;
		} catch {
			// not listening yet
		}
		await sleep(50);
	}
	throw new Error(`server did not come up: ${readFileSync(logFile, 'utf8').slice(-2000)}`);
}

/** Starts a node script as a server on a free port; its output goes to a file, not through us. */
export async function spawnServer(args: string[], env: Record<string, string>): Promise<ChildServer> {
	const port = await freePort();
	const dir = mkdtempSync(join(process.env.BENCH_CPU_PROF ?? tmpdir(), 'lms-bench-log-'));
	const logFile = join(dir, 'server.log');
	const fd = openSync(logFile, 'a');
	// BENCH_CPU_PROF=dir: each server writes a V8 CPU profile there when it stops (node --cpu-prof).
	const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
	const child = spawn(process.execPath, [...profile, ...args], {
		env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), ...env },
		stdio: ['ignore', fd, fd],
	});
	closeSync(fd);
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	const baseUrl = `http://127.0.0.1:${port}`;
	await waitUntilUp(baseUrl, child, logFile);
	return {
		baseUrl,
		pid: child.pid!,
		rss() {
			const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]);
			return kb * 1024;
		},
		cpuSeconds() {
			// utime and stime, the 14th and 15th fields; the name before them may hold spaces.
			const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
			return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
		},
		async stop() {
			if (child.exitCode === null) {
				child.kill('SIGTERM');
				const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
				await exited;
				clearTimeout(timer);
			}
			// Kept beside the profile when profiling, to see what the server logged.
			if (!process.env.BENCH_CPU_PROF) rmSync(dir, { recursive: true, force: true });
		},
	};
}

/** `lms-server start [args]`, as an operator runs it (`--no-migrate` for a second instance). */
export function startLms(env: Record<string, string>, args: string[] = []): Promise<ChildServer> {
	return spawnServer([BIN, 'start', ...args], env);
}

/** `lms-server …`; resolves with stdout, rejects with stderr. */
export function lmsCli(args: string[], env: Record<string, string>): Promise<string> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
		child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
		child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`lms-server ${args.join(' ')}: ${stderr}`))));
	});
}

/** A demo database (seed --demo) and an all-scope key for acme. */
export async function demoDatabase(databaseUrl: string): Promise<string> {
	await lmsCli(['seed', '--demo', '--json'], { DATABASE_URL: databaseUrl });
	const out = await lmsCli(
		['keys', 'create', '--org', 'acme', '--label', 'bench', '--scopes', 'read:users,read:courses,read:enrollments,write:enrollments', '--json'],
		{ DATABASE_URL: databaseUrl },
	);
	return (JSON.parse(out) as { key: string }).key;
}

/** The unit of /proc's CPU times (USER_HZ), 100 on every Linux this runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

export interface LoadResult {
	/** Requests answered in the run. */
	requests: number;
	rps: number;
	p50: number;
	p99: number;
	non2xx: number;
	errors: number;
}

/** One autocannon run: requests per second over the whole run, latency percentiles in ms. */
export async function load(url: string, connections: number, seconds: number, headers: Record<string, string> = {}): Promise<LoadResult> {
	const result = await autocannon({ url, connections, duration: seconds, headers, timeout: 30 });
	return {
		requests: result.requests.total,
		rps: result.requests.total / result.duration,
		p50: result.latency.p50,
		p99: result.latency.p99,
		non2xx: result.non2xx,
		errors: result.errors + result.timeouts,
	};
}

/** A temporary directory for a benchmark's SQLite file; removed by the returned function. */
export function tempSqlite(): { databaseUrl: string; file: string; remove(): Promise<void> } {
	const dir = mkdtempSync(join(tmpdir(), 'lms-bench-'));
	const file = join(dir, 'lms.sqlite');
	return { databaseUrl: `sqlite:${file}`, file, remove: async () => rmSync(dir, { recursive: true, force: true }) };
}

/** A fresh PostgreSQL database for one benchmark; dropped by the returned function. */
export async function tempPostgres(): Promise<{ databaseUrl: string; remove(): Promise<void> }> {
	const name = `lms_bench_${Date.now()}_${process.pid}`;
	const admin = async <T>(work: (client: Client) => Promise<T>) => {
		const client = new Client({ connectionString: `${settings.postgresUrl}test` });
		await client.connect();
		try {
			return await work(client);
		} finally {
			await client.end();
		}
	};
	await admin((c) => c.query(`CREATE DATABASE "${name}"`));
	return {
		databaseUrl: `${settings.postgresUrl}${name}`,
		remove: () => admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
	};
}

export const fmt = {
	ms: (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)),
	/** autocannon records latency in whole milliseconds. */
	wholeMs: (v: number) => (v < 1 ? '< 1' : v.toFixed(0)),
	int: (v: number) => Math.round(v).toLocaleString('en-US'),
	ratio: (v: number) => v.toFixed(2),
	mb: (bytes: number) => (bytes / 2 ** 20).toFixed(1),
};

/** Environment knobs shared by all benchmarks (see docs/benchmarks.md). */
export const settings = {
	runs: Number(process.env.BENCH_RUNS ?? 5),
	seconds: Number(process.env.BENCH_SECONDS ?? 5),
	postgresUrl: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/',
};

/** Requests one at a time until stopped; each latency with the time it started (the API's p50 while a background job runs). */
export function apiSampler(url: string, key: string): { stop(): Promise<Array<{ at: number; ms: number }>> } {
	const samples: Array<{ at: number; ms: number }> = [];
	let running = true;
	const loop = (async () => {
		while (running) {
			const at = Date.now();
			const started = performance.now();
			const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
			await res.arrayBuffer();
			if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
			samples.push({ at, ms: performance.now() - started });
		}
	})();
	return {
		async stop() {
			running = false;
			await loop;
			return samples;
		},
	};
}
