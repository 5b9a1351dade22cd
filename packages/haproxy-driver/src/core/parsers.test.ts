import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseServersState } from './parse-servers-state.ts';
import { parseShowProc } from './parse-show-proc.ts';
import { parseMapEntries, parseMapList } from './parse-show-map.ts';

// Replies captured from HAProxy 2.6.12 on this machine.
const serversState = `1
# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state srv_uweight srv_iweight srv_time_since_last_change srv_check_status srv_check_result srv_check_health srv_check_state srv_agent_state bk_f_forced_id srv_f_forced_id srv_fqdn srv_port srvrecord srv_use_ssl srv_check_port srv_check_addr srv_agent_addr srv_agent_port
3 http:web 1 s1 127.0.0.1 2 8 7 1 0 1 0 2 0 0 0 0 - 19001 - 0 0 - - 0
3 http:web 2 s2 127.0.0.2 2 4 1 1 0 1 0 0 8 0 0 0 - 19002 - 0 0 - - 0
3 http:web 3 s3 127.0.0.1 0 5 1 1 0 1 0 0 8 0 0 0 - 1 - 0 0 - - 0
4 other 1 legacy 10.0.0.1 2 0 1 1 0 1 0 0 8 0 0 0 - 80 - 0 0 - - 0
`;

test('show servers state: slots with address, port, weight and drain / ready / maintenance from the admin bits', () => {
  assert.deepEqual(parseServersState(serversState), [
    {
      name: 'http:web',
      slots: [
        { name: 's1', address: '127.0.0.1', port: 19001, state: 'drain', weight: 7 },
        { name: 's2', address: '127.0.0.2', port: 19002, state: 'ready', weight: 1 },
        { name: 's3', address: '127.0.0.1', port: 1, state: 'maint', weight: 1 },
      ],
    },
    // `other/legacy` is not named like our slots: not ours, so not read back.
  ]);
});

test('show proc: master reloads and failures, current and old workers', () => {
  const text = `#<PID>          <type>          <reloads>       <uptime>        <version>
8314            master          2 [failed: 1]   0d00h00m29s     2.6.12-1+deb12u4
# workers
8703            worker          0               0d00h00m02s     2.6.12-1+deb12u4
# old workers
8317            worker          2               0d00h00m29s     2.6.12-1+deb12u4
# programs

`;
  assert.deepEqual(parseShowProc(text), {
    master: { pid: 8314, reloads: 2, failedReloads: 1 },
    workers: [{ pid: 8703, reloads: 0 }],
    oldWorkers: [{ pid: 8317, reloads: 2 }],
  });
  assert.equal(parseShowProc('Unknown command.\n'), null);
});

test("show map: the loaded files, and a file's entries sorted by key", () => {
  const list = `# id (file) description
0 (/tmp/hx/maps/exact.map) pattern loaded from file '/tmp/hx/maps/exact.map' used by map at file 'empty.cfg' line 20. curr_ver=0 next_ver=0 entry_cnt=1
3 (/tmp/hx/maps/wexact.map) pattern loaded from file '/tmp/hx/maps/wexact.map' used by map at file 'empty.cfg' line 22. curr_ver=0 next_ver=0 entry_cnt=1
`;
  assert.deepEqual(parseMapList(list), [
    { id: 0, file: '/tmp/hx/maps/exact.map' },
    { id: 3, file: '/tmp/hx/maps/wexact.map' },
  ]);
  assert.deepEqual(parseMapEntries('0x55d0c1a0b2c0 b.test/ http:b\n0x55d0c1a0b300 a.test/ http:a\n'), [
    ['a.test/', 'http:a'],
    ['b.test/', 'http:b'],
  ]);
});
