/**
 * Records the current contracts as the released baseline that `npm run contracts:breaking` compares
 * against, and stamps the changelog's `## [Unreleased]` entries with the version and date. Run it
 * deliberately when a version is published, after the gate passes; commit the result.
 *
 *   npm run contracts:release                     # version = OpenAPI info.version
 *   npm run contracts:release -- --version 1.1.0  # or name it (then set info.version to match)
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { parseChangelog, stampRelease } from './breaking/changelog.js';

const root = path.resolve(import.meta.dirname, '..');
const contracts = path.join(root, 'contracts');
const released = path.join(contracts, 'released');
const changelogFile = path.join(contracts, 'CHANGELOG.md');
const { values } = parseArgs({ options: { version: { type: 'string' }, date: { type: 'string' } } });

function fail(message: string): never {
  console.error(`\nNot released: ${message}`);
  process.exit(1);
}

const version =
  values.version ?? String(parseYaml(readFileSync(path.join(contracts, 'openapi.yaml'), 'utf8')).info.version);
const date = values.date ?? new Date().toISOString().slice(0, 10);
const changelogText = readFileSync(changelogFile, 'utf8');
const changelog = parseChangelog(changelogText);
if (!/^\d+\.\d+\.\d+$/.test(version)) fail(`"${version}" is not a version like 1.2.0.`);
if (changelog.releases.some((release) => release.version === version))
  fail(
    `contracts/CHANGELOG.md already has ${version}: raise info.version in contracts/openapi.yaml (or pass --version).`,
  );
if (changelog.unreleased.length === 0)
  fail('"## [Unreleased]" in contracts/CHANGELOG.md is empty: nothing to release.');

try {
  execFileSync('npx', ['tsx', path.join(root, 'scripts/contracts-breaking.ts')], { cwd: root, stdio: 'inherit' });
} catch {
  fail('the gate found breaking changes or could not run.');
}
writeFileSync(changelogFile, stampRelease(changelogText, version, date));
rmSync(released, { recursive: true, force: true });
mkdirSync(released, { recursive: true });
for (const file of ['openapi.yaml', 'schema.graphql', 'inventory']) {
  cpSync(path.join(contracts, file), path.join(released, file), { recursive: true });
}
writeFileSync(
  path.join(released, 'RELEASE.md'),
  `# Released contracts\n\nThe contracts as released on ${date} (version ${version}; its changes are listed in contracts/CHANGELOG.md).\n` +
    'Written by `npm run contracts:release`; the baseline of `npm run contracts:breaking`. Do not edit by hand.\n',
);
console.log(
  `\nReleased ${version}: contracts/released holds it and contracts/CHANGELOG.md is stamped ${date}. Commit both.`,
);
