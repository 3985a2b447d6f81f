/**
 * Records the current contracts as the released baseline that `npm run contracts:breaking` compares
 * against. Run it deliberately when a version is published, after the gate passes; commit the result.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';

const root = path.resolve(import.meta.dirname, '..');
const contracts = path.join(root, 'contracts');
const released = path.join(contracts, 'released');

try {
  execFileSync('npx', ['tsx', path.join(root, 'scripts/contracts-breaking.ts')], { cwd: root, stdio: 'inherit' });
} catch {
  console.error('\nNot released: the gate found breaking changes or could not run.');
  process.exit(1);
}
rmSync(released, { recursive: true, force: true });
mkdirSync(released, { recursive: true });
for (const file of ['openapi.yaml', 'schema.graphql', 'inventory']) {
  cpSync(path.join(contracts, file), path.join(released, file), { recursive: true });
}
const version = parseYaml(readFileSync(path.join(contracts, 'openapi.yaml'), 'utf8')).info.version;
writeFileSync(
  path.join(released, 'RELEASE.md'),
  `# Released contracts\n\nThe contracts as released on ${new Date().toISOString().slice(0, 10)} (OpenAPI \`info.version\` ${version}).\n` +
    'Written by `npm run contracts:release`; the baseline of `npm run contracts:breaking`. Do not edit by hand.\n',
);
console.log(`\nReleased: contracts/released now holds version ${version}. Commit it.`);
