/** Whether something accepts TCP connections on 127.0.0.1:port: how tests see a launched server stopped. */
import { connect } from 'node:net';

export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
