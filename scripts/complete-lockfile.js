#!/usr/bin/env node
/**
 * Adds lock entries for optional platform binaries that npm could not record.
 *
 * Packages such as @swc/core list one optional dependency per platform. npm writes each
 * into package-lock.json only if the registry serves it; a registry mirror that carries
 * this machine's platform alone leaves the others out, and then `npm ci` refuses the lock
 * on every machine. Each missing entry is added with its version, `optional: true` and the
 * os/cpu its name declares, so npm skips it where it does not apply and fetches it by
 * name and version where it does. Run after `npm install`: `npm run lock:complete`.
 */
const fs = require('node:fs');
const path = require('node:path');

const file = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const packages = lock.packages;

const OS = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openharmony', 'sunos', 'aix'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'mips64el'];

/** `@swc/core-linux-arm-gnueabihf` → {os: linux, cpu: arm, libc: glibc}. */
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => CPU.includes(p));
  if (!os || !cpu) return undefined;
  const libc = parts.some((p) => p.startsWith('musl'))
    ? 'musl'
    : os === 'linux' && parts.some((p) => p.startsWith('gnu'))
      ? 'glibc'
      : undefined;
  return { os, cpu, libc };
}

/** The entry npm itself would write, keys in npm's order so `npm install` leaves it as is. */
function entryFor(version, platform, dev) {
  return {
    version,
    cpu: [platform.cpu],
    ...(dev ? { dev: true } : {}),
    ...(platform.libc ? { libc: [platform.libc] } : {}),
    optional: true,
    os: [platform.os],
  };
}

/** Where node would find `name` from the package at `from` (nested first, then upwards). */
function resolved(from, name) {
  for (let dir = from; ;) {
    const candidate = `${dir ? `${dir}/` : ''}node_modules/${name}`;
    if (packages[candidate]) return true;
    if (!dir) return false;
    const idx = dir.lastIndexOf('/node_modules/');
    dir = idx === -1 ? '' : dir.slice(0, idx);
  }
}

let added = 0;
for (const [location, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    if (resolved(location, name)) continue;
    const platform = platformOf(name);
    if (!platform) {
      console.error(`skipped ${name}@${version}: no platform in its name`);
      continue;
    }
    packages[`node_modules/${name}`] = entryFor(version, platform, entry.dev === true);
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: added ${added} optional platform entries`);
