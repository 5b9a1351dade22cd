import { AUDIT_COMMON, auditCommand } from './audit-command.ts';

/** `portolan explain`: where a vendor object or a route comes from, and when it last changed. */
export const explain = auditCommand(
  ['explain'],
  'explain',
  'which Kubernetes objects and events produced a vendor object or host/path, and when it last changed',
  `Usage: portolan explain <appliance> <vendor object | host/path[?query]> [--method <m>] [--header 'Name: value']...
                        [--snapshot <id>] [-o json|yaml]

A vendor object is named as \`portolan at\` / \`show --vendor\` list it (e.g. pools/portolan-pl-…, or just its
name); a request as host/path (e.g. shop.example.com/cart, */ for any host); with --method or --header, the
request's method, headers and query are judged against HTTPRoute conditions too. Prints the Kubernetes objects
(cluster/namespace/name, resourceVersion, last archived event) it comes from, and walks the snapshot chain back
to the snapshot where it last changed, with the events folded into it and the apply that pushed it.
Default: the appliance's head snapshot.
${AUDIT_COMMON}`,
);
