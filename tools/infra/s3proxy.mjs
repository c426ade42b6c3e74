/** S3Proxy with a filesystem backend, and the SigV4-signed requests that create its bucket. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { checkJava, classpath, ensureLibs, extraJavaOpts } from './java-libs.mjs';
import { DATA, DIRS, HOST, InfraError, LIBS, S3_READY_TIMEOUT_MS, SCRIPT_DIR } from './infra-config.mjs';
import {
  ensureDir,
  freshLog,
  indent,
  isAlive,
  ourProcess,
  portOpen,
  portTakenError,
  rel,
  removePid,
  sleep,
  spawnDetached,
  tailFile,
  writePid,
} from './process-utils.mjs';

// ---------------------------------------------------------------------------
// S3 (S3Proxy, filesystem backend)
// ---------------------------------------------------------------------------

export const S3 = {
  props: path.join(DATA, 's3proxy.properties'),
  logback: path.join(SCRIPT_DIR, 's3proxy', 'logback.xml'),
  logFile: path.join(DIRS.logs, 's3proxy.log'),
};
export const s3Markers = () => ['org.gaul.s3proxy.Main', S3.props];

export const sha256hex = (data) => crypto.createHash('sha256').update(data).digest('hex');
export const hmac = (key, data) => crypto.createHmac('sha256', key).update(data).digest();
export const rfc3986 = (s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * AWS Signature V4 headers for an S3 request (path-style).
 * Returns the headers to send (host, x-amz-date, x-amz-content-sha256, authorization, + given headers).
 * @param {{ method: string, url: string, headers?: Record<string, string>, body?: string | Buffer, region: string, accessKeyId: string, secretAccessKey: string, service?: string, now?: Date }} request
 * @returns {Record<string, string>}
 */
export function signS3Request({ method, url, headers = {}, body = '', region, accessKeyId, secretAccessKey, service = 's3', now = new Date() }) {
  const u = new URL(url);
  const amzDate = now.toISOString().replace(/[:-]|\.\d{3}/g, '');
  const dateStamp = amzDate.slice(0, 8);
  const payloadHash = sha256hex(body);
  /** @type {Record<string, string>} */
  const h = {};
  for (const [k, v] of Object.entries(headers)) h[k.toLowerCase()] = String(v);
  h.host = u.host;
  h['x-amz-date'] = amzDate;
  h['x-amz-content-sha256'] = payloadHash;
  const names = Object.keys(h).sort();
  const canonicalHeaders = names.map((k) => `${k}:${h[k].trim().replace(/\s+/g, ' ')}\n`).join('');
  const canonicalUri =
    u.pathname
      .split('/')
      .map((seg) => rfc3986(decodeURIComponent(seg)))
      .join('/') || '/';
  const canonicalQuery = [...u.searchParams]
    .map(([k, v]) => [rfc3986(k), rfc3986(v)])
    .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) : a[0] < b[0] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalRequest = [method, canonicalUri, canonicalQuery, canonicalHeaders, names.join(';'), payloadHash].join('\n');
  const scope = `${dateStamp}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256hex(canonicalRequest)].join('\n');
  let key = hmac(`AWS4${secretAccessKey}`, dateStamp);
  key = hmac(key, region);
  key = hmac(key, service);
  key = hmac(key, 'aws4_request');
  const signature = crypto.createHmac('sha256', key).update(stringToSign).digest('hex');
  h.authorization = `AWS4-HMAC-SHA256 Credential=${accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`;
  return h;
}

/** Signed S3 request against the configured endpoint. Resolves { status, headers, body } or { status: 0, error }. */
export function s3Request(s3cfg, method, pathAndQuery, { body = '', headers = {}, timeoutMs = 5000 } = {}) {
  const url = `${s3cfg.endpoint}${pathAndQuery}`;
  const payload = typeof body === 'string' ? Buffer.from(body) : body;
  const signed = signS3Request({
    method,
    url,
    body: payload,
    headers,
    region: s3cfg.region,
    accessKeyId: s3cfg.accessKeyId,
    secretAccessKey: s3cfg.secretAccessKey,
  });
  if (payload.length || method === 'PUT' || method === 'POST') signed['content-length'] = String(payload.length);
  return new Promise((resolve) => {
    const req = http.request(url, { method, headers: signed, timeout: timeoutMs }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error) => resolve({ status: 0, error }));
    req.end(payload);
  });
}

/** Lists the bucket; creates it with a signed PUT when missing. Returns { ok, created, status, detail }. */
export async function s3EnsureBucket(s3cfg, { create = true } = {}) {
  const listPath = `/${s3cfg.bucket}?list-type=2&max-keys=1`;
  let r = await s3Request(s3cfg, 'GET', listPath);
  let created = false;
  if (r.status === 404 && /NoSuchBucket/.test(r.body) && create) {
    const p = await s3Request(s3cfg, 'PUT', `/${s3cfg.bucket}`);
    if (p.status !== 200) return { ok: false, status: p.status, detail: p.error?.message || p.body.slice(0, 300) };
    created = true;
    r = await s3Request(s3cfg, 'GET', listPath);
  }
  return { ok: r.status === 200 && /ListBucketResult/.test(r.body), created, status: r.status, detail: r.error?.message || r.body.slice(0, 300) };
}

export function s3ProxyProperties(cfg) {
  return [
    '# Generated by tools/infra/infra.mjs on every start; edit the script, not this file.',
    `s3proxy.endpoint=http://${HOST}:${cfg.s3.port}`,
    's3proxy.authorization=aws-v2-or-v4',
    `s3proxy.identity=${cfg.s3.accessKeyId}`,
    `s3proxy.credential=${cfg.s3.secretAccessKey}`,
    'jclouds.provider=filesystem',
    `jclouds.filesystem.basedir=${DIRS.s3}`,
    '',
  ].join('\n');
}

export async function waitForS3(cfg, child, pid, log, t0) {
  const deadline = t0 + S3_READY_TIMEOUT_MS;
  let last = null;
  while (Date.now() < deadline) {
    if ((child && child.state.exited) || !isAlive(pid)) {
      removePid('s3proxy');
      throw new InfraError(
        `s3proxy: the process (pid ${pid}) exited during startup${child?.state.error ? ` (${child.state.error.message})` : ''}. Last lines of ${rel(S3.logFile)}:\n${indent(tailFile(S3.logFile))}`,
      );
    }
    if (await portOpen(cfg.s3.port)) {
      last = await s3EnsureBucket(cfg.s3);
      if (last.ok) return last;
      if (last.status && last.status !== 503) break; // answered, but not the way we need
    }
    await sleep(200);
  }
  throw new InfraError(
    `s3proxy: not ready after ${Math.round((Date.now() - t0) / 1000)} s` +
      (last ? ` (signed ListObjects of "${cfg.s3.bucket}" answered ${last.status}: ${last.detail})` : '') +
      `. Last lines of ${rel(S3.logFile)}:\n${indent(tailFile(S3.logFile))}`,
  );
}

export async function startS3(cfg, log) {
  const t0 = Date.now();
  const ep = cfg.s3.endpoint;
  const ours = ourProcess('s3proxy', s3Markers(), log);
  if (ours) {
    const b = await s3EnsureBucket(cfg.s3);
    if (b.ok) {
      log.info(`s3proxy   already running (pid ${ours.pid}) on ${ep}, bucket ${cfg.s3.bucket}`);
      if (b.created) log.act(`s3proxy: created bucket ${cfg.s3.bucket}`);
      return { started: false, external: false };
    }
    if (b.status === 403) {
      throw new InfraError(
        `s3proxy: our S3Proxy (pid ${ours.pid}) rejects the current S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY (HTTP 403).\n` +
          '  It was started with other credentials: run `node tools/infra/infra.mjs stop` and start again.',
      );
    }
    log.act(`s3proxy: process ${ours.pid} is running but not answering yet on ${ep}; waiting...`);
    await waitForS3(cfg, null, ours.pid, log, t0);
    return { started: false, external: false };
  }
  if (await portOpen(cfg.s3.port)) {
    const b = await s3EnsureBucket(cfg.s3);
    if (b.ok) {
      log.info(`s3proxy   using the S3 endpoint already on ${ep} (not started by infra.mjs), bucket ${cfg.s3.bucket}`);
      if (b.created) log.act(`s3: created bucket ${cfg.s3.bucket} on ${ep}`);
      return { started: false, external: true };
    }
    throw await portTakenError(
      's3proxy',
      cfg.s3.port,
      'S3_PORT',
      `and it is not an S3 endpoint that accepts our credentials (signed ListObjects of bucket "${cfg.s3.bucket}" got ${b.status ? `HTTP ${b.status}` : b.detail})`,
    );
  }

  const java = await checkJava();
  await ensureLibs(LIBS.s3proxy, log);
  // With the filesystem backend a bucket is a directory under the base dir.
  ensureDir(path.join(DIRS.s3, cfg.s3.bucket));
  fs.writeFileSync(S3.props, s3ProxyProperties(cfg), { mode: 0o600 });

  const logFile = freshLog('s3proxy');
  const args = [
    '-Xms64m',
    '-Xmx512m',
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    '-Xshare:auto',
    '-Djava.awt.headless=true',
    `-Dlogback.configurationFile=${S3.logback}`,
    ...extraJavaOpts('S3PROXY_JAVA_OPTS'),
    '-cp',
    classpath(LIBS.s3proxy),
    'org.gaul.s3proxy.Main',
    '--properties',
    S3.props,
  ];
  log.act(`s3proxy: starting on ${ep} (data ${rel(DIRS.s3)}), log ${rel(logFile)}`);
  const child = spawnDetached(java, args, logFile, DATA);
  if (!child.pid) throw new InfraError(`s3proxy: could not start ${java}`);
  writePid('s3proxy', { pid: child.pid, port: cfg.s3.port, startedAt: new Date().toISOString() });
  const b = await waitForS3(cfg, child, child.pid, log, t0);
  if (b.created) log.act(`s3proxy: created bucket ${cfg.s3.bucket}`);
  log.act(`s3proxy: ready on ${ep}, bucket ${cfg.s3.bucket} (pid ${child.pid}, ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  return { started: true, external: false };
}
