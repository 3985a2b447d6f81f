#!/usr/bin/env node
/**
 * Completes package-lock.json with the platform-specific optional packages (other operating systems'
 * builds of buf and Biome) that this machine's npm registry does not serve. npm leaves them out of the
 * lock when it cannot fetch them, and `npm ci` then refuses the lock as out of sync. The entries added
 * here carry the platform (`os`, `cpu`, `libc`) read from the package name, so `npm ci` skips them on
 * every other platform without fetching anything. Run it after `npm install` changes the lock:
 * `npm run lockfile:complete`. Plain Node, no dependencies: it must run before anything is installed.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;
const systems = ['android', 'darwin', 'freebsd', 'linux', 'openbsd', 'sunos', 'win32', 'aix'];
const cpus = { arm64: 'arm64', x64: 'x64', armv7: 'arm', arm: 'arm', ia32: 'ia32', ppc64: 'ppc64', s390x: 's390x' };

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((part) => systems.includes(part));
  const cpu = parts.map((part) => cpus[part]).find(Boolean);
  if (!os || !cpu) return undefined;
  return { os: [os], cpu: [cpu], ...(parts.includes('musl') ? { libc: ['musl'] } : {}) };
}

const added = [];
const unknown = [];
for (const [path, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `${path ? `${path}/` : ''}node_modules/${name}`;
    const hoisted = `node_modules/${name}`;
    if (packages[key] || packages[hoisted]) continue;
    const platform = platformOf(name);
    if (!platform) {
      unknown.push(name);
      continue;
    }
    packages[hoisted] = { version, ...platform, ...(entry.dev ? { dev: true } : {}), optional: true };
    added.push(`${name}@${version}`);
  }
}
if (unknown.length > 0) {
  console.error(`optional packages missing from the lock whose platform is unknown: ${unknown.join(', ')}`);
  process.exit(1);
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
);
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length > 0 ? `added ${added.length} platform entries: ${added.join(', ')}` : 'lock is complete');
