// Test fakes of @portolan/audit for other workspaces' tests (`@portolan/audit/testing`): desired states built
// from a few lines. Never imported by the audit's own runtime code.
export { certificate, desired, pool, ref, route, shop, vs } from './desired-fixture.ts';
