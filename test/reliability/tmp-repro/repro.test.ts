import { startTestServer } from '../../helpers/server';
import { recordsOf, send } from '../../reliability/support';
test('repro', async () => {
  const server = await startTestServer({ env: { RATE_LIMIT_PER_MINUTE: '1000000000' } });
  const acme = await recordsOf(server, 'acme');
  const r1 = await send(server.baseUrl, { method: 'GET', path: '/api/v1/users?', headers: { authorization: `bearer ${acme.key}` }, body: '{', chunked: true });
  const r0 = await send(server.baseUrl, { method: 'GET', path: '/api/v1/users?', headers: { authorization: 'bearer x' }, body: '{', chunked: false }); console.log(r0.status, r0.headers['x-request-id']);
  console.log(r1.status, r1.headers, r1.text);
  for (const b of [{ student_id: '\ud800', course_id: 'x' }, { student_id: 'x', course_id: '\u0000' }, { student_id: 'usr_\u0000', course_id: 'x' }]) {
    const r2 = await send(server.baseUrl, { method: 'POST', path: '/api/v1/enrollments', headers: { authorization: `Bearer ${acme.key}`, 'content-type': 'application/json' }, body: JSON.stringify(b) });
    console.log(JSON.stringify(b), r2.status, r2.text.slice(0, 100));
  }
  console.log(server.logs().split('\n').filter(l => l.includes('"level":50')).join('\n').slice(0, 3000));
  await server.stop();
});
