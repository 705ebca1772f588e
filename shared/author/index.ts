export * from './evening.ts';
export * from './guard.ts';
export * from './ports.ts';
export * from './probe.ts';
export * from './prompt.ts';
export * from './scripted.ts';
export * from './settle.ts';
