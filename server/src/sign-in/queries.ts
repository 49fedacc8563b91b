/** Waits for, then holds until the transaction ends, PostgreSQL's advisory lock on the key $1 (a throttle's account, IP or device). */
export const LOCK_KEY = 'SELECT pg_advisory_xact_lock(hashtext($1))';
