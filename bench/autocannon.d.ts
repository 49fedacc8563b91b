/** The part of autocannon's programmatic API the benchmarks use (it ships no types). */
declare module 'autocannon' {
	interface Histogram {
		average: number;
		mean: number;
		stddev: number;
		min: number;
		max: number;
		total: number;
		p50: number;
		p90: number;
		p99: number;
	}
	interface Options {
		url: string;
		connections?: number;
		duration?: number;
		amount?: number;
		headers?: Record<string, string>;
		method?: string;
		body?: string;
		timeout?: number;
	}
	interface Result {
		requests: Histogram;
		latency: Histogram;
		throughput: Histogram;
		duration: number;
		errors: number;
		timeouts: number;
		non2xx: number;
		'2xx': number;
	}
	function autocannon(options: Options): Promise<Result>;
	export = autocannon;
}
