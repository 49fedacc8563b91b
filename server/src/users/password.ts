import { availableParallelism } from 'node:os';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

import type { HashReply, HashRequest } from './password-worker';

/**
 * scrypt with N = 2^17, r = 8, p = 1 (OWASP's password storage cheat sheet): about 0.3 s and
 * 128 MiB per hash here. Hashes are self-describing (`scrypt$N$r$p$salt$hash`), so older, cheaper
 * ones still verify and are upgraded at the next successful sign-in (needsRehash).
 */
const PARAMS = { N: 2 ** 17, r: 8, p: 1 } as const;
const KEY_LENGTH = 64;
/** A stored hash asking for more than this is refused rather than allowed to take the memory. */
const MAX_N = 2 ** 20;

interface ScryptParams {
	N: number;
	r: number;
	p: number;
}

/**
 * Hashing runs on worker threads of its own, never on libuv's thread pool: `crypto.scrypt` would
 * take pool threads that the SQLite driver (and DNS, and fs) need, and a storm of sign-ins would
 * then stall every API request behind it. One worker per spare core (one here, two at most)
 * runs synchronous scrypt (password-worker.ts), one hash at a time; further hashes wait in the
 * worker's queue, so sign-ins slow down under a storm while the API does not.
 *
 * The worker is the compiled module beside this one. When this module runs from its TypeScript
 * source (the tests, through ts-jest), that is the build's copy: Node 20 runs no TypeScript.
 */
const WORKER_FILE = __filename.endsWith('.ts')
	? join(__dirname, '..', '..', 'dist', 'users', 'password-worker.js')
	: join(__dirname, 'password-worker.js');

interface Job {
	resolve(key: Buffer): void;
	reject(err: Error): void;
}

/** An idle worker is stopped after this long (a CLI command or a quiet server needs none). */
const IDLE_MS = 30_000;

class HashWorker {
	private worker: Worker | undefined;
	private readonly jobs = new Map<number, Job>();
	private nextId = 1;
	private idleTimer: NodeJS.Timeout | undefined;

	get pending(): number {
		return this.jobs.size;
	}

	run(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
		const worker = this.start();
		clearTimeout(this.idleTimer);
		const id = this.nextId++;
		return new Promise<Buffer>((resolve, reject) => {
			this.jobs.set(id, { resolve, reject });
			// Keeps the process alive only while a hash is owed (a CLI command awaits it).
			worker.ref();
			const request: HashRequest = {
				id,
				password,
				salt,
				keyLength: KEY_LENGTH,
				params: { ...params, maxmem: 128 * params.N * params.r * 2 },
			};
			worker.postMessage(request);
		});
	}

	private idle(worker: Worker): void {
		worker.unref();
		this.idleTimer = setTimeout(() => {
			if (this.worker === worker && this.jobs.size === 0) {
				this.worker = undefined;
				void worker.terminate();
			}
		}, IDLE_MS).unref();
	}

	private start(): Worker {
		if (this.worker) return this.worker;
		const worker = new Worker(WORKER_FILE);
		worker.on('message', ({ id, key, error }: HashReply) => {
			const job = this.jobs.get(id);
			this.jobs.delete(id);
			if (this.jobs.size === 0) this.idle(worker);
			if (!job) return;
			if (key) job.resolve(Buffer.from(key));
			else job.reject(new Error(`password hashing failed: ${error}`));
		});
		const fail = (err: Error) => {
			// A worker stopped for idleness is no longer current, and its successor's jobs are not its own.
			if (this.worker !== worker) return;
			this.worker = undefined;
			for (const job of this.jobs.values()) job.reject(err);
			this.jobs.clear();
		};
		worker.on('error', fail);
		worker.on('exit', (code) => fail(new Error(`password hashing worker stopped (exit ${code})`)));
		worker.unref();
		this.worker = worker;
		return worker;
	}
}

const WORKERS = Array.from({ length: Math.max(1, Math.min(2, availableParallelism() - 1)) }, () => new HashWorker());

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
	const worker = WORKERS.reduce((least, w) => (w.pending < least.pending ? w : least));
	return worker.run(password.normalize('NFKC'), salt, params);
}

/** `scrypt$N$r$p$salt$hash`, self-describing so the cost can be raised later. */
export async function hashPassword(password: string): Promise<string> {
	const salt = randomBytes(16);
	const key = await derive(password, salt, PARAMS);
	return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

function parse(stored: string | null): { params: ScryptParams; salt: Buffer; hash: Buffer } | undefined {
	const parts = stored?.split('$') ?? [];
	if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
	const [N, r, p] = parts.slice(1, 4).map(Number);
	if (![N, r, p].every(Number.isInteger) || N < 2 || N > MAX_N || r < 1 || r > 32 || p < 1 || p > 16) return undefined;
	return { params: { N, r, p }, salt: Buffer.from(parts[4], 'base64'), hash: Buffer.from(parts[5], 'base64') };
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
	const parsed = parse(stored);
	// Without a usable stored hash, still spend the same time, so a sign-in does not reveal which
	// emails have accounts.
	if (!parsed) {
		await derive(password, randomBytes(16), PARAMS);
		return false;
	}
	const actual = await derive(password, parsed.salt, parsed.params);
	return actual.length === parsed.hash.length && timingSafeEqual(actual, parsed.hash);
}

/** True for a hash made with weaker parameters than today's: rehash it once the password is known. */
export function needsRehash(stored: string | null): boolean {
	const parsed = parse(stored);
	return parsed !== undefined && (parsed.params.N < PARAMS.N || parsed.params.r < PARAMS.r || parsed.params.p < PARAMS.p);
}
