// Preloaded into the console process (node --import): stamps the TCP peer address
// of every request into the `x-tickflow-peer-address` header, overwriting anything
// a client sent, because Next.js gives route handlers and server actions no other
// way to learn it (lib/auth/client-address.ts reads it, for the login rate limit).
import http from 'node:http';

const HEADER = 'x-tickflow-peer-address';
globalThis.__tickflowPeerAddressHook = true;
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, req, ...rest) {
  if (event === 'request' && req && req.headers) {
    delete req.headers[HEADER];
    const addr = req.socket?.remoteAddress;
    if (addr) req.headers[HEADER] = addr;
    // rawHeaders too: some code paths rebuild headers from them
    if (Array.isArray(req.rawHeaders)) {
      for (let i = req.rawHeaders.length - 2; i >= 0; i -= 2) if (String(req.rawHeaders[i]).toLowerCase() === HEADER) req.rawHeaders.splice(i, 2);
      if (addr) req.rawHeaders.push(HEADER, addr);
    }
  }
  return emit.call(this, event, req, ...rest);
};
