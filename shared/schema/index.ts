export * from './blanks.ts';
export * from './canonical.ts';
export * from './capability.ts';
export * from './load.ts';
export * from './observation.ts';
export * from './result.ts';
export * from './trace.ts';
