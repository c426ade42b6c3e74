/** Java and the Maven Central jars Kafka and S3Proxy run from, resolved once per pom. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DIRS, InfraError } from './infra-config.mjs';
import { ensureDir, indent, readText, rel, run } from './process-utils.mjs';

// ---------------------------------------------------------------------------
// Java / Maven
// ---------------------------------------------------------------------------

/** @type {string | null} */
export let javaChecked = null;

export function javaBin() {
  return process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
}

export async function checkJava() {
  if (javaChecked) return javaChecked;
  const bin = javaBin();
  const r = await run(bin, ['-version'], { timeoutMs: 30_000 });
  if (r.error) {
    throw new InfraError(
      `Java was not found (tried "${bin}"). Kafka 4 and S3Proxy need Java 17 or newer.\n` +
        '  Debian/Ubuntu: apt-get install -y openjdk-17-jre-headless   (or set JAVA_HOME)',
    );
  }
  const out = r.stderr + r.stdout;
  const m = out.match(/version "(\d+)(?:\.(\d+))?/);
  const major = m ? (m[1] === '1' ? Number(m[2]) : Number(m[1])) : NaN;
  if (!(major >= 17)) {
    throw new InfraError(
      `Java 17 or newer is required, but "${bin} -version" reports:\n${indent(out.trim())}\n` +
        '  Install openjdk-17-jre-headless (or newer) or point JAVA_HOME at a JDK 17+.',
    );
  }
  javaChecked = bin;
  return bin;
}

export function pomHash(pom) {
  return crypto.createHash('sha256').update(fs.readFileSync(pom)).digest('hex');
}

export function libsComplete(lib) {
  const marker = readText(path.join(lib.dir, '.complete'));
  return marker != null && marker.trim() === pomHash(lib.pom);
}

/** Downloads the jars listed in lib.pom into lib.dir, unless already there. */
export async function ensureLibs(lib, log) {
  if (libsComplete(lib)) return false;
  const mvnVersion = await run('mvn', ['-v'], { timeoutMs: 60_000 });
  if (mvnVersion.error) {
    throw new InfraError(
      `${lib.label} jars are not in ${rel(lib.dir)} yet and Maven ("mvn") was not found to download them.\n` + '  Debian/Ubuntu: apt-get install -y maven',
    );
  }
  log.act(`${lib.label}: downloading jars from Maven Central into ${rel(lib.dir)} (first run only)...`);
  const t0 = Date.now();
  const tmp = `${lib.dir}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  ensureDir(DIRS.cache);
  const r = await run(
    'mvn',
    ['-q', '-B', '-Dstyle.color=never', '-f', lib.pom, 'dependency:copy-dependencies', `-DoutputDirectory=${tmp}`, '-DincludeScope=runtime'],
    { cwd: path.dirname(lib.pom), timeoutMs: 15 * 60_000 },
  );
  const jars = fs.existsSync(tmp) ? fs.readdirSync(tmp).filter((f) => f.endsWith('.jar')) : [];
  if (r.code !== 0 || jars.length === 0) {
    fs.rmSync(tmp, { recursive: true, force: true });
    const tail = `${r.stdout}\n${r.stderr}`
      .replace(/\x1b\[[0-9;]*m/g, '')
      .split('\n')
      .filter((l) => l.trim() && l.trim() !== '[ERROR]')
      .slice(-25)
      .join('\n');
    throw new InfraError(
      `Maven could not download the ${lib.label} jars (mvn exit ${r.code ?? r.signal}).\n` +
        `${indent(tail || '(no output)')}\n` +
        '  Maven Central (https://repo.maven.apache.org/maven2) must be reachable from this machine\n' +
        '  (check network/proxy settings in ~/.m2/settings.xml), then run the command again.',
    );
  }
  fs.writeFileSync(path.join(tmp, '.complete'), `${pomHash(lib.pom)}\n`);
  fs.rmSync(lib.dir, { recursive: true, force: true });
  fs.renameSync(tmp, lib.dir);
  log.act(`${lib.label}: ${jars.length} jars downloaded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return true;
}

/** Extra JVM flags from the environment (later flags override earlier ones, e.g. -Xmx2g). */
export function extraJavaOpts(envName) {
  return (process.env[envName] || '').split(/\s+/).filter(Boolean);
}

export function classpath(lib) {
  return `${lib.dir}${path.sep}*`;
}
