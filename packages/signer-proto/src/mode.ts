// The one mapping between a mode's name (`live`, `test`: what services, keys and signed messages
// spell) and its value in the wire contract's `enum Mode`. test/consistency fails on another copy.
import { Mode } from "./gen/gateway/signer/v1/signer_pb.js";

/** A mode as the signed messages spell it: its enum value's name in lower case (`MODE_LIVE`: "live"). */
export type ModeName = Exclude<Lowercase<keyof typeof Mode>, "unspecified">;

export const MODE_TO_PROTO: Readonly<Record<ModeName, Mode>> = { live: Mode.LIVE, test: Mode.TEST };

export const MODE_NAMES = Object.keys(MODE_TO_PROTO) as readonly ModeName[];

/** The name of a proto mode, or undefined for `MODE_UNSPECIFIED` or a value this build does not know. */
export function modeFromProto(mode: Mode): ModeName | undefined {
  return MODE_NAMES.find((name) => MODE_TO_PROTO[name] === mode);
}
