// ESLint for the whole repo. The rule that matters most: code under any `core/` folder is pure —
// it may not import I/O clients, Node built-ins or telemetry SDKs (see docs/architecture.md: the layout of each service).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Modules a core/ file must never import: they do I/O, read the clock/env, or start SDKs. */
export const coreBannedImports = [
  { group: ['node:*'], message: 'core/ is pure: no Node built-ins (I/O, clock, env). Move this to an adapter.' },
  { group: ['nats', '@nats-io/*'], message: 'core/ is pure: the bus belongs in an adapter.' },
  { group: ['pg', 'pg-*', 'kysely', 'kysely/*'], message: 'core/ is pure: the database belongs in an adapter.' },
  { group: ['ioredis'], message: 'core/ is pure: Redis belongs in an adapter.' },
  { group: ['@kubernetes/client-node'], message: 'core/ is pure: the Kubernetes client belongs in an adapter.' },
  { group: ['@opentelemetry/sdk-*', 'pino', 'prom-client'], message: 'core/ is pure: telemetry belongs in the shell.' },
  {
    group: ['fs', 'net', 'http', 'https', 'child_process', 'crypto', 'os', 'dns', 'tls', 'dgram'],
    message: 'core/ is pure: no Node built-ins.',
  },
];

/** The services: processes with their own main. They never import each other; shared code lives in packages/. */
export const services = ['watcher', 'planner', 'applier', 'leader', 'console'];

/** The import ban that keeps `own` (a service, or null for a package) from reaching into another service. */
export function otherServices(own) {
  const others = services.filter((s) => s !== own);
  return {
    group: others.flatMap((s) => [`@portolan/${s}`, `@portolan/${s}/*`]),
    message: 'Services never import each other, and packages import no service: move shared code into packages/.',
  };
}

/** Import bans per workspace: services and packages (the CLI composes the services, so it may import them). */
const boundaryBlocks = (extra = [], core = false) => [
  ...services.map((s) => ({
    files: [core ? `services/${s}/**/core/**/*.ts` : `services/${s}/**/*.ts`],
    ...(core ? { ignores: ['**/*.test.ts'] } : {}),
    rules: { 'no-restricted-imports': ['error', { patterns: [...extra, otherServices(s)] }] },
  })),
  {
    files: [core ? 'packages/**/core/**/*.ts' : 'packages/**/*.ts'],
    ignores: ['packages/cli/**', ...(core ? ['**/*.test.ts'] : [])],
    rules: { 'no-restricted-imports': ['error', { patterns: [...extra, otherServices(null)] }] },
  },
];

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'proto/src/gen/**', '.portolan/**', 'bench-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: 'module',
      globals: {
        process: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        performance: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        fetch: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
        setImmediate: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': [
        'error',
        { selector: 'TSEnumDeclaration', message: 'Use a union of string literals (enums are not erasable syntax).' },
      ],
      eqeqeq: ['error', 'always'],
      // Validating user input against control characters is a legitimate use of them in patterns.
      'no-control-regex': 'off',
    },
  },
  ...boundaryBlocks(),
  {
    files: ['**/core/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: coreBannedImports }],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'core/ is pure: no env or process access.' },
        { name: 'fetch', message: 'core/ is pure: no network.' },
        { name: 'setTimeout', message: 'core/ is pure: no timers.' },
        { name: 'setInterval', message: 'core/ is pure: no timers.' },
        { name: 'performance', message: 'core/ is pure: take `now` as an argument.' },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: 'TSEnumDeclaration', message: 'Use a union of string literals (enums are not erasable syntax).' },
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'core/ is pure: take `now` as an argument.',
        },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'core/ is pure: take `now` as an argument.' },
        { object: 'Math', property: 'random', message: 'core/ is pure: no randomness.' },
      ],
    },
  },
  // In core/ folders the purity bans and the service boundary apply together (one rule, so both lists are kept).
  ...boundaryBlocks(coreBannedImports, true),
  {
    // Errors are typed: a PortolanError subclass with a stable code and the cause (packages/errors).
    files: ['**/*.ts'],
    ignores: ['**/*.test.ts', '**/testing/**', 'tests/**', '**/bench/**', '**/scripts/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'TSEnumDeclaration', message: 'Use a union of string literals (enums are not erasable syntax).' },
        {
          selector: "ThrowStatement > NewExpression[callee.name='Error']",
          message: 'Throw a PortolanError subclass (@portolan/errors) with a code and the cause.',
        },
      ],
      // A function longer than this says why in an eslint-disable comment (a table, a wire format read in order).
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: ['**/*.js'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The console's web UI: browser code in TSX (components are functions too, so the length rule covers them).
    files: ['services/console/web/**/*.{ts,tsx}'],
    languageOptions: { globals: { window: 'readonly', document: 'readonly', location: 'readonly' } },
    rules: { 'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }] },
  },
);
