const subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Why a name is not a valid RFC 1123 subdomain (most object names), or null when it is. */
export function checkSubdomainName(name: string): string | null {
  if (name.length > 253) return 'must be no more than 253 characters';
  if (!subdomain.test(name)) {
    return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
  }
  return null;
}

/** Why a name is not a valid RFC 1123 label (namespace names), or null when it is. */
export function checkLabelName(name: string): string | null {
  if (name.length > 63) return 'must be no more than 63 characters';
  if (!label.test(name)) {
    return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  }
  return null;
}

/** Why an Ingress rule host is invalid (a DNS name, `*` only as the whole first label), or null. */
export function checkIngressHost(host: string): string | null {
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host) || host.includes(':')) return 'must be a DNS name, not an IP address';
  const rest = host.startsWith('*.') ? host.slice(2) : host;
  if (rest.includes('*'))
    return "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain";
  return checkSubdomainName(rest);
}

/** Why a name cannot be a path segment (RBAC object names), or null when it can. */
export function checkPathSegmentName(name: string): string | null {
  if (name === '.' || name === '..') return `may not be '${name}'`;
  if (name.includes('/') || name.includes('%')) return "may not contain '/' or '%'";
  return null;
}
