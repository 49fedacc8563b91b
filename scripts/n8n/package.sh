#!/usr/bin/env bash
# The package as n8n's own tooling builds it: `n8n-node build` and `n8n-node lint` (@n8n/node-cli,
# on Node 24) in a staging folder that holds only what the package is made of, compiled against
# the n8n-workflow of n8n 2.41, then `npm pack`. The tarball is what test:n8n installs into n8n and
# what publish.yml publishes.
#
# Why a staging folder: node-cli's default eslint.config.mjs lints every **/*.ts under the folder
# it runs in, and in strict mode `n8n-node lint` refuses a changed config; the repository's root
# also holds the server, its tests and benchmarks, which are not part of the package.
#
# Prints the tarball's path on its last line.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
CACHE=$(bash scripts/n8n/install.sh --tools | tail -1)
TOOLS=$CACHE/tools/node_modules
STAGE=$ROOT/.n8n-package

rm -rf "$STAGE"
mkdir -p "$STAGE" "$ROOT/artifacts"
cp -R credentials nodes icons README.md LICENSE CHANGELOG.md "$STAGE/"
# The published package.json: the repository's, less what only the repository needs (its server
# workspace, its dev tools) and with node-cli's scripts.
node -e '
const pkg = require(process.argv[1]);
delete pkg.workspaces;
delete pkg.devDependencies;
pkg.scripts = { build: "n8n-node build", lint: "n8n-node lint" };
require("fs").writeFileSync(process.argv[2], JSON.stringify(pkg, null, 2) + "\n");
' "$ROOT/package.json" "$STAGE/package.json"
# node-cli's default lint configuration, unchanged (strict mode checks it), and the compiler
# settings of node-cli's templates, but ES2022 (as the Node 20 build) and no declarations: n8n's
# scanner lints every credentials/**/*.ts in the tarball, and a LmsApi.credentials.d.ts breaks its
# file-name rule (n8n loads the .js; nobody imports the package's types).
cp "$TOOLS/@n8n/node-cli/dist/template/templates/shared/default/eslint.config.mjs" "$STAGE/"
cat > "$STAGE/tsconfig.json" <<'EOF'
{
	"compilerOptions": {
		"strict": true,
		"module": "commonjs",
		"moduleResolution": "node",
		"target": "es2022",
		"lib": ["es2022"],
		"removeComments": true,
		"forceConsistentCasingInFileNames": true,
		"noImplicitAny": true,
		"noImplicitReturns": true,
		"noUnusedLocals": true,
		"strictNullChecks": true,
		"preserveConstEnums": true,
		"esModuleInterop": true,
		"resolveJsonModule": true,
		"incremental": false,
		"declaration": false,
		"sourceMap": false,
		"skipLibCheck": true,
		"useDefineForClassFields": false,
		"outDir": "./dist/"
	},
	"include": ["credentials/**/*", "nodes/**/*", "nodes/**/*.json"]
}
EOF
ln -s "$TOOLS" "$STAGE/node_modules"

export PATH=$CACHE/node/current/bin:$TOOLS/.bin:$PATH
# eslint-plugin-n8n-nodes-base checks made-up file names when NODE_ENV=test (its own test mode),
# which jest sets for the real-n8n suite that calls this script.
unset NODE_ENV
cd "$STAGE"
n8n-node build >&2
n8n-node lint >&2
# tsc copies the codex files (*.node.json) it includes; node-cli copies the icons.
for codex in $(cd "$ROOT" && ls nodes/*/*.node.json); do
  [ -f "dist/$codex" ] || { echo "the staged build lacks dist/$codex" >&2; exit 1; }
done
rm -f "$ROOT"/artifacts/n8n-nodes-lms-*.tgz
tarball=$(npm pack --silent --pack-destination "$ROOT/artifacts" | tail -1)
echo "$ROOT/artifacts/$tarball"
