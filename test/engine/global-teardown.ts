// Removes the bundle global-setup.ts wrote.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { ENGINE_BUNDLE_ENV } from './support/engine-bundle';

export default function globalTeardown(): void {
  const file = process.env[ENGINE_BUNDLE_ENV];
  if (file) rmSync(path.dirname(file), { recursive: true, force: true });
}
