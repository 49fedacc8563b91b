import { scryptSync, type ScryptOptions } from 'node:crypto';
import { parentPort } from 'node:worker_threads';

/**
 * The body of a password-hashing worker thread (started by password.ts): synchronous scrypt, one
 * hash at a time, on a thread of its own rather than on libuv's pool.
 */

export interface HashRequest {
	id: number;
	password: string;
	salt: Uint8Array;
	keyLength: number;
	params: ScryptOptions;
}

/** The key, or why there is none. */
export interface HashReply {
	id: number;
	key?: Uint8Array;
	error?: string;
}

const port = parentPort;
port?.on('message', ({ id, password, salt, keyLength, params }: HashRequest) => {
	let reply: HashReply;
	try {
		reply = { id, key: scryptSync(password, salt, keyLength, params) };
	} catch (err) {
		reply = { id, error: err instanceof Error ? err.message : String(err) };
	}
	port.postMessage(reply);
});
