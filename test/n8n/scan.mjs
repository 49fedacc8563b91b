// Runs n8n's community-package scanner (@n8n/scan-community-package, the check n8n's
// verification runs) on a local folder, under Node 24: `node scan.mjs <scanner.mjs> <folder> [source]`.
// `source` lints the source layout (package.json, nodes/, credentials/) instead of a built package.
import { pathToFileURL } from 'node:url';

const [scanner, folder, mode] = process.argv.slice(2);
const { analyzePackage, SOURCE_FILE_PATTERNS } = await import(pathToFileURL(scanner).href);
const result = await analyzePackage(folder, mode === 'source' ? SOURCE_FILE_PATTERNS : undefined);
console.log(JSON.stringify({ passed: result.passed, message: result.message, details: result.details }));
