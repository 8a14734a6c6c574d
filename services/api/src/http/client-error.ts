import type { Server } from "node:http";
import type { Socket } from "node:net";
import { GatewayError } from "@gateway/errors";

/**
 * Requests Node refuses before Express sees them (headers or URL over 16 kB, malformed HTTP) get
 * the documented error body too, not Node's bare status line.
 */
export function answerClientErrors(server: Server): void {
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const error =
      err.code === "HPE_HEADER_OVERFLOW"
        ? new GatewayError("headers_too_large")
        : new GatewayError("body_invalid", { message: "Malformed HTTP request." });
    const body = JSON.stringify(error.toBody());
    const reason = error.status === 431 ? "Request Header Fields Too Large" : "Bad Request";
    socket.end(
      `HTTP/1.1 ${error.status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
