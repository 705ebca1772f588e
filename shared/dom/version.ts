// The walker's version: it goes into every observation and fingerprint, so bump it whenever a role, name,
// scope or path rule changes (an old fingerprint then fails loudly instead of matching by accident).
export const WALKER_VERSION = 'handrail-walker/1';
