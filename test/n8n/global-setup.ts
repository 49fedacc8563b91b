import { prepareToolchain } from './toolchain';

/**
 * Once per `npm run test:n8n`: the toolchain (installed on first use, then reused) and the
 * package tarball. Failures are loud: this suite never skips.
 */
export default async function globalSetup(): Promise<void> {
	const toolchain = await prepareToolchain();
	process.env.LMS_N8N_CACHE = toolchain.cache;
	process.env.LMS_N8N_TARBALL = toolchain.tarball;
}
