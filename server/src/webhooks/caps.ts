/**
 * The delivery worker's caps (worker.ts), in a file of their own so that the benchmarks and the
 * hand-written baseline (bench/webhook-baseline.ts) use the same numbers without loading the server.
 *
 * Fairness (issue 27, finding 4): sends stay in flight continuously, up to POOL at once, each
 * taken as a slot frees (never a batch waiting for its slowest); an organization gets at most
 * PER_ORGANIZATION of them and an endpoint PER_ENDPOINT, or SLOW_ENDPOINT once it has timed out
 * (until it answers in time again); each claim takes the organizations round-robin (every
 * organization's oldest due row before anyone's second) and, within one, its endpoints likewise.
 * So receivers that hang hold a few slots of their own organization, and another organization's
 * event is sent as soon as it is due. The caps are per instance: with receivers answering in
 * 50 ms, an organization with three endpoints can be sent 1,920 deliveries a second per instance.
 * They were 48 and 16 until issue 40: changes written at 500 deliveries a second then waited
 * 3.6 s (p50) for their turn on PostgreSQL, the sends of a busy server taking longer than their
 * 50 ms, and 8 ms with these (bench webhook-throughput, writing); another organization still
 * has POOL − PER_ORGANIZATION slots while one's receivers hang (bench webhook-fairness).
 */
export const POOL = 128;
export const PER_ORGANIZATION = 96;
export const PER_ENDPOINT = 32;
export const SLOW_ENDPOINT = 2;
