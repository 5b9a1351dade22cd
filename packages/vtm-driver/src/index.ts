// vTM driver: renders the desired state into vTM objects, diffs against the read-back and pushes through REST.
export { VtmDriver, createVtmDriver, VtmDriverConfigError, type VtmDriverOptions } from './vtm-driver.ts';
export {
  VtmRestClient,
  VtmTransportError,
  type VtmRestClientOptions,
  type VtmReply,
} from './adapters/vtm-rest-client.ts';
export { renderVtm, type VtmRenderConfig, type VtmRenderInputs } from './core/render-vtm.ts';
export { acmeChallengeRule, ACME_CHALLENGE_PATH, type AcmeHttpChallenge } from './core/traffic-script.ts';
export { diffVtm } from './core/diff-vtm.ts';
export { vtmName, MAX_NAME_LENGTH, NAME_PREFIX } from './core/vtm-names.ts';
export {
  writeOrder,
  type VtmObjects,
  type VtmObject,
  type VtmJsonObject,
  type VtmRuleObject,
  type VtmObjectType,
} from './core/vtm-objects.ts';
export { VtmRouteRefusedError } from './core/route-values.ts';
