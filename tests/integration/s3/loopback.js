// Preloaded into the S3 emulator (node --require): every listen() binds 127.0.0.1 only,
// whatever host the emulator asks for (fauxqs binds 0.0.0.0 by itself).
'use strict';
const net = require('net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
    if (args.length > 0 && typeof args[0] === 'object' && args[0] !== null) {
        args[0] = Object.assign({}, args[0], { host: '127.0.0.1' });
    } else if (typeof args[0] === 'number' || typeof args[0] === 'string') {
        if (typeof args[1] === 'string') {
            args[1] = '127.0.0.1';
        } else {
            args.splice(1, 0, '127.0.0.1');
        }
    }
    return listen.apply(this, args);
};
