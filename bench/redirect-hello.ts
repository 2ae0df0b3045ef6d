// The ceiling for bench/redirect.ts: the smallest Bun.serve answer on this machine.
const server = Bun.serve({ port: Number(process.env.PORT ?? 0), hostname: '127.0.0.1', fetch: () => new Response('hello') });
console.log(server.port);
