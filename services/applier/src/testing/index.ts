// Test fakes of the applier, for tests of other workspaces: imported as @portolan/applier/testing, never from
// the package's public index.
export {
  FakeAppliance,
  FakeApplianceDriver,
  renderFake,
  diffFake,
  type FakeObjects,
  type FakeWrite,
} from './fake-appliance.ts';
export { writeSnapshot } from './snapshot-writer.ts';
