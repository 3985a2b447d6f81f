import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Keys issued on a first start go to a file only the owner can read (mode 0600), never to stdout: stdout
 * is the structured log stream, which log shippers copy to places a secret must not reach. The file is
 * shell-sourceable (`. data/first-start-keys.env`); move the keys somewhere safe and delete it.
 */
export async function writeFirstStartKeys(
  file: string,
  keys: { adminKey?: string; demoCustomerKey?: string },
): Promise<boolean> {
  const lines = [
    ...(keys.adminKey ? [`ADMIN_KEY=${keys.adminKey}`] : []),
    ...(keys.demoCustomerKey ? [`DEMO_CUSTOMER_KEY=${keys.demoCustomerKey}`] : []),
  ];
  if (lines.length === 0) return false;
  await mkdir(path.dirname(file), { recursive: true });
  const header =
    '# API keys issued on the first start; only their hashes are stored. Keep them, then delete this file.';
  await writeFile(file, `${header}\n${lines.join('\n')}\n`, { mode: 0o600 });
  await chmod(file, 0o600); // the mode above applies only when the file is created
  return true;
}
