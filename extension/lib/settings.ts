// The clerk's model settings (browser.storage.local) and a session's secret values (browser.storage.session:
// memory only, gone when the browser closes, and out of content scripts' reach by default). The API key is
// read only by the worker when it calls the model; it never goes into a trace, a page or an export.
import { browser } from 'wxt/browser';
import { z } from 'zod';

export const DEFAULT_BASE_URL = 'https://api.anthropic.com';
export { DEFAULT_MODEL } from '../../shared/author/models.ts';
import { DEFAULT_MODEL } from '../../shared/author/models.ts';

export const ModelSettings = z.strictObject({
  apiKey: z.string(),
  baseURL: z.url().refine((u) => /^https?:\/\//.test(u), 'the base URL is http(s)'),
  model: z.string().min(1),
});
export type ModelSettings = z.infer<typeof ModelSettings>;

/** What the panel may know about the settings: never the key itself. */
export interface SettingsView {
  hasKey: boolean;
  baseURL: string;
  model: string;
}

const SETTINGS_KEY = 'model_settings';

export async function readSettings(): Promise<ModelSettings> {
  const got = (await browser.storage.local.get(SETTINGS_KEY))[SETTINGS_KEY];
  const r = ModelSettings.safeParse(got);
  return r.success ? r.data : { apiKey: '', baseURL: DEFAULT_BASE_URL, model: DEFAULT_MODEL };
}

/** Saves the settings; an empty key keeps the one already saved (the panel never reads it back to re-send it). */
export async function saveSettings(next: { apiKey: string; baseURL: string; model: string }): Promise<SettingsView> {
  const old = await readSettings();
  const merged = ModelSettings.parse({
    apiKey: next.apiKey.trim() || old.apiKey,
    baseURL: next.baseURL.trim() || DEFAULT_BASE_URL,
    model: next.model.trim() || DEFAULT_MODEL,
  });
  await browser.storage.local.set({ [SETTINGS_KEY]: merged });
  return viewOf(merged);
}

export function viewOf(s: ModelSettings): SettingsView {
  return { hasKey: s.apiKey !== '', baseURL: s.baseURL, model: s.model };
}

const Secrets = z.record(z.string(), z.string());
const secretsKey = (session: string): string => `secrets:${session}`;

export const vault = {
  async put(session: string, values: Record<string, string>): Promise<void> {
    await browser.storage.session.set({ [secretsKey(session)]: values });
  },
  async get(session: string): Promise<Record<string, string> | null> {
    const r = Secrets.safeParse((await browser.storage.session.get(secretsKey(session)))[secretsKey(session)]);
    return r.success ? r.data : null;
  },
  async drop(session: string): Promise<void> {
    await browser.storage.session.remove(secretsKey(session));
  },
};
export type Vault = typeof vault;
