// A self-signed certificate for 127.0.0.1, made by openssl for one test: what a TLS target needs to
// be reached by a client trusting that certificate alone (--ca) and refused by one that does not.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { collectOutput, spawnChild } from '../processes.ts';

export interface Certificate {
  key: string;
  cert: string;
  /** The PEM file of `cert`, for a client's --ca. */
  certFile: string;
}

/** Writes key.pem and cert.pem into `dir` (valid for a day) and returns them. */
export async function selfSignedCertificate(dir: string): Promise<Certificate> {
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyFile, '-out', certFile];
  const child = spawnChild('openssl', [...args, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = collectOutput(child);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`openssl failed: ${output.text()}`);
  return { key: await readFile(keyFile, 'utf8'), cert: await readFile(certFile, 'utf8'), certFile };
}
