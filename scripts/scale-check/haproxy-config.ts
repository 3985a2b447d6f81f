import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The HAProxy configuration the deploy files ship (deploy/compose.yaml mounts it). */
export const DEPLOY_HAPROXY_CFG = path.resolve(import.meta.dirname, '../../deploy/haproxy/haproxy.cfg');

/** Where the local topology listens: HAProxy's two frontends and each instance's two ports. */
export interface LocalTopology {
  httpPort: number;
  grpcPort: number;
  instances: Array<{ name: string; httpPort: number; grpcPort: number }>;
}

/** The response header that names the instance that answered (the scale check's own addition). */
export const SERVED_BY = 'x-served-by';

/**
 * The deploy configuration with only its addresses replaced for one machine: the frontends on loopback
 * ports, each `server appN` on its instance's ports. Every replacement must match, so a deploy file that
 * drifts from this shape stops the scale check instead of silently testing something else. The only
 * addition names the answering instance in a response header of both frontends, for the check's accounting.
 */
export function localHaproxyConfig(topology: LocalTopology, template = readFileSync(DEPLOY_HAPROXY_CFG, 'utf8')) {
  let config = template;
  const replace = (pattern: RegExp, replacement: string) => {
    if (!pattern.test(config)) throw new Error(`deploy/haproxy/haproxy.cfg no longer matches ${pattern}`);
    config = config.replace(pattern, replacement);
  };
  replace(/^(\s*)bind :8080$/m, `$1bind 127.0.0.1:${topology.httpPort}`);
  replace(/^(\s*)bind :50051 proto h2$/m, `$1bind 127.0.0.1:${topology.grpcPort} proto h2`);
  replace(/^(frontend public\n)/m, `$1  http-after-response set-header ${SERVED_BY} %[srv_name]\n`);
  replace(/^(frontend internal_grpc\n)/m, `$1  http-after-response set-header ${SERVED_BY} %[srv_name]\n`);
  for (const { name, httpPort, grpcPort } of topology.instances) {
    replace(new RegExp(`^(\\s*server ${name}) ${name}:8080 `, 'm'), `$1 127.0.0.1:${httpPort} `);
    replace(
      new RegExp(`^(\\s*server ${name}) ${name}:50051 proto h2 check port 8080 `, 'm'),
      `$1 127.0.0.1:${grpcPort} proto h2 check port ${httpPort} `,
    );
  }
  return config;
}
