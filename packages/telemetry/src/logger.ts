import { pino, type Logger } from 'pino';

/** Field paths whose values are secret material; pino replaces them with "[redacted]" wherever they appear. */
export const redactedPaths = [
  'password',
  '*.password',
  'passwordFile',
  'apiKey',
  '*.apiKey',
  'apikey',
  '*.apikey',
  'apipass',
  '*.apipass',
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'headers.Authorization',
  'privateKey',
  '*.privateKey',
  'privateKeyPem',
  '*.privateKeyPem',
  'private',
  '*.private',
  '*.*.private',
  'tls.key',
  'data["tls.key"]',
  '*.data["tls.key"]',
  'secret',
  '*.secret',
  'key',
  '*.key',
];

/** A JSON logger for one service: redacts secret-bearing fields; `verbose` turns on debug lines. */
export function createLogger(
  service: string,
  options: { verbose?: boolean; destination?: NodeJS.WritableStream } = {},
): Logger {
  return pino(
    {
      name: service,
      level: options.verbose === true ? 'debug' : 'info',
      redact: { paths: redactedPaths, censor: '[redacted]' },
      base: { service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    options.destination ?? process.stdout,
  );
}

export type { Logger };
