// Test support: PLUMBLINE on 127.0.0.1 for a spec file, with what its tests share beside it (support/scene.ts).
import { startBank, type Bank, type BankOptions } from '../../../demo/plumbline/server.ts';
import { appScene, splitScene, type Scene, type SceneOptions } from './scene.ts';

export type BankScene = Scene<Bank>;

/** Registers the hooks; the bank listens on a free port of 127.0.0.1 with the rest of its options as given. */
export function bankScene(o: SceneOptions & Omit<BankOptions, 'port' | 'host'> = {}, bind?: (s: BankScene) => void): BankScene {
  const [scene, bank] = splitScene(o);
  return appScene(() => startBank({ port: 0, ...bank }), scene, bind);
}
